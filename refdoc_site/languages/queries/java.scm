; Classes and class-like declarations; nested ones are named Outer.Inner.
(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @definition.class
(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.class
(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @definition.class

; Methods, with a body or abstract / interface methods without one.
(method_declaration
  name: (identifier) @name
  body: (block) @body) @definition.function
(method_declaration
  name: (identifier) @name
  !body) @definition.function

; Constructors keep the class's name as written: Shape.Shape
(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @definition.function
(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @definition.function
