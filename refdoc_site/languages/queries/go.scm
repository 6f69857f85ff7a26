(function_declaration
  name: (identifier) @name
  body: (block) @body) @definition.function

; func (s *Server) Handle() → Server.Handle
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name
  body: (block) @body) @definition.function

; Every named type, one entry per spec of a grouped `type ( … )` block: structs and
; interfaces (signature up to the body), and the rest (`type PositionalArgs func(…) error`,
; `type ShellCompDirective int`, aliases) whole.
(type_spec
  name: (type_identifier) @name
  type: [(struct_type) (interface_type)] @body) @definition.class
(type_spec
  name: (type_identifier) @name
  type: (_) @_type
  (#not-any-of? @_type "struct_type" "interface_type")) @definition.class
(type_alias
  name: (type_identifier) @name) @definition.class
