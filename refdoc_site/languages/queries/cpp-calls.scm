; Call sites (see python-calls.scm for the captures).
(call_expression
  function: [(identifier) @name
             (field_expression field: (field_identifier) @name)
             (qualified_identifier name: (identifier) @name)
             (template_function name: (identifier) @name)
             (qualified_identifier name: (template_function name: (identifier) @name))] @callee)

; A constructor runs for `new Foo(…)` and for a local built with arguments (`Random rnd(301);`).
(new_expression
  type: [(type_identifier) @name
         (qualified_identifier name: (type_identifier) @name)
         (template_type name: (type_identifier) @name)] @callee)

(declaration
  type: [(type_identifier) @name
         (qualified_identifier name: (type_identifier) @name)] @callee
  declarator: (init_declarator value: (argument_list)))
