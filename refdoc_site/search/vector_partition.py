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

import hashlib
from dataclasses import dataclass

import numpy as np

from .ranking import quantize_rows

CODE_LEVEL = 7
"""A coarse code is an int8 row scaled to -7..7: four bits a dimension."""
CODE_SCALE = 127 / CODE_LEVEL
"""What turns a coarse code back into the int8 row's units (score · scale · CODE_SCALE)."""
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
    codes: np.ndarray
    """every chunk's coarse code (`coarse_codes`), by position."""

    @property
    def clusters(self) -> int:
        return len(self.centroid_rows)

    def members(self, cluster: int) -> np.ndarray:
        """Chunk positions of one cluster, in position order."""
        return np.flatnonzero(self.assignment == cluster)


def cluster_count(chunks: int, per_cluster: int) -> int:
    """About `per_cluster` chunks a cluster, at least one cluster."""
    return max(1, round(chunks / max(per_cluster, 1)))


def partition(rows: np.ndarray, scales: np.ndarray, clusters: int, keys: list[str] | None = None) -> VectorPartition:
    """Spherical k-means of the dequantised rows into `clusters` (seeded, fixed rounds).

    With `keys` (a stable name per row, e.g. its chunk id) the first centroids are the rows
    whose keys hash lowest (`stable_seeds`), not a draw among positions: a change to a few
    chunks then changes at most as many of the seeds, and the clusters they lead to change
    little (a pull request's preview carries only the cluster files that did)."""
    vectors = unit_vectors(rows, scales)
    count = len(vectors)
    clusters = min(max(clusters, 1), max(count, 1))
    if keys is not None:
        seeds = stable_seeds(keys, clusters)
    else:
        seeds = np.sort(np.random.default_rng(SEED).choice(count, size=clusters, replace=False)) if count else np.zeros(0, np.int64)
    centroids = vectors[seeds] if count else np.zeros((1, rows.shape[1]), np.float32)
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
    centroid_rows, centroid_scales = quantize_rows(centroids)
    if count:
        assignment = nearest_clusters(vectors, centroid_rows, centroid_scales)
    return VectorPartition(assignment.astype(np.int64), centroid_rows, centroid_scales, coarse_codes(rows))


def unit_vectors(rows: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The int8 rows dequantised and scaled to length one (float32), as k-means reads them."""
    vectors = rows.astype(np.float32) * scales[:, None].astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def nearest_clusters(vectors: np.ndarray, centroid_rows: np.ndarray, centroid_scales: np.ndarray) -> np.ndarray:
    """Each unit vector's cluster: the centroid as stored (int8 row · scale, what a query
    probes with) that scores it highest. The clusters are cut against the stored centroids,
    not k-means' last float ones, so that the same centroids cut the same chunks the same
    way in another build (a preview is cut against its main site's: rendering/previews.py)."""
    return _nearest(vectors, centroid_rows.astype(np.float32) * centroid_scales[:, None].astype(np.float32))


def stable_seeds(keys: list[str], clusters: int) -> np.ndarray:
    """The positions of the `clusters` keys with the lowest SHA-256 (ties to the lower
    position), in position order: a sample that does not depend on the positions."""
    order = sorted(range(len(keys)), key=lambda i: (hashlib.sha256(keys[i].encode("utf-8")).digest()[:8], i))
    return np.array(sorted(order[:clusters]), dtype=np.int64)


def coarse_codes(rows: np.ndarray) -> np.ndarray:
    """Each int8 row rounded to -CODE_LEVEL..CODE_LEVEL (int8 values, four bits of information)."""
    return np.clip(np.rint(rows.astype(np.float32) * (CODE_LEVEL / 127)), -CODE_LEVEL, CODE_LEVEL).astype(np.int8)


def pack_codes(codes: np.ndarray) -> bytes:
    """Two codes a byte, the even dimension in the low four bits (two's complement); a row of
    an odd dimension ends in a padding nibble."""
    count, dim = codes.shape
    padded = np.zeros((count, dim + dim % 2), dtype=np.int16)
    padded[:, :dim] = codes
    nibbles = (padded & 0x0F).astype(np.uint8)
    return (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).tobytes()


def unpack_codes(data: bytes, count: int, dim: int) -> np.ndarray:
    """pack_codes read back."""
    packed = np.frombuffer(data, np.uint8, count * ((dim + 1) // 2)).reshape(count, -1)
    nibbles = np.empty((count, packed.shape[1] * 2), dtype=np.int16)
    nibbles[:, 0::2], nibbles[:, 1::2] = packed & 0x0F, packed >> 4
    return np.where(nibbles > 7, nibbles - 16, nibbles)[:, :dim].astype(np.int8)


def coarse_scores(codes: np.ndarray, scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """(code · query) · scale · CODE_SCALE, in float64: the browser's coarse score."""
    return (codes.astype(np.float64) @ np.asarray(query, dtype=np.float64)) * scales.astype(np.float64) * CODE_SCALE


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


def probed_positions(part: VectorPartition, query: np.ndarray, probe: int) -> np.ndarray:
    """The chunks of the probed clusters, in position order."""
    found = [part.members(c) for c in probed_clusters(part, query, probe)]
    return np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def reranked_positions(part: VectorPartition, scales: np.ndarray, query: np.ndarray, probe: int, rerank: int) -> np.ndarray:
    """The `rerank` chunks of the probed clusters with the best coarse scores (ties to the
    lower position): the ones whose exact rows a query fetches."""
    positions = probed_positions(part, query, probe)
    coarse = coarse_scores(part.codes[positions], scales[positions], query)
    return positions[np.lexsort((positions, -coarse))[:rerank]]


def approximate_dense_scores(
    rows: np.ndarray, scales: np.ndarray, part: VectorPartition, query: np.ndarray, probe: int, candidates: int, rerank: int
) -> dict[int, float]:
    """The top `candidates` chunks of the probed clusters (ties to the lower position), as
    {position: score}: the dense side the site ranks with. Scores are coarse, but exact for
    the `rerank` best by coarse score."""
    positions = probed_positions(part, query, probe)
    if not len(positions):
        return {}
    scores = coarse_scores(part.codes[positions], scales[positions], query)
    best = np.lexsort((positions, -scores))[:rerank]
    scores[best] = int8_scores(rows[positions[best]], scales[positions[best]], query)
    kept = np.lexsort((positions, -scores))[:candidates]
    return {int(positions[i]): float(scores[i]) for i in kept}


def exhaustive_dense_scores(rows: np.ndarray, scales: np.ndarray, query: np.ndarray, candidates: int) -> dict[int, float]:
    """The same over every chunk: what the CLI's dense side keeps."""
    scores = int8_scores(rows, scales, query)
    best = np.lexsort((np.arange(len(scores)), -scores))[:candidates]
    return {int(i): float(scores[i]) for i in best}
