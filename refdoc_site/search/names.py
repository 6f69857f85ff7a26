"""Names first: a query that is a definition's name puts that definition at the top.

Someone who types `Context`, `context`, `click.Context`, `Context.invoke()` or
`progress bar` (the words of `progressbar` / `ProgressBar`) is looking a definition up;
word scores alone let a method whose body repeats the name, or a private helper, win.
`browser/refdoc-search.js` holds the same rules (the parity test checks both).

What counts as a name: the whole query, trimmed and without a trailing `()`, is one
identifier or a dotted path of identifiers, or two or three plain words that, joined, spell
one. Names compare case-insensitively and without inner underscores (`pass context` is
`pass_context`, `echo` is not `_echo`). The last part must be the definition's own name; the parts before it
must be its enclosing names (from the inside out), and any left over must name a folder
or the file stem of its path (`click.Context` is `Context` in `click/core.py`).

Several definitions can share a name; they are ordered by `match_order`.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

DEFINITION_KINDS = ("class", "function", "method")
"""Chunk kinds a name query can put first, and their order when the rest is equal."""

DOTTED_NAME_RE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
PLAIN_WORD_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
MAX_SPELLED_WORDS = 3
"""`progress bar` is a name spelled in words; a longer query is a description."""


def name_key(name: str) -> str:
    """How names compare: case and inner underscores ignored (`Pass_Context` ~ `passcontext`);
    leading ones kept, since they make another, private name (`echo` is not `_echo`)."""
    bare = name.lstrip("_")
    return name[: len(name) - len(bare)] + bare.replace("_", "").lower()


def query_name(text: str) -> tuple[str, ...] | None:
    """The parts of a query written as a name (`click.Context` → click, Context), else None."""
    text = text.strip()
    if text.endswith("()"):
        text = text[:-2].rstrip()
    if DOTTED_NAME_RE.match(text):
        return tuple(text.split("."))
    words = text.split()
    if 2 <= len(words) <= MAX_SPELLED_WORDS and all(PLAIN_WORD_RE.match(word) for word in words):
        return ("".join(words),)
    return None


def is_public(symbol: str) -> bool:
    """No part of the qualified name is private (`_x`) or a dunder (`__x__`)."""
    return not any(part.startswith("_") for part in symbol.split("."))


def match_order(query: tuple[str, ...], symbol: str, path: str, kind: str) -> tuple[int, int, int, int] | None:
    """Where a definition ranks among those the query names (smaller first), or None.

    In order: the query names the definition whole (`invoke` names `Context.invoke` only
    in part), public before private and dunder, the name spelled as typed (case and
    underscores) before a looser match, then class, function, method.
    """
    parts = symbol.split(".")
    if kind not in DEFINITION_KINDS or name_key(parts[-1]) != name_key(query[-1]):
        return None
    qualifiers, owners = list(query[:-1]), parts[:-1]
    while qualifiers and owners and name_key(qualifiers[-1]) == name_key(owners[-1]):
        qualifiers.pop()
        owners.pop()
    if qualifiers:
        folders = {name_key(part) for part in PurePosixPath(path).with_suffix("").parts}
        if not all(name_key(qualifier) in folders for qualifier in qualifiers):
            return None
    return (
        1 if owners else 0,
        0 if is_public(symbol) else 1,
        0 if parts[-1] == query[-1] else 1,
        DEFINITION_KINDS.index(kind),
    )
