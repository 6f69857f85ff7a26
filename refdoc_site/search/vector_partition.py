"""The chunk vectors cut into clusters, so that a query reads a few of them, not all.

A large site ships its int8 chunk vectors (`ranking.quantize_rows`) in clusters: spherical
k-means over the vectors. A query scores
the centroids (in four bits a dimension), then only the chunks of the `probe` nearest clusters: each by its coarse
score, the centroid's score plus its residual's (the chunk less its centroid) in product
codes (`Codebook`: a byte for each of `SUBSPACES` slices of the dimensions, the number of
the nearest of 256 code words of that slice), and the `rerank` best of them again with the
same formula as the exhaustive dense side (scale · int8 row · query). On homeassistant's
92k chunks (1,435 clusters, 144 probed, 100 rescored) these 32 bytes a chunk keep dense
recall@10 0.955 of exhaustive; four-bit codes of the whole vector, 64 bytes, kept 0.957
(benchmarks/README.md, session 15). The browser does
exactly this over the files `site_shards.py` writes; `approximate_dense_scores` is the
same step in Python, for the parity tests and for measuring recall against the
exhaustive search (`benchmarks/browser_bench.py`). The CLI's `query` stays exhaustive: it
holds every vector already, so reading all of them costs no transfer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .ranking import quantize_rows

CENTROID_LEVEL = 7
"""A centroid is stored in four bits a dimension: an int8 row of -7..7 and a scale. On
homeassistant that halves the 1,435 centroids every query reads (189 to 98 KB) and costs
dense recall@10 0.002."""
SUBSPACES = 32
"""Slices of the dimensions a residual is coded in: a byte each."""
CODE_WORDS = 256
CODEBOOK_SAMPLE = 16384
"""Residuals the code words are learnt from (chosen by key, as the first centroids are)."""
CODEBOOK_ITERATIONS = 10
KMEANS_ITERATIONS = 12
SEED = 20261202
"""A fixed seed: the same chunks give the same clusters, build after build."""


@dataclass(frozen=True)
class Codebook:
    """Product codes of residuals: for each of `subspaces` slices of `width` dimensions (the
    last padded with zeros), CODE_WORDS code words as int8 rows with one float32 scale a
    slice. A residual is the byte of its nearest code word in each slice; a query scores
    every code word of a slice once (`tables`) and a chunk by adding up its bytes' entries."""

    rows: np.ndarray
    """int8 (subspaces, CODE_WORDS, width)."""
    scales: np.ndarray
    """float32 (subspaces,)."""

    @property
    def subspaces(self) -> int:
        return self.rows.shape[0]

    @property
    def width(self) -> int:
        return self.rows.shape[2]

    def words(self) -> np.ndarray:
        """The code words dequantised, float32 (subspaces, CODE_WORDS, width)."""
        return self.rows.astype(np.float32) * self.scales[:, None, None]

    def encode(self, residuals: np.ndarray) -> np.ndarray:
        """Each residual's nearest code word by slice (squared distance; ties to the lower
        number), uint8 (count, subspaces)."""
        tables = np.stack([_distance_table(words) for words in self.words()])  # (subspaces, width + 1, words)
        codes = np.empty((len(residuals), self.subspaces), dtype=np.uint8)
        for start in range(0, len(residuals), 4096):  # bounded memory on 100k chunks
            block = _sliced(residuals[start : start + 4096], self.subspaces, self.width).transpose(1, 0, 2)
            extended = np.concatenate([block, np.ones(block.shape[:2] + (1,), np.float32)], axis=2)
            codes[start : start + 4096] = np.argmin(np.matmul(extended, tables), axis=2).T
        return codes

    def tables(self, query: np.ndarray) -> np.ndarray:
        """float64 (subspaces, CODE_WORDS): each code word · its slice of the query, summed
        dimension by dimension and then scaled, as refdoc-shards.js `codeTables` does."""
        padded = np.zeros(self.subspaces * self.width, dtype=np.float64)
        padded[: len(query)] = query
        sliced = padded.reshape(self.subspaces, self.width)
        table = np.zeros(self.rows.shape[:2], dtype=np.float64)
        for d in range(self.width):
            table += self.rows[:, :, d].astype(np.float64) * sliced[:, d][:, None]
        return table * self.scales.astype(np.float64)[:, None]

    def scores(self, codes: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Each coded residual · query: its slices' table entries added in slice order."""
        table = self.tables(query)
        total = np.zeros(len(codes), dtype=np.float64)
        for m in range(self.subspaces):
            total += table[m, codes[:, m]]
        return total


def _distance_table(words: np.ndarray) -> np.ndarray:
    """(width + 1, words): a point extended by a 1, times this, is its squared distance to
    each word less the point's own squared length (which does not change the nearest)."""
    return np.vstack([-2 * words.T, (words**2).sum(axis=1)[None]]).astype(np.float32)


def group_sums(points: np.ndarray, groups: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The sum of the points of each of `count` groups (float32, zero for an empty group)
    and the groups' sizes, without `np.add.at`'s point-at-a-time adding: a narrow point's
    coordinates counted by group, a wide one's points sorted by group and added run by run."""
    sizes = np.bincount(groups, minlength=count)
    sums = np.zeros((count, points.shape[1]), dtype=np.float32)
    present = np.flatnonzero(sizes)
    if points.shape[1] <= 8:
        for d in range(points.shape[1]):
            sums[:, d] = np.bincount(groups, weights=points[:, d], minlength=count)
    elif len(present):
        order = np.argsort(groups, kind="stable")
        starts = np.concatenate(([0], np.cumsum(sizes[present])[:-1]))
        sums[present] = np.add.reduceat(points[order], starts, axis=0)
    return sums, sizes


def _sliced(vectors: np.ndarray, subspaces: int, width: int) -> np.ndarray:
    """Vectors padded to subspaces · width and cut into (count, subspaces, width)."""
    padded = np.zeros((len(vectors), subspaces * width), dtype=np.float32)
    padded[:, : vectors.shape[1]] = vectors
    return padded.reshape(len(vectors), subspaces, width)


def train_codebook(residuals: np.ndarray, keys: list[str] | None, subspaces: int = SUBSPACES) -> Codebook:
    """k-means (squared distance, CODEBOOK_ITERATIONS rounds) of each slice of a sample of
    the residuals: the CODEBOOK_SAMPLE whose keys hash lowest (`stable_seeds`), or the
    first ones without keys; the first CODE_WORDS of them are the starting words."""
    count, dim = residuals.shape
    subspaces = max(1, min(subspaces, dim))
    width = -(-dim // subspaces)
    sample = stable_seeds(keys, min(CODEBOOK_SAMPLE, count)) if keys is not None else np.arange(min(CODEBOOK_SAMPLE, count))
    data = _sliced(residuals[sample], subspaces, width) if count else np.zeros((1, subspaces, width), np.float32)
    words = data[np.arange(CODE_WORDS) % len(data)].transpose(1, 0, 2).copy()  # (subspaces, words, width)
    for m in range(subspaces):
        points = data[:, m]
        extended = np.hstack([points, np.ones((len(points), 1), np.float32)])
        for _ in range(CODEBOOK_ITERATIONS):
            nearest = np.argmin(extended @ _distance_table(words[m]), axis=1)
            sums, sizes = group_sums(points, nearest, CODE_WORDS)
            filled = sizes > 0
            words[m][filled] = sums[filled] / sizes[filled][:, None]
    rows, scales = quantize_rows(words.reshape(subspaces, -1))
    return Codebook(rows.reshape(subspaces, CODE_WORDS, width), scales)


def residuals(rows: np.ndarray, scales: np.ndarray, assignment: np.ndarray, centroid_rows: np.ndarray, centroid_scales: np.ndarray) -> np.ndarray:
    """Each chunk less its cluster's centroid as stored, in the units of the exact score
    (int8 row · scale), float32."""
    chunks = rows.astype(np.float32) * scales[:, None].astype(np.float32)
    return chunks - centroid_rows[assignment].astype(np.float32) * centroid_scales[assignment, None].astype(np.float32)


@dataclass(frozen=True)
class VectorPartition:
    """Which cluster each chunk is in, and the clusters' centroids as int8 rows and scales."""

    assignment: np.ndarray
    """cluster number by chunk position."""
    centroid_rows: np.ndarray
    centroid_scales: np.ndarray
    codebook: Codebook
    codes: np.ndarray
    """every chunk's residual codes (`Codebook.encode`), by position: uint8, a column a slice."""

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
        sums, sizes = group_sums(vectors, assignment, clusters)
        empty = sizes == 0
        # An empty cluster takes the chunk its centroid fits worst, so none stays empty.
        if empty.any():
            fit = np.einsum("ij,ij->i", vectors, centroids[assignment])
            for cluster, position in zip(np.flatnonzero(empty), np.argsort(fit, kind="stable")):
                sums[cluster] = vectors[position]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = sums / np.where(norms == 0, 1, norms)
    centroid_rows, centroid_scales = quantize_rows(centroids, CENTROID_LEVEL)
    if count:
        assignment = nearest_clusters(vectors, centroid_rows, centroid_scales)
    left = residuals(rows, scales, assignment, centroid_rows, centroid_scales)
    codebook = train_codebook(left, keys)
    return VectorPartition(assignment.astype(np.int64), centroid_rows, centroid_scales, codebook, codebook.encode(left))


def pack_nibbles(rows: np.ndarray) -> bytes:
    """Rows of -8..7, two a byte, the even dimension in the low four bits (two's
    complement); a row of an odd dimension ends in a padding nibble."""
    count, dim = rows.shape
    padded = np.zeros((count, dim + dim % 2), dtype=np.int16)
    padded[:, :dim] = rows
    nibbles = (padded & 0x0F).astype(np.uint8)
    return (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).tobytes()


def unpack_nibbles(data: bytes, count: int, dim: int) -> np.ndarray:
    """pack_nibbles read back (int8)."""
    packed = np.frombuffer(data, np.uint8, count * ((dim + 1) // 2)).reshape(count, -1)
    nibbles = np.empty((count, packed.shape[1] * 2), dtype=np.int16)
    nibbles[:, 0::2], nibbles[:, 1::2] = packed & 0x0F, packed >> 4
    return np.where(nibbles > 7, nibbles - 16, nibbles)[:, :dim].astype(np.int8)


def unit_vectors(rows: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The int8 rows dequantised and scaled to length one (float32), as k-means reads them."""
    vectors = rows.astype(np.float32) * scales[:, None].astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def nearest_clusters(vectors: np.ndarray, centroid_rows: np.ndarray, centroid_scales: np.ndarray) -> np.ndarray:
    """Each unit vector's cluster: the centroid as stored (int8 row · scale, what a query
    probes with) that scores it highest. The clusters are cut against the stored centroids,
    not k-means' last float ones, so that the same centroids cut the same chunks the same
    way in another build (a preview is cut against its main site's: rendering/previews.py).
    A centroid that no chunk scores highest (two four-bit centroids can round alike) takes
    the chunk it scores highest among those of clusters with more than one, so that no
    cluster piece is empty."""
    stored = centroid_rows.astype(np.float32) * centroid_scales[:, None].astype(np.float32)
    assignment = _nearest(vectors, stored)
    sizes = np.bincount(assignment, minlength=len(stored))
    if len(vectors) < len(stored):  # too few chunks to fill every cluster
        return assignment
    for cluster in np.flatnonzero(sizes == 0):
        fit = vectors @ stored[cluster]
        fit[sizes[assignment] <= 1] = -np.inf
        position = int(np.argmax(fit))
        sizes[assignment[position]] -= 1
        assignment[position], sizes[cluster] = cluster, 1
    return assignment


def stable_seeds(keys: list[str], clusters: int) -> np.ndarray:
    """The positions of the `clusters` keys with the lowest SHA-256 (ties to the lower
    position), in position order: a sample that does not depend on the positions."""
    order = sorted(range(len(keys)), key=lambda i: (hashlib.sha256(keys[i].encode("utf-8")).digest()[:8], i))
    return np.array(sorted(order[:clusters]), dtype=np.int64)


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


def coarse_scores(part: VectorPartition, positions: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Centroid score + coded residual score of each chunk at `positions`, float64: the
    browser's coarse score (refdoc-shards.js `ClusterVectors.coarse`)."""
    centroid = int8_scores(part.centroid_rows, part.centroid_scales, query)
    return centroid[part.assignment[positions]] + part.codebook.scores(part.codes[positions], query)


def reranked_positions(part: VectorPartition, query: np.ndarray, probe: int, rerank: int) -> np.ndarray:
    """The `rerank` chunks of the probed clusters with the best coarse scores (ties to the
    lower position): the ones whose exact rows a query fetches."""
    positions = probed_positions(part, query, probe)
    coarse = coarse_scores(part, positions, query)
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
    scores = coarse_scores(part, positions, query)
    best = np.lexsort((positions, -scores))[:rerank]
    scores[best] = int8_scores(rows[positions[best]], scales[positions[best]], query)
    kept = np.lexsort((positions, -scores))[:candidates]
    return {int(positions[i]): float(scores[i]) for i in kept}


def exhaustive_dense_scores(rows: np.ndarray, scales: np.ndarray, query: np.ndarray, candidates: int) -> dict[int, float]:
    """The same over every chunk: what the CLI's dense side keeps."""
    scores = int8_scores(rows, scales, query)
    best = np.lexsort((np.arange(len(scores)), -scores))[:candidates]
    return {int(i): float(scores[i]) for i in best}
