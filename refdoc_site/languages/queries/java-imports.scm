; Imports (see python-imports.scm for the captures); `java.io.*` is the package `java.io`.
(import_declaration [(identifier) (scoped_identifier)] @import)
