"""Japanese words for the sparse index, without a dictionary, and English words for a
Japanese query.

Japanese writes no spaces, so a word splitter that keeps only ASCII identifiers loses every
Japanese comment, docstring and Markdown heading. Instead, a run of Japanese characters is
cut where katakana meets kanji or hiragana (a katakana run is nearly always one loanword:
`ファイル`, `ユーザー`), and each part gives its overlapping character pairs: `設定を読み込む`
→ 設定, 定を, を読, 読み, み込, 込む. Pairs made only of hiragana (`ます`, `して`) are grammar
and are dropped; a part of one kanji or katakana character is kept as it is.

The same rules, with the same character ranges, run in the browser
(`browser/refdoc-search.js: japaneseTerms`); a parity test compares them. The ranges stay
inside the Basic Multilingual Plane, where JavaScript's UTF-16 order is Python's order.

The code and its summaries are in English, so a Japanese query is also given English words:
those of the programming terms it contains (`browser/glossary-ja.tsv`), and for each other
katakana word, the index's own terms it sounds like (`loanwords.py`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from .loanwords import Loanwords

ASSETS = Path(__file__).parent / "browser"

HIRAGANA = "\u3041-\u309f"
KATAKANA = "\u30a0-\u30ff"
KANJI = "\u3005\u3006\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""CJK ideographs and the iteration marks 々 and 〆."""
JAPANESE_RUN = f"[{HIRAGANA}{KATAKANA}{KANJI}]+"
SCRIPT_PART_RE = re.compile(f"[{KATAKANA}]+|[{HIRAGANA}{KANJI}]+")
HIRAGANA_ONLY_RE = re.compile(f"^[{HIRAGANA}]+$")
LOANWORD_RE = re.compile("[\u30a1-\u30fa\u30fc]+")
"""Katakana that spell a word: letters and the long-vowel mark, not the middle dot ・ (a
word separator) nor the iteration marks."""


def japanese_terms(run: str) -> list[str]:
    """The index terms of one run of Japanese characters (see the module's docstring)."""
    out: list[str] = []
    for part in SCRIPT_PART_RE.findall(run):
        if len(part) == 1:
            if not HIRAGANA_ONLY_RE.match(part):
                out.append(part)
            continue
        out.extend(pair for pair in (part[i : i + 2] for i in range(len(part) - 1)) if not HIRAGANA_ONLY_RE.match(pair))
    return out


@cache
def glossary() -> dict[str, str]:
    """Japanese programming terms (or verb stems) → English words, from the shared TSV."""
    entries: dict[str, str] = {}
    for line in (ASSETS / "glossary-ja.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            source, _, english = line.partition("\t")
            entries[source] = english.strip()
    return entries


def with_glossary(text: str, loanwords: Loanwords | None = None, explained: list[list[str]] | None = None) -> str:
    """The query followed by the English words of the glossary terms found in it and, with
    `loanwords`, of the katakana words the glossary does not know; `explained` is
    `glossary_words(text, loanwords)` when the caller has it already."""
    found = [word for words in (glossary_words(text, loanwords) if explained is None else explained) for word in words]
    return f"{text} {' '.join(found)}" if found else text


def glossary_words(text: str, loanwords: Loanwords | None = None) -> list[list[str]]:
    """The English words of each Japanese word of a query the glossary or, with `loanwords`,
    the index's terms explain, in order: one list a Japanese word (its entry's words, or
    the terms it sounds like), so that they can count as one word.

    The text is scanned left to right taking the longest entry that starts at each
    position. A katakana word is taken whole when the index has terms it sounds like and
    the glossary has no entry as long (so `バー` in `オーバーラップ` does not cut overlap in
    two); katakana that neither explains is gathered and looked up by sound once the next
    entry or anything else ends it. Text without non-ASCII characters has none.
    """
    if text.isascii():
        return []
    entries = glossary()
    longest = max(map(len, entries))
    found: list[list[str]] = []
    katakana: list[str] = []

    def end_katakana_word() -> None:
        if katakana and loanwords is not None:
            sounds = loanwords.english("".join(katakana))
            if sounds:
                found.append(list(sounds))
        katakana.clear()

    position = 0
    while position < len(text):
        length = next((n for n in range(min(longest, len(text) - position), 0, -1) if text[position : position + n] in entries), 0)
        word = LOANWORD_RE.match(text, position) if loanwords is not None and not katakana else None
        english = loanwords.english(word.group()) if word is not None and word.end() - position > length else []
        if english:
            found.append(list(english))
            position = word.end()
        elif length:
            end_katakana_word()
            found.append([entries[text[position : position + length]]])
            position += length
        else:
            if LOANWORD_RE.match(text[position]):
                katakana.append(text[position])
            else:
                end_katakana_word()
            position += 1
    end_katakana_word()
    return found
