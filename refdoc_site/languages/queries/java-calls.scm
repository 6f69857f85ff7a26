; Call sites (see python-calls.scm for the captures). A method invocation spans its
; arguments, so @callee marks where the name as written starts (its object, if any).
(method_invocation
  object: (_) @callee
  name: (identifier) @name)

(method_invocation
  !object
  name: (identifier) @name)

(object_creation_expression
  type: [(type_identifier) @name
         (generic_type (type_identifier) @name)
         (scoped_type_identifier (type_identifier) @name .)])

(annotation) @ignore
