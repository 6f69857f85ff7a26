"""A Lunr 2.3.9 index, serialised directly: what `lunr.Builder` would produce, faster.

The Python `lunr` package builds the same index, but spends most of a build on per-token
objects; this writes the serialised form (the one `lunr.Index.load` reads, in Python and in
lunr.js) straight from the terms. The scoring is Lunr's BM25 with field boosts:

    idf(term)   = ln(1 + |(N - n + 0.5) / (n + 0.5)|), n counting one per field a term is in
    weight      = boost · idf · (k1 + 1) · tf / (k1 · (1 - b + b · length / mean length) + tf)

A test checks the output against the `lunr` package's own builder.

The site ships the same index in a compact form (`compact_index`) that the browser expands
back into exactly this serialised form: the serialised one lists every weight twice over
(field vectors and postings with their per-document objects), 28 MB for django's 13.8k
chunks; the compact one carries what the weights are made of instead (term frequencies,
field lengths, one idf per posting count), 5.1 MB (1.2 MB gzipped, from 5.4).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

LUNR_VERSION = "2.3.9"
COMPACT_FORMAT = "refdoc-keyword/1"
K1 = 1.2
B = 0.75


@dataclass
class TermStatistics:
    """What every weight is computed from, terms in first-seen order (Lunr's `_index`)."""

    fields: list[str]
    boosts: dict[str, float]
    count: int
    postings: dict[str, dict[str, dict[int, int]]]
    """term → field → document position → term frequency."""
    lengths: dict[str, list[int]]
    """field → terms in that field of each document."""

    def posting_count(self, term: str) -> int:
        return sum(len(docs) for docs in self.postings[term].values())

    def idf(self, posting_count: int) -> float:
        return math.log(1 + abs((self.count - posting_count + 0.5) / (posting_count + 0.5)))


def term_statistics(rows: list[dict[str, list[str]]], boosts: dict[str, float]) -> TermStatistics:
    """Counts of `rows` (position = document ref), each mapping every field of `boosts` to
    its terms, already final."""
    fields = list(boosts)
    postings: dict[str, dict[str, dict[int, int]]] = {}
    lengths: dict[str, list[int]] = {f: [] for f in fields}
    for position, row in enumerate(rows):
        for field in fields:
            terms = row[field]
            lengths[field].append(len(terms))
            for term, tf in Counter(terms).items():
                posting = postings.get(term)
                if posting is None:
                    posting = postings[term] = {f: {} for f in fields}
                posting[field][position] = tf
    return TermStatistics(fields, dict(boosts), len(rows), postings, lengths)


def serialized_index(
    rows: list[dict[str, list[str]]], boosts: dict[str, float], decimals: int = 3, search_pipeline: tuple[str, ...] = ("stemmer",)
) -> dict:
    """The serialised index of `rows` (position = document ref), terms already final.

    Each row maps every field name of `boosts` to its terms in order. Weights are rounded
    to `decimals` (Lunr itself keeps 3).
    """
    stats = term_statistics(rows, boosts)
    fields = stats.fields
    index_of = {term: number for number, term in enumerate(stats.postings)}
    per_vector: dict[tuple[int, str], list[tuple[int, float]]] = {(p, f): [] for p in range(stats.count) for f in fields}
    for term, field, position, weight in posting_weights(stats, decimals):
        per_vector[position, field].append((index_of[term], weight))
    vectors = [
        [f"{field}/{position}", [value for pair in sorted(per_vector[position, field]) for value in pair]]
        for position in range(stats.count)
        for field in fields
    ]
    inverted = [
        [term, {"_index": index_of[term], **{f: {str(p): {} for p in stats.postings[term][f]} for f in fields}}]
        for term in sorted(stats.postings)
    ]
    return {"version": LUNR_VERSION, "fields": fields, "fieldVectors": vectors, "invertedIndex": inverted, "pipeline": list(search_pipeline)}


def posting_weights(stats: TermStatistics, decimals: int):
    """(term, field, position, weight) of every posting, terms in `_index` order, fields
    in order, documents in order: the weights Lunr stores, rounded to `decimals`."""
    idf = {term: stats.idf(stats.posting_count(term)) for term in stats.postings}
    means = {f: sum(stats.lengths[f]) / stats.count if stats.count else 0 for f in stats.fields}
    for term, posting in stats.postings.items():
        for field in stats.fields:
            boost, mean = stats.boosts[field], means[field]
            for position, tf in posting[field].items():
                length = stats.lengths[field][position]
                # The same operations in the same order as Lunr, so the rounding agrees too.
                norm = K1 * (1 - B + B * (length / mean)) if mean else K1 * (1 - B)
                yield term, field, position, round(idf[term] * ((K1 + 1) * tf) / (norm + tf) * boost, decimals)


def compact_index(
    rows: list[dict[str, list[str]]],
    boosts: dict[str, float],
    decimals: int = 3,
    search_pipeline: tuple[str, ...] = ("stemmer",),
    stats: TermStatistics | None = None,
) -> dict:
    """The index `serialized_index` makes, in the form the site ships (`refdoc-search`'s
    `keyword.js` expands it back).

    `terms` in `_index` order; `postings[i]` holds, per field, the positions of the
    documents with term i as gaps from the previous one (the first from -1), each gap
    followed by `-tf` when the term is there more than once. The weights are not stored:
    the browser recomputes them from `lengths` (per field, per document), the boosts and
    the idf of each posting count, which Python computes (`math.log` and JavaScript's
    `Math.log` may differ in the last bit), then rounds them as Python's `round` does.
    `stats` are `rows`' term statistics when the caller has them already.
    """
    stats = stats or term_statistics(rows, boosts)
    postings = []
    counts: set[int] = set()
    for posting in stats.postings.values():
        counts.add(sum(len(docs) for docs in posting.values()))
        encoded = []
        for field in stats.fields:
            gaps: list[int] = []
            previous = -1
            for position in sorted(posting[field]):
                gaps.append(position - previous)
                previous = position
                if posting[field][position] > 1:
                    gaps.append(-posting[field][position])
            encoded.append(gaps)
        postings.append(encoded)
    return {
        "format": COMPACT_FORMAT,
        "version": LUNR_VERSION,
        "fields": stats.fields,
        "boosts": [stats.boosts[f] for f in stats.fields],
        "pipeline": list(search_pipeline),
        "k1": K1,
        "b": B,
        "decimals": decimals,
        "documents": stats.count,
        "lengths": [stats.lengths[f] for f in stats.fields],
        "idf": [[count, stats.idf(count)] for count in sorted(counts)],
        "terms": list(stats.postings),
        "postings": postings,
    }
