"""The pure part of the hand-labelled call-site benchmark (`benchmarks/labelled_edges.py`):
labels to chunks, a chunk graph to per-site predictions, and the scores. The benchmark
itself builds stores of fetched repositories and is not run here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("labelled_edges_bench", BENCHMARKS / "labelled_edges.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def spans(bench):
    Span = sys.modules["scip_edges"].Span
    return {
        s.id: s
        for s in [
            Span("a.rs#Buf", "a.rs", "class", "Buf", 1, 20),
            Span("a.rs#Buf.len", "a.rs", "method", "len", 2, 4),
            Span("a.rs#Buf.write", "a.rs", "method", "write", 5, 12),
            Span("a.rs#Buf.Buf", "a.rs", "method", "Buf", 13, 14),
            Span("b.rs#render", "b.rs", "function", "render", 1, 9),
            Span("b.rs#render.inner", "b.rs", "function", "inner", 2, 3),
        ]
    }


def test_a_label_names_the_innermost_chunk_bearing_the_name_and_a_class_its_constructors(bench):
    by_path = {}
    for span in spans(bench).values():
        by_path.setdefault(span.path, []).append(span)
    assert bench.target_chunks("a.rs:3", "len", by_path) == {"a.rs#Buf.len"}
    assert bench.target_chunks("a.rs:3", "write", by_path) == set()  # no such name there
    assert bench.target_chunks("a.rs:1", "Buf", by_path) == {"a.rs#Buf", "a.rs#Buf.Buf"}


def test_each_site_scores_the_links_made_for_it_alone(bench, tmp_path):
    labels = tmp_path / "rust-x.tsv"
    labels.write_text(
        "# header\n"
        "a.rs\t6\t9\tlen\texternal\n"  # `s.len()` on a str: any link is wrong
        "b.rs\t4\t5\twrite\ta.rs:5\n"  # found
        "b.rs\t5\t5\tlen\ta.rs:2|a.rs:30\n"  # either target: the first has a chunk, not linked
        "a.rs\t7\t5\twrite\ta.rs:5\n",  # a self-call: left out
        encoding="utf-8",
    )
    sites = bench.read_labels(labels)
    assert sites[2].targets == ("a.rs:2", "a.rs:30")
    predictions = {"a.rs:6:9": ["a.rs#Buf.len"], "b.rs:4:5": ["a.rs#Buf.write"], "a.rs:7:5": ["a.rs#Buf.write"]}
    result = bench.score_sites(sites, predictions, spans(bench))
    assert (result.links, result.right_links, result.internal, result.found) == (2, 1, 2, 1)
    assert result.precision == 0.5 and result.recall == 0.5
    assert result.false_callees == [("len", 1)]


def test_a_malformed_label_line_names_its_file_and_line(bench, tmp_path):
    labels = tmp_path / "go-x.tsv"
    labels.write_text("a.go\t1\tf\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"go-x.tsv:1: expected 5"):
        bench.read_labels(labels)
