"""The call graph in the store: each `.refdoc/index.jsonl` record carries its resolved
`callers` and `callees` (chunk ids), its `unresolvedCalls`, and its `calls` as written,
and a rebuild that reprocesses one file re-resolves the calls of the others."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import dedent, write_repo

from refdoc_site.core.config import Config
from refdoc_site.core.workspace import Workspace
from refdoc_site.indexing.summarize import ExtractiveSummarizer
from refdoc_site.pipeline import index_phase, summarize_phase
from refdoc_site.writing.doc_writers import OfflineWriter

CALLER = """
    from b import Sender


    def run(x):
        s = Sender()
        s.send()
        x.flush_queue()
        print("done")
    """

SENDER = """
    class Sender:
        def send(self):
            return 1
    """


def build(repo: Path, store: Path) -> tuple[index_phase.IndexReport, dict[str, dict]]:
    """Index and summarize as `build` does; the stored records' metadata, by chunk id."""
    workspace = Workspace.create(repo, Config(), store_dir=store, out_dir=store / "site")
    report = index_phase.index(workspace, ExtractiveSummarizer())
    summarize_phase.summarize(workspace, ExtractiveSummarizer(), OfflineWriter("en"))
    lines = (store / "index.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    return report, {record["chunk"]["id"]: record["metadata"] for record in records}


def test_records_hold_resolved_ids_and_the_calls_as_written(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {"a.py": CALLER, "b.py": SENDER})
    _, records = build(repo, tmp_path / "store")
    run = records["a.py#run"]
    assert run["calls"] == ["Sender", "s.send", "x.flush_queue", "print"]
    assert run["callees"] == ["b.py#Sender", "b.py#Sender.send"]
    assert run["unresolvedCalls"] == ["x.flush_queue", "print"]
    assert records["b.py#Sender.send"]["callers"] == ["a.py#run"]
    assert records["b.py#Sender.send"]["callees"] == [] and records["a.py#run"]["callers"] == []


def test_a_change_in_another_file_updates_an_unchanged_files_stored_callees(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {"a.py": CALLER, "b.py": SENDER})
    build(repo, tmp_path / "store")
    # b.py now defines the only `flush_queue` of the repository: a.py's `x.flush_queue()` means it
    (repo / "b.py").write_text(dedent(SENDER + "\n        def flush_queue(self):\n            return 2\n"), encoding="utf-8")
    report, records = build(repo, tmp_path / "store")
    assert report.reprocessed == 1 and report.reused == 1  # a.py was not analysed again
    assert records["a.py#run"]["callees"] == ["b.py#Sender", "b.py#Sender.send", "b.py#Sender.flush_queue"]
    assert records["a.py#run"]["unresolvedCalls"] == ["print"]
    assert records["b.py#Sender.flush_queue"]["callers"] == ["a.py#run"]


def test_an_unchanged_rebuild_leaves_the_index_untouched(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {"a.py": CALLER, "b.py": SENDER})
    _, first = build(repo, tmp_path / "store")
    written = (tmp_path / "store" / "index.jsonl").stat().st_mtime_ns
    _, again = build(repo, tmp_path / "store")
    assert again == first
    assert (tmp_path / "store" / "index.jsonl").stat().st_mtime_ns == written
