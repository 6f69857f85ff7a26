; Imports and exports (see python-imports.scm for the captures): static and dynamic
; imports, re-exports, require(); every exported declaration and specifier.
(import_statement source: (string (string_fragment) @import))
(export_statement source: (string (string_fragment) @import))
; only the argument of require() or import() names a module: other calls with a string
; first (deprecate('message'), debug('%s')) take prose
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import))
  (#eq? @_require "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import)))

(program (export_statement) @declares)
(export_statement declaration: [(function_declaration name: (identifier) @export)
                                (generator_function_declaration name: (identifier) @export)
                                (class_declaration name: (_) @export)])
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @export)))
(export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @export)))
(export_statement value: (identifier) @export)
(export_statement (export_clause (export_specifier name: (_) @export !alias)))
(export_statement (export_clause (export_specifier alias: (_) @export)))
; module.exports = name, also at the end of a chain (exports = module.exports = name)
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(identifier) @export
          (assignment_expression right: (identifier) @export)]
  (#eq? @_module "module") (#eq? @_exports "exports"))
; var app = module.exports = {…} / var app = exports = module.exports = {…}: what the
; file exports is bound to `app`, so app.use = … is exported too
(variable_declarator
  name: (identifier) @export
  value: (assignment_expression
    left: [(identifier) @_exports
           (member_expression object: (identifier) @_module property: (property_identifier) @_exports)])
  (#eq? @_exports "exports") (#eq? @_module "module"))
; module.exports = { alpha, beta: gamma }: the object's keys
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (object [(shorthand_property_identifier) @export
                  (pair key: [(property_identifier) (string (string_fragment))] @export)
                  (method_definition name: (property_identifier) @export)])
  (#eq? @_module "module") (#eq? @_exports "exports"))
; Object.defineProperty(exports, 'name', …), as compilers and lazy getters write it
(call_expression
  function: (member_expression object: (identifier) @_object property: (property_identifier) @_define)
  arguments: (arguments . [(identifier) @_exports
                           (member_expression object: (identifier) @_module property: (property_identifier) @_exports)]
                         . (string (string_fragment) @export))
  (#eq? @_object "Object") (#eq? @_define "defineProperty") (#eq? @_exports "exports") (#eq? @_module "module")
  (#not-eq? @export "__esModule"))
(assignment_expression
  left: (member_expression object: [(identifier) @_exports
                                    (member_expression object: (identifier) @_module
                                                       property: (property_identifier) @_exports)]
                           property: (property_identifier) @export)
  (#eq? @_exports "exports"))
