"""The transformer as the dense side: all-MiniLM-L6-v2 (int8 ONNX) in place of the static model.

Used by `search_quality.py --transformer DIR` (DIR from `tools/embedder/bert_onnx.py --out
DIR`). After a corpus was indexed and scored with the shipped static model, its chunks are
embedded again with the transformer, through the same `embed_documents` the build runs (a
class moved toward its members' sentences, the static model's words kept for the keyword
side), and every set is scored again with the transformer embedding the queries too.
Needs `onnxruntime` (not a dependency of the product).

The chunk vectors are kept in `CACHE` by corpus, model file and chunk ids, with the CPU
seconds they cost, so a second run scores without embedding again.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools" / "embedder"))

from bert_onnx import OnnxEmbedder

from refdoc_site.search.embed import embed_documents

CACHE = Path("/tmp/refdoc-transformer-vectors")


class MemoEmbedder:
    """An embedder that embeds each distinct text once (queries repeat across variants)."""

    def __init__(self, inner: OnnxEmbedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.seen: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = [text for text in dict.fromkeys(texts) if text not in self.seen]
        if missing:
            self.seen.update(zip(missing, self.inner.embed(missing)))
        return np.stack([self.seen[text] for text in texts]) if texts else np.zeros((0, self.dim), np.float32)


class EnglishOnly:
    """The same embedder reading only a query's ASCII: a Japanese query's glossary English
    (`ranking.with_glossary` appends it), not the Japanese that MiniLM was not trained on."""

    def __init__(self, inner: MemoEmbedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name + " (ASCII of the query)", inner.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed([english(text) for text in texts])


def english(text: str) -> str:
    """`text` without its non-ASCII characters (the whole text if it has no ASCII letter)."""
    kept = "".join(char if char.isascii() else " " for char in text)
    return " ".join(kept.split()) if any(char.isalpha() for char in kept) else text


def load(model_dir: Path) -> MemoEmbedder:
    return MemoEmbedder(OnnxEmbedder(model_dir / "model-int8.onnx"))


def reembed(corpus: str, documents: list, embedder: MemoEmbedder) -> dict:
    """Give `documents` transformer vectors (from the cache when it has them); returns the
    build cost: chunks, CPU seconds (this process, all threads) and the bytes of one vector."""
    ids = "\n".join(d.chunk.id for d in documents)
    key = hashlib.sha256(f"{embedder.inner.digest}\n{ids}".encode()).hexdigest()[:16]
    vectors_path, cost_path = CACHE / f"{corpus}-{key}.npy", CACHE / f"{corpus}-{key}.json"
    if vectors_path.exists() and cost_path.exists():
        for document, vector in zip(documents, np.load(vectors_path)):
            document.embedding = vector.tolist()
        return json.loads(cost_path.read_text(encoding="utf-8"))
    started, wall = time.process_time(), time.perf_counter()
    failed = embed_documents(documents, embedder.inner)
    cost = {
        "chunks": len(documents),
        "cpu_seconds": round(time.process_time() - started, 2),
        "wall_seconds": round(time.perf_counter() - wall, 2),
        "failed": len(failed),
    }
    cost["cpu_per_chunk"] = round(cost["cpu_seconds"] / max(1, len(documents)), 4)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(vectors_path, np.asarray([d.embedding or [0.0] * embedder.dim for d in documents], dtype=np.float32))
    cost_path.write_text(json.dumps(cost) + "\n", encoding="utf-8")
    return cost
