; Types; namespaces are not captured, so they never prefix names.
(class_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.class
(interface_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.class
(struct_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.class
(record_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.class
(record_declaration
  name: (identifier) @name
  !body) @definition.class
(enum_declaration
  name: (identifier) @name
  body: (enum_member_declaration_list) @body) @definition.class

; Methods: block body, expression body (`=> x`) or none (interface, abstract, extern).
(method_declaration
  name: (identifier) @name
  body: (_) @body) @definition.function
(method_declaration
  name: (identifier) @name
  !body) @definition.function

; Constructors: Class.Class
(constructor_declaration
  name: (identifier) @name
  body: (_) @body) @definition.function
