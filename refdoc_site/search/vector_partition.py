"""The chunk vectors cut into clusters, so that a query reads a few of them, not all.

A large site ships its int8 chunk vectors (`ranking.quantize_rows`) in clusters: spherical
k-means over the vectors, each cluster's centroid quantised the same way. A query scores
the centroids, then only the chunks of the `probe` nearest clusters, with the same
formula as the exhaustive dense side (scale · int8 row · query). The browser does exactly
this over the files `site_shards.py` writes; `approximate_dense_scores` is the same step in
Python, for the parity tests and for measuring recall against the exhaustive search
(`benchmarks/browser_bench.py`). The CLI's `query` stays exhaustive: it holds every
vector already, so reading all of them costs no transfer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ranking import quantize_rows

KMEANS_ITERATIONS = 12
SEED = 20261202
"""A fixed seed: the same chunks give the same clusters, build after build."""


@dataclass(frozen=True)
class VectorPartition:
    """Which cluster each chunk is in, and the clusters' centroids as int8 rows and scales."""

    assignment: np.ndarray
    """cluster number by chunk position."""
    centroid_rows: np.ndarray
    centroid_scales: np.ndarray

    @property
    def clusters(self) -> int:
        return len(self.centroid_rows)

    def members(self, cluster: int) -> np.ndarray:
        """Chunk positions of one cluster, in position order."""
        return np.flatnonzero(self.assignment == cluster)


def cluster_count(chunks: int, per_cluster: int) -> int:
    """About `per_cluster` chunks a cluster, at least one cluster."""
    return max(1, round(chunks / max(per_cluster, 1)))


def partition(rows: np.ndarray, scales: np.ndarray, clusters: int) -> VectorPartition:
    """Spherical k-means of the dequantised rows into `clusters` (seeded, fixed rounds)."""
    vectors = rows.astype(np.float32) * scales[:, None].astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1, norms)
    count = len(vectors)
    clusters = min(max(clusters, 1), max(count, 1))
    generator = np.random.default_rng(SEED)
    centroids = vectors[np.sort(generator.choice(count, size=clusters, replace=False))] if count else np.zeros((1, rows.shape[1]), np.float32)
    assignment = np.zeros(count, dtype=np.int64)
    for _ in range(KMEANS_ITERATIONS):
        assignment = _nearest(vectors, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assignment, vectors)
        sizes = np.bincount(assignment, minlength=clusters)
        empty = sizes == 0
        # An empty cluster takes the chunk its centroid fits worst, so none stays empty.
        if empty.any():
            fit = np.einsum("ij,ij->i", vectors, centroids[assignment])
            for cluster, position in zip(np.flatnonzero(empty), np.argsort(fit, kind="stable")):
                sums[cluster] = vectors[position]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = sums / np.where(norms == 0, 1, norms)
    assignment = _nearest(vectors, centroids) if count else assignment
    centroid_rows, centroid_scales = quantize_rows(centroids)
    return VectorPartition(assignment.astype(np.int64), centroid_rows, centroid_scales)


def _nearest(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    nearest = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), 4096):  # bounded memory on 100k chunks
        nearest[start : start + 4096] = np.argmax(vectors[start : start + 4096] @ centroids.T, axis=1)
    return nearest


def int8_scores(rows: np.ndarray, scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """scale · (int8 row · query), in float64: the browser's `VectorTable.scores`."""
    return (rows.astype(np.float64) @ np.asarray(query, dtype=np.float64)) * scales.astype(np.float64)


def probed_clusters(part: VectorPartition, query: np.ndarray, probe: int) -> list[int]:
    """The `probe` clusters whose centroids score highest, ties to the lower number."""
    scores = int8_scores(part.centroid_rows, part.centroid_scales, query)
    return [int(c) for c in np.lexsort((np.arange(len(scores)), -scores))[:probe]]


def approximate_dense_scores(
    rows: np.ndarray, scales: np.ndarray, part: VectorPartition, query: np.ndarray, probe: int, candidates: int
) -> dict[int, float]:
    """The top `candidates` chunks of the probed clusters by score (ties to the lower
    position), as {position: score}: the dense side the site ranks with."""
    positions = np.sort(np.concatenate([part.members(c) for c in probed_clusters(part, query, probe)]))
    if not len(positions):
        return {}
    scores = int8_scores(rows[positions], scales[positions], query)
    best = np.lexsort((positions, -scores))[:candidates]
    return {int(positions[i]): float(scores[i]) for i in best}


def exhaustive_dense_scores(rows: np.ndarray, scales: np.ndarray, query: np.ndarray, candidates: int) -> dict[int, float]:
    """The same over every chunk: what the CLI's dense side keeps."""
    scores = int8_scores(rows, scales, query)
    best = np.lexsort((np.arange(len(scores)), -scores))[:candidates]
    return {int(i): float(scores[i]) for i in best}
