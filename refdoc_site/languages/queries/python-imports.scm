; Imports and explicit exports. @import: a module as written (`os.path`, `..models`);
; @member: a name imported from the @import of the same match, joined to it
; (`.models.User`); @export: a name the file declares public; @declares: the declaration
; that lists them (an empty `__all__` still declares).
(import_statement name: [(dotted_name) @import
                         (aliased_import name: (dotted_name) @import)])

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import
  name: [(dotted_name) @member
         (aliased_import name: (dotted_name) @member)])

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import
  (wildcard_import))

(module
  (expression_statement
    [(assignment left: (identifier) @_all right: [(list) (tuple)] @declares)
     (augmented_assignment left: (identifier) @_all right: [(list) (tuple)] @declares)]
    (#eq? @_all "__all__")))

(module
  (expression_statement
    [(assignment left: (identifier) @_all right: [(list (string (string_content) @export))
                                                   (tuple (string (string_content) @export))])
     (augmented_assignment left: (identifier) @_all right: [(list (string (string_content) @export))
                                                             (tuple (string (string_content) @export))])]
    (#eq? @_all "__all__")))
