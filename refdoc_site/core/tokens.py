"""Token counting and token windows with overlap, cut at logical boundaries.

A token here is a word, a number or one punctuation character: a count that needs no
downloaded vocabulary and stays close to what BPE tokenizers give for code (they split
long identifiers, but merge common punctuation runs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

TOKEN_RE = re.compile(r"\w+|[^\w\s]")
_COUNTED_TOKEN_RE = re.compile(r"\s*(?:\w+|[^\w\s])()")
"""One match per token of `TOKEN_RE`, the blanks before it included, whose only group is
empty: counting its matches skips a run of blanks in one step and builds no string (a
third less time on django's files, indentation being most of their blanks)."""
BOUNDARY_RE = re.compile(r"^\s*$|^\s*[}\])]+[;,]?\s*$|[.!?:]\s*$")
"""A line after which a window may end: blank, only closing brackets, or a sentence end."""


def count_tokens(text: str) -> int:
    """How many `TOKEN_RE` tokens `text` holds."""
    return len(_COUNTED_TOKEN_RE.findall(text))


def windows(lines: Sequence[str], size: int, overlap: int) -> list[tuple[int, int]]:
    """Split lines into windows of about `size` tokens sharing about `overlap` tokens.

    Returns (first, last) line indices, inclusive. A window ends after the last boundary
    line found in its second half, else at the size limit; the next one starts so that
    it repeats about `overlap` tokens of the previous one. A single line over the size
    becomes a window of its own.
    """
    counts = [count_tokens(line) for line in lines]
    result: list[tuple[int, int]] = []
    start = 0
    n = len(lines)
    while start < n:
        total = 0
        end = start
        while end < n and (end == start or total + counts[end] <= size):
            total += counts[end]
            end += 1
        last = end - 1
        if end < n:
            last = _boundary_before(lines, counts, start, last, size)
        result.append((start, last))
        if last >= n - 1:
            break
        start = _overlap_start(counts, start, last, overlap)
    return result


def _boundary_before(
    lines: Sequence[str], counts: Sequence[int], start: int, last: int, size: int
) -> int:
    """The last boundary line in the window's second half, or `last` when there is none."""
    running = sum(counts[start : last + 1])
    for index in range(last, start, -1):
        if running < size // 2:
            break
        if BOUNDARY_RE.search(lines[index]):
            return index
        running -= counts[index]
    return last


def _overlap_start(counts: Sequence[int], start: int, last: int, overlap: int) -> int:
    """Where the next window starts: far enough back to repeat `overlap` tokens."""
    next_start = last + 1
    carried = 0
    while next_start - 1 > start and carried + counts[next_start - 1] <= overlap:
        next_start -= 1
        carried += counts[next_start]
    return next_start
