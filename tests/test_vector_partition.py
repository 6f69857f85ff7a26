"""The clustered dense search (vector_partition.py): reading every cluster is the
exhaustive search; reading fewer keeps most of its top results on clustered data."""

from __future__ import annotations

import numpy as np

from refdoc_site.search.ranking import quantize_rows
from refdoc_site.search.vector_partition import approximate_dense_scores, exhaustive_dense_scores, partition


def clustered_rows(count: int = 2000, dim: int = 32, groups: int = 20):
    generator = np.random.default_rng(7)
    centres = generator.normal(size=(groups, dim))
    vectors = centres[generator.integers(0, groups, count)] + 0.3 * generator.normal(size=(count, dim))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return quantize_rows(vectors), generator


def test_probing_every_cluster_is_the_exhaustive_search() -> None:
    (rows, scales), generator = clustered_rows()
    part = partition(rows, scales, 25)
    assert sorted(np.bincount(part.assignment, minlength=25) > 0) == [True] * 25  # none empty
    for _ in range(20):
        query = generator.normal(size=rows.shape[1])
        query /= np.linalg.norm(query)
        assert approximate_dense_scores(rows, scales, part, query, 25, 50) == exhaustive_dense_scores(rows, scales, query, 50)


def test_a_few_clusters_hold_most_of_the_nearest() -> None:
    (rows, scales), generator = clustered_rows()
    part = partition(rows, scales, 25)
    recalls = []
    for position in generator.integers(0, len(rows), 30):
        query = rows[position] * scales[position]  # a query near the data, as real ones are
        near = approximate_dense_scores(rows, scales, part, query, 3, 10)
        recalls.append(len(set(near) & set(exhaustive_dense_scores(rows, scales, query, 10))) / 10)
    assert np.mean(recalls) > 0.9, recalls


def test_the_same_chunks_give_the_same_clusters() -> None:
    (rows, scales), _ = clustered_rows(500)
    first, second = partition(rows, scales, 10), partition(rows, scales, 10)
    assert np.array_equal(first.assignment, second.assignment) and np.array_equal(first.centroid_rows, second.centroid_rows)
