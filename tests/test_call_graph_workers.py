"""The calls resolved in forked workers a batch at a time (understanding/call_graph.py) are
the graph one process resolves: the same callees, callers and unresolved calls, in order."""

from __future__ import annotations

from pathlib import Path

import refdoc_site.understanding.call_graph as call_graph
from helpers import source_file
from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.processes import can_fork
from refdoc_site.core.records import ChunkSummary, Document
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.understanding.graph import build_graph

PACKAGE = Path(call_graph.__file__).resolve().parent.parent


def test_workers_resolve_the_calls_one_process_does(monkeypatch) -> None:
    assert can_fork()  # CI's machine has two cores: the workers run
    languages: dict[str, str] = {}
    imports: dict[str, list[str]] = {}
    documents: list[Document] = []
    analyzer = SyntaxAnalyzer()
    for file in sorted(PACKAGE.glob("understanding/*.py")) + sorted(PACKAGE.glob("search/*.py")):
        path = file.relative_to(PACKAGE.parent).as_posix()
        text = file.read_text(encoding="utf-8")
        source = source_file(path, "python", text)
        chunks = chunk_file(source, text, ChunkSettings())
        analysis = analyzer.analyze(source, text, chunks)
        languages[path], imports[path] = "python", analysis.imports
        documents += [Document(c, ChunkSummary("r.", "io.", "none.", "deps.", "notes."), analysis.metadata[c.id], [], "t", source.sha256) for c in chunks]
    monkeypatch.setattr(call_graph, "CALL_BATCH", 16)  # many batches, several a worker
    alone = build_graph(languages, imports, documents, parallel=False)
    workers = build_graph(languages, imports, documents, parallel=True)
    assert len(documents) // 16 >= call_graph.PARALLEL_BATCHES
    assert sum(map(len, alone.calls.values())) > 500  # a graph worth comparing
    assert (workers.calls, workers.callers, workers.unresolved_calls) == (alone.calls, alone.callers, alone.unresolved_calls)
    assert list(workers.calls) == list(alone.calls) and list(workers.callers) == list(alone.callers)
