; Call sites (see python-calls.scm for the captures).
(call_expression
  function: [(identifier) @name
             (selector_expression field: (field_identifier) @name)] @callee)
