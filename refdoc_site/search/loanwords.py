"""Katakana loanwords matched by sound to the English terms of the corpus's own index.

Most programming words written in Japanese are katakana spellings of the English word
(`スナップショット` snapshot, `パッチ` patch, `コンテキスト` context). A glossary can only
list the words someone thought of; this finds them in whatever vocabulary the code uses.
A katakana run is read as romaji (`browser/loanwords-ja.json`: the kana readings and the
spelling folds are data), and both the reading and each index term are folded to a
consonant skeleton where the differences between Japanese and English sound disappear:
r and l are one sound, v is b, a doubled consonant (ッ) is one, long vowels (ー) and the
vowels Japanese adds after a consonant drop out with every other vowel, and English
spellings become sounds (`tch`, `ch` → one sound; `th`, `sh`, `-tion` → s; `c` → k or s;
an r before no vowel is silent, as in `server` → サーバー). Then

    スナップショット → sunappushotto → snpst  ←  snapshot → snpst
    プレーン        → puren          → prn    ←  plain    → prn

The English terms whose skeleton is nearest (edit distance at most a share of its length;
none for a skeleton under two consonants, which would match too much) are the word's
candidates: the best few, closest first, ties broken by the spelling with vowels.

The same rules run in the browser (`browser/refdoc-search.js: Loanwords`) over the Lunr
index's terms; a parity test compares them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ASSETS = Path(__file__).parent / "browser"
TERM_RE = re.compile(r"^[a-z]+$")


@cache
def rules() -> dict:
    """The kana readings, folds and limits shared with the browser."""
    return json.loads((ASSETS / "loanwords-ja.json").read_text(encoding="utf-8"))


@cache
def _folds(side: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """One side's folds, then the shared ones, compiled."""
    data = rules()
    return tuple((re.compile(pattern), replacement) for pattern, replacement in data[f"{side}_folds"] + data["shared_folds"])


def reading(katakana: str) -> str:
    """The romaji of a katakana run, a character pair's reading before a single one's;
    characters the table does not know are left out."""
    kana = rules()["kana"]
    out: list[str] = []
    position = 0
    while position < len(katakana):
        pair = kana.get(katakana[position : position + 2]) if position + 1 < len(katakana) else None
        if pair is not None:
            out.append(pair)
            position += 2
            continue
        out.append(kana.get(katakana[position], ""))
        position += 1
    return "".join(out)


def folded(spelling: str, side: str) -> str:
    """A spelling (romaji for `japanese`, an index term for `english`) as sounds: folds
    applied in order, a run of one letter kept once."""
    for pattern, replacement in _folds(side):
        spelling = pattern.sub(replacement, spelling)
    return "".join(letter for i, letter in enumerate(spelling) if i == 0 or spelling[i - 1] != letter)


def skeleton(sounds: str) -> str:
    """The consonants of folded sounds, a run of one kept once (`sunapusoto` → snpst)."""
    vowels = rules()["vowels"]
    consonants = [letter for letter in sounds if letter not in vowels]
    return "".join(letter for i, letter in enumerate(consonants) if i == 0 or consonants[i - 1] != letter)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute: 1 each)."""
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, 1):
        current = [i]
        for j, right in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right)))
        previous = current
    return previous[-1]


@dataclass
class Loanwords:
    """An index's English terms by consonant skeleton, to look katakana words up in."""

    terms_by_skeleton: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Skeleton → (term, folded sounds) of every term with that skeleton."""

    @classmethod
    def of(cls, vocabulary: list[str]) -> Loanwords:
        """Over the index terms that are plain lower-case words of a few letters or more
        (not numbers, message pairs or Japanese character pairs)."""
        minimum = rules()["min_term_length"]
        table: dict[str, list[tuple[str, str]]] = {}
        for term in sorted(set(vocabulary)):
            if len(term) >= minimum and TERM_RE.match(term):
                sounds = folded(term, "english")
                table.setdefault(skeleton(sounds), []).append((term, sounds))
        return cls(table)

    def english(self, katakana: str) -> list[str]:
        """The English terms a katakana word most likely spells, best first (none when
        nothing is near enough)."""
        data = rules()
        sounds = folded(reading(katakana), "japanese")
        wanted = skeleton(sounds)
        if len(wanted) < data["min_consonants"]:
            return []
        allowed = int(data["distance_share"] * len(wanted))
        ranked: list[tuple[int, int, str]] = []
        for candidate, entries in self.terms_by_skeleton.items():
            if abs(len(candidate) - len(wanted)) > allowed:
                continue
            distance = edit_distance(wanted, candidate)
            if distance <= allowed:
                ranked.extend((distance, edit_distance(sounds, term_sounds), term) for term, term_sounds in entries)
        ranked.sort()
        best = ranked[0][0] if ranked else 0
        return [term for distance, _, term in ranked if distance == best][: data["max_terms"]]
