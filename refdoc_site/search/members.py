"""What a class's members say about it, indexed with the class.

A question about a component ("test helper that invokes a CLI in-process and captures its
output") is often answered in the docstrings of its methods, while the class's own
docstring and code name it in other words. The build adds the first sentence of each
documented member's docstring to its class's search text, sparse and dense; nothing
changes at query time, so the browser ranks the same with no extra work.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.records import ChunkKind, Document

MEMBER_KINDS = (ChunkKind.METHOD, ChunkKind.FUNCTION, ChunkKind.CLASS)
"""Chunks that can be a class's member: methods, and functions and classes defined in it."""


def first_sentence(docstring: str) -> str:
    """The docstring's opening sentence, on one line (all of it when it has no full stop)."""
    flat = " ".join(docstring.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def member_sentences(documents: Iterable[Document]) -> dict[tuple[str, str], str]:
    """(path, class symbol) → the first sentences of its members' docstrings, in file order.

    Only classes present among `documents` get an entry; a member's owner is the symbol
    before its last dot (`Client.close` → `Client`), so members of a nested class go to
    the nested class, and each sentence is kept once (windows of one method repeat it).
    """
    documents = list(documents)
    classes = {(d.chunk.path, d.chunk.symbol) for d in documents if d.chunk.kind is ChunkKind.CLASS}
    sentences: dict[tuple[str, str], dict[str, None]] = {}
    for document in documents:
        chunk = document.chunk
        owner, dot, _ = chunk.symbol.rpartition(".")
        if dot and chunk.docstring and chunk.kind in MEMBER_KINDS and (chunk.path, owner) in classes:
            sentences.setdefault((chunk.path, owner), {})[first_sentence(chunk.docstring)] = None
    return {key: " ".join(found) for key, found in sentences.items()}


def members_text(document: Document, sentences: dict[tuple[str, str], str]) -> str:
    """The members' sentences of a class chunk; empty for every other chunk."""
    return sentences.get((document.chunk.path, document.chunk.symbol), "")
