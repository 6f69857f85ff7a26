; Function definitions, free or inside a class body. The declarator gives the name,
; also through pointer / reference declarators; `void Foo::bar()` is written
; `Foo::bar` and becomes Foo.bar through the language's `::` rewrite. Namespaces are
; not captured, so they never prefix names. `= default` / `= delete` have no body.
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier)
                 (destructor_name) (operator_name)] @name)
  body: (_) @body) @definition.function
(function_definition
  declarator: [(pointer_declarator
                 declarator: (function_declarator
                   declarator: [(identifier) (field_identifier) (qualified_identifier)
                                (operator_name)] @name))
               (reference_declarator
                 (function_declarator
                   declarator: [(identifier) (field_identifier) (qualified_identifier)
                                (operator_name)] @name))]
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (field_identifier) (qualified_identifier)] @name)))
  body: (_) @body) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator
          declarator: [(identifier) (qualified_identifier)] @name))))
  body: (_) @body) @definition.function

; Classes, structs, unions and enums with a body; nested ones are Outer.Inner, and so is
; one a source file defines out of its class (`struct DBImpl::Writer {`).
(class_specifier
  name: [(type_identifier) (template_type) (qualified_identifier)] @name
  body: (field_declaration_list) @body) @definition.class
(struct_specifier
  name: [(type_identifier) (template_type) (qualified_identifier)] @name
  body: (field_declaration_list) @body) @definition.class
(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.class
(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.class
(type_definition
  type: [(struct_specifier !name body: (field_declaration_list) @body)
         (class_specifier !name body: (field_declaration_list) @body)
         (union_specifier !name body: (field_declaration_list) @body)
         (enum_specifier !name body: (enumerator_list) @body)]
  declarator: (type_identifier) @name) @definition.class
