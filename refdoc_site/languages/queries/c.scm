; Function definitions; the name comes from the declarator, also through pointer
; declarators (`char *dup(...)`, `char **split(...)`) and `int (*handler(int))(int)`.
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)
  body: (compound_statement) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))
  body: (compound_statement) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name)))
  body: (compound_statement) @body) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator
          declarator: (identifier) @name))))
  body: (compound_statement) @body) @definition.function

; Structs, unions and enums with a body. `typedef struct { … } name_t;` takes the
; typedef's name; a named struct inside a typedef keeps its own tag.
(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.class
(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.class
(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.class
(type_definition
  type: [(struct_specifier !name body: (field_declaration_list) @body)
         (union_specifier !name body: (field_declaration_list) @body)
         (enum_specifier !name body: (enumerator_list) @body)]
  declarator: (type_identifier) @name) @definition.class

; Function-like macros (`#define cJSON_ArrayForEach(element, array) …`): part of an API
; as much as a function is; the signature stops at the replacement text.
(preproc_function_def
  name: (identifier) @name
  value: (preproc_arg) @body) @definition.function
