"""What the sparse side's match data says about a query, beyond its scores.

Lunr reports, for each chunk it scores, which index terms matched in which field. Two
rules of the fusion read it (`ranking.py`; `browser/refdoc-search.js` holds the same):

- messages first: a chunk whose string literals hold every word pair of the query (at
  least `message_min_pairs`) says the query verbatim, an error message pasted into the
  box; such chunks go first, in the fused order, and the vectors re-rank only below them;
- coverage: the sparse score of a description (more English words than
  `expand_max_terms`, matched exactly) is scaled by the share of its words a chunk holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class SparseMatches:
    """The sparse side's answer to one query."""

    scores: dict[int, float]
    """Lunr's score by document position."""
    messages: set[int]
    """Positions whose code holds the query as a message: every word pair of the query (at
    least `message_min_pairs`) among its string literals' pairs (`phrases`)."""
    coverage: dict[int, float]
    """For a description (more English words than `expand_max_terms`, so matched exactly),
    the share of its words each position holds in any field; else empty."""

    def covered(self, power: float) -> dict[int, float]:
        """Scores scaled by coverage ** power: BM25 adds up each word's weight, so a chunk
        that repeats one rare word of a description outscores one that holds most of it."""
        if not self.coverage or not power:
            return self.scores
        return {p: score * self.coverage[p] ** power for p, score in self.scores.items()}


def read_matches(results: Iterable[dict], pairs: list[str], words: list[tuple[str, ...]]) -> SparseMatches:
    """`SparseMatches` of Lunr's results (with their match data). `pairs`: the query's word
    pairs, empty when too few to make a message; `words`: the words coverage counts, each
    as the stemmed terms any of which holds it, empty when it does not apply."""
    scores: dict[int, float] = {}
    messages: set[int] = set()
    coverage: dict[int, float] = {}
    for result in results:
        position = int(result["ref"])
        scores[position] = float(result["score"])
        metadata = result["match_data"].metadata
        if pairs and all("phrases" in metadata.get(pair, {}) for pair in pairs):
            messages.add(position)
        if words:
            coverage[position] = sum(any(term in metadata for term in word) for word in words) / len(words)
    return SparseMatches(scores, messages, coverage)


def messages_first(messages: set[int], order: list[int]) -> list[int]:
    """`order` with the chunks that hold the query verbatim in a string literal moved to the
    front, in their order: the words are exact, so the dense side re-ranks only below them."""
    if not messages:
        return order
    return [p for p in order if p in messages] + [p for p in order if p not in messages]
