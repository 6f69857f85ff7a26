"""Reuse of unchanged work (core/reuse.py): a phase whose inputs are unchanged returns its
stored output; changed inputs, or a run the summarizer left unfinished, run it again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from helpers import write_repo

from refdoc_site.core.config import Config
from refdoc_site.core.records import Document, Hierarchy
from refdoc_site.core.reuse import PhaseRecord, partial
from refdoc_site.core.store import Store
from refdoc_site.core.workspace import FACTS_NAME, Workspace
from refdoc_site.indexing.summarize import ExtractiveSummarizer
from refdoc_site.pipeline import index_phase, summarize_phase
from refdoc_site.writing.doc_writers import OfflineWriter

SOURCES = {
    "shop/cart.py": '''
        def total(prices: list[float]) -> float:
            """The sum of the prices in a cart."""
            return sum(prices)
    ''',
}


class CountingSummarizer(ExtractiveSummarizer):
    """The extractive summarizer, counting how often it writes the hierarchy; it can be
    told to leave that text offline, as an LLM does when a request fails."""

    def __init__(self, leaves_text_offline: bool = False) -> None:
        self.runs = 0
        self.leaves_text_offline = leaves_text_offline

    def summarize_hierarchy(self, hierarchy: Hierarchy, documents: Sequence[Document]) -> Hierarchy:
        self.runs += 1
        return hierarchy

    def left_offline_since(self, mark: int) -> bool:
        return self.leaves_text_offline


def test_a_record_matches_only_the_inputs_it_saved_and_nothing_once_forgotten(tmp_path: Path) -> None:
    record = PhaseRecord(Store(tmp_path), "phase.json")
    assert not record.unchanged("abc")
    record.save("abc", pages=["index.md"])
    assert record.unchanged("abc") and not record.unchanged("abd") and not record.unchanged("")
    assert record.read() == {"pages": ["index.md"], "inputs": "abc"}
    record.save(partial("abc", {"pages": 1}))
    assert not record.unchanged("abc")  # a partial run is never reused
    assert partial("abc", {"pages": 1}) != partial("abc", {"pages": 2})
    record.forget()
    assert not record.unchanged("abc") and record.inputs() == ""
    (tmp_path / "phase.json").write_text("{not json", encoding="utf-8")
    assert record.inputs() == ""


def indexed(tmp_path: Path, config: Config) -> Workspace:
    repo = write_repo(tmp_path / "repo", SOURCES)
    workspace = Workspace.create(repo, config, store_dir=tmp_path / "store", out_dir=tmp_path / "site")
    index_phase.index(workspace, ExtractiveSummarizer())
    return workspace


def test_the_summarize_phase_reruns_only_when_its_inputs_change(tmp_path: Path) -> None:
    workspace = indexed(tmp_path, Config())
    summarizer = CountingSummarizer()
    summarize_phase.summarize(workspace, summarizer, OfflineWriter("en"))
    summarize_phase.summarize(workspace, summarizer, OfflineWriter("en"))
    assert summarizer.runs == 1  # unchanged: the stored hierarchy is returned

    changed = Workspace.create(workspace.repo, replace(workspace.config, module_depth=2), workspace.store_dir, workspace.out_dir)
    summarize_phase.summarize(changed, summarizer, OfflineWriter("en"))
    assert summarizer.runs == 2  # another configuration: the phase runs again


def test_a_run_left_unfinished_is_run_again_by_the_next_build(tmp_path: Path) -> None:
    workspace = indexed(tmp_path, Config())
    unfinished = CountingSummarizer(leaves_text_offline=True)
    summarize_phase.summarize(workspace, unfinished, OfflineWriter("en"))
    recorded = json.loads((workspace.store_dir / FACTS_NAME).read_text(encoding="utf-8"))["inputs"]
    assert "-partial-" in recorded

    finished = CountingSummarizer()
    summarize_phase.summarize(workspace, finished, OfflineWriter("en"))
    summarize_phase.summarize(workspace, finished, OfflineWriter("en"))
    assert finished.runs == 1  # asked again once, then final and reused
