"""Benchmark the analysis tiers on real code: time, call edges, and callee precision/recall.

    python benchmarks/code_intelligence.py [--corpora httpx,django] [--sample-files 40]

For each corpus (fetched like `run.py` does, into the same cache) every file is chunked
once, then analysed by each tier alone:

- `regex`: the regular expressions only (`SyntaxAnalyzer(tree_sitter=False)`);
- `tree-sitter`: call queries, regex for the rest (`SyntaxAnalyzer()`, the default);
- `lsp`: the language server alone (`LspAnalyzer`), on every file of a small corpus and
  on a seeded random sample of `--sample-files` Python files of a large one.

Each tier's metadata goes through the same call graph (`graph.build_graph`, all files of
the corpus present so names resolve across files). Reported per tier: analysis seconds
and KB/s over the files it analysed, and the call edges it found from the LSP's files.
Precision and recall of the tree-sitter and regex edges are measured against the
language server's edges, over the functions and methods of the LSP's files for which
the server resolved at least one call into the repository.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from run import CORPORA, DEFAULT_CACHE, _table, fetch_corpus  # noqa: E402

from refdoc_site.core.config import Config  # noqa: E402
from refdoc_site.core.reading import read_text  # noqa: E402
from refdoc_site.core.records import ChunkKind, ChunkSummary, Document, Metadata  # noqa: E402
from refdoc_site.core.redact import Redactor  # noqa: E402
from refdoc_site.indexing.analyze import SyntaxAnalyzer, merge_metadata  # noqa: E402
from refdoc_site.indexing.chunk import chunk_file  # noqa: E402
from refdoc_site.indexing.discover import discover  # noqa: E402
from refdoc_site.indexing.lsp import DEFINITION_KINDS, LspAnalyzer  # noqa: E402
from refdoc_site.languages.servers import SERVERS, find_binary  # noqa: E402
from refdoc_site.understanding.graph import build_graph  # noqa: E402

SMALL_CORPUS_FILES = 60
"""Up to this many files, the language server analyses the whole corpus."""
LSP_REQUEST_SECONDS = 600.0
"""The benchmark waits longer than a build would for one file's answers."""
FUNCTION_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD)


def load_corpus(repo: Path):
    """Every indexed file of the corpus with its text and chunks (chunking is not timed)."""
    found = discover(repo, Config())
    files = []
    for source in found.files:
        text = read_text(repo, source.path, Redactor()).text
        files.append((source, text, chunk_file(source, text, Config().chunk_settings())))
    return files


def analyse(analyzer, files) -> tuple[dict[str, Metadata], dict[str, list[str]], float]:
    metadata: dict[str, Metadata] = {}
    imports: dict[str, list[str]] = {}
    started = time.perf_counter()
    for source, text, chunks in files:
        analysis = analyzer.analyze(source, text, chunks)
        imports[source.path] = analysis.imports
        metadata.update(analysis.metadata)
    return metadata, imports, time.perf_counter() - started


def call_graph(files, metadata: dict[str, Metadata], imports: dict[str, list[str]]):
    summary = ChunkSummary("", "", "", "", "")
    documents = [
        Document(chunk, summary, metadata.get(chunk.id, Metadata()), [], "")
        for _source, _text, chunks in files
        for chunk in chunks
    ]
    languages = {source.path: source.language for source, _text, _chunks in files}
    return build_graph(languages, imports, documents)


