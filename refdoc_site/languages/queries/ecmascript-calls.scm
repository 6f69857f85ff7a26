; Call sites (see python-calls.scm for the captures).
(call_expression
  function: [(identifier) @name
             (member_expression property: (property_identifier) @name)] @callee)

(new_expression
  constructor: [(identifier) @name
                (member_expression property: (property_identifier) @name)] @callee)

(decorator) @ignore
