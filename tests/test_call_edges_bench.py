"""The pure part of `benchmarks/call_edges.py`, in `benchmarks/scip_edges.py`: lines to
chunks, SCIP occurrences to call edges, and the scores. The benchmark itself needs npm and
the network and is not run here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "scip_edges.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("scip_edges_bench", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


SOURCE = """\
class URL:
    def join(self, other):
        return URL(other)

    def copy(self):
        return self.join("x")


def main():
    return ", ".join(["a"])
""".splitlines()


def spans(bench):
    return {
        "a.py": [
            bench.Span("a.py#(module)", "a.py", "module", "(module)", 1, 10),
            bench.Span("a.py#URL", "a.py", "class", "URL", 1, 6),
            bench.Span("a.py#URL.join", "a.py", "method", "join", 2, 3),
            bench.Span("a.py#URL.copy~1", "a.py", "method", "copy", 5, 5),
            bench.Span("a.py#URL.copy~2", "a.py", "method", "copy", 6, 6),
            bench.Span("a.py#main", "a.py", "function", "main", 9, 10),
        ]
    }


def occurrence(bench, line, text, symbol, roles=0, column=None):
    """An occurrence of `text` on the 0-based `line` of SOURCE (first match, or at `column`)."""
    start = SOURCE[line].index(text) if column is None else column
    return bench.Occurrence(line, start, start + len(text), symbol, roles)


def scip_document(bench):
    join, url = "py a `a`/URL#join().", "py a `a`/URL#"
    return {
        "a.py": [
            occurrence(bench, 0, "URL", url, roles=1),
            occurrence(bench, 1, "join", join, roles=1),
            occurrence(bench, 2, "URL", url),
            occurrence(bench, 5, "join", join),
            occurrence(bench, 9, "join", "py stdlib builtins/str#join()."),
        ]
    }


def test_a_line_maps_to_its_innermost_definition_and_windows_to_their_definition(bench):
    chunks = spans(bench)["a.py"]
    assert bench.enclosing(chunks, 3).id == "a.py#URL.join"
    assert bench.enclosing(chunks, 4).id == "a.py#URL"  # between members: the class
    assert bench.enclosing(chunks, 8) is None  # module level is no definition
    assert bench.enclosing(chunks, 6).id == "a.py#URL.copy~2"
    assert bench.definition_id("a.py#URL.copy~2") == "a.py#URL.copy"
    assert bench.definition_id("a.py#f~1@12") == "a.py#f@12"
    assert bench.definition_id("a.py#f@12") == "a.py#f@12"


def test_call_sites_are_names_followed_by_a_parenthesis_and_not_being_defined(bench):
    assert bench.is_call_site("    x = self.join(a)", 13, 17)
    assert bench.is_call_site("    fn (a)", 4, 6)
    assert not bench.is_call_site("    callback = self.join", 20, 24)
    assert not bench.is_call_site("def join(self):", 4, 8)
    assert not bench.is_call_site("async def join(self):", 10, 14)


def test_reference_edges_join_callers_to_the_chunks_their_symbols_define(bench):
    reference = bench.reference_edges(scip_document(bench), {"a.py": SOURCE}, spans(bench))
    # `str.join` in main resolves outside the corpus: a resolved site, no edge.
    assert reference.edges == {("a.py#URL.join", "a.py#URL"), ("a.py#URL.copy", "a.py#URL.join")}
    assert ("a.py#main", "join") in reference.resolved


def test_a_symbol_only_assigned_is_defined_where_it_is_assigned(bench):
    lines = [
        "app.set = function set(v) {",
        "};",
        "app.on = function on() {",
        "  return this.set(1);",
        "};",
    ]
    chunks = {
        "a.js": [
            bench.Span("a.js#app.set", "a.js", "method", "set", 1, 2),
            bench.Span("a.js#app.on", "a.js", "method", "on", 3, 5),
        ]
    }
    documents = {
        "a.js": [
            bench.Occurrence(0, 4, 7, "local 5", 0),
            bench.Occurrence(3, 14, 17, "local 5", 0),
        ]
    }
    reference = bench.reference_edges(documents, {"a.js": lines}, chunks)
    assert reference.edges == {("a.js#app.on", "a.js#app.set")}


def test_scores_count_common_edges_and_name_the_wrong_callees(bench):
    reference = bench.Reference(
        edges={("a#f", "a#C.join"), ("a#g", "a#h"), ("a#g", "a#k")},
        resolved={("a#f", "join"), ("a#main", "join"), ("a#g", "h"), ("a#g", "k")},
    )
    ours = {
        ("a#f", "a#C.join"),
        ("a#main", "a#C.join"),
        ("a#g", "a#h"),
        ("a#x", "a#C.join"),
        ("a#x", "a#y"),
    }
    result = bench.score(ours, reference, top=1)
    assert (result.ours, result.reference, result.common) == (5, 3, 2)
    assert result.precision == pytest.approx(2 / 5)
    assert result.recall == pytest.approx(2 / 3)
    # (a#x, …) is a call the reference resolved nothing for: not judged.
    assert result.judged == 3
    assert result.judged_precision == pytest.approx(2 / 3)
    assert result.false_callees == [("join", 2)]
    empty = bench.score(set(), bench.Reference(set(), set()))
    assert (empty.precision, empty.recall, empty.judged_precision) == (None, None, None)


def test_our_edges_keep_definitions_only_and_fold_windows(bench):
    by_id = {span.id: span for span in spans(bench)["a.py"]}
    calls = {
        "a.py#(module)": ["a.py#main"],
        "a.py#URL.copy~2": ["a.py#URL.join", "a.py#URL.copy~1"],
        "a.py#main": ["a.py#URL.join", "gone.py#f"],
    }
    assert bench.our_edges(calls, by_id) == {
        ("a.py#URL.copy", "a.py#URL.join"),
        ("a.py#main", "a.py#URL.join"),
    }
