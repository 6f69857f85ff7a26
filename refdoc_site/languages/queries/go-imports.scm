; Imports (see python-imports.scm for the captures).
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @import))
