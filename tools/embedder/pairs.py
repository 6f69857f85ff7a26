"""Query ↔ code pairs for contrastive training of the static embedder.

    .venv/bin/python tools/embedder/pairs.py --cache /work/train-cache --out /work/train-cache/pairs.jsonl

Runs with the project's own environment (no torch). Each training package is unpacked and
indexed by the product; every documented function, method or class gives one pair: the
query is the first sentence of its docstring (as a user might ask), the code side is what
the build embeds for the chunk *as if it had no docstring* (`embed.document_text` over a
summary written without it), so the model must learn to find code by its words alone.
The evaluation corpora are excluded as in extract.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from extract import first_sentence, good_prose, indexed_documents, unpack  # noqa: E402

from refdoc_site.indexing.regex_tier import strip_strings_and_comments  # noqa: E402
from refdoc_site.search.embed import document_text  # noqa: E402
from refdoc_site.core.records import ChunkKind, Document  # noqa: E402
from refdoc_site.indexing.summarize import ExtractiveSummarizer  # noqa: E402

DEFINITIONS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS)


def pairs_of_package(root: Path, cap: int, rng: random.Random) -> list[dict]:
    documents = indexed_documents(root)
    summarizer = ExtractiveSummarizer()
    pairs = []
    for document in documents:
        chunk = document.chunk
        if chunk.kind not in DEFINITIONS or chunk.part > 1 or not chunk.docstring:
            continue
        query = first_sentence(chunk.docstring)
        if not good_prose(query, 20):
            continue
        # Without the docstring, comments or string literals: only the code's own words.
        bare = dataclasses.replace(chunk, docstring="", content=strip_strings_and_comments(chunk.content, chunk.language))
        summary = summarizer.summarize(bare, document.metadata)
        code = document_text(Document(bare, summary, document.metadata, [], document.indexedAt))
        pairs.append({"query": query, "code": code})
    rng.shuffle(pairs)
    return pairs[:cap]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--packages", type=int, default=120, help="how many packages to use")
    parser.add_argument("--cap", type=int, default=300, help="pairs per package at most")
    args = parser.parse_args()
    rng = random.Random(13)
    archives = sorted((args.cache / "pypi").glob("*")) + sorted((args.cache / "npm").glob("*"))
    rng.shuffle(archives)
    written = 0
    with args.out.open("w", encoding="utf-8") as out:
        for archive in archives[: args.packages]:
            with tempfile.TemporaryDirectory() as folder:
                if not unpack(archive, Path(folder)):
                    continue
                for pair in pairs_of_package(Path(folder), args.cap, rng):
                    out.write(json.dumps({**pair, "package": archive.name}) + "\n")
                    written += 1
            print(f"{archive.name}: {written} pairs so far", flush=True)
    print(f"wrote {written} pairs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
