"""Search data for the published site: what the browser needs to rank like the CLI.

Written into the MkDocs project's `docs/` next to the pages: the serialised Lunr index,
the chunk table (page, anchor, signature, summary), the shared settings and stop words,
and, when the chunks carry vectors, the vectors and the static model that embeds the
query. The worker scripts go to `docs/assets/refdoc/`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import quote

from .pages import chunk_anchor, file_page
from .records import Document
from .search import ASSETS, SearchIndex, settings, stop_words

DATA_DIR = "search/refdoc"
SCRIPTS_DIR = "assets/refdoc"
SCRIPTS = ("search-worker.js", "refdoc-search.js", "refdoc-embed.js")


def write_search_data(documents: list[Document], docs_dir: Path) -> dict[str, int]:
    """Write the search data and scripts; returns the bytes written per file."""
    index = SearchIndex.build(documents)
    data_dir = docs_dir / DATA_DIR
    data_dir.mkdir(parents=True, exist_ok=True)
    written = {
        "index.json": _write_json(data_dir / "index.json", index.lunr_index.serialize()),
        "chunks.json": _write_json(data_dir / "chunks.json", [_chunk_row(d) for d in index.documents]),
        "config.json": _write_json(
            data_dir / "config.json", {"settings": settings(), "stopWords": sorted(stop_words()), "model": None}
        ),
    }
    scripts_dir = docs_dir / SCRIPTS_DIR
    scripts_dir.mkdir(parents=True, exist_ok=True)
    for name in SCRIPTS:
        source = ASSETS / name
        if source.exists():
            shutil.copyfile(source, scripts_dir / name)
    return written


def _chunk_row(document: Document) -> dict:
    chunk = document.chunk
    page = file_page(chunk.path).removesuffix(".md")
    return {
        "path": chunk.path,
        "symbol": chunk.symbol,
        "kind": chunk.kind.value,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "page": quote(page) + "/",
        "anchor": chunk_anchor(chunk.symbol, chunk.part),
        "signature": chunk.signature,
        "summary": document.summary.responsibility,
    }


def _write_json(path: Path, data: object) -> int:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    path.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))
