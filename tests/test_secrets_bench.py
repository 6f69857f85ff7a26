"""`benchmarks/secrets_bench.py` on a slice, so it keeps working: the labelled set is what
it says (hundreds of positives of over 40 kinds, their values in their texts, the same on
every run), a leak is a surviving piece of a value, and both scanners report. No figure
is asserted: the benchmark's targets are its own output."""

from __future__ import annotations

import re
import sys
import zlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import secrets_bench as bench  # noqa: E402
from secret_formats import BASE62, FORMATS, base62, crc32_token  # noqa: E402


@pytest.fixture(scope="module")
def samples():
    return bench.labelled_samples()


def test_the_set_has_hundreds_of_positives_of_over_forty_kinds_and_hundreds_of_negatives(samples):
    positives = [s for s in samples if s.label == "positive"]
    assert len(positives) >= 300
    assert len({s.provider for s in positives}) >= 40
    assert sum(s.label == "negative" for s in samples) >= 200


def test_every_positive_holds_its_values_and_its_region(samples):
    for sample in samples:
        if sample.label == "positive":
            assert sample.values and all(value in sample.text for value in sample.values), sample.provider
            assert bench.region_lines(sample)


def test_the_set_is_the_same_on_every_run_and_another_seed_gives_other_values(samples):
    assert bench.labelled_samples() == samples
    other = bench.labelled_samples(seed=7)
    kinds = lambda made: [s.provider for s in made if s.label == "positive"]  # noqa: E731
    assert kinds(other) == kinds(samples)
    assert other[0].values != samples[0].values


def test_github_style_tokens_end_with_the_crc32_of_their_body_in_base62():
    assert base62(0, 6) == "000000" and base62(61, 2) == "0z" and base62(62, 2) == "10"
    import random

    token = crc32_token("ghp_")(random.Random(1))
    body, checksum = token[4:34], token[34:]
    assert len(token) == 40 and set(body) <= set(BASE62)
    assert checksum == base62(zlib.crc32(body.encode()), 6)


def test_a_value_leaks_while_any_ten_characters_of_it_survive():
    value = "Zq8vR2mK0pL5xW3nT7yB"
    sample = bench.Sample("positive", "x", "", "a.py", f'key = "{value}"\n', (value,), value)
    assert not bench.leaked(sample, 'key = "«redacted»"\n')
    assert bench.leaked(sample, sample.text)
    assert bench.leaked(sample, f'key = "«redacted»{value[8:]}"\n')
    assert not bench.leaked(sample, f'key = "«redacted»{value[-9:]}"\n')


def test_no_token_shaped_literal_is_written_in_the_benchmark():
    shapes = re.compile(r"(?:ghp|gho|github_pat|npm|glpat|sk-proj|sk-ant-api03|xox[bpa]|hf)[-_][A-Za-z0-9]{20,}|AKIA[A-Z2-7]{16}")
    for path in BENCHMARKS.glob("secret*.py"):
        text = path.read_text(encoding="utf-8").replace("AKIAIOSFODNN7EXAMPLE", "")  # AWS's own documented example
        assert not shapes.search(text), path.name


def test_every_format_makes_a_value_that_differs_between_draws():
    import random

    rng = random.Random(3)
    for fmt in FORMATS:
        assert fmt.make(rng) != fmt.make(rng), fmt.provider


def test_the_benchmark_prints_its_tables_for_both_scanners(capsys):
    assert bench.main(["--every", "25"]) == 0
    out = capsys.readouterr().out
    assert "## Targets" in out and "| refdoc " in out and "| detect-secrets " in out
    assert re.search(r"\| refdoc +\| \d+/\d+ +\| [01]\.\d{3} +\| (PASS|FAIL)", out)
