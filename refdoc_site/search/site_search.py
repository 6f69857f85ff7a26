"""Search data for the published site: what the browser needs to rank like the CLI.

Written into the MkDocs project's `docs/` next to the pages: the Lunr index (in the
compact form `refdoc-keyword.js` expands),
the chunk table (page, anchor, signature, summary; for a section of a prose page, its
page's title), the shared settings, stop words and
Japanese glossary and katakana reading rules, and, when the chunks carry vectors, the vectors and the static model
that embeds the query. The worker scripts go to `docs/assets/refdoc/`.
"""

from __future__ import annotations

import shutil
import struct
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import orjson

from ..core.kept_files import KeptFolder
from ..core.pages import chunk_anchor, file_page, page_url
from ..core.processes import computed_alongside
from ..core.records import ChunkKind, Document
from . import kept_terms, site_shards
from .embed import MODEL_FILE, VOCAB_FILE
from .japanese import glossary
from .loanwords import rules as loanword_rules
from .prose import page_anchor
from .ranking import ASSETS, SearchIndex, document_vectors, field_terms, searchable, settings, stop_words
from .vector_partition import partition

DATA_DIR = "search/refdoc"
PIECES_MADE = "search-pieces.json"
"""In the store: what each search piece was made from (core/kept_files.py `made`)."""
SCRIPTS_DIR = "assets/refdoc"
VECTORS_MAGIC = b"RDVEC\x00\x01\x00"
SCRIPTS = ("search-worker.js", "refdoc-search.js", "refdoc-keyword.js", "refdoc-embed.js", "refdoc-shards.js")
CODE_FIELDS = ("body", "phrases")
"""Sparse fields made of the code's own words, left out when the source is not published."""


def write_search_data(
    documents: list[Document],
    docs_dir: Path,
    embedder_directory: Path | None = None,
    publish_source: bool = True,
    shard_min_chunks: int | None = None,
    kept_in: Path | None = None,
) -> dict[str, int]:
    """Write the search data and scripts; returns the bytes written per file.

    Vectors ship only with the model that made them (`embedder_directory`), since the
    browser must embed the query with that same model. Without `publish_source`, the
    index has no field of the code's words (the browser ranks with the fields it finds).
    From `shard_min_chunks` chunks (default: settings' `shards.min_chunks`) the data is
    written in pieces a query fetches one by one (`site_shards.py`). With `kept_in` (the
    store), what a rebuild needs is kept there: the documents' term counts (kept_terms.py)
    and what each piece was made from (core/kept_files.py), and the unchanged ones taken.
    """
    fields = {name: boost for name, boost in settings()["fields"].items() if publish_source or name not in CODE_FIELDS}
    if shard_min_chunks is None:
        shard_min_chunks = settings()["shards"]["min_chunks"]
    searched = searchable(documents)
    sharded = len(searched) >= shard_min_chunks  # a large site: a query fetches only its pieces
    with ExitStack() as stack:
        if sharded:  # counted a document at a time (site_terms.py), no whole index built
            rows, scales = document_vectors(searched)
            # the clusters (k-means: the longest step) are learnt in a forked process meanwhile
            learnt = (rows, scales, site_shards.clusters_for(len(searched)), [d.chunk.id for d in searched])
            clustered = stack.enter_context(computed_alongside(partition, learnt, rows is not None and embedder_directory is not None))
            kept = kept_terms.load(kept_in / kept_terms.KEPT_NAME, fields) if kept_in is not None else None
            counts, keys = kept_terms.count_kept(searched, fields, kept, lambda document: field_terms(document, fields))
            del kept
            if kept_in is not None:
                kept_terms.save(kept_in / kept_terms.KEPT_NAME, keys, counts)
            index = SearchIndex(searched, None, rows, scales, dict(fields), _posting_counts=dict(zip(counts.terms, counts.posting_counts())))
        else:
            index = SearchIndex.build(searched, fields, for_site=True)
        # the last render's files with the same bytes stay as they are
        folder = KeptFolder(docs_dir / DATA_DIR, kept_in / PIECES_MADE if kept_in is not None else None)
        config = {
            "settings": settings(),
            "stopWords": sorted(stop_words()),
            "commonTerms": sorted(index.common_terms),
            "glossary": glossary(),
            "loanwords": loanword_rules(),
            "model": None,
            "vectors": None,
            "shards": None,
        }
        model_dir = embedder_directory if index.has_vectors else None
        if sharded:
            config["shards"], written = site_shards.write_sharded(index, counts, lambda p: _row(index, p), folder, model_dir, clustered)
        else:
            written = _write_whole(index, [_row(index, p) for p in range(len(index.documents))], folder, model_dir, config)
    written["config.json"] = folder.write("config.json", orjson.dumps(config))
    folder.finish()
    scripts_dir = docs_dir / SCRIPTS_DIR
    scripts_dir.mkdir(parents=True, exist_ok=True)
    for name in SCRIPTS:
        source = ASSETS / name
        if source.exists():
            shutil.copyfile(source, scripts_dir / name)
    return written


