"""The keyword pieces of a large site's search (site_shards.py), written from counts.

The documents' terms are read one document at a time and only counted (`count_terms`):
per posting (a term in one field of one chunk) the term's number, its count there and the
chunk's field, in flat arrays of four bytes each. No document's terms outlive the
document, and the index is never held as objects: the term shards are cut by their
entries' byte sizes, computed from the counts (`TermPostings.sizes`), and a shard's
entries are made only while that shard is written (`TermPostings.entries`).

On django (13.8k chunks, 60k terms, 0.96 M postings) the search data was written from four
whole copies of the postings as nested dictionaries (two term statistics, the compact
index a small site ships, the entries): the writer's peak resident memory was 297 MB above
the loaded documents, 80 MB since, and its CPU 18.9 → 10.6 s (the same bytes written).
"""

from __future__ import annotations

import hashlib
import math
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import orjson

from .lunr_index import B, K1

POWERS_OF_TEN = 10 ** np.arange(1, 19, dtype=np.int64)
BLOCK_POSTINGS = 1 << 19
"""Postings sorted at a time (a term's are never split): about 30 MB of work arrays."""


@dataclass
class TermCounts:
    """What the term shards are written from: the postings in flat arrays, one item a posting
    (`term_statistics`'s content, without a dictionary per term and field)."""

    fields: list[str]
    boosts: dict[str, float]
    count: int
    """Documents."""
    terms: list[str]
    """Every term, sorted."""
    term_of: np.ndarray
    """Each posting's term, its number in `terms`."""
    frequency: np.ndarray
    """Each posting's term count in its field."""
    slot: np.ndarray
    """Each posting's document position · len(fields) + field number."""
    lengths: np.ndarray
    """Terms in each field (columns) of each document (rows)."""

    def posting_counts(self) -> list[int]:
        """Each term's postings over the fields (the n of its idf), in `terms` order."""
        return np.bincount(self.term_of, minlength=len(self.terms)).tolist()

    def idf(self, posting_count: int) -> float:
        return math.log(1 + abs((self.count - posting_count + 0.5) / (posting_count + 0.5)))

    def statistics(self) -> dict:
        """`stats.json`: what a weight reads of the whole index, the fields' mean lengths and
        the idf of each posting count (Python's: `Math.log` may differ in the last bit)."""
        counts = sorted(set(self.posting_counts()))
        sums = self.lengths.sum(axis=0, dtype=np.int64).tolist() if self.count else [0] * len(self.fields)
        means = [total / self.count if self.count else 0 for total in sums]
        return {"boosts": [self.boosts[f] for f in self.fields], "k1": K1, "b": B, "means": means, "idf": [[n, self.idf(n)] for n in counts]}


def count_terms(rows: Iterable[dict[str, list[str]]], boosts: dict[str, float]) -> TermCounts:
    """The counts of `rows` (position = document), each mapping every field of `boosts` to
    its final terms; each row is let go once counted."""
    fields = list(boosts)
    numbers: dict[str, int] = {}
    term_of, frequency, sizes, lengths = array("i"), array("i"), array("i"), array("i")
    count = 0
    for row in rows:
        for field in fields:
            terms = row[field]
            counted = Counter(terms)
            lengths.append(len(terms))
            sizes.append(len(counted))
            term_of.extend([numbers.setdefault(term, len(numbers)) for term in counted])
            frequency.extend(counted.values())
        count += 1
    first_seen = list(numbers)
    del numbers
    order = sorted(range(len(first_seen)), key=first_seen.__getitem__)
    rank = np.empty(len(order), dtype=np.int32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order), dtype=np.int32)
    slots = np.repeat(np.arange(count * len(fields), dtype=np.int32), np.frombuffer(sizes, dtype=np.intc))
    return TermCounts(
        fields, dict(boosts), count, [first_seen[i] for i in order],
        rank[np.frombuffer(term_of, dtype=np.intc)], np.frombuffer(frequency, dtype=np.intc).astype(np.int32),
        slots, np.frombuffer(lengths, dtype=np.intc).astype(np.int32).reshape(count, len(fields)),
    )


