"""The store: atomic writes, incremental re-indexing, and the index.jsonl line format."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest
from helpers import write_repo

import refdoc_site.pipeline
from refdoc_site.core.config import Config
from refdoc_site.core.store import INDEX_NAME, Store, StoreState, write_atomically

REPO_FILES = {
    "app/main.py": '''
        """Entry point."""
        from app.util import double


        def run(value):
            """Run the program once."""
            return double(value)
    ''',
    "app/util.py": '''
        def double(value):
            return value * 2


        def triple(value):
            return value * 3
    ''',
    "lib/strings.py": '''
        def shout(text):
            return text.upper() + "!"
    ''',
    "README.md": "# Demo\n\nA small demo repository.\n",
}


def index_lines(store_dir) -> list[dict]:
    text = (store_dir / INDEX_NAME).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --- atomic writes ------------------------------------------------------------------------


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    store = Store(tmp_path / "store")
    store.write_lines(INDEX_NAME, ['{"old": 1}', '{"old": 2}'])
    before = store.index_path.read_bytes()

    def lines_then_failure():
        yield '{"new": 1}'
        yield '{"new": 2}'
        raise RuntimeError("interrupted midway")

    with pytest.raises(RuntimeError, match="interrupted midway"):
        store.write_lines(INDEX_NAME, lines_then_failure())
    assert store.index_path.read_bytes() == before
    assert sorted(p.name for p in store.directory.iterdir()) == [INDEX_NAME]


def test_failed_first_write_leaves_nothing(tmp_path):
    target = tmp_path / "fresh" / "out.jsonl"

    def failing():
        yield "a"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, failing())
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_save_then_load_round_trips_an_empty_state(tmp_path):
    store = Store(tmp_path / "store")
    assert not store.exists()
    store.save(StoreState(fingerprint="abc"))
    assert store.exists()
    loaded = store.load()
    assert loaded.documents == [] and loaded.files == {} and loaded.fingerprint == "abc"


# --- incremental indexing -----------------------------------------------------------------


@pytest.fixture
def pipeline():
    return refdoc_site.pipeline


@pytest.fixture
def workspace(tmp_path, pipeline):
    repo = write_repo(tmp_path / "repo", REPO_FILES)
    return pipeline.Workspace.create(repo, Config(), store_dir=tmp_path / "store")


def test_index_lines_carry_the_document_fields(workspace, pipeline):
    report = pipeline.index(workspace)
    assert report.files == 4 and report.reprocessed == 4 and report.reused == 0
    assert not report.failed
    lines = index_lines(workspace.store_dir)
    assert len(lines) == report.chunks > 0
    for line in lines:
        assert {"chunk", "summary", "metadata", "embedding", "indexedAt"} <= set(line)
        assert isinstance(line["embedding"], list)
        assert line["summary"]["responsibility"]
        assert line["chunk"]["path"] in REPO_FILES
    assert {line["chunk"]["path"] for line in lines} == set(REPO_FILES)
    ids = [line["chunk"]["id"] for line in lines]
    assert len(ids) == len(set(ids))


def test_unchanged_rerun_reuses_every_file(workspace, pipeline):
    pipeline.index(workspace)
    first = index_lines(workspace.store_dir)
    # a new modification time alone is not a change
    os.utime(workspace.repo / "app/util.py", None)
    report = pipeline.index(workspace)
    assert (report.reprocessed, report.reused, report.removed) == (0, 4, 0)
    assert index_lines(workspace.store_dir) == first


def test_changing_one_file_reprocesses_exactly_that_file(workspace, pipeline):
    pipeline.index(workspace)
    before = {line["chunk"]["id"]: line for line in index_lines(workspace.store_dir)}
    util = workspace.repo / "app/util.py"
    util.write_text(util.read_text(encoding="utf-8") + "\n\ndef quadruple(value):\n    return value * 4\n", encoding="utf-8")
    report = pipeline.index(workspace)
    assert (report.reprocessed, report.reused, report.removed) == (1, 3, 0)
    after = {line["chunk"]["id"]: line for line in index_lines(workspace.store_dir)}
    assert "app/util.py#quadruple" in after
    for chunk_id, line in before.items():
        if line["chunk"]["path"] != "app/util.py":
            assert after[chunk_id] == line, f"{chunk_id} was rewritten"


def test_deleting_a_file_removes_its_documents(workspace, pipeline):
    pipeline.index(workspace)
    (workspace.repo / "lib/strings.py").unlink()
    report = pipeline.index(workspace)
    assert (report.reprocessed, report.reused, report.removed) == (0, 3, 1)
    paths = {line["chunk"]["path"] for line in index_lines(workspace.store_dir)}
    assert "lib/strings.py" not in paths
    assert "lib/strings.py" not in workspace.store.load().files


def test_changing_chunk_size_reprocesses_every_file(workspace, pipeline):
    pipeline.index(workspace)
    resized = replace(workspace, config=replace(workspace.config, chunk_size=128, chunk_overlap=16))
    report = pipeline.index(resized)
    assert (report.reprocessed, report.reused) == (4, 0)
    report = pipeline.index(resized)
    assert (report.reprocessed, report.reused) == (0, 4)
