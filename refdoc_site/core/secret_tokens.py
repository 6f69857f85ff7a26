"""Token formats a maintained scanner knows (`languages/secret_rules.json`), found in linear time.

Each rule is an RE2 expression (RE2 never backtracks: its time is linear in the text, on any
input) with the literals one of which every match holds. One RE2 alternation of all those
literals, run once over the lower-cased text, says which rules can match on which lines;
each rule then runs only there. `tools/secret_rules.py` regenerates the data.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import re2

RULES_PATH = Path(__file__).parent.parent / "languages" / "secret_rules.json"
EXTRA_PATH = Path(__file__).parent.parent / "languages" / "secrets.json"
"""Its `extra_tokens`: formats the converted set lacks (Stripe's `whsec_`), in the same form."""
WINDOW_BEFORE, WINDOW_AFTER = 512, 2048
"""Bytes around a literal's hit a rule runs on within a long line: every token format
listed is shorter, and a 1 MB line full of literals costs each rule at most one pass."""
SEGMENT = 4096
"""The stretch of a line whose literals one set match finds."""

QUOTES = frozenset(b"\"'`")
PLACEHOLDER_RUN = re2.compile(rb"x{8}|X{8}|0{12}|\*{4}")
"""What a placeholder is written with and a random token almost never holds."""


@dataclass(frozen=True)
class TokenRule:
    id: str
    pattern: re2._Regexp
    group: int
    """The capture group that holds the secret; 0 for the whole match."""


@dataclass(frozen=True)
class TokenRules:
    rules: tuple[TokenRule, ...]
    keywords: re2._Regexp
    """One alternation of every rule's literals, lower-case, for the lower-cased text."""
    rules_of: dict[bytes, tuple[int, ...]]
    """Which rules (indexes into `rules`) each literal stands for."""
    keyword_set: re2.Set
    """The same literals as an RE2 set: which of them a stretch of text holds, in one pass."""
    literals: tuple[bytes, ...]
    """The set's literals by index."""
    longest_keyword: int
    digest: str


@cache
def token_rules() -> TokenRules:
    raw = RULES_PATH.read_bytes()
    extra = json.loads(EXTRA_PATH.read_bytes())["extra_tokens"]["rules"]
    data = json.loads(raw)
    rules, rules_of = [], defaultdict(list)
    options = re2.Options()
    options.max_mem = 64 << 20
    for index, rule in enumerate([*data["rules"], *extra]):
        rules.append(TokenRule(rule["id"], re2.compile(rule["pattern"].encode(), options), rule["group"]))
        for keyword in rule["keywords"]:
            rules_of[keyword.encode()].append(index)
    literals = tuple(sorted(rules_of, key=len, reverse=True))
    keyword_options = re2.Options()
    keyword_options.max_mem = 64 << 20
    keyword_set = re2.Set.SearchSet(keyword_options)
    for literal in literals:
        keyword_set.Add(re2.escape(literal))
    keyword_set.Compile()
    return TokenRules(
        tuple(rules), re2.compile(b"|".join(re2.escape(k) for k in literals), keyword_options),
        {k: tuple(v) for k, v in rules_of.items()}, keyword_set, literals, max(map(len, literals)),
        rules_digest(),
    )


@cache
def rules_digest() -> str:
    """The digest of the rules' data, without compiling them (0.1 s a rebuild with nothing
    to read need not pay)."""
    return hashlib.sha256(RULES_PATH.read_bytes() + EXTRA_PATH.read_bytes()).hexdigest()[:16]


def token_spans(data: bytes, lowered: bytes, check: Callable[[], None]) -> Iterator[tuple[int, int, str]]:
    """(begin, end, rule id) of each token of a known format in `data` (UTF-8), byte offsets;
    `check` is called between rules (the caller's time budget)."""
    rules = token_rules()
    windows: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for begin, end, literals in _segments(lowered, rules):
        for literal in literals:
            for index in rules.rules_of[literal]:
                spans = windows[index]
                if spans and begin <= spans[-1][1]:
                    spans[-1] = (spans[-1][0], max(spans[-1][1], end))
                else:
                    spans.append((begin, end))
    for index in sorted(windows):
        check()
        rule = rules.rules[index]
        for window_begin, window_end in windows[index]:
            for match in rule.pattern.finditer(data, window_begin, window_end):
                begin, end = match.span(rule.group)
                while begin < end and data[begin] in QUOTES and data[end - 1] == data[begin]:
                    begin, end = begin + 1, end - 1  # a rule that takes the literal's quotes leaves them
                if begin < end and token_like(data[begin:end]):
                    yield begin, end, rule.id


def _segments(lowered: bytes, rules: TokenRules) -> Iterator[tuple[int, int, list[bytes]]]:
    """(begin, end, literals) of each stretch of a line where literals occur: from the first
    hit, `SEGMENT` bytes at most, all the literals in it found in one pass (RE2's set), so
    a line packed with literals costs one step per segment, not one per literal."""
    position, longest = 0, rules.longest_keyword
    while (hit := rules.keywords.search(lowered, position)) is not None:
        first = hit.start()
        line_start = lowered.rfind(b"\n", max(0, first - WINDOW_BEFORE), first) + 1 or max(0, first - WINDOW_BEFORE)
        segment_end = lowered.find(b"\n", first, first + SEGMENT)
        segment_end = min(len(lowered), first + SEGMENT) if segment_end < 0 else segment_end
        found = rules.keyword_set.Match(lowered[first:segment_end]) or ()
        after = lowered.find(b"\n", segment_end, segment_end + WINDOW_AFTER)
        window_end = min(len(lowered), segment_end + WINDOW_AFTER) if after < 0 else after
        yield line_start, window_end, [rules.literals[i] for i in found]
        position = max(segment_end - longest + 1, first + 1)


def token_like(value: bytes) -> bool:
    """What a token of any format is and a word is not: letters and digits or both cases
    mixed (a rule that takes any value after `sumo,` also meets `'sumsandsquares'`), and no
    documentation example (AWS's `AKIAIOSFODNN7EXAMPLE`) or placeholder run (`xxxxxxxx`)."""
    classes = sum((any(97 <= c <= 122 for c in value), any(65 <= c <= 90 for c in value), any(48 <= c <= 57 for c in value)))
    if PLACEHOLDER_RUN.search(value) or b"example" in value.lower():
        return False  # `sk_live_xxxxxxxx…`, `AKIA…EXAMPLE`: a documented placeholder
    return classes >= 2 or len(value) >= 32
