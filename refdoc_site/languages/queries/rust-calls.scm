; Call sites (see python-calls.scm for the captures). Macros are not calls here.
(call_expression
  function: [(identifier) @name
             (scoped_identifier name: (identifier) @name)
             (field_expression field: (field_identifier) @name)
             (generic_function function: [(identifier) @name
                                          (scoped_identifier name: (identifier) @name)
                                          (field_expression field: (field_identifier) @name)])] @callee)

(attribute_item) @ignore
