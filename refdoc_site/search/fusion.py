"""How the keyword and the meaning sides' scores become one ranking: each side's scores
normalised to 0..1 over its top candidates, then summed with the settings' weight (the
browser's `refdoc-search.js` fuses the same way), and when two scores tie."""

from __future__ import annotations

import math


def tie_level(score: float) -> int:
    """A score to 9 decimals, as the ranking compares it: two chunks whose terms weigh the
    same tie, though their sums' last bits differ with the order they were added in (here
    and in the browser, refdoc-search.js `tieLevel`, the same arithmetic)."""
    return math.floor(score * 1e9 + 0.5)


def fuse(sparse: dict[int, float], dense: dict[int, float], weights: dict) -> dict[int, float]:
    """Weighted sum of min-max normalised scores over each side's top candidates."""
    sparse_top = dict(sorted(sparse.items(), key=lambda item: -item[1])[: weights["sparse_candidates"]])
    normalised_sparse = _min_max(sparse_top)
    normalised_dense = _min_max(dense)
    weight = weights["sparse_weight"]
    fused: dict[int, float] = {}
    for position in set(normalised_sparse) | set(normalised_dense):
        fused[position] = weight * normalised_sparse.get(position, 0.0) + (1 - weight) * normalised_dense.get(position, 0.0)
    return fused


def _min_max(scores: dict[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return {key: 1.0 for key in scores}
    return {key: (value - low) / (high - low) for key, value in scores.items()}
