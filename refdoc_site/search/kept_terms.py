"""Each document's term counts kept from the last render, so a rebuild counts only the
documents that changed.

Splitting, stemming and counting every document's terms (`ranking.field_terms`, then
`site_terms.count_terms`) took 21 s of homeassistant's search data on every render, a
one-file change included. The render keeps the counts it made (`KEPT_NAME` in the store:
each document's key, the postings in the order `count_terms` puts them, the fields'
lengths) and the next render takes a document's postings from there when its key is the
same, and counts the others. The key is a digest of everything `ranking.sparse_fields`
reads of a document; the file holds a digest of this package's code and the fields, and
is not used when either differs. The counts made are exactly `count_terms`'s
(tests/test_kept_terms.py).
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from ..core.records import Document
from ..core.reuse import code_digest, digest
from .site_terms import TermCounts, count_terms

KEPT_NAME = "search-terms.npz"
"""In the store: the term counts of the last render's search data."""
KEY_BYTES = 20


def document_key(document: Document) -> bytes:
    """A digest of what a document's terms are made from (ranking.sparse_fields' inputs)."""
    chunk, summary = document.chunk, document.summary
    parts = (
        chunk.kind.value, chunk.symbol, chunk.name, chunk.signature, chunk.docstring, chunk.content,
        summary.responsibility, summary.inputOutput, summary.notes, "\0".join(document.model_words),
    )
    return hashlib.sha1("\x1f".join(parts).encode("utf-8", "surrogatepass"), usedforsecurity=False).digest()


def signature(boosts: dict[str, float]) -> str:
    """What else the counts depend on: this package's code and the fields."""
    return digest("kept-terms/1", code_digest(), repr(sorted(boosts.items())), repr(list(boosts)))


@dataclass
class KeptTerms:
    """The counts of the last render, by document key."""

    positions: dict[bytes, int]
    """A document's key → its row in the arrays (documents with the same inputs, as the
    same function in two files, have the same key and the same counts)."""
    terms: list[str]
    offsets: np.ndarray
    """Posting offsets of each (document, field), row by row: rows · fields + 1."""
    term_of: np.ndarray
    frequency: np.ndarray
    lengths: np.ndarray


def load(path: Path, boosts: dict[str, float]) -> KeptTerms | None:
    """The kept counts, or None when there are none for this code and these fields."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if bytes(data["signature"]).decode() != signature(boosts):
                return None
            keys = data["keys"]
            kept = KeptTerms(
                {bytes(row): number for number, row in enumerate(keys)},
                orjson.loads(bytes(data["terms"])),
                data["offsets"], data["term_of"], data["frequency"], data["lengths"],
            )
    except (OSError, ValueError, KeyError, orjson.JSONDecodeError):
        return None
    if len(kept.offsets) != len(keys) * len(boosts) + 1:
        return None
    return kept


def save(path: Path, keys: Sequence[bytes], counts: TermCounts) -> None:
    """Keep `counts` (of the documents with these keys, in order) for the next render."""
    sizes = np.bincount(counts.slot, minlength=counts.count * len(counts.fields)) if counts.count else np.zeros(0, np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
    partial = path.with_name(path.name + ".new")
    with partial.open("wb") as handle:
        np.savez(
            handle,
            signature=np.frombuffer(signature(counts.boosts).encode(), np.uint8),
            keys=np.frombuffer(b"".join(keys), np.uint8).reshape(len(keys), KEY_BYTES),
            terms=np.frombuffer(orjson.dumps(counts.terms), np.uint8),
            offsets=offsets, term_of=counts.term_of, frequency=counts.frequency, lengths=counts.lengths,
        )
    os.replace(partial, path)


def count_kept(
    documents: Sequence[Document], boosts: dict[str, float], kept: KeptTerms | None,
    terms_of: Callable[[Document], dict[str, list[str]]],
) -> tuple[TermCounts, list[bytes]]:
    """`count_terms` of `terms_of(document)` for each document, taking a kept document's
    postings instead of counting it; and the documents' keys."""
    keys = [document_key(document) for document in documents]
    rows = np.array([kept.positions.get(key, -1) for key in keys] if kept else [-1] * len(keys), dtype=np.int64)
    fresh = np.flatnonzero(rows < 0)
    if kept is None or len(fresh) == len(documents):
        return count_terms((terms_of(documents[i]) for i in range(len(documents))), boosts), keys
    fields = list(boosts)
    width = len(fields)
    numbers: dict[str, int] = {}
    new_term, new_frequency, new_sizes, new_lengths = array("i"), array("i"), array("i"), array("i")
    for i in fresh.tolist():
        row = terms_of(documents[i])
        for field in fields:
            counted = Counter(row[field])
            new_lengths.append(len(row[field]))
            new_sizes.append(len(counted))
            new_term.extend([numbers.setdefault(term, len(numbers)) for term in counted])
            new_frequency.extend(counted.values())
    taken = np.flatnonzero(rows >= 0)
    kept_rows = rows[taken]
    kept_sizes = np.diff(kept.offsets).reshape(-1, width)
    sizes = np.zeros((len(documents), width), dtype=np.int64)
    lengths = np.zeros((len(documents), width), dtype=np.int32)
    sizes[taken], lengths[taken] = kept_sizes[kept_rows], kept.lengths[kept_rows]
    if len(fresh):
        sizes[fresh] = np.frombuffer(new_sizes, dtype=np.intc).reshape(-1, width)
        lengths[fresh] = np.frombuffer(new_lengths, dtype=np.intc).reshape(-1, width)
    # each document's postings, where they are in the kept arrays and where they go
    per_document = sizes.sum(axis=1)
    starts = np.concatenate(([0], np.cumsum(per_document)[:-1]))
    source = _ranges(kept.offsets[kept_rows * width], per_document[taken])
    target = _ranges(starts[taken], per_document[taken])
    kept_ids = kept.term_of[source]
    used = np.unique(kept_ids)
    terms = sorted({*(kept.terms[i] for i in used.tolist()), *numbers})
    rank = {term: number for number, term in enumerate(terms)}
    kept_rank = np.zeros(len(kept.terms), dtype=np.int32)
    kept_rank[used] = [rank[kept.terms[i]] for i in used.tolist()]
    new_rank = np.array([rank[term] for term in numbers], dtype=np.int32)
    total = int(per_document.sum())
    term_of = np.empty(total, dtype=np.int32)
    frequency = np.empty(total, dtype=np.int32)
    term_of[target], frequency[target] = kept_rank[kept_ids], kept.frequency[source]
    if len(fresh):
        placed = _ranges(starts[fresh], per_document[fresh])
        term_of[placed] = new_rank[np.frombuffer(new_term, dtype=np.intc)] if len(new_term) else np.zeros(0, np.int32)
        frequency[placed] = np.frombuffer(new_frequency, dtype=np.intc)
    slot = np.repeat(np.arange(len(documents) * width, dtype=np.int32), sizes.ravel())
    return TermCounts(fields, dict(boosts), len(documents), terms, term_of, frequency, slot, lengths), keys


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions start … start + length − 1 of each range, one after the other."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    before = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.repeat(np.asarray(starts, dtype=np.int64) - before, lengths) + np.arange(total, dtype=np.int64)
