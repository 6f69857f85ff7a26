"""A Lunr 2.3.9 index, serialised directly: what `lunr.Builder` would produce, faster.

The Python `lunr` package builds the same index, but spends most of a build on per-token
objects; this writes the serialised form (the one `lunr.Index.load` reads, in Python and in
lunr.js) straight from the terms. The scoring is Lunr's BM25 with field boosts:

    idf(term)   = ln(1 + |(N - n + 0.5) / (n + 0.5)|), n counting one per field a term is in
    weight      = boost · idf · (k1 + 1) · tf / (k1 · (1 - b + b · length / mean length) + tf)

A test checks the output against the `lunr` package's own builder.
"""

from __future__ import annotations

import math
from collections import Counter

LUNR_VERSION = "2.3.9"
K1 = 1.2
B = 0.75


def serialized_index(
    rows: list[dict[str, list[str]]], boosts: dict[str, float], decimals: int = 3, search_pipeline: tuple[str, ...] = ("stemmer",)
) -> dict:
    """The serialised index of `rows` (position = document ref), terms already final.

    Each row maps every field name of `boosts` to its terms in order. Weights are rounded
    to `decimals` (Lunr itself keeps 3).
    """
    fields = list(boosts)
    inverted: dict[str, dict] = {}
    frequencies: list[tuple[str, str, Counter[str], int]] = []
    total_length = dict.fromkeys(fields, 0)
    for position, row in enumerate(rows):
        ref = str(position)
        for field in fields:
            terms = row[field]
            counts = Counter(terms)
            frequencies.append((field, ref, counts, len(terms)))
            total_length[field] += len(terms)
            for term in counts:
                posting = inverted.get(term)
                if posting is None:
                    posting = inverted[term] = {"_index": len(inverted), **{f: {} for f in fields}}
                posting[field][ref] = {}
    count = len(rows)
    idf: dict[str, float] = {}
    for term, posting in inverted.items():
        with_term = sum(len(posting[f]) for f in fields)
        idf[term] = math.log(1 + abs((count - with_term + 0.5) / (with_term + 0.5)))
    vectors = []
    for field, ref, counts, length in frequencies:
        boost = boosts[field]
        mean = total_length[field] / count
        # The same operations in the same order as Lunr, so the rounding agrees too.
        norm = K1 * (1 - B + B * (length / mean)) if mean else K1 * (1 - B)
        elements = sorted(
            (inverted[term]["_index"], round(idf[term] * ((K1 + 1) * tf) / (norm + tf) * boost, decimals))
            for term, tf in counts.items()
        )
        vectors.append([f"{field}/{ref}", [value for pair in elements for value in pair]])
    return {
        "version": LUNR_VERSION,
        "fields": fields,
        "fieldVectors": vectors,
        "invertedIndex": [[term, inverted[term]] for term in sorted(inverted)],
        "pipeline": list(search_pipeline),
    }
