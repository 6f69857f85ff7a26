"""The ASCII fast path of the WordPiece tokenizer gives the words of the general path."""

from __future__ import annotations

import random
import string
from pathlib import Path

from refdoc_site.search.wordpiece import normalize, pre_tokenize, words

ROOT = Path(__file__).resolve().parent.parent


def test_ascii_fast_path_equals_the_general_path() -> None:
    lines = [line for path in sorted((ROOT / "refdoc_site").rglob("*.py")) for line in path.read_text(encoding="utf-8").splitlines()]
    generator = random.Random(7)
    alphabet = string.printable + "\x00\x01\x0b\x0c\x1c\x1f\x7f"
    lines += ["".join(generator.choice(alphabet) for _ in range(60)) for _ in range(3000)]
    ascii_lines = [line for line in lines if line.isascii()]
    assert len(ascii_lines) > 3000
    for line in ascii_lines:
        assert words(line) == pre_tokenize(normalize(line)), repr(line)


def test_non_ascii_text_takes_the_general_path() -> None:
    assert words("Café déjà-vu 認証") == ["cafe", "deja", "-", "vu", "認", "証"]