def bench(name: str, cache: Path, sample_files: int, seed: int, policies: list[str]) -> tuple[list[list[str]], list[str]]:
    info = fetch_corpus(CORPORA[name], cache)
    repo = cache / f"corpus-{name}"
    files = load_corpus(repo)
    python = [f for f in files if f[0].language == "python"]
    if len(files) <= SMALL_CORPUS_FILES:
        sampled = python
    else:
        sampled = sorted(random.Random(seed).sample(python, min(sample_files, len(python))), key=lambda f: f[0].path)
    sampled_paths = {source.path for source, _text, _chunks in sampled}
    total_kb = sum(source.size for source, _t, _c in files) / 1000
    sample_kb = sum(source.size for source, _t, _c in sampled) / 1000

    rows, notes = [], []
    syntax_imports: dict[str, list[str]] = {}
    syntax_metadata: dict[str, Metadata] = {}
    edges: dict[str, dict[str, list[str]]] = {}
    import_edges: dict[str, dict[str, list[str]]] = {}
    for tier, analyzer in (("regex", SyntaxAnalyzer(tree_sitter=False)), ("tree-sitter", SyntaxAnalyzer())):
        metadata, imports, seconds = analyse(analyzer, files)
        syntax_imports, syntax_metadata = imports, metadata
        graph = call_graph(files, metadata, imports)
        edges[tier], import_edges[tier] = graph.calls, graph.file_imports
        rows.append([f"{name} {info['version']}", tier, str(len(files)), f"{total_kb:.0f}", f"{seconds:.2f}",
                     f"{total_kb / seconds:.0f}", str(_edge_count(edges[tier], sampled_paths)),
                     str(_edge_count(edges[tier], None))])
    notes.append(_imports_note(name, import_edges["tree-sitter"], import_edges["regex"]))

    spec = replace(next(s for s in SERVERS if s.name == "jedi-language-server"), request_seconds=LSP_REQUEST_SECONDS)
    if find_binary(spec, install=False) is None:
        notes.append(f"{name}: jedi-language-server not installed; no lsp row")
        return rows, notes
    names = Counter(c.name for _s, _t, chunks in files for c in chunks if c.kind in DEFINITION_KINDS and c.part <= 1)
    merged_tiers = []
    for policy in policies:
        lsp = LspAnalyzer(repo, servers=(spec,), install=False, ask=policy, definition_names=names)
        try:
            metadata, _imports, seconds = analyse(lsp, sampled)
        finally:
            lsp.close()
        notes.extend(f"{name}: {line}" for line in lsp.pool.notices)
        sites = sum(len(m.definitions) for m in metadata.values())
        if policy == "all":
            # The reference: the server alone, with imports as the syntax tiers read them.
            tier = "lsp"
            edges[tier] = call_graph(files, metadata, syntax_imports).calls
        else:
            # What `lsp: on` stores: the server's answers merged with tree-sitter's.
            tier = f"lsp {policy} + tree-sitter"
            merged = {**syntax_metadata}
            merged.update({cid: merge_metadata([m, syntax_metadata[cid]]) for cid, m in metadata.items()})
            edges[tier] = call_graph(files, merged, syntax_imports).calls
            merged_tiers.append(tier)
        rows.append([f"{name} {info['version']}", tier, str(len(sampled)), f"{sample_kb:.0f}", f"{seconds:.2f}",
                     f"{sample_kb / seconds:.1f}", str(_edge_count(edges[tier], sampled_paths)), "-"])
        notes.append(f"{name}: {tier}: the server resolved {sites} distinct callees in {len(sampled)} files "
                     f"({seconds / max(sites, 1) * 1000:.0f} ms each)")
    if "lsp" not in edges:
        return rows, notes

    functions = [
        chunk.id
        for source, _text, chunks in sampled
        for chunk in chunks
        if chunk.kind in FUNCTION_KINDS and edges["lsp"].get(chunk.id)
    ]
    for tier in ("tree-sitter", "regex", *merged_tiers):
        found = agreed = expected = 0
        for chunk_id in functions:
            mine, truth = set(edges[tier].get(chunk_id, ())), set(edges["lsp"][chunk_id])
            found += len(mine)
            expected += len(truth)
            agreed += len(mine & truth)
        precision = agreed / found if found else 0.0
        recall = agreed / expected if expected else 0.0
        notes.append(f"{name}: {tier} callees vs lsp on {len(functions)} functions: "
                     f"precision {precision:.3f}, recall {recall:.3f} ({agreed} of {found} edges agree; lsp has {expected})")
    return rows, notes


def _imports_note(name: str, tree_sitter: dict[str, list[str]], regex: dict[str, list[str]]) -> str:
    """How the file-to-file import edges of the two syntax tiers differ."""
    ts_edges = {(path, target) for path, targets in tree_sitter.items() for target in targets}
    regex_edges = {(path, target) for path, targets in regex.items() for target in targets}
    differing = {path for path in tree_sitter if set(tree_sitter[path]) != set(regex.get(path, ()))}
    return (f"{name}: import edges between files: tree-sitter {len(ts_edges)}, regex {len(regex_edges)}, "
            f"both {len(ts_edges & regex_edges)}; {len(differing)} files differ")


def _edge_count(calls: dict[str, list[str]], paths: set[str] | None) -> int:
    return sum(len(targets) for chunk_id, targets in calls.items() if paths is None or chunk_id.split("#", 1)[0] in paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default="httpx,django", help="comma-separated: " + ",".join(CORPORA))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="download cache (default: benchmarks/.cache)")
    parser.add_argument("--sample-files", type=int, default=40, help="Python files the LSP analyses in a large corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policies", default="all,ambiguous",
                        help="which call sites the server is asked about, comma-separated (all is the reference)")
    args = parser.parse_args(argv)
    policies = ["all", *(p.strip() for p in args.policies.split(",") if p.strip() and p.strip() != "all")]
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    rows, notes = [], []
    for name in [n.strip() for n in args.corpora.split(",") if n.strip()]:
        print(f"benchmarking {name} ...", flush=True)
        corpus_rows, corpus_notes = bench(name, args.cache.resolve(), args.sample_files, args.seed, policies)
        rows += corpus_rows
        notes += corpus_notes
    print()
    headers = ["corpus", "tier", "files", "KB", "analyse s", "KB/s", "edges (lsp files)", "edges (all files)"]
    print(_table(headers, rows, right_from=2))
    print()
    for line in notes:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
