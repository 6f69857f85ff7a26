; Imports (see python-imports.scm for the captures).
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @import))
; Exported package-level constants and variables: API no definition chunk holds.
(source_file (const_declaration (const_spec name: (identifier) @export (#match? @export "^[A-Z]"))) @declares)
(source_file (var_declaration (var_spec name: (identifier) @export (#match? @export "^[A-Z]"))) @declares)
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @export (#match? @export "^[A-Z]")))) @declares)
