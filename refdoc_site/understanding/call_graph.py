"""The call graph: every chunk's calls as written resolved across the repository by the
`CallResolver` (calls.py), in forked workers a batch at a time on a large repository; on a
rebuild, only the chunks the change can reach (call_changes.py)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import chain

from ..core.processes import forked_map
from ..core.records import Document
from .call_changes import KnownCalls
from .calls import RESULT, CallResolver, ResolveImport


@dataclass
class CallGraph:
    """Who calls whom, by chunk id, and what each chunk calls that means no chunk."""

    calls: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → chunk ids it calls."""
    callers: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → chunk ids calling it."""
    unresolved: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → its calls as written that resolved to no repository chunk (only chunks with any)."""


def call_graph(
    documents: list[Document], imports: dict[str, list[str]], resolve_import: ResolveImport, parallel: bool = False,
    last: KnownCalls | None = None, only: set[str] | None = None,
) -> CallGraph:
    """Every chunk's calls as written (`Metadata.calls`), resolved across the repository;
    when `parallel`, a batch of chunks at a time in forked workers (core/processes.py),
    each with the resolver built here: the same answers, the lookups' memos one a worker.
    With the `last` graph's answers, only the chunks whose ids are in `only` are resolved;
    the others keep theirs."""
    resolver = CallResolver(documents, imports, resolve_import)
    positions = list(range(len(documents))) if last is None or only is None else [
        position for position, document in enumerate(documents) if document.chunk.id in only
    ]

    def resolved(batch: list[int]) -> list[tuple[list[str], list[str]]]:
        return [_resolved(resolver, documents[position]) for position in batch]

    batches = [positions[start : start + CALL_BATCH] for start in range(0, len(positions), CALL_BATCH)]
    graph = CallGraph()
    callers: dict[str, list[str]] = defaultdict(list)
    parallel = parallel and len(batches) >= PARALLEL_BATCHES
    fresh = dict(zip(positions, chain.from_iterable(forked_map(resolved, batches, "summarize: calls", parallel=parallel, unit="batches"))))
    for position, document in enumerate(documents):
        kept = last is not None and position not in fresh
        targets, unresolved = (last.calls[document.chunk.id], last.unresolved.get(document.chunk.id, [])) if kept else fresh[position]
        chunk_id = document.chunk.id
        graph.calls[chunk_id] = targets
        if unresolved:
            graph.unresolved[chunk_id] = unresolved
        for target in targets:
            callers[target].append(chunk_id)
    graph.callers = {k: list(dict.fromkeys(v)) for k, v in callers.items()}
    return graph


CALL_BATCH = 512
"""Chunks a worker resolves at a time."""
PARALLEL_BATCHES = 8
"""Below this many batches the workers would cost more than they save."""


def _resolved(resolver: CallResolver, document: Document) -> tuple[list[str], list[str]]:
    """A chunk's callees (without itself, each once) and the calls left unresolved."""
    chunk = document.chunk
    targets: list[str] = []
    unresolved: list[str] = []
    for callee in document.metadata.calls:
        found = resolver.resolve_call(chunk, callee, document.metadata.definitions, document.metadata.arguments.get(callee))
        if not found:
            unresolved.append(callee.removeprefix(RESULT + "."))
        targets.extend(t for t in found if t != chunk.id)
    return list(dict.fromkeys(targets)), unresolved
