; Call sites (see python-calls.scm for the captures).
(invocation_expression
  function: [(identifier) @name
             (member_access_expression name: (identifier) @name)
             (generic_name (identifier) @name)] @callee)

(object_creation_expression
  type: [(identifier) @name
         (generic_name (identifier) @name)])

(attribute_list) @ignore
