; TypeScript's own exported declarations, beside ecmascript-imports.scm.
(export_statement declaration: [(interface_declaration name: (_) @export)
                                (type_alias_declaration name: (_) @export)
                                (enum_declaration name: (_) @export)
                                (abstract_class_declaration name: (_) @export)
                                (function_signature name: (_) @export)])
