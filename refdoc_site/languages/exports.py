"""What each language makes public, and how a reader names what it exports.

Data for the analysis (`indexing/regex_tier.py: is_exported`) and the API lists of the
hierarchy (`understanding/hierarchy.py`): no phase names a language for this in code.
"""

from __future__ import annotations

import re

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
