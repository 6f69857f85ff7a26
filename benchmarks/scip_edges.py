"""Call edges from SCIP occurrences and from the stored graph, and how they compare.

The pure part of `call_edges.py` (no processes, no files), tested on inline data by
`tests/test_call_edges_bench.py`. Lines are 1-based like refdoc-site's chunks; SCIP's
occurrences stay 0-based as the index writes them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

DEFINITION_KINDS = frozenset({"function", "method", "class"})
"""Chunk kinds an edge may join: the definitions the graph links."""
DEFINITION_ROLE = 1
"""SCIP `SymbolRole.Definition` bit."""
TOP_FALSE_CALLEES = 10

Edge = tuple[str, str]
"""(caller chunk id, callee chunk id)"""


@dataclass(frozen=True)
class Span:
    """Where a chunk of the store sits: enough to map a line to its definition."""

    id: str
    path: str
    kind: str
    name: str
    start_line: int
    end_line: int


@dataclass(frozen=True)
class Occurrence:
    """One SCIP occurrence, 0-based as SCIP writes it."""

    line: int
    start: int
    end: int
    symbol: str
    roles: int


def definition_id(chunk_id: str) -> str:
    """The id of the definition a window belongs to: `a.py#C~2` → `a.py#C`
    (a `@line` suffix that tells same-named definitions apart stays)."""
    return re.sub(r"~\d+(?=@\d+$|$)", "", chunk_id)


def enclosing(spans: Iterable[Span], line: int) -> Span | None:
    """The innermost definition chunk around a 1-based line, or None."""
    around = [s for s in spans if s.kind in DEFINITION_KINDS and s.start_line <= line <= s.end_line]
    return min(around, key=lambda s: (s.end_line - s.start_line, s.start_line)) if around else None


DEFINING_KEYWORD = re.compile(r"\b(?:def|class|function)\s+$")
"""Before a name that is being defined: scip-python reports each `@overload` stub's name
as a reference to the implementation, which is no call."""


ASSIGNED = re.compile(r"\s*=(?![=>])")
"""After a name that is assigned (`x = …`, not `x == …` or an arrow `x => …`)."""


def is_call_site(line_text: str, start: int, end: int) -> bool:
    """Whether the name at columns `start:end` is called: `(` follows it, and it is not
    the name of a definition."""
    called = line_text[end:].lstrip().startswith("(")
    return called and not DEFINING_KEYWORD.search(line_text[:start])


@dataclass(frozen=True)
class Reference:
    edges: set[Edge]
    """Call edges the indexer resolves, between definition chunks of the store."""
    resolved: set[tuple[str, str]]
    """(caller chunk id, called name) of every call site the indexer resolved to any
    symbol, in the repository or not: where it has an opinion on what a name means."""


def reference_edges(
    documents: Mapping[str, list[Occurrence]],
    sources: Mapping[str, list[str]],
    spans: Mapping[str, list[Span]],
) -> Reference:
    """The indexer's call edges and resolved call sites.

    `documents`: path → its occurrences; `sources`: path → its lines; `spans`: path → the
    store's chunks of that file."""
    defined_at = _definitions(documents, sources)
    reference = Reference(set(), set())
    for path, occurrences in documents.items():
        lines = sources.get(path, [])
        for occurrence in occurrences:
            if occurrence.roles & DEFINITION_ROLE or occurrence.line >= len(lines):
                continue
            line_text = lines[occurrence.line]
            caller = enclosing(spans.get(path, ()), occurrence.line + 1)
            if caller is None or not is_call_site(line_text, occurrence.start, occurrence.end):
                continue
            caller_id = definition_id(caller.id)
            reference.resolved.add((caller_id, line_text[occurrence.start : occurrence.end]))
            definition = defined_at.get(_symbol_key(path, occurrence.symbol))
            callee = _defined_chunk(definition, sources, spans) if definition else None
            if callee is not None and definition_id(callee.id) != caller_id:
                reference.edges.add((caller_id, definition_id(callee.id)))
    return reference


