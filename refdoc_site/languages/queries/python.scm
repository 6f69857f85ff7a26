; Functions and methods; nested functions are folded into their enclosing chunk by the chunker.
(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class
