"""`benchmarks/redos.py` on a slice, so it keeps working: each hostile case has the size it
is asked for, the stages run on it, a stage that never ends is killed and reported while
the next one is still measured, and the growth exponent reads linear and quadratic
times right. No timing is asserted."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import redos  # noqa: E402
from redos_cases import CASES  # noqa: E402
from redos_stages import STAGES, Stage, sweep_stages  # noqa: E402


def test_every_case_has_about_the_size_asked_for():
    for name, make in CASES.items():
        for size in (1_000, 20_000):
            assert 0.9 * size <= len(make(size)) <= 1.1 * size + 100, name


def test_the_stages_cover_the_redactor_the_chunkers_and_both_analysis_tiers():
    names = {stage.name for stage in STAGES}
    assert {"redact file", "redact message", "commit message", "docstring"} <= names
    for kind in ("py", "js", "md", "yaml", "sh"):
        assert {f"chunk {kind}", f"analyze {kind}", f"summarize {kind}", f"search terms {kind}"} <= names
    assert {"regex tier py", "regex tier js"} <= names
    swept = {stage.name for stage in sweep_stages()}
    assert "re indexing.text_chunks.HEADING_RE" in swept and len(swept) > 100


def test_a_stage_that_never_ends_is_killed_and_the_next_is_still_measured():
    stuck = Stage("stuck", lambda text: text, lambda text: time.sleep(60))
    quick = Stage("quick", lambda text: text, len)
    results = redos.measure([("password-lines", stuck), ("password-lines", quick)], [1_000, 2_000], budget=5, timeout=2)
    assert results[0].timed_out == 1_000 and not results[0].passed()
    assert set(results[1].seconds) == {1_000, 2_000} and results[1].passed()


def test_the_exponent_reads_linear_and_quadratic_growth():
    linear = redos.Result("c", "s", {100_000: 0.1, 1_000_000: 1.0})
    quadratic = redos.Result("c", "s", {100_000: 0.1, 1_000_000: 10.0})
    assert abs(linear.exponent() - 1) < 1e-9 and not linear.worse_than_linear() and linear.passed()
    assert abs(quadratic.exponent() - 2) < 1e-9 and quadratic.worse_than_linear() and not quadratic.passed()


def spin(seconds: float) -> None:
    """Work for `seconds` of CPU time (the benchmark measures CPU, not the wall clock)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_size_predicted_over_the_budget_is_skipped_and_predicted():
    slow = Stage("slow", lambda text: text, lambda text: spin(len(text) / 10_000))
    [result] = redos.measure([("password-lines", slow)], [1_000, 2_000, 200_000], budget=1, timeout=10)
    assert set(result.seconds) == {1_000, 2_000}
    assert result.predicted is not None and result.predicted[0] == 200_000 and result.predicted[1] > 1


def test_the_benchmark_prints_its_table(capsys):
    code = redos.main(["--quiet", "--sizes", "1,2", "--cases", "password-lines,commit-message", "--stages", "redact file,chunk md,analyze py", "--budget", "5"])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert "| redact file " in out and "| chunk md " in out and "c2 = commit-message" in out
    assert "case × stage pairs within 5 s/MB" in out


def test_a_time_near_zero_predicts_no_growth():
    """A text too small to make a chunk takes no time: the next size is not predicted from it."""
    result = redos.Result("c", "s", {10_000: 0.00001, 100_000: 0.2})
    assert result.exponent() is None and result.passed()
    assert redos._predict([(10_000, 0.00001), (100_000, 0.2)], 1_000_000) == pytest.approx(2.0)
