"""The off-topic questions `benchmarks/ask_quality.py` asks, its threshold grid, how it
reads an answer's first sentence, and its verdicts on the issue's targets."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from ask_quality import NOT_FOUND_FILE, Figures, Signals, first_sentence_links, grid, off_topic, verdicts
from search_quality import SETS


def test_ten_off_topic_questions_per_labelled_set() -> None:
    items = [json.loads(line) for line in NOT_FOUND_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    names = {s.name for s in SETS}
    assert Counter(item["set"] for item in items) == dict.fromkeys(names, 10), "every labelled set, and only those, has ten"
    assert len({item["id"] for item in items}) == len(items)
    for name in names:
        questions = off_topic(name)
        assert len(questions) == len(set(questions)) == 10, name
    assert all(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", q) for q in off_topic("httpx-ja")), "the Japanese set's are Japanese"
    assert not any("HTTP" in q for q in off_topic("ky")), "ky is an HTTP client: HTTP is its subject"


def test_the_grid_keeps_a_hit_when_either_signal_reaches_its_threshold() -> None:
    found = [Signals([(False, 0.9, 0.0), (True, 0.2, 0.5)]), Signals([(True, 0.1, 0.1)])]
    off = [Signals([(False, 0.5, 0.0)]), Signals([(False, 0.1, 0.2)])]
    rows = {(row[0], row[1]): row[2:] for row in grid(found, off)}
    assert rows[("all", "all")] == ["1.000", "1.000", "0.000"]
    # cosine 0.45 or coverage 0.40: the first question keeps both hits, the second none;
    # one off-topic question is kept (cosine 0.5), the other turned away.
    assert rows[("0.45", "0.40")] == ["0.500", "0.500", "0.500"]
    assert rows[("off", "off")] == ["0.000", "0.000", "1.000"]


def test_the_first_sentence_is_read_up_to_its_first_stop_and_its_links_are_its_names() -> None:
    english = ("`a` ([x.py:1-2](files/x.py/#chunk-a)): Do it; it calls `b` ([y.py:3-4](files/y.py/#chunk-b)). "
               "`c` ([z.py:1-9](files/z.py/#chunk-c)): More.\n\nSearch results:\n\n1. [q.py:1-2](files/q.py/#chunk-q)")
    assert first_sentence_links(english) == ["files/x.py/#chunk-a", "files/y.py/#chunk-b"]
    japanese = "`a`（[x.py:1-2](files/x.py/#chunk-a)）: 要約。これは `b`（[y.py:3-4](files/y.py/#chunk-b)） を呼び出します。"
    assert first_sentence_links(japanese) == ["files/x.py/#chunk-a"]
    early = "`a` ([x.py:1-2](u1)): Reads e.g. a file; it calls `b` ([y.py:3-4](u2))."
    assert first_sentence_links(early) == ["u1"], "a summary's own stop ends the sentence: the measure only undercounts"
    assert first_sentence_links("Not found in this repository: nothing indexed is about this question.") == []


def test_the_verdicts_compare_the_pooled_figures_with_the_targets() -> None:
    found = Figures(questions=100, answered=96, first=80)
    lines = verdicts(found, Figures(questions=40, answered=2))
    assert [line.split()[0] for line in lines] == ["PASS", "PASS", "PASS"], lines
    lines = verdicts(Figures(questions=100, answered=94, first=79), Figures(questions=40, answered=3))
    assert [line.split()[0] for line in lines] == ["FAIL", "FAIL", "FAIL"], lines
