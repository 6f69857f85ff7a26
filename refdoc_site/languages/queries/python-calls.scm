; Call sites. @name: the called name (where the language server is asked for its
; definition); @callee: the whole called expression, read as the name as written
; (`self.parse`, `os.path.join`); @ignore: calls inside it do not count.
(call
  function: [(identifier) @name
             (attribute attribute: (identifier) @name)] @callee)

; A decorator runs when the function is defined, not when it is called.
(decorator) @ignore
