; class Foo {}  /  class Foo extends Bar {}
(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

