"""A pure-Python BERT WordPiece tokenizer (uncased), reading a `vocab.txt`.

Written here rather than taken from the `tokenizers` package so that the build needs no
tokenizer wheel and the browser's JavaScript port follows it rule for rule (a parity test
compares the two).

It reproduces what the teacher model's tokenizer (`BertTokenizerFast`, i.e. the
`tokenizers` BertNormalizer + BertPreTokenizer + WordPiece) gives for uncased models, so
that the static embedder looks up the same token ids at build time as the teacher saw in
training, and as the browser's JavaScript port does at query time:

1. clean: drop NUL, U+FFFD and control/format characters (Unicode categories Cc, Cf, Cn,
   Co, Cs, except tab, newline and carriage return); every whitespace becomes a space;
2. put spaces around CJK ideographs, so each is a word of its own;
3. strip accents (NFD, then drop combining marks, category Mn) and lower-case;
4. split on whitespace, and make every punctuation character (ASCII punctuation or any
   Unicode category P*) a word of its own;
5. WordPiece: greedy longest match from the left, continuation pieces prefixed `##`; a
   word with a piece that matches nothing, or longer than 100 characters, is `[UNK]`.

No special tokens ([CLS], [SEP]) are added: the static model pools word pieces only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from itertools import chain, islice
from pathlib import Path

UNK = "[UNK]"
MAX_WORD_CHARS = 100
CONTINUATION = "##"

_CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Cn", "Co", "Cs"})
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
# Unicode White_Space (what Rust's char::is_whitespace tests), the definition the
# `tokenizers` library uses for both cleaning and splitting.
_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def is_whitespace(char: str) -> bool:
    return char in _WHITESPACE


def is_control(char: str) -> bool:
    if char in "\t\n\r":
        return False
    return unicodedata.category(char) in _CONTROL_CATEGORIES


def is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def is_cjk(char: str) -> bool:
    code = ord(char)
    return code >= 0x3400 and any(low <= code <= high for low, high in _CJK_RANGES)


class _CharMap(dict):
    """A `str.translate` table filled on first sight of each character."""

    def __init__(self, rule) -> None:
        super().__init__()
        self.rule = rule

    def __missing__(self, code: int) -> str | None:
        value = self[code] = self.rule(chr(code))
        return value


def _clean(char: str) -> str | None:
    if char == "\x00" or char == "\ufffd" or is_control(char):
        return None
    if is_whitespace(char):
        return " "
    return f" {char} " if is_cjk(char) else char


def _fold(char: str) -> str | None:
    # Character by character, as the Rust tokenizer does (no final-sigma rule).
    return None if unicodedata.category(char) == "Mn" else char.lower()


def _split_punctuation(char: str) -> str:
    return f" {char} " if is_punctuation(char) else char


_CLEAN = _CharMap(_clean)
_FOLD = _CharMap(_fold)
_PUNCTUATION = _CharMap(_split_punctuation)


def normalize(text: str) -> str:
    """Steps 1–3: clean, space out CJK ideographs, strip accents, lower-case."""
    cleaned = text.translate(_CLEAN)
    if cleaned.isascii():
        return cleaned.lower()
    return unicodedata.normalize("NFD", cleaned).translate(_FOLD)


def pre_tokenize(normalized: str) -> list[str]:
    """Step 4: words split at whitespace, each punctuation character a word.

    After `normalize` every whitespace character is a plain space, so `str.split` splits
    exactly where the tokenizer does.
    """
    return normalized.translate(_PUNCTUATION).split()


class WordPieceTokenizer:
    """Uncased BERT WordPiece over a vocabulary given as a list of tokens (id = position)."""

    def __init__(self, vocab: Iterable[str]) -> None:
        self.tokens: list[str] = list(vocab)
        self.ids: dict[str, int] = {}
        for position, token in enumerate(self.tokens):
            self.ids.setdefault(token, position)
        if UNK not in self.ids:
            raise ValueError(f"vocabulary has no {UNK} token")
        self.unk_id = self.ids[UNK]
        self._word_ids = lru_cache(maxsize=65536)(self._word_ids_uncached)

    @classmethod
    def from_file(cls, path: str | Path) -> WordPieceTokenizer:
        text = Path(path).read_text(encoding="utf-8")
        return cls(line.rstrip("\r") for line in text.split("\n")[: _line_count(text)])

    def __len__(self) -> int:
        return len(self.tokens)

    def _word_ids_uncached(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self.unk_id,)
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = -1
            while start < end:
                piece = word[start:end] if start == 0 else CONTINUATION + word[start:end]
                found = self.ids.get(piece, -1)
                if found >= 0:
                    break
                end -= 1
            if found < 0:
                return (self.unk_id,)
            pieces.append(found)
            start = end
        return tuple(pieces)

    def tokenize(self, text: str) -> list[str]:
        return [self.tokens[i] for i in self.encode(text)]

    def encode(self, text: str, limit: int | None = None) -> list[int]:
        """Token ids of `text`, without special tokens; the first `limit` of them only, when
        given (the words past them are not looked up: a static model reads 256 pieces, and
        a chunk's text often has more)."""
        return list(islice(chain.from_iterable(map(self._word_ids, words(text))), limit))


_ASCII_CLEAN = str.maketrans(
    {**{c: None for c in map(chr, [*range(0, 32), 127])}, **dict.fromkeys("\t\n\r", " ")}
)
"""Tab, newline and carriage return become spaces; every other control character goes
(vertical tab and form feed too: cleaning drops controls before whitespace is mapped)."""
_ASCII_WORD = re.compile(r"[!-/:-@\[-`{-~]|[^ !-/:-@\[-`{-~]+")
"""An ASCII punctuation character, or a run of anything else but spaces."""


def words(text: str) -> list[str]:
    """Steps 1–4 (normalize, then pre-tokenize), with a fast path for ASCII text.

    Code is nearly all ASCII: there, no accent, CJK or Unicode punctuation can occur, and
    two table-driven passes give the same words as the general character loop.
    """
    if text.isascii():
        return _ASCII_WORD.findall(text.translate(_ASCII_CLEAN).lower())
    return pre_tokenize(normalize(text))


def _line_count(text: str) -> int:
    """Lines of a vocab file: a final newline does not start an extra (empty) token."""
    lines = text.split("\n")
    return len(lines) - 1 if lines and lines[-1] == "" else len(lines)
