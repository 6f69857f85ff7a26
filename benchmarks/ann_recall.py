"""Recall of a large site's approximate dense search against the exhaustive one.

    python benchmarks/ann_recall.py STORE_DIR [--probe N ...] [--per-cluster N ...] [--rerank N ...]

A site past `shards.min_chunks` chunks ships its vectors in k-means clusters, each chunk
in the product codes of its residual; a query reads the `probe` nearest and the exact int8 rows of the `rerank` best of
their chunks (search/vector_partition.py); the CLI reads every vector. For
each query of the labelled sets (benchmarks/eval, all of them pooled: the queries are
what people ask of code, whatever the corpus) this prints, against the exhaustive search
over the same store:

- dense recall@10: the share of the exhaustive dense top 10 the approximate top 10 holds;
- fused overlap@10: the same for the fused ranking the site shows (its dense side made of
  the probed clusters' candidates);
- the bytes of vectors a query reads (centroids, code words, probed clusters and the exact
  rows' bundles, raw: int8 rows and codes barely compress).

browser_bench.py prints the same for the corpus it benchmarks, at the site's settings.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

from run import _table  # noqa: E402

EVAL_DIR = HERE / "eval"


def labelled_queries() -> list[str]:
    """Every query of the labelled sets, in file order."""
    queries = []
    for path in sorted(EVAL_DIR.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                queries.append(json.loads(line)["query"])
    return queries


def recall(store_dir: Path, settings: list[tuple[int, int, int]], queries: list[str], fused: bool = True) -> list[dict]:
    """Per (chunks per cluster, probe, rerank): dense recall@10, fused overlap@10 (None
    without `fused`: Lunr in Python takes minutes on 100k chunks), vector bytes a query."""
    from refdoc_site.core.store import Store
    from refdoc_site.search.embed import matching_embedder
    from refdoc_site.search.ranking import SearchIndex
    from refdoc_site.search.site_shards import approximate_probe, probe_for
    from refdoc_site.search.vector_partition import (
        approximate_dense_scores,
        cluster_count,
        exhaustive_dense_scores,
        partition,
        probed_clusters,
        reranked_positions,
    )

    state = Store(store_dir).load()
    embedder = matching_embedder(state)
    if embedder is None:
        raise SystemExit(f"ann_recall: {store_dir} has no vectors of the shipped model; index it with the defaults")
    if fused:
        index = SearchIndex.build(state.documents)
    else:  # the vectors alone, as SearchIndex.build keeps them, without Lunr's index
        from refdoc_site.core.records import ChunkKind
        from refdoc_site.search.ranking import quantize_rows

        kept = [d for d in state.documents if d.chunk.kind is not ChunkKind.MODULE or d.chunk.content.strip()]
        index = SearchIndex(kept, {}, *quantize_rows([d.embedding for d in kept]))
    vectors = embedder.embed(queries)
    exhaustive_dense = [exhaustive_dense_scores(index.rows, index.scales, v, 10) for v in vectors]
    exhaustive_fused = [[(h.path, h.symbol) for h in index.search(q, 10, "fused", embedder)] if fused else [] for q in queries]
    dim = index.rows.shape[1]
    rows = []
    per_bundle = shard_settings()["exact_per_bundle"]
    partitions = {}
    for per_cluster, probe, rerank in settings:
        if per_cluster not in partitions:
            partitions[per_cluster] = partition(index.rows, index.scales, cluster_count(len(index.documents), per_cluster), [d.chunk.id for d in index.documents])
        part = partitions[per_cluster]
        probe = probe or probe_for(part.clusters, shard_settings())
        dense_recall, fused_overlap, read = [], [], []
        if fused:
            approximate = SearchIndex(index.documents, index.serialized, index.rows, index.scales, index.fields)
            approximate._lunr_index = index.lunr_index
            approximate.dense_probe = approximate_probe(index, part, probe, rerank)
        sizes = [len(part.members(c)) for c in range(part.clusters)]
        for query, vector, dense, expected in zip(queries, vectors, exhaustive_dense, exhaustive_fused):
            near = approximate_dense_scores(index.rows, index.scales, part, vector, probe, 10, rerank)
            dense_recall.append(len(set(near) & set(dense)) / max(len(dense), 1))
            if expected:
                shown = [(h.path, h.symbol) for h in approximate.search(query, 10, "fused", embedder)]
                fused_overlap.append(len(set(shown) & set(expected)) / len(expected))
            probed = probed_clusters(part, vector, probe)
            bundles = {int(p) // per_bundle for p in reranked_positions(part, vector, probe, rerank)}
            coarse = sum(sizes[c] * (part.codebook.subspaces + 4) for c in probed)
            book = part.codebook.rows.size + 4 * part.codebook.subspaces
            read.append(part.clusters * (dim + 4) + book + coarse + len(bundles) * per_bundle * (dim + 4))
        rows.append({
            "chunks": len(index.documents),
            "per_cluster": per_cluster,
            "clusters": part.clusters,
            "probe": probe,
            "rerank": rerank,
            "dense_recall": statistics.mean(dense_recall),
            "fused_overlap": statistics.mean(fused_overlap) if fused_overlap else None,
            "vector_kb": statistics.median(read) / 1000,
            "queries": len(queries),
        })
    return rows


def shard_settings() -> dict:
    from refdoc_site.search.ranking import settings

    return settings()["shards"]


def print_rows(label: str, rows: list[dict]) -> None:
    table = [
        [
            f"{r['per_cluster']}",
            f"{r['clusters']}",
            f"{r['probe']}",
            f"{r['rerank']}",
            f"{r['dense_recall']:.3f}",
            "-" if r["fused_overlap"] is None else f"{r['fused_overlap']:.3f}",
            f"{r['vector_kb']:.0f} KB",
        ]
        for r in rows
    ]
    print(f"\n{label}: approximate dense search against exhaustive ({rows[0]['chunks']} chunks, {rows[0]['queries']} labelled queries)")
    print(_table(["chunks a cluster", "clusters", "probe", "rerank", "dense recall@10", "fused overlap@10", "vectors a query"], table, right_from=0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store", type=Path, help="a store folder (refdoc-site index with the defaults)")
    parser.add_argument("--probe", type=int, action="append", help="clusters a query reads (default: the site's, shards.probe or probe_share of the clusters)")
    parser.add_argument("--per-cluster", type=int, action="append", help="chunks a cluster (default: the site's)")
    parser.add_argument("--rerank", type=int, action="append", help="chunks scored again with their exact rows (default: the site's)")
    parser.add_argument("--dense-only", action="store_true", help="skip the fused overlap (Lunr in Python: minutes on 100k chunks)")
    args = parser.parse_args(argv)
    from refdoc_site.search.ranking import settings

    site = settings()["shards"]
    grid = [
        (c, p, r)
        for c in (args.per_cluster or [site["chunks_per_cluster"]])
        for p in (args.probe or [0])
        for r in (args.rerank or [site["rerank"]])
    ]
    print_rows(str(args.store), recall(args.store, grid, labelled_queries(), fused=not args.dense_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
