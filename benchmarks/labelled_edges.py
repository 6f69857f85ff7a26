"""Call sites labelled by hand against the stored call graph: the pure part of
`call_edges.py` for languages no precise indexer installs here (Go, Rust, Java, C#).

A label file (`call_labels/<language>-<corpus>.tsv`) holds one call site a line: its
path, the 1-based line and (byte) column of the called name, the name, and the true target, the
`path:line` of the definition it runs (`a|b`: either, for a call through a trait or an
interface whose implementations the code cannot tell apart), or `external` when no
repository definition is called (the standard library, a dependency, a closure, a
function pointer). The labels were written by reading the code before the resolver was
changed for these languages.

Each site's prediction is what the resolver makes of that one call as written
(`site_targets.py`: the graph links chunks, so two calls of one name from one chunk
share their links there). A true target is the innermost definition chunk around its
line bearing the name (a class label also accepts that class's constructors); a site
whose target has no chunk of its own (a nested helper) counts only against links made
for it. Precision is over the links, recall over the sites whose target has a chunk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scip_edges import Span, definition_id, enclosing

EXTERNAL = "external"


@dataclass(frozen=True)
class Site:
    path: str
    line: int
    column: int
    name: str
    targets: tuple[str, ...]
    """`path:line` of each acceptable definition; empty when external."""


@dataclass(frozen=True)
class SiteScore:
    sites: int
    internal: int
    """Sites whose true target is a chunk of the store (recall's denominator)."""
    links: int
    right_links: int
    found: int
    precision: float | None
    recall: float | None
    false_callees: list[tuple[str, int]]


def read_labels(path: Path) -> list[Site]:
    sites = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = raw.split("\t")
        if len(cells) != 5:
            raise SystemExit(f"{path}:{number}: expected 5 tab-separated cells, found {len(cells)}")
        where, line, column, name, target = cells
        targets = () if target == EXTERNAL else tuple(target.split("|"))
        sites.append(Site(where, int(line), int(column), name, targets))
    return sites


def target_chunks(target: str, name: str, spans: Mapping[str, list[Span]]) -> set[str]:
    """The definition ids a label's `path:line` names: the innermost definition chunk
    around the line bearing the called name, and for a class its constructors."""
    path, _, line = target.rpartition(":")
    around = [s for s in spans.get(path, ()) if s.start_line <= int(line) <= s.end_line and s.name == name]
    around = [s for s in around if s.kind in ("function", "method", "class")]
    if not around:
        return set()
    chunk = min(around, key=lambda s: s.end_line - s.start_line)
    found = {definition_id(chunk.id)}
    if chunk.kind == "class":
        found |= {
            definition_id(s.id)
            for s in spans.get(path, ())
            if s.name == name and s.kind in ("function", "method") and chunk.start_line <= s.start_line <= chunk.end_line
        }
    return found


def score_sites(
    sites: list[Site], predictions: Mapping[str, list[str]], spans_by_id: Mapping[str, Span]
) -> SiteScore:
    """`predictions`: `path:line:column` → the chunk ids the resolver links that site to."""
    spans: dict[str, list[Span]] = {}
    for span in spans_by_id.values():
        spans.setdefault(span.path, []).append(span)
    links = right = internal = found = 0
    wrong: Counter[str] = Counter()
    for site in sites:
        caller = enclosing(spans.get(site.path, ()), site.line)
        truth = set().union(*(target_chunks(t, site.name, spans) for t in site.targets)) if site.targets else set()
        if caller is not None and definition_id(caller.id) in truth:
            continue  # a call of itself: the graph leaves self-calls out
        predicted = {definition_id(t) for t in predictions.get(f"{site.path}:{site.line}:{site.column}", ())}
        links += len(predicted)
        right += len(predicted & truth)
        wrong.update(site.name for _ in predicted - truth)
        if truth:
            internal += 1
            found += bool(predicted & truth)
    return SiteScore(
        sites=len(sites),
        internal=internal,
        links=links,
        right_links=right,
        found=found,
        precision=right / links if links else None,
        recall=found / internal if internal else None,
        false_callees=sorted(wrong.items(), key=lambda item: (-item[1], item[0]))[:10],
    )
