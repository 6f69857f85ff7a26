; Includes (see python-imports.scm for the captures).
(preproc_include path: [(string_literal (string_content) @import)
                        (system_lib_string) @import])
