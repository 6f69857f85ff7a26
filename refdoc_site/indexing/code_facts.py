"""What an undocumented definition does, as the facts of sentences a person would write:
what it returns, what it raises, what it touches, which functions it calls. Each sentence
is a `Phrase` (core/phrases.py), phrased in the site's language where it is shown.

Only facts the code shows are said; where nothing true and non-trivial can be said the
answer is empty, since a sentence that restates the name ("Handles eta") reads as
information and is none.
"""

from __future__ import annotations

import re

from ..core.records import Chunk, Metadata, Phrase
from ..core.text import split_identifier
from ..languages.receivers import receiver_rules
from ..languages.statements import STATEMENTS, StatementShapes
from .tree_sitter_tier import RESULT_PREFIX

EFFECTS_SAID = ("file", "network", "database", "subprocess", "global state")
"""Detected effects the label tables' `effect_names` phrase; "raising" is said by the raises
sentence instead."""

QUOTED_EXPRESSION = 48
"""Characters of a returned expression quoted whole; a longer one is not summarised by it."""
CALLS_SHOWN = 4
COMPARISON = re.compile(r"(?:==|!=|<=|>=|(?<![-=])>|<(?!-)|\bis\b|\bin\b|\bnot\b|!(?!=)|&&|\|\||\band\b|\bor\b|^isinstance\(|^hasattr\()")
LITERAL = re.compile(r"""^(?:-?\d[\d_.]*|[rbu]?(["']).*\1|\[\]|\{\}|\(\))$""")
"""A constant (an f-string or a template literal is not one)."""
BARE_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
"""A returned local: naming it says nothing about what it holds."""


def called_names(metadata: Metadata) -> list[str]:
    """The names a chunk calls, as written at the call sites (one place to read them from)."""
    return list(dict.fromkeys(c.removeprefix(RESULT_PREFIX) for c in metadata.calls))


def code_sentences(chunk: Chunk, metadata: Metadata) -> list[Phrase]:
    """What the chunk's code does, or nothing when it shows nothing worth a sentence."""
    shapes = STATEMENTS.get(chunk.language)
    body = _body_lines(chunk)
    said = [
        _returns_sentence(body, shapes, _instance_names(chunk, shapes), set(split_identifier(chunk.name))) if shapes else None,
        _raises_sentence(body, shapes) if shapes else None,
        effects_phrase(metadata),
    ]
    phrases = [p for p in said if p]
    return phrases or [p for p in [_calls_sentence(chunk, metadata)] if p]


def _body_lines(chunk: Chunk) -> list[str]:
    """The chunk's lines after its signature, without the docstring's or comments' text."""
    lines = chunk.content.splitlines()[1:]
    return [line for line in lines if not line.lstrip().startswith(("#", "//", "*", "/*"))]


def _instance_names(chunk: Chunk, shapes: StatementShapes) -> frozenset[str]:
    """The names the instance goes by in this chunk: the language's, or the receiver its
    signature names (Go's `func (s *Server)`)."""
    named = shapes.receiver.match(chunk.signature) if shapes.receiver else None
    return shapes.named("instance") | {named.group(1)} if named else shapes.named("instance")


def _returns_sentence(body: list[str], shapes: StatementShapes, instance: frozenset[str], own_words: set[str]) -> Phrase | None:
    """What it returns, when that is one thing worth saying: a new instance, the instance
    itself, a constant, a test, a short expression other than its own name's field."""
    returned = list(dict.fromkeys(m.group(1).strip() for line in body if (m := shapes.returns.match(line))))
    if not returned:
        return None
    types = [m.group(1) for e in returned if (m := shapes.constructs.match(e))]
    if types and len(types) == len(returned):
        return Phrase("returns_new", list(dict.fromkeys(types)))
    if len(returned) > 1:
        return None
    expression = returned[0]
    if expression in instance:
        return Phrase("returns_self")
    if expression in shapes.named("literals") or LITERAL.match(expression):
        return Phrase("returns_value", subject=expression) if expression not in ("None", "undefined", "null", "nil") else None
    if len(expression) > QUOTED_EXPRESSION or BARE_NAME.match(expression) or "`" in expression or not _balanced(expression):
        return None
    if set(split_identifier(expression)) <= own_words | instance:  # `get_eta` returning `self.eta`
        return None
    if COMPARISON.search(expression):
        return Phrase("returns_whether", subject=expression)
    return Phrase("returns_value", subject=expression)


def _raises_sentence(body: list[str], shapes: StatementShapes) -> Phrase | None:
    raised = [m.group(1) or "" for line in body if (m := shapes.raises.search(line))]
    named = list(dict.fromkeys(n for n in raised if n))
    return Phrase(shapes.raise_phrase, named[:3]) if named else None


def effects_phrase(metadata: Metadata) -> Phrase | None:
    """What the chunk touches, by the effects the analysis detected."""
    said = [e for e in metadata.effects if e in EFFECTS_SAID]
    return Phrase("effects", said) if said else None


def notable_calls(chunk: Chunk, metadata: Metadata) -> list[str]:
    """The names it calls, leaving out itself and the language's built-ins (`getattr`,
    `x.get`), which say nothing about this definition."""
    shapes = STATEMENTS.get(chunk.language)
    skipped = {chunk.name, chunk.symbol} | receiver_rules(chunk.language).builtin_methods | (shapes.named("builtins") if shapes else frozenset())
    return [n for n in dict.fromkeys(called_names(metadata)) if n.rsplit(".", 1)[-1] not in skipped]


def _calls_sentence(chunk: Chunk, metadata: Metadata) -> Phrase | None:
    names = notable_calls(chunk, metadata)
    if not names:
        return None
    return Phrase("calls_more" if len(names) > CALLS_SHOWN else "calls", names[:CALLS_SHOWN])


def _balanced(expression: str) -> bool:
    """Whether the brackets close on the line: a return continued below is not quoted."""
    depth = 0
    for char in expression:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0

