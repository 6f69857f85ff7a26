; Imports (see python-imports.scm for the captures).
(using_directive [(identifier) (qualified_name)] @import)
