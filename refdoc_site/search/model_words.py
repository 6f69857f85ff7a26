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

import numpy as np

from .ranking import stop_words, terms

MODEL_WORDS = 15
"""Words kept per chunk: 10, 15, 20, 30 and 60 ranked within 0.02 of each other on the
tuned sets; fewer words make a smaller index (15 add about 16 % to click's)."""
MIN_WORD_LENGTH = 3
SCORE_DECIMALS = 9
"""Scores are rounded to this many decimals (far below what the int8 model resolves), so
that the last bits of a product, which vary with how many vectors it is computed with,
never reorder two words."""


@dataclass(frozen=True)
class WordTable:
    """Candidate words and their unit vectors: each word embedded alone, as a one-word query."""

    words: tuple[str, ...]
    vectors: np.ndarray

    @cached_property
    def transposed(self) -> np.ndarray:
        """The vectors as float64 columns: a product with them is exact to far more digits
        than are kept."""
        return np.ascontiguousarray(self.vectors.T, dtype=np.float64)


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


def term_set(text: str) -> set[str]:
    """`set(terms(text))`, each distinct piece of the text between spaces read once (no term
    spans a space): a chunk's text repeats its words."""
    return set(terms(" ".join(set(text.split()))))


def word_scores(table: WordTable, vectors: np.ndarray) -> np.ndarray:
    """Each word's score for each of `vectors` (rows), `(len(vectors), len(table.words))`:
    one product for a batch of vectors, not one per vector (which cost more than the rest
    of `nearest_words` on django), and the same scores for a vector whatever its batch."""
    rows = np.asarray(vectors, dtype=np.float64).reshape(-1, table.vectors.shape[1])
    return np.round(rows @ table.transposed, SCORE_DECIMALS)


def nearest_words(
    table: WordTable, vector: np.ndarray, text: str, count: int = MODEL_WORDS, scores: np.ndarray | None = None
) -> list[str]:
    """The `count` words nearest `vector` that `text` does not contain, nearest first (ties
    by the table's order); `scores` are the vector's `word_scores` when already computed.

    At most one word per term of `text` is skipped, so the words kept lie among the
    `count + len(present)` best scores: only those (and any tied with the last of them) are
    sorted, not the whole vocabulary, which was most of an index run's time (issue 21).
    """
    if not table.words or not np.any(vector):
        return []
    present = term_set(text)
    scores = word_scores(table, vector)[0] if scores is None else scores
    candidates = _best_rows(scores, count + len(present))
    found: list[str] = []
    for row in candidates[np.lexsort((candidates, -scores[candidates]))]:
        word = table.words[row]
        if word not in present:
            found.append(word)
            if len(found) == count:
                break
    return found


def _best_rows(scores: np.ndarray, wanted: int) -> np.ndarray:
    """The rows of the `wanted` highest scores and of every score tied with the lowest of
    them, in row order: the whole ranking's first `wanted` rows are among them."""
    if wanted >= len(scores):
        return np.arange(len(scores))
    threshold = np.partition(scores, len(scores) - wanted)[len(scores) - wanted]
    return np.flatnonzero(scores >= threshold)
