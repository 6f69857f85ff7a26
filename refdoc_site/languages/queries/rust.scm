; Free functions, and methods inside `impl` / `trait` blocks (named through the block).
(function_item
  name: (identifier) @name
  body: (block) @body) @definition.function

; Trait methods without a default body: `fn area(&self) -> f64;` → Trait.area
(function_signature_item
  name: (identifier) @name) @definition.function

; struct / enum / union / trait: one class chunk each
(struct_item
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.class
; tuple and unit structs: the whole declaration is the signature
(struct_item
  name: (type_identifier) @name
  body: (ordered_field_declaration_list)) @definition.class
(struct_item
  name: (type_identifier) @name
  !body) @definition.class
(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.class
(union_item
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.class
(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.class

; `impl Foo`, `impl<T> Foo<T>`, `impl Trait for Foo`, `impl fmt::Display for a::Foo`:
; the block only lends the implementing type's name: methods become Foo.method, and a
; trait's impl (@implements) is said in their signature (`Display` and `Debug` both give `fmt`).
(impl_item
  trait: (_)? @implements
  type: [(type_identifier) @name
         (generic_type type: (type_identifier) @name)
         (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
         (scoped_type_identifier name: (type_identifier) @name)
         (primitive_type) @name]
  body: (declaration_list)) @scope

; `type Result<T> = …`: an alias is a type of the API like any other.
; (An associated `type Item = …;` of an impl is part of that impl, not a type of its own.)
(source_file
  (type_item
    name: (type_identifier) @name) @definition.class)
(mod_item
  body: (declaration_list
    (type_item
      name: (type_identifier) @name) @definition.class))

; `macro_rules! bail { … }`: the signature stops at the first rule.
(macro_definition
  name: (identifier) @name
  (macro_rule) @body) @definition.function

; An inline `mod name { … }` lends its name: items inside are `name.item`, functions
; still functions.
(mod_item
  name: (identifier) @name
  body: (declaration_list)) @scope.namespace
