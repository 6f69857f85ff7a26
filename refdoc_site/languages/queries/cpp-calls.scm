; Call sites (see python-calls.scm for the captures).
(call_expression
  function: [(identifier) @name
             (field_expression field: (field_identifier) @name)
             (qualified_identifier name: (identifier) @name)
             (template_function name: (identifier) @name)
             (qualified_identifier name: (template_function name: (identifier) @name))] @callee)
