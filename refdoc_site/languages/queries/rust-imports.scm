; Imports (see python-imports.scm for the captures): `use` paths, one target per name of
; a use list, `mod x;` and `extern crate`.
(use_declaration argument: [(identifier) (scoped_identifier) (crate)] @import)
(use_declaration argument: (use_as_clause path: (_) @import))
(use_declaration argument: (use_wildcard (_) @import))
(use_declaration argument: (scoped_use_list
  path: (_) @import
  list: (use_list [(identifier) (scoped_identifier)] @member)))
(use_declaration argument: (scoped_use_list
  path: (_) @import
  list: (use_list (use_as_clause path: (_) @member))))
(mod_item name: (identifier) @import !body)
(extern_crate_declaration name: (identifier) @import)
; `pub use` re-exports: the name a user of the module writes (`pub use anyhow as
; format_err` → format_err). `pub(crate) use` is not public.
(source_file (use_declaration (visibility_modifier) @_visibility (#eq? @_visibility "pub")
  argument: [(identifier) @export
             (scoped_identifier name: (identifier) @export)
             (use_as_clause alias: (identifier) @export)
             (scoped_use_list list: (use_list [(identifier) @export
                                               (scoped_identifier name: (identifier) @export)
                                               (use_as_clause alias: (identifier) @export)]))]) @declares)
