"""The previews benchmark's verdict (benchmarks/previews.py): the bound is for ten open
previews, so a run of fewer previews is judged per preview against a tenth of it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from previews import HOMEASSISTANT_SITE, OPEN_PREVIEWS, PAGES_LIMIT, verdict  # noqa: E402

ONE_TENTH = (PAGES_LIMIT - HOMEASSISTANT_SITE) / HOMEASSISTANT_SITE / OPEN_PREVIEWS


def test_one_preview_is_judged_against_a_tenth_of_the_bound_for_ten() -> None:
    """django's one-file preview at 15.6 % of the main site: the old verdict passed it
    (one preview's share against the ten previews' share); ten such previews do not fit."""
    passed, text = verdict("django", 82_600_000, [12_890_000])
    assert not passed and text.startswith("FAIL") and "per preview" in text and f"≥ {ONE_TENTH:.2%}" in text
    passed, _ = verdict("django", 82_600_000, [int(82_600_000 * ONE_TENTH * 0.9)])
    assert passed


def test_the_largest_preview_of_the_run_decides() -> None:
    small, large = int(1e6 * ONE_TENTH * 0.5), int(1e6 * ONE_TENTH * 1.2)
    assert verdict("django", 1_000_000, [small, small])[0]
    assert not verdict("django", 1_000_000, [small, large])[0]


def test_homeassistant_counts_ten_previews_against_the_gigabyte() -> None:
    main = 681_400_000
    assert verdict("homeassistant", main, [30_000_000])[0]  # 681 + 300 MB
    assert not verdict("homeassistant", main, [40_000_000])[0]  # 681 + 400 MB: the old verdict passed it (681 + 40)