def _write_whole(index: SearchIndex, rows: list[dict], folder: KeptFolder, model_dir: Path | None, config: dict) -> dict[str, int]:
    """A small site's search data: one index, one chunk table, one vector file (compact
    UTF-8 JSON: orjson writes the bytes of `json.dumps` with compact separators, about
    four times faster: django's 28 MB Lunr index 0.79 → 0.18 s)."""
    written = {"index.json": folder.write("index.json", orjson.dumps(index.compact)), "chunks.json": folder.write("chunks.json", orjson.dumps(rows))}
    if model_dir is not None:
        written["vectors.bin"] = folder.write("vectors.bin", _vectors_bytes(index.rows, index.scales))
        for name in (MODEL_FILE, VOCAB_FILE):
            written[f"model/{name}"] = folder.copy(f"model/{name}", model_dir / name)
        config["model"] = {"file": f"model/{MODEL_FILE}", "vocab": f"model/{VOCAB_FILE}"}
        config["vectors"] = "vectors.bin"
    return written


def _row(index: SearchIndex, position: int) -> dict:
    """The chunk table's row of the document at `position`; an aside (a test, an example,
    release notes…) is marked, since the fusion weighs it less."""
    row = _chunk_row(index.documents[position])
    if position in index.asides:
        row["aside"] = 1
    return row


def _chunk_row(document: Document) -> dict:
    chunk = document.chunk
    if chunk.kind is ChunkKind.PAGE:
        return _page_section_row(document)
    return {
        "path": chunk.path,
        "symbol": chunk.symbol,
        "kind": chunk.kind.value,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "page": page_url(file_page(chunk.path)),
        "anchor": chunk_anchor(chunk.symbol),
        "signature": chunk.signature,
        "summary": document.summary.responsibility,
    }


def _page_section_row(document: Document) -> dict:
    """A prose page's section: its page's URL (`modules/app.md` → `modules/app/`, `index.md`
    → `./`), the heading's anchor, the page title and the start of the section's text."""
    chunk = document.chunk
    return {
        "path": chunk.path,
        "symbol": chunk.symbol,
        "kind": chunk.kind.value,
        "start_line": 0,
        "end_line": 0,
        "page": page_url(chunk.path),
        "anchor": page_anchor(document),
        "title": document.summary.notes,
        "signature": "",
        "summary": document.summary.responsibility,
    }


def _vectors_bytes(rows, scales) -> bytes:
    """`RDVEC` file: magic, uint32 count and dim, float32 scales, int8 rows (little-endian)."""
    count, dim = rows.shape
    return VECTORS_MAGIC + struct.pack("<II", count, dim) + scales.astype("<f4").tobytes() + rows.astype(np.int8).tobytes()
