"""A file page's sections: one per definition, its token windows merged back, members nested.

The index splits a long definition into overlapping token windows (`Chunk.part` 1, 2, …)
because an embedding reads a bounded text; a reader wants the definition once. So the file
page shows one section per definition: one line range (the whole definition), one summary,
the whole source, the union of the windows' calls, callers and flags, under one anchor that
every window's link and search result point at (`core.pages.chunk_anchor`). Methods and
nested classes sit under their class's section.

Two definitions of one name on a page (`@overload` stubs and their implementation, a
property's getter and setter) are two sections; the first keeps the name's anchor, which
every link to the name lands on, and each later one gets the anchor with its first line, so
no id is on a page twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from ..core.pages import chunk_anchor
from ..core.records import Chunk, ChunkKind, ChunkSummary, Document

NESTING_KINDS = frozenset({ChunkKind.CLASS})
"""Kinds whose section holds the sections of the definitions written inside them."""


@dataclass
class PageSection:
    """One definition as its file page shows it."""

    chunk: Chunk
    """The definition, its windows merged: the whole line range and source, part 0."""
    summary: ChunkSummary
    """The first window's summary, or the first one that says something."""
    chunk_ids: list[str]
    """Ids of the stored chunks the section stands for (one, or every window)."""
    is_async: bool = False
    raises: bool = False
    security_boundary: str = ""
    members: list[PageSection] = field(default_factory=list)
    """Sections of the methods and classes defined inside this one, in line order."""
    anchor: str = ""
    """The section's HTML id, unique on its page."""


def page_sections(documents: Iterable[Document]) -> list[PageSection]:
    """The sections of one file page, top-level ones in line order with members nested."""
    ordered = sorted(documents, key=lambda d: (d.chunk.start_line, d.chunk.part, -d.chunk.end_line))
    flat = [_merged(windows) for windows in _definitions(ordered)]
    taken: set[str] = set()
    for section in flat:
        anchor = chunk_anchor(section.chunk.symbol)
        section.anchor = anchor if anchor not in taken else f"{anchor}-{section.chunk.start_line}"
        taken.add(section.anchor)
    return _nested(flat)


def _definitions(documents: list[Document]) -> list[list[Document]]:
    """Documents grouped per definition: a window (part > 1) joins the open group of its symbol."""
    groups: list[list[Document]] = []
    open_split: dict[str, list[Document]] = {}
    for document in documents:
        chunk = document.chunk
        group = open_split.get(chunk.symbol) if chunk.part > 1 else None
        if group is not None and group[-1].chunk.part == chunk.part - 1:
            group.append(document)
            continue
        group = [document]
        groups.append(group)
        if chunk.part == 1:
            open_split[chunk.symbol] = group
    return groups


def _merged(windows: list[Document]) -> PageSection:
    first = windows[0]
    summary = next((w.summary for w in windows if w.summary.responsibility), first.summary)
    chunk = first.chunk
    if len(windows) > 1:
        chunk = Chunk(
            **{
                **chunk.__dict__,
                "start_line": min(w.chunk.start_line for w in windows),
                "end_line": max(w.chunk.end_line for w in windows),
                "content": whole_source([w.chunk for w in windows]),
                "part": 0,
                "tokens": sum(w.chunk.tokens for w in windows),
            }
        )
    return PageSection(
        chunk=chunk,
        summary=summary,
        chunk_ids=[w.chunk.id for w in windows],
        is_async=any(w.metadata.isAsync for w in windows),
        raises=any(w.metadata.throwsException for w in windows),
        security_boundary=next((w.metadata.securityBoundary for w in windows if w.metadata.securityBoundary), ""),
    )


def whole_source(windows: list[Chunk]) -> str:
    """The text the windows were cut from: each window without the lines it repeats of the previous one."""
    lines = windows[0].content.split("\n")
    for previous, window in pairwise(windows):
        following = window.content.split("\n")
        lines.extend(following[_repeated_lines(previous, window) :])
    return "\n".join(lines)


def _repeated_lines(previous: Chunk, window: Chunk) -> int:
    """How many of `window`'s first lines repeat `previous`'s last ones.

    Windows of a function keep their file line numbers, which say it exactly. A class's or a
    module's windows are cut from text with member bodies elided (their line numbers are the
    whole definition's), so the longest run of lines that ends one and starts the other is
    taken: windows overlap by whole lines.
    """
    before = previous.content.split("\n")
    after = window.content.split("\n")
    if _maps_lines(previous) and _maps_lines(window):
        return max(0, min(previous.end_line - window.start_line + 1, len(after)))
    for size in range(min(len(before), len(after)), 0, -1):
        if before[-size:] == after[:size]:
            return size
    return 0


def _maps_lines(chunk: Chunk) -> bool:
    """Whether the chunk's text is its file's lines `start_line`…`end_line`, one for one."""
    return chunk.end_line - chunk.start_line + 1 == len(chunk.content.split("\n"))


def _nested(sections: list[PageSection]) -> list[PageSection]:
    """Sections whose chunk names an enclosing class on this page moved under that class."""
    holders = {s.chunk.symbol: s for s in sections if s.chunk.kind in NESTING_KINDS}
    top: list[PageSection] = []
    for section in sections:
        holder = holders.get(section.chunk.parent) if section.chunk.parent else None
        if holder is not None and holder is not section:
            holder.members.append(section)
        else:
            top.append(section)
    return top