def _definitions(
    documents: Mapping[str, list[Occurrence]], sources: Mapping[str, list[str]]
) -> dict[str, tuple[str, Occurrence]]:
    """Symbol key → where it is defined. A symbol no occurrence defines, but one assigns
    (scip-typescript's expando members: `app.set = function set…` is `local 125`,
    referenced by `this.set(…)` and never marked a definition), is defined where it is
    first assigned."""
    defined: dict[str, tuple[str, Occurrence]] = {}
    assigned: dict[str, tuple[str, Occurrence]] = {}
    for path, occurrences in documents.items():
        lines = sources.get(path, [])
        for occurrence in occurrences:
            key = _symbol_key(path, occurrence.symbol)
            if occurrence.roles & DEFINITION_ROLE:
                defined.setdefault(key, (path, occurrence))
            elif occurrence.line < len(lines) and ASSIGNED.match(
                lines[occurrence.line][occurrence.end :]
            ):
                assigned.setdefault(key, (path, occurrence))
    return {**assigned, **defined}


def _symbol_key(path: str, symbol: str) -> str:
    """Local symbols (`local 12`) are unique within their document only."""
    return f"{path} {symbol}" if symbol.startswith("local ") else symbol


def _defined_chunk(
    definition: tuple[str, Occurrence],
    sources: Mapping[str, list[str]],
    spans: Mapping[str, list[Span]],
) -> Span | None:
    """The chunk a definition occurrence opens, when that chunk bears the defined name."""
    path, occurrence = definition
    lines = sources.get(path, [])
    if occurrence.line >= len(lines):
        return None
    name = lines[occurrence.line][occurrence.start : occurrence.end]
    chunk = enclosing(spans.get(path, ()), occurrence.line + 1)
    return chunk if chunk is not None and chunk.name == name else None


def our_edges(
    calls: Mapping[str, list[str]], spans_by_id: Mapping[str, Span], any_caller: bool = False
) -> set[Edge]:
    """The stored graph's edges between definition chunks, windows folded into their
    definition; with `any_caller`, also those from a module's rest (where C's prototypes
    and macros once counted as calls: a page shows them as callers all the same)."""
    edges: set[Edge] = set()
    for caller, callees in calls.items():
        source = spans_by_id.get(caller)
        if source is None or (source.kind not in DEFINITION_KINDS and not any_caller):
            continue
        for callee in callees:
            target = spans_by_id.get(callee)
            if target is None or target.kind not in DEFINITION_KINDS:
                continue
            edge = (definition_id(caller), definition_id(callee))
            if edge[0] != edge[1]:
                edges.add(edge)
    return edges


@dataclass(frozen=True)
class Score:
    ours: int
    reference: int
    common: int
    precision: float | None
    recall: float | None
    judged: int
    """Our edges from a call site the reference resolved (to anything)."""
    judged_precision: float | None
    """Precision over the judged edges only: where the reference resolves less than the
    language does (`this` in a function assigned to an object is untyped to TypeScript),
    plain precision counts right edges as wrong; this one does not."""
    false_callees: list[tuple[str, int]]
    """The most frequent callee names among our edges the reference does not have."""


def score(ours: set[Edge], reference: Reference, top: int = TOP_FALSE_CALLEES) -> Score:
    """Precision over our edges, recall over the reference's; None when there is nothing to divide by."""
    common = ours & reference.edges
    judged = {
        (caller, callee)
        for caller, callee in ours
        if (caller, _callee_name(callee)) in reference.resolved
    }
    wrong = Counter(_callee_name(callee) for _, callee in ours - reference.edges)
    ranked = sorted(wrong.items(), key=lambda item: (-item[1], item[0]))
    return Score(
        ours=len(ours),
        reference=len(reference.edges),
        common=len(common),
        precision=_ratio(len(common), len(ours)),
        recall=_ratio(len(common), len(reference.edges)),
        judged=len(judged),
        judged_precision=_ratio(len(common & judged), len(judged)),
        false_callees=ranked[:top],
    )


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _callee_name(chunk_id: str) -> str:
    """`a.py#URL.join` → `join`, the name a reader sees linked wrongly."""
    symbol = chunk_id.split("#", 1)[-1].split("@", 1)[0]
    return symbol.rsplit(".", 1)[-1]
