"""The keyword index the site ships: Python writes it compact, the browser's
`refdoc-keyword.js` (under node) expands it into the very serialised Lunr index Python
ranks with, so lunr.js scores what the `lunr` package scores."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from lunr.index import Index
from lunr.query import Query, QueryPresence

from refdoc_site.search.lunr_index import compact_index, serialized_index

ROOT = Path(__file__).resolve().parent.parent
JS_DIR = ROOT / "tests" / "js"
KEYWORD_JS = ROOT / "refdoc_site" / "search" / "browser" / "refdoc-keyword.js"
BOOSTS = {"name": 3.0, "body": 1.5, "phrases": 2.0}
HOSTILE = ["__proto__", "constructor", "hasOwnProperty", "toString", "valueOf", "_index", "ü", "設定", "😀", "\uffff", "a/b", ""]
QUERIES = [["pars"], ["__proto__"], ["constructor", "tostr"], ["😀"], ["ü", "w17"], ["w1*"], ["w23~1"], ["-w5"], ["w5", "-w6"]]
"""Words, `w*` a prefix, `w~1` one edit away, `-w` prohibited (alone: every other document)."""

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (JS_DIR / "node_modules" / "lunr").exists(), reason="needs node and tests/js/node_modules"
)


def random_rows(count: int, seed: int) -> list[dict[str, list[str]]]:
    """`count` documents over a vocabulary with the hostile terms, repeats and empty fields."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(400)] + HOSTILE + ["pars", "tostr"]
    return [{field: [rng.choice(words) for _ in range(rng.choice([0, 1, 3, 12, 40]))] for field in BOOSTS} for _ in range(count)]


def node(script: str, *args: str) -> object:
    done = subprocess.run(["node", "-e", script, str(KEYWORD_JS), *args], cwd=JS_DIR, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def expanded_in_javascript(tmp_path: Path, compact: dict) -> dict:
    data = tmp_path / "index.json"
    data.write_text(json.dumps(compact), encoding="utf-8")
    script = """
const fs = require("fs");
const keyword = require(process.argv[1]);
const data = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));
process.stdout.write(JSON.stringify(keyword.serializedIndex(data)));
"""
    return node(script, str(data))  # type: ignore[return-value]


def test_javascript_expands_the_compact_form_into_the_serialised_index(tmp_path: Path) -> None:
    rows = random_rows(3000, seed=7)
    expected = serialized_index(rows, BOOSTS)
    compact = compact_index(rows, BOOSTS)
    got = expanded_in_javascript(tmp_path, compact)
    assert got["fieldVectors"] == expected["fieldVectors"]  # every weight, to the bit
    assert dict(got["invertedIndex"]) == dict(expected["invertedIndex"])
    assert {k: got[k] for k in ("version", "fields", "pipeline")} == {k: expected[k] for k in ("version", "fields", "pipeline")}
    terms = [term for term, _ in got["invertedIndex"]]
    # lunr's TokenSet.Builder needs JavaScript's (UTF-16) order, which puts 😀 before \uffff.
    assert terms == sorted(terms, key=lambda t: t.encode("utf-16-be")) and set(HOSTILE) <= set(terms)


def test_the_compact_form_is_a_fraction_of_the_serialised_one() -> None:
    rows = random_rows(3000, seed=3)
    serialized = len(json.dumps(serialized_index(rows, BOOSTS), separators=(",", ":")))
    compact = len(json.dumps(compact_index(rows, BOOSTS), separators=(",", ":")))
    assert compact * 4 < serialized, (compact, serialized)


def test_lunr_js_scores_the_expanded_index_as_it_scored_the_serialised_one(tmp_path: Path) -> None:
    rows = random_rows(600, seed=11)
    (tmp_path / "compact.json").write_text(json.dumps(compact_index(rows, BOOSTS)), encoding="utf-8")
    serialised = serialized_index(rows, BOOSTS)
    # lunr.js refused the old file, in Python's (code point) order: 😀 after \uffff.
    serialised["invertedIndex"].sort(key=lambda pair: pair[0].encode("utf-16-be"))
    (tmp_path / "serialised.json").write_text(json.dumps(serialised), encoding="utf-8")
    script = """
const fs = require("fs");
const lunr = require("lunr");
const keyword = require(process.argv[1]);
const read = (name) => JSON.parse(fs.readFileSync(process.argv[2] + "/" + name, "utf-8"));
const queries = JSON.parse(process.argv[3]);
const rank = (index) => queries.map((words) => index.query((q) => words.forEach((w) => {
  const fuzzy = w.endsWith("~1"), prefix = w.endsWith("*"), term = w.replace(/(~1|\\*)$/, "").replace(/^-/, "");
  const presence = w.startsWith("-") ? lunr.Query.presence.PROHIBITED : lunr.Query.presence.OPTIONAL;
  q.term(term, fuzzy ? { usePipeline: false, editDistance: 1 } : { usePipeline: false, presence, wildcard: prefix ? lunr.Query.wildcard.TRAILING : lunr.Query.wildcard.NONE });
})).map((r) => [r.ref, r.score]));
process.stdout.write(JSON.stringify([rank(keyword.load(lunr, read("compact.json"))), rank(lunr.Index.load(read("serialised.json")))]));
"""
    expanded, serialised = node(script, str(tmp_path), json.dumps(QUERIES))
    assert expanded == serialised  # the same refs, order and scores, to the bit
    index = Index.load(serialized_index(rows, BOOSTS))

    def python(words: list[str]) -> list[list]:
        def build(query) -> None:
            for word in words:
                term = word.removesuffix("~1").removesuffix("*").removeprefix("-")
                presence = QueryPresence.PROHIBITED if word.startswith("-") else QueryPresence.OPTIONAL
                wildcard = Query.WILDCARD_TRAILING if word.endswith("*") else Query.WILDCARD_NONE
                query.term(term, use_pipeline=False, edit_distance=1 if word.endswith("~1") else 0, wildcard=wildcard, presence=presence)

        return [[r["ref"], r["score"]] for r in index.query(callback=build)]

    for words, got in zip(QUERIES, expanded, strict=True):
        expected = python(words)
        assert expected, words
        # The `lunr` package adds a wildcard's expansions in another order (equal to ~1e-12)
        # and orders equal scores its own way: the same documents, the same scores.
        assert dict(got) == pytest.approx(dict(expected), rel=1e-12), words


def test_weights_round_as_python_rounds_even_on_exact_ties() -> None:
    rng = random.Random(5)
    values = [0.0625, 0.1875, 0.3125, 1.0625, 2.5625, 12.3445, 0.0005] + [rng.uniform(0, 40) for _ in range(2000)]
    script = """
const keyword = require(process.argv[1]);
process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map((x) => keyword.roundLikePython(x, 3))));
"""
    assert node(script, json.dumps(values)) == [round(x, 3) for x in values]
    assert round(0.0625, 3) == 0.062  # the tie, to the even neighbour (toFixed would say 0.063)


def test_an_index_of_another_format_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(subprocess.CalledProcessError) as failed:
        expanded_in_javascript(tmp_path, serialized_index(random_rows(3, seed=1), BOOSTS))
    assert "index.json: expected the refdoc-keyword/1 format" in failed.value.stderr
