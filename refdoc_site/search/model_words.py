"""Doc-side expansion: the words the static model puts nearest a chunk, indexed with it.

A user describes what code does in words the code does not use ("environment variable"
for `envvar`, "shut the connections" for httpx's `Client.close`, "program" for click's
`Editor.get_editor`: words these chunks gain); the dense side hears them, the keyword
side did not.
At build time each chunk gets the vocabulary words whose own vectors lie nearest its
vector and that its text lacks, and the sparse index holds them in the chunk's notes. The
cost is paid once per chunk at build time; the browser ranks with no extra work, and
both sides read the same index, so they rank alike.

Measured with `refdoc-site eval --modes fused` together with the class vectors of
`members.py` (MRR@10; tuned on click and requests, held out koa and httpx-ja): click 0.657
→ 0.668, requests 0.790 → 0.825, koa 0.825 → 0.838, httpx-ja 0.576 → 0.687. Alone, either
one leaves the tuned sets' mean within 0.01 of before: a class's model words come from
its vector, so with its members' sentences in it they name what the class's methods do.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain

import numpy as np

from .ranking import IDENTIFIER_RE, stop_words, word_terms

MODEL_WORDS = 15
"""Words kept per chunk: 10, 15, 20, 30 and 60 ranked within 0.02 of each other on the
tuned sets; fewer words make a smaller index (15 add about 16 % to click's)."""
MIN_WORD_LENGTH = 3
SCORE_DECIMALS = 9
"""Scores are rounded to this many decimals (far below what the int8 model resolves), so
that the last bits of a product, which vary with how many vectors it is computed with,
never reorder two words."""


class _WordRows(dict):
    """Word of a text → the table rows of its terms (`ranking.word_terms`), filled on
    first sight: a word is split once per build, not once per chunk that has it."""

    def __init__(self, rows: dict[str, int]) -> None:
        super().__init__()
        self.rows = rows

    def __missing__(self, word: str) -> tuple[int, ...]:
        value = self[word] = tuple(self.rows[term] for term in word_terms(word) if term in self.rows)
        return value


@dataclass(frozen=True)
class WordTable:
    """Candidate words and their unit vectors: each word embedded alone, as a one-word query."""

    words: tuple[str, ...]
    vectors: np.ndarray

    @cached_property
    def rows(self) -> dict[str, int]:
        return {word: row for row, word in enumerate(self.words)}

    @cached_property
    def word_rows(self) -> _WordRows:
        return _WordRows(self.rows)

    @cached_property
    def exact(self) -> np.ndarray:
        """The vectors as float64 rows: a product with them is exact to far more digits
        than are kept (float32 components multiply exactly in float64)."""
        return np.ascontiguousarray(self.vectors, dtype=np.float64)

    @cached_property
    def columns(self) -> np.ndarray:
        """The vectors as float32 columns, for the approximate product that picks candidates."""
        return np.ascontiguousarray(self.vectors.T, dtype=np.float32)

    @cached_property
    def margin(self) -> float:
        """How far a float32 score may lie from the exact one, per unit of the other
        vector's length, with room to spare: a dot product of `dim` float32 terms lies
        within `dim` · 2⁻²⁴ · |a| · |b| of the exact value, whatever the order of the sums
        (a third of this); rounding to `SCORE_DECIMALS` adds 5e-10."""
        longest = float(np.linalg.norm(self.vectors, axis=1).max()) if len(self.words) else 0.0
        return 3 * self.vectors.shape[1] * 2.0**-24 * longest + 1e-9


@lru_cache(maxsize=2)
def word_table(embedder) -> WordTable:
    """The model's whole-word tokens that can be words of a text: letters only, not stop
    words, with a vector the training set gave them (rows of unseen tokens are zero)."""
    stop = stop_words()
    rows = np.abs(embedder.vectors).sum(axis=1) > 0
    words = tuple(
        token
        for token, row in sorted(embedder.tokenizer.ids.items(), key=lambda item: item[1])
        if rows[row] and token.isascii() and token.isalpha() and len(token) >= MIN_WORD_LENGTH and token not in stop
    )
    return WordTable(words, embedder.embed(list(words)) if words else np.zeros((0, embedder.dim), dtype=np.float32))


def present_rows(table: WordTable, text: str) -> list[int]:
    """The rows of the table's words that are terms of `text` (`ranking.terms`): each
    distinct word of the text looked up once."""
    return list(set(chain.from_iterable(map(table.word_rows.__getitem__, set(IDENTIFIER_RE.findall(text))))))


def nearest_words(table: WordTable, vector: np.ndarray, text: str, count: int = MODEL_WORDS) -> list[str]:
    """The `count` words nearest `vector` that `text` does not contain, nearest first (ties
    by the table's order); one vector of `batch_nearest_words`."""
    return batch_nearest_words(table, np.asarray(vector)[None], [text], count)[0]


def batch_nearest_words(table: WordTable, vectors: np.ndarray, texts: list[str], count: int = MODEL_WORDS) -> list[list[str]]:
    """For each of `vectors` (rows) the `count` words nearest it that its text does not
    contain, nearest first by their exact scores (float64, rounded to `SCORE_DECIMALS`;
    ties by the table's order); none for a zero vector.

    The answer is the exact ranking's at a fraction of its cost (issue 21): one float32
    product for the batch scores every word within `table.margin`; the `count`-th best of
    the words absent from a text is a threshold, and only the words within twice the
    margin of it or above are scored exactly and sorted. Every word of the exact answer
    lies there: below it, `count` absent words score higher, exactly too.
    """
    if not table.words or not texts:
        return [[] for _ in texts]
    vectors = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
    approximate = vectors @ table.columns
    for row, text in enumerate(texts):
        approximate[row, present_rows(table, text)] = -np.inf
    kept = min(count, len(table.words))
    thresholds = np.partition(approximate, len(table.words) - kept, axis=1)[:, len(table.words) - kept]
    margins = 2 * table.margin * np.linalg.norm(vectors, axis=1)
    chosen = (approximate >= (thresholds - margins)[:, None]) & (approximate > -np.inf)
    chosen[~vectors.any(axis=1)] = False
    rows, columns = np.nonzero(chosen)
    exact = np.round(np.einsum("ij,ij->i", vectors.astype(np.float64)[rows], table.exact[columns]), SCORE_DECIMALS)
    order = np.lexsort((columns, -exact, rows))
    words = [table.words[column] for column in columns[order].tolist()]
    starts = np.searchsorted(rows[order], np.arange(len(texts) + 1)).tolist()
    return [words[start : min(end, start + count)] for start, end in zip(starts, starts[1:])]
