"""The clustered dense search (vector_partition.py): reading every cluster is the
exhaustive search; reading fewer keeps most of its top results on clustered data."""

from __future__ import annotations

import numpy as np

from refdoc_site.search.ranking import quantize_rows
from refdoc_site.search.vector_partition import (
    CODE_WORDS,
    approximate_dense_scores,
    exhaustive_dense_scores,
    pack_nibbles,
    partition,
    residuals,
    train_codebook,
    unpack_nibbles,
)


def clustered_rows(count: int = 2000, dim: int = 32, groups: int = 20, noise: float = 0.3):
    generator = np.random.default_rng(7)
    centres = generator.normal(size=(groups, dim))
    vectors = centres[generator.integers(0, groups, count)] + noise * generator.normal(size=(count, dim))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return quantize_rows(vectors), generator


def test_probing_every_cluster_and_rescoring_every_chunk_is_the_exhaustive_search() -> None:
    (rows, scales), generator = clustered_rows()
    part = partition(rows, scales, 25)
    assert sorted(np.bincount(part.assignment, minlength=25) > 0) == [True] * 25  # none empty
    for _ in range(20):
        query = generator.normal(size=rows.shape[1])
        query /= np.linalg.norm(query)
        assert approximate_dense_scores(rows, scales, part, query, 25, 50, len(rows)) == exhaustive_dense_scores(rows, scales, query, 50)


def test_the_best_by_coarse_code_rescored_exactly_are_the_exhaustive_top() -> None:
    """Residual codes alone reorder the top; the best 30 by code scored with the int8 rows
    hold the exhaustive top 10, with its exact scores."""
    (rows, scales), generator = clustered_rows(dim=64, groups=50, noise=0.5)
    part = partition(rows, scales, 25)
    coarse_only, rescored = [], []
    for position in generator.integers(0, len(rows), 30):
        query = rows[position] * scales[position]
        exhaustive = exhaustive_dense_scores(rows, scales, query, 10)
        coarse_only.append(len(set(approximate_dense_scores(rows, scales, part, query, 25, 10, 0)) & set(exhaustive)) / 10)
        near = approximate_dense_scores(rows, scales, part, query, 25, 10, 30)
        rescored.append(len(set(near) & set(exhaustive)) / 10)
        assert all(near[p] == exhaustive[p] for p in set(near) & set(exhaustive))
    assert np.mean(rescored) == 1 and np.mean(coarse_only) < 0.9, (coarse_only, rescored)


def test_a_residuals_codes_score_as_its_code_words_do() -> None:
    """A chunk's coarse score is its centroid's plus the nearest code words' of its residual
    slices: the tables add up to the code words' dot product with the query, and the code
    words are nearer to the residuals than the residuals are long (an odd dimension is
    padded: 33 in 8 slices of 5)."""
    (rows, scales), generator = clustered_rows(600, dim=33)
    part = partition(rows, scales, 6)
    left = residuals(rows, scales, part.assignment, part.centroid_rows, part.centroid_scales)
    book = train_codebook(left, None, subspaces=8)
    assert book.rows.shape == (8, CODE_WORDS, 5)
    codes = book.encode(left)
    assert codes.shape == (600, 8) and codes.dtype == np.uint8
    words = book.words()
    rebuilt = np.concatenate([words[m, codes[:, m]] for m in range(8)], axis=1)[:, :33]
    error = np.linalg.norm(rebuilt - left, axis=1)
    assert np.median(error) < 0.5 * np.median(np.linalg.norm(left, axis=1))
    query = generator.normal(size=33)
    exact = book.rows.astype(np.float64) * book.scales.astype(np.float64)[:, None, None]  # the tables' precision
    rebuilt = np.concatenate([exact[m, codes[:, m]] for m in range(8)], axis=1)[:, :33]
    assert np.allclose(book.scores(codes, query), rebuilt @ query)


def test_centroids_are_four_bits_a_dimension_two_a_byte_and_read_back() -> None:
    (rows, scales), _ = clustered_rows(50, dim=33)  # an odd dimension ends in padding
    centroids, centroid_scales = quantize_rows(rows * scales[:, None], 7)
    assert centroids.min() >= -7 and centroids.max() <= 7 and len(pack_nibbles(centroids)) == 50 * 17
    assert np.array_equal(unpack_nibbles(pack_nibbles(centroids), 50, 33), centroids)
    rebuilt = centroids * centroid_scales[:, None]
    assert np.abs(rebuilt - rows * scales[:, None]).max() <= 0.5 * centroid_scales.max() + 1e-6


def test_the_code_words_are_learnt_the_same_way_from_the_same_keys() -> None:
    (rows, scales), _ = clustered_rows(400, dim=16)
    part = partition(rows, scales, 4)
    left = residuals(rows, scales, part.assignment, part.centroid_rows, part.centroid_scales)
    keys = [f"chunk-{i}" for i in range(400)]
    first, second = train_codebook(left, keys, 4), train_codebook(left, keys, 4)
    assert np.array_equal(first.rows, second.rows) and np.array_equal(first.scales, second.scales)


def test_a_few_clusters_hold_most_of_the_nearest() -> None:
    (rows, scales), generator = clustered_rows()
    part = partition(rows, scales, 25)
    recalls = []
    for position in generator.integers(0, len(rows), 30):
        query = rows[position] * scales[position]  # a query near the data, as real ones are
        near = approximate_dense_scores(rows, scales, part, query, 3, 10, len(rows))  # clusters alone
        recalls.append(len(set(near) & set(exhaustive_dense_scores(rows, scales, query, 10))) / 10)
    assert np.mean(recalls) > 0.9, recalls


def test_the_same_chunks_give_the_same_clusters() -> None:
    (rows, scales), _ = clustered_rows(500)
    first, second = partition(rows, scales, 10), partition(rows, scales, 10)
    assert np.array_equal(first.assignment, second.assignment) and np.array_equal(first.centroid_rows, second.centroid_rows)
