; Imports and exports (see python-imports.scm for the captures): static and dynamic
; imports, re-exports, require(); every exported declaration and specifier.
(import_statement source: (string (string_fragment) @import))
(export_statement source: (string (string_fragment) @import))
(call_expression
  function: [(import) (identifier) @_require]
  arguments: (arguments . (string (string_fragment) @import))
  (#not-eq? @_require "import"))

(program (export_statement) @declares)
(export_statement declaration: [(function_declaration name: (identifier) @export)
                                (generator_function_declaration name: (identifier) @export)
                                (class_declaration name: (_) @export)])
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @export)))
(export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @export)))
(export_statement value: (identifier) @export)
(export_statement (export_clause (export_specifier name: (_) @export !alias)))
(export_statement (export_clause (export_specifier alias: (_) @export)))
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (identifier) @export
  (#eq? @_module "module") (#eq? @_exports "exports"))
(assignment_expression
  left: (member_expression object: [(identifier) @_exports
                                    (member_expression object: (identifier) @_module
                                                       property: (property_identifier) @_exports)]
                           property: (property_identifier) @export)
  (#eq? @_exports "exports"))
