"""Japanese words for the sparse index, without a dictionary.

Japanese writes no spaces, so a word splitter that keeps only ASCII identifiers loses every
Japanese comment, docstring and Markdown heading. Instead, a run of Japanese characters is
cut where katakana meets kanji or hiragana (a katakana run is nearly always one loanword:
`ファイル`, `ユーザー`), and each part gives its overlapping character pairs: `設定を読み込む`
→ 設定, 定を, を読, 読み, み込, 込む. Pairs made only of hiragana (`ます`, `して`) are grammar
and are dropped; a part of one kanji or katakana character is kept as it is.

The same rules, with the same character ranges, run in the browser
(`browser/refdoc-search.js: japaneseTerms`); a parity test compares them. The ranges stay
inside the Basic Multilingual Plane, where JavaScript's UTF-16 order is Python's order.
"""

from __future__ import annotations

import re

HIRAGANA = "\u3041-\u309f"
KATAKANA = "\u30a0-\u30ff"
KANJI = "\u3005\u3006\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""CJK ideographs and the iteration marks 々 and 〆."""
JAPANESE_RUN = f"[{HIRAGANA}{KATAKANA}{KANJI}]+"
SCRIPT_PART_RE = re.compile(f"[{KATAKANA}]+|[{HIRAGANA}{KANJI}]+")
HIRAGANA_ONLY_RE = re.compile(f"^[{HIRAGANA}]+$")


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
