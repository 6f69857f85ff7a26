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

; Properties (`int Count { get; set; }`, `int X => 1`) and indexers: members a caller uses.
(property_declaration
  name: (identifier) @name
  accessors: (accessor_list) @body) @definition.function
(property_declaration
  name: (identifier) @name
  value: (arrow_expression_clause) @body) @definition.function

; Operators: `Unit.operator ==`, `Unit.operator implicit int`.
(operator_declaration
  "operator" @name
  operator: _ @name
  body: (_) @body) @definition.function
(conversion_operator_declaration
  "operator" @name
  type: (_) @name
  body: (_) @body) @definition.function
