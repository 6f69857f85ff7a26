"""The off-topic questions `benchmarks/ask_quality.py` asks, and its threshold grid."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from ask_quality import NOT_FOUND_FILE, Signals, grid, off_topic
from search_quality import SETS


def test_ten_off_topic_questions_per_corpus_language() -> None:
    items = [json.loads(line) for line in NOT_FOUND_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert Counter(item["language"] for item in items) == {"Python": 10, "JavaScript": 10, "TypeScript": 10, "Japanese": 10}
    assert len({item["id"] for item in items}) == len({item["query"] for item in items}) == 40
    assert {s.language for s in SETS} <= {"Python", "JavaScript", "TypeScript"}
    assert len(off_topic("Python", "httpx")) == 20 and len(off_topic("TypeScript", "immer")) == 10


def test_the_grid_keeps_a_hit_when_either_signal_reaches_its_threshold() -> None:
    found = [Signals([(False, 0.9, 0.0), (True, 0.2, 0.5)]), Signals([(True, 0.1, 0.1)])]
    off = [Signals([(False, 0.5, 0.0)]), Signals([(False, 0.1, 0.2)])]
    rows = {(row[0], row[1]): row[2:] for row in grid(found, off)}
    assert rows[("all", "all")] == ["1.000", "1.000", "0.000"]
    # cosine 0.45 or coverage 0.40: the first question keeps both hits, the second none;
    # one off-topic question is kept (cosine 0.5), the other turned away.
    assert rows[("0.45", "0.40")] == ["0.500", "0.500", "0.500"]
    assert rows[("off", "off")] == ["0.000", "0.000", "1.000"]
