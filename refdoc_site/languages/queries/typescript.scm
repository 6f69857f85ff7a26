; class Foo {}  /  class Foo extends Bar {}
(class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class
(interface_declaration
  name: (type_identifier) @name
  body: (interface_body) @body) @definition.class
(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.class
(function_signature
  name: (identifier) @name) @definition.function

