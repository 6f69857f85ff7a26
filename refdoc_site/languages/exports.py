"""What each language makes public, and how a reader names what it exports.

Data for the analysis (`indexing/regex_tier.py: is_exported`) and the API lists of the
hierarchy (`understanding/hierarchy.py`): no phase names a language for this in code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EXPORT_RULES = {
    "python": "underscore",
    "go": "capitalized",
    "rust": "pub",
    "java": "public",
    "csharp": "public",
    "javascript": "export",
    "typescript": "export",
    "tsx": "export",
    "c": "not static",
    "cpp": "not static",
}
"""How each language marks a definition as public. A language without a rule has every
top-level definition listed as its file's API."""


@dataclass(frozen=True)
class Visibility:
    """What else than its own keyword decides whether a definition is API, in one language."""

    public: re.Pattern[str] | None = None
    """A signature this matches declares the definition public (Rust `pub`, not `pub(crate)`)."""
    members_public_in: re.Pattern[str] | None = None
    """An enclosing declaration this matches makes its members public without a keyword
    (an interface, a trait), unless the member says otherwise (`private_member`)."""
    private_member: re.Pattern[str] | None = None
    hidden_above: re.Pattern[str] | None = None
    """An attribute or doc line above the definition that takes it out of the API
    (`#[doc(hidden)]`)."""
    public_above: re.Pattern[str] | None = None
    """One that makes it API whatever its keyword (`#[macro_export]`)."""
    above: re.Pattern[str] | None = None
    """The lines above a definition that are its attributes and doc comments."""
    scope_declaration: re.Pattern[str] | None = None
    """The line declaring an enclosing scope (a Rust inline `mod`): groups `public` (the
    visibility as written, public when it is `public_scope`) and `name`; its attributes
    are the `above` lines over it."""
    public_scope: str = ""
    header_only: re.Pattern[str] | None = None
    """Signatures that are API only in a header file: a macro or a type defined in a `.c`
    file is local to it."""


RUST_ATTRIBUTES = re.compile(r"^\s*(?:#!?\[.*|//[/!].*)$")
C_HEADER_ONLY = re.compile(r"^(?:#\s*define|typedef|struct|union|enum|class)\b")
VISIBILITY: dict[str, Visibility] = {
    "rust": Visibility(
        public=re.compile(r"^pub\s|\spub\s|^pub$"),
        members_public_in=re.compile(r"\btrait\b"),
        hidden_above=re.compile(r"^\s*#\[doc\s*\(\s*hidden\s*\)\]"),
        public_above=re.compile(r"^\s*#\[macro_export\b"),
        above=RUST_ATTRIBUTES,
        scope_declaration=re.compile(r"(?m)^[ \t]*(?P<public>pub(?:\([^()\n]*\))?[ \t]+)?mod[ \t]+(?P<name>\w+)[ \t]*\{"),
        public_scope="pub",
    ),
    "java": Visibility(
        public=re.compile(r"\bpublic\b"),
        members_public_in=re.compile(r"(?:^|\s)@?interface\b"),
        private_member=re.compile(r"\bprivate\b"),
    ),
    "csharp": Visibility(
        public=re.compile(r"\bpublic\b"),
        members_public_in=re.compile(r"\binterface\b"),
        private_member=re.compile(r"\b(?:private|protected|internal)\b"),
    ),
    "c": Visibility(header_only=C_HEADER_ONLY),
    "cpp": Visibility(header_only=C_HEADER_ONLY),
}
"""Per language, the rules beyond `EXPORT_RULES` (`indexing/regex_tier.py: is_exported`);
every enclosing definition must be API too (a public method of a package-private class
is not), and Go's capital letter holds for the receiver type as for the method."""
HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".inc")


