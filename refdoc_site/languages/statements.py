"""How each language writes the statements a summary can describe without a docstring:
what a function returns, what it raises, and which names stand for the instance.

Data only; `indexing.code_facts` reads it. A language missing here gets no such sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RETURN_STATEMENT = re.compile(r"^\s*return\s+(.+?);?\s*$")
"""`return EXPR` (an optional `;` after it), as most languages write it."""


@dataclass(frozen=True)
class StatementShapes:
    """Patterns of one language's statements, each applied line by line to a chunk's body."""

    raises: re.Pattern[str]
    """A statement that raises or throws; group 1 names what (may be empty)."""
    constructs: re.Pattern[str]
    """An expression that builds an instance of a named type; group 1 is the type."""
    words: dict[str, str]
    """Space-separated words of each kind: `instance` (the receiver's names: returning one
    makes calls chain), `literals` (constants: returning one says little beyond a flag or an
    absence), `builtins` (built-in functions and conversions, whose calls say nothing about
    what a definition does)."""
    raise_phrase: str = "raises"
    """The label tables' phrase that says it: `raises`, `throws`, `panics` ("Panics with")."""
    returns: re.Pattern[str] = RETURN_STATEMENT
    """A `return` statement; group 1 is the returned expression."""
    receiver: re.Pattern[str] | None = None
    """On a method's signature, group 1: the receiver's name where the method names it (Go)."""

    def named(self, kind: str) -> frozenset[str]:
        """The words of one kind of `words`."""
        return frozenset(self.words.get(kind, "").split())


_PYTHON = StatementShapes(
    raises=re.compile(r"^\s*raise\s+([A-Za-z_][\w.]*)?"),
    constructs=re.compile(r"^([A-Z][\w]*(?:\.[A-Z]\w*)*)\("),
    words={
        "instance": "self cls",
        "literals": "True False None NotImplemented",
        "builtins": "int str bool float complex list dict set tuple bytes bytearray frozenset object slice",
    },
)
_ECMASCRIPT = StatementShapes(
    raises=re.compile(r"\bthrow\s+(?:new\s+([A-Za-z_$][\w.$]*))?"),
    constructs=re.compile(r"^new\s+([A-Za-z_$][\w.$]*)\s*\("),
    words={"instance": "this", "literals": "true false null undefined", "builtins": "String Number Boolean Array Object Symbol BigInt require"},
    raise_phrase="throws",
)
_GO = StatementShapes(
    raises=re.compile(r"\bpanic\((?:([A-Za-z_][\w.]*)\()?"),
    constructs=re.compile(r"^&?([A-Z]\w*(?:\.[A-Z]\w*)?)\{"),
    words={"literals": "true false nil", "builtins": "len cap make append new copy delete panic recover string int int64 float64 byte rune"},
    raise_phrase="panics",
    receiver=re.compile(r"^\s*func\s*\(\s*(\w+)"),
)

STATEMENTS: dict[str, StatementShapes] = {
    "python": _PYTHON,
    "javascript": _ECMASCRIPT,
    "typescript": _ECMASCRIPT,
    "tsx": _ECMASCRIPT,
    "go": _GO,
}
"""Language name → its statement shapes."""
