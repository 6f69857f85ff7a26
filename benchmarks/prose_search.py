"""What the prose pages in the search cost the code's results: MRR@10 of labelled query sets
ranked over the code alone and over the code plus the sections of the overview, decision
log, plans and module pages, as the published site ranks them.

    python benchmarks/prose_search.py QUERIES.jsonl CORPUS [QUERIES.jsonl CORPUS ...]

Each corpus is indexed, summarized and rendered (offline, no MkDocs build) in a temporary
store; the queries' answers are code, so a prose section ranked above them is a cost.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, build
from refdoc_site.pipeline.render_phase import load_site_data, searched_sections
from refdoc_site.rendering.render import prose_pages
from refdoc_site.search.embed import matching_embedder
from refdoc_site.search.evaluate import evaluate, format_table, load_queries
from refdoc_site.search.ranking import SearchIndex


def measure(queries_path: Path, corpus: Path) -> str:
    queries = load_queries(queries_path)
    with tempfile.TemporaryDirectory() as temporary:
        workspace = Workspace.create(corpus, Config(), Path(temporary) / "store", Path(temporary) / "site")
        build(workspace, site=False)
        state = workspace.store.load()
        embedder = matching_embedder(state)
        sections = searched_sections(prose_pages(load_site_data(workspace)), embedder)
    code_only = SearchIndex.build(state.documents)
    with_pages = SearchIndex.build(state.documents + sections)
    results = {"code": evaluate(code_only, queries, "fused", embedder), "+pages": evaluate(with_pages, queries, "fused", embedder)}
    return f"## {queries_path.name}: {len(state.documents)} chunks, {len(sections)} page sections\n{format_table(results)}"


def main(arguments: list[str]) -> int:
    if len(arguments) % 2 or not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    for queries, corpus in zip(arguments[::2], arguments[1::2]):
        print(measure(Path(queries), Path(corpus)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