class TermPostings:
    """The postings in shard-entry order (term, field, stable id), what each entry is read
    from: an entry is `[term, per field [gap, (-tf,) length, …]]` over the chunks' stable
    ids (`site_shards.stable_ids`; the gap from the id before, the first from -1), the
    term's count there when more than one, and the field's length in that chunk. No
    weight: it reads the whole index's statistics (`stats.json`), so the browser makes it
    (the operations of `lunr_index.posting_weights`); an entry changes only when a chunk
    with the term does.

    The postings are put in that order a block of terms at a time (`BLOCK_POSTINGS`), so
    that sorting them costs memory for one block only; what stays is 13 bytes a posting."""

    def __init__(self, counts: TermCounts, ids: list[int]) -> None:
        self.terms, self.fields = counts.terms, len(counts.fields)
        stable = np.asarray(ids, dtype=np.int64)
        span = int(stable.max()) + 1 if len(stable) else 1
        total = len(counts.term_of)
        self.gap = np.empty(total, dtype=np.int32 if span < 2**31 else np.int64)
        self.frequency = np.empty(total, dtype=np.int32)
        self.length = np.empty(total, dtype=np.int32)
        self.field = np.empty(total, dtype=np.int8)
        per_term = np.bincount(counts.term_of, minlength=len(self.terms))
        self.start = np.concatenate([[0], np.cumsum(per_term)])
        """Where each term's postings begin (and, last, where they end)."""
        self.sizes: list[int] = []
        """Each term's entry as compact JSON, in bytes (`_entry_sizes`)."""
        cuts = np.searchsorted(self.start, np.arange(BLOCK_POSTINGS, total, BLOCK_POSTINGS), side="right") - 1
        bounds = [0, *sorted(set(cuts.tolist()) - {0}), len(self.terms)]
        for first, last in zip(bounds, bounds[1:]):
            self._sort_block(counts, stable, span, first, last)

    def _sort_block(self, counts: TermCounts, stable: np.ndarray, span: int, first: int, last: int) -> None:
        """Terms `first` to `last` (excluded): their postings sorted into place."""
        chosen = np.flatnonzero((counts.term_of >= first) & (counts.term_of < last))
        positions, field = np.divmod(counts.slot[chosen], self.fields)
        key = (counts.term_of[chosen].astype(np.int64) - first) * self.fields + field
        key *= span
        key += stable[positions]
        del positions, field
        order = np.argsort(key)  # the keys are distinct: any sort gives this order
        key = key[order]
        chosen = chosen[order]
        del order
        begin, end = int(self.start[first]), int(self.start[last])
        self.frequency[begin:end] = counts.frequency[chosen]
        self.length[begin:end] = counts.lengths.reshape(-1)[counts.slot[chosen]]
        del chosen
        segment = key // span  # term (from `first`) · fields + field
        term = segment // self.fields
        self.field[begin:end] = segment - term * self.fields
        starts = np.ones(len(key), dtype=bool)
        starts[1:] = segment[1:] != segment[:-1]
        del segment
        gap = np.diff(key, prepend=-1)  # within a term's field: from the id before
        gap[starts] = key[starts] % span + 1  # a field's first: from -1
        self.gap[begin:end] = gap
        del key
        fields_with_term = np.bincount(term[starts], minlength=last - first)
        self.sizes += _entry_sizes(self.terms[first:last], gap, self.frequency[begin:end], self.length[begin:end], term, fields_with_term, self.fields)

    def key(self, numbers: list[int]) -> str:
        """A digest of everything the entries of the terms numbered `numbers` are made
        from: two calls give the same key only when `entries` would give the same lists."""
        chosen = np.asarray(numbers, dtype=np.int64)
        counts = self.start[chosen + 1] - self.start[chosen]
        # the postings of each chosen term, in order: its start, then one more each
        offsets = np.repeat(self.start[chosen] - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
        at = offsets + np.arange(int(counts.sum()))
        hashed = hashlib.sha1(orjson.dumps([self.fields, [self.terms[n] for n in numbers]]), usedforsecurity=False)
        for column in (counts, self.field[at], self.gap[at], self.frequency[at], self.length[at]):
            hashed.update(np.ascontiguousarray(column).tobytes())
        return hashed.hexdigest()

    def entries(self, numbers: list[int]) -> list[list]:
        """The entries of the terms numbered `numbers`, in that order."""
        found = []
        for number in numbers:
            begin, end = int(self.start[number]), int(self.start[number + 1])
            lists: list[list[int]] = [[] for _ in range(self.fields)]
            rows = zip(self.field[begin:end].tolist(), self.gap[begin:end].tolist(), self.frequency[begin:end].tolist(), self.length[begin:end].tolist())
            for field, gap, tf, length in rows:
                lists[field] += (gap, -tf, length) if tf > 1 else (gap, length)
            found.append([self.terms[number], lists])
        return found


def _entry_sizes(terms: list[str], gap, frequency, length, term, fields_with_term, fields: int) -> list[int]:
    """The bytes of each term's entry as compact JSON (what `orjson.dumps` writes), from its
    postings (`term`: each one's term, numbered from 0 as `terms`): the brackets, the commas
    and the digits of every number."""
    several = frequency > 1
    characters = _digits(gap) + _digits(length) + np.where(several, 1 + _digits(frequency), 0) + 2 + several
    per_term = np.bincount(term, weights=characters, minlength=len(terms)).astype(np.int64).tolist()
    constant = 5 + (fields - 1) + 2 * fields  # `[term,[…]]`, each field's brackets and the commas between them
    # A field's numbers are separated by one comma fewer than there are numbers.
    return [len(orjson.dumps(t)) + constant + size - held for t, size, held in zip(terms, per_term, fields_with_term.tolist())]


def _digits(values: np.ndarray) -> np.ndarray:
    """The characters of each integer written in decimal (a minus sign included)."""
    return np.searchsorted(POWERS_OF_TEN, np.abs(values), side="right") + 1 + (values < 0)


def term_shards(terms: list[str], size: list[int], limit: int) -> list[tuple[str, list[int]]]:
    """(key, term numbers) per shard, keys in order, `terms` sorted and `size` their entries'
    bytes: a term's shard is the longest key it starts with. A prefix whose terms weigh more
    than `limit` bytes is split by the next letter; the split prefix stays a key (for its
    own term and the small groups merged back)."""
    shards: list[tuple[str, list[int]]] = []

    def split(prefix: str, members: list[int]) -> None:
        if sum(size[t] for t in members) <= limit or all(len(terms[t]) <= len(prefix) for t in members):
            shards.append((prefix, members))
            return
        groups: dict[str, list[int]] = {}
        kept = []
        for number in members:
            term = terms[number]
            if len(term) <= len(prefix):
                kept.append(number)
            else:
                groups.setdefault(term[: len(prefix) + 1], []).append(number)
        children = []
        for child, group in groups.items():
            if sum(size[t] for t in group) * 4 < limit:
                kept.extend(group)  # small: back into the prefix's own shard
            else:
                children.append((child, group))
        if prefix or kept:
            shards.append((prefix, kept))
        for child, group in children:
            split(child, group)

    split("", list(range(len(terms))))
    return sorted(shards)


def fuzzy_lists(terms: list[str], key_of, min_length: int) -> dict[str, list[str]]:
    """The terms of `min_length` letters or more by `key_of` (their first or last letters),
    `terms` sorted."""
    lists: dict[str, list[str]] = {}
    for term in terms:
        if len(term) >= min_length:
            lists.setdefault(key_of(term), []).append(term)
    return dict(sorted(lists.items()))
