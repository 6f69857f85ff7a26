; Shared by JavaScript, TypeScript and TSX; each adds its own class patterns.
; function foo() {}  /  function* gen() {}
(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function
(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

; methods, getters and setters inside a class body
(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.function

; const foo = function () {} / const foo = () => {}
(variable_declarator
  name: (identifier) @name
  value: [(function_expression body: (_) @body)
          (arrow_function body: (_) @body)
          (generator_function body: (_) @body)]) @definition.function

; const Foo = class {}
(variable_declarator
  name: (identifier) @name
  value: (class body: (class_body) @body)) @definition.class

; res.send = function send() {} / X.prototype.m = function () {} / exports.f = () => {}
(expression_statement
  (assignment_expression
    left: [(member_expression) (identifier)] @name
    right: [(function_expression body: (_) @body)
            (arrow_function body: (_) @body)
            (generator_function body: (_) @body)])) @definition.function

; defineGetter(req, 'ip', function ip() {}): a property defined through a helper
(expression_statement
  (call_expression
    arguments: (arguments
      .
      (identifier) @name.object
      .
      (string (string_fragment) @name.property)
      .
      (function_expression body: (_) @body)))) @definition.function

; module.exports = class Application {} — the class keeps its own name
(expression_statement
  (assignment_expression
    right: (class
      name: (_) @name
      body: (class_body) @body))) @definition.class

; const proto = {…} / const proto = module.exports = {…}: members become proto.member
(variable_declarator
  name: (identifier) @name
  value: [(object) (assignment_expression right: (object))]) @scope

; { key: function () {} } / { key: () => {} } inside an object literal
(pair
  key: [(property_identifier) (string (string_fragment))] @name
  value: [(function_expression body: (_) @body)
          (arrow_function body: (_) @body)]) @definition.function
