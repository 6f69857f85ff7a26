; Imports (see python-imports.scm for the captures).
(using_directive [(identifier) (qualified_name)] @import)
; The namespaces a file declares: what a `using` elsewhere names (@namespace).
(namespace_declaration name: [(identifier) (qualified_name)] @namespace)
(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @namespace)