@dataclass(frozen=True)
class ModuleFiles:
    """A language whose modules are files declared by a parent file (Rust's `mod chain;`
    in `src/lib.rs` is `src/chain.rs` or `src/chain/mod.rs`): a file's items are API only
    when every declaration on the way from the crate root is public."""

    roots: tuple[str, ...]
    """File names of a crate root whose declarations start the tree."""
    folder_files: tuple[str, ...]
    """File names whose declared modules live beside them, not in a folder of their name."""
    declaration: re.Pattern[str]
    """A module declared in its parent's text; groups `public` (`pub` for a public one) and
    `name`."""
    attribute: re.Pattern[str]
    """A line above a declaration that belongs to it."""
    hidden: re.Pattern[str]
    """An attribute that hides the module however it is declared."""
    crate_wide: re.Pattern[str]
    """A signature that is API wherever it is defined (`#[macro_export] macro_rules!`)."""


MODULE_FILES: dict[str, ModuleFiles] = {
    "rust": ModuleFiles(
        roots=("lib.rs",),
        folder_files=("lib.rs", "main.rs", "mod.rs"),
        declaration=re.compile(r"^[ \t]*(?:(?P<public>pub(?:\([^()\n]*\))?)[ \t]+)?mod[ \t]+(?P<name>\w+)[ \t]*;"),
        attribute=re.compile(r"^[ \t]*#\["),
        hidden=re.compile(r"#\[doc\s*\(\s*hidden\s*\)\]"),
        crate_wide=re.compile(r"^macro_rules!"),
    ),
}
"""Per language with module files, how its module tree is read (`understanding/crate_api.py`)."""

ECMASCRIPT = ("javascript", "typescript", "tsx")
"""Languages that share CommonJS exports and JSDoc conventions."""

EXPORT_OBJECTS: dict[str, tuple[str, ...]] = {language: ("module.exports", "exports") for language in ECMASCRIPT}
"""Names that are the file's exported object itself: a member assigned to one
(`exports.parse = …`) is exported, and its API name drops the object (`parse`), since a
caller reaches it through whatever name it imported the file under. A name bound to the
exported object (`var app = module.exports = {}`) is kept (`app.use`): that is how the
project's own documentation and its users call it."""

LEADING_UNDERSCORE = re.compile(r"^_")
PRIVATE_BY_CONVENTION: dict[str, re.Pattern[str]] = {
    language: LEADING_UNDERSCORE for language in ("python", *ECMASCRIPT)
}
"""A name the language's convention marks private even when declared public: a member
on an exported object (`Route.prototype._options`), a dunder in `__all__`
(`__version__`). Not API."""
JSDOC_PRIVATE = re.compile(r"(?m)^\s*(?:@private|@api\s+private|@internal|@ignore)\b")
PRIVATE_DOC_TAGS: dict[str, re.Pattern[str]] = {language: JSDOC_PRIVATE for language in ECMASCRIPT}
"""Doc comment tags that take a definition out of the API (JSDoc `@private`, TSDoc
`@internal`): express assigns its internal helpers to the exported object and says so."""

API_KIND_ORDER = ("class", "function", "method")
"""Order of a file's API list: the types a user constructs, then the functions a user
calls, then members assigned to an exported object; source order within each."""


def exported_object(symbol: str, language: str) -> str:
    """The export object a symbol is a member of (`exports` for `exports.parse`), or ""."""
    for name in EXPORT_OBJECTS.get(language, ()):
        if symbol == name or symbol.startswith(name + "."):
            return name
    return ""


def api_name(symbol: str, language: str) -> str:
    """A public symbol as a caller writes it: `exports.parse` → `parse`, `res.send` stays."""
    owner = exported_object(symbol, language)
    return symbol[len(owner) + 1 :] if owner and symbol != owner else symbol


def marked_private(name: str, docstring: str, language: str) -> bool:
    """Whether the language's naming convention or the definition's doc comment says it
    is internal, whatever object it is assigned to."""
    convention = PRIVATE_BY_CONVENTION.get(language)
    tags = PRIVATE_DOC_TAGS.get(language)
    return bool(convention and convention.search(name)) or bool(tags and tags.search(docstring))
