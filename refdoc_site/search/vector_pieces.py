"""The vector pieces of a large site's search data, as bytes: `centroids.bin`,
`codebook.bin`, `clusters/N.bin` (what vector_partition.py makes of the chunk vectors,
written by site_shards.py), and a pull request's clusters cut again against its main
site's centroids and code words (`clusters_cut_by`, for rendering/previews.py). The
browser reads them in refdoc-shards.js (`readCentroids`, `readCodebook`, `readCluster`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from .vector_partition import Codebook, nearest_clusters, pack_nibbles, residuals, unit_vectors, unpack_nibbles

CLUSTER_MAGIC = b"RDCLU\x00\x03\x00"
CODEBOOK_MAGIC = b"RDCBK\x00\x01\x00"
CENTROIDS_MAGIC = b"RDCEN\x00\x01\x00"


def centroids_bytes(rows: np.ndarray, scales: np.ndarray) -> bytes:
    """`centroids.bin`: count, dimensions; a float32 scale a centroid; the rows of -7..7
    two a byte (vector_partition.pack_nibbles)."""
    count, dim = rows.shape
    return CENTROIDS_MAGIC + struct.pack("<II", count, dim) + scales.astype("<f4").tobytes() + pack_nibbles(rows)


def cluster_pieces(ids: np.ndarray, codes: np.ndarray, assignment: np.ndarray, clusters: int):
    """(name, bytes) of each cluster's piece: its chunks by stable id (so the bytes of a
    cluster whose chunks stay the same stay too), then their residual codes, a row each."""
    order = np.lexsort((ids, assignment))
    bounds = np.searchsorted(assignment[order], np.arange(clusters + 1))
    for cluster in range(clusters):
        members = order[bounds[cluster] : bounds[cluster + 1]]
        data = CLUSTER_MAGIC + struct.pack("<II", len(members), codes.shape[1]) + ids[members].astype("<u4").tobytes()
        yield f"clusters/{cluster}.bin", data + codes[members].astype(np.uint8).tobytes()


def codebook_bytes(codebook: Codebook) -> bytes:
    """`codebook.bin`: slices, code words, width; a float32 scale a slice; the int8 words."""
    subspaces, words, width = codebook.rows.shape
    return CODEBOOK_MAGIC + struct.pack("<III", subspaces, words, width) + codebook.scales.astype("<f4").tobytes() + codebook.rows.tobytes()


def read_codebook(data: bytes) -> Codebook:
    """`codebook.bin` read."""
    subspaces, words, width = struct.unpack_from("<III", data, 8)
    scales = np.frombuffer(data, "<f4", subspaces, 20).astype(np.float32)
    rows = np.frombuffer(data, np.int8, subspaces * words * width, 20 + 4 * subspaces).reshape(subspaces, words, width)
    return Codebook(rows, scales)


@dataclass(frozen=True)
class ClusterCut:
    """A site's chunks cut into the clusters of another site's centroids."""

    pieces: dict[str, bytes]
    """`clusters/N.bin` for every cluster, and the other site's `centroids.bin` and `codebook.bin`."""
    clusters: int
    probe: int


def clusters_cut_by(data_dir: Path, main_dir: Path) -> ClusterCut | None:
    """The cluster pieces of the site whose search data is `data_dir`, cut against the
    centroids of the site in `main_dir` (a pull request's preview against the main site it
    is published beside): k-means moves every centroid when one chunk is added, and with it
    most clusters' members (85 of 115 clusters on django for one appended function), but
    against the same centroids a chunk that did not change stays in its cluster, so only the
    clusters of the changed chunks differ. None when either site has no vectors in pieces
    or their formats or dimensions differ."""
    try:
        ours = orjson.loads((data_dir / "config.json").read_bytes()).get("shards") or {}
        theirs = orjson.loads((main_dir / "config.json").read_bytes()).get("shards") or {}
        centroids = (main_dir / "centroids.bin").read_bytes()
        codebook = (main_dir / "codebook.bin").read_bytes()
    except (OSError, AttributeError, orjson.JSONDecodeError):
        return None
    vectors, main_vectors = ours.get("vectors"), theirs.get("vectors")
    if not vectors or not main_vectors or ours.get("format") != theirs.get("format") or vectors["dim"] != main_vectors["dim"]:
        return None
    centroid_rows, centroid_scales = read_centroids(centroids)
    count, dim = centroid_rows.shape
    ids, rows, scales = exact_rows(data_dir, ours["idStride"], vectors["exactPerBundle"], dim)
    assignment = nearest_clusters(unit_vectors(rows, scales), centroid_rows, centroid_scales)
    codes = read_codebook(codebook).encode(residuals(rows, scales, assignment, centroid_rows, centroid_scales))
    pieces = dict(cluster_pieces(ids, codes, assignment, count))
    pieces["centroids.bin"] = centroids
    pieces["codebook.bin"] = codebook
    return ClusterCut(pieces, count, main_vectors["probe"])


def read_centroids(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """`centroids.bin` read: the rows (int8 of -7..7, stored two a byte) and their float32 scales."""
    count, dim = struct.unpack_from("<II", data, 8)
    scales = np.frombuffer(data, "<f4", count, 16).astype(np.float32)
    return unpack_nibbles(data[16 + 4 * count :], count, dim), scales


def exact_rows(data_dir: Path, stride: int, per_bundle: int, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chunk's stable id, int8 row and scale, from the `exact/G-K.bin` pieces (bundle K
    of group G holds the group's chunks K · per_bundle on, in order)."""
    ids, rows, scales = [], [], []
    for path in sorted((data_dir / "exact").glob("*.bin")):
        group, bundle = (int(part) for part in path.stem.split("-"))
        data = path.read_bytes()
        size = struct.unpack_from("<I", data, 8)[0]
        ids.append(group * stride + bundle * per_bundle + np.arange(size, dtype=np.int64))
        scales.append(np.frombuffer(data, "<f4", size, 16))
        rows.append(np.frombuffer(data, np.int8, size * dim, 16 + 4 * size).reshape(size, dim))
    if not ids:
        return np.zeros(0, np.int64), np.zeros((0, dim), np.int8), np.zeros(0, np.float32)
    return np.concatenate(ids), np.concatenate(rows), np.concatenate(scales).astype(np.float32)
