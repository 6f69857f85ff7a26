"""A sharded index (`index --shard K/N` in each job of a CI matrix, then `build
--from-shards`) gives the store and the site a single machine builds, byte for byte; a
shard is chosen by the path alone, so adding files moves no other file; a missing shard or
one of other settings is said, and its files indexed by the merge."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from helpers import SHOP_FIXTURE

from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.core.errors import RefdocError
from refdoc_site.core.shards import Shard, read_shard_record, shard_of
from refdoc_site.core.store import Store
from refdoc_site.indexing.summarize import ExtractiveSummarizer
from refdoc_site.pipeline import Workspace, build, index, index_phase

SHARDS = 3
EPOCH = "1700000000"
LEFT_OUT = {"lock"}
"""Store files a build may leave or not: the lock goes with the command."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The golden test's multi-language repository and a few more files; the documents
    dated by `SOURCE_DATE_EPOCH`, as the init workflow dates them in every job."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    target = tmp_path / "repo"
    shutil.copytree(SHOP_FIXTURE, target)
    for number in range(6):  # enough files that each of three shards holds several
        (target / "app" / f"part{number}.py").write_text(
            f'"""Part {number}."""\n\nfrom .util import *\n\n\ndef step{number}(value):\n'
            f'    """Step {number} of the work."""\n    return value + {number}\n',
            encoding="utf-8",
        )
    return target


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in LEFT_OUT
    }


def sharded_stores(repo: Path, base: Path, count: int = SHARDS) -> list[Path]:
    stores = []
    for number in range(1, count + 1):
        store = base / f"shard-{number}"
        report = index(Workspace.create(repo, Config(), store, base / "unused-site"), shard=Shard(number, count))
        assert report.files > 0, f"shard {number}/{count} holds no file of the fixture"
        stores.append(store)
    return stores


def test_the_merged_shards_are_the_one_machine_store_and_site_byte_for_byte(repo: Path, tmp_path: Path) -> None:
    alone = Workspace.create(repo, Config(), tmp_path / "alone", tmp_path / "alone-site")
    build(alone)
    shards = sharded_stores(repo, tmp_path)
    held = [set(Store(store).load().files) for store in shards]
    everything = set(alone.load_state().files)
    assert set().union(*held) == everything and sum(map(len, held)) == len(everything), "the shards split the files"
    merged = Workspace.create(repo, Config(), tmp_path / "merged", tmp_path / "merged-site")
    report = build(merged, from_shards=shards).index
    assert report.merged == len(everything) and report.reprocessed == 0, "the merge indexed nothing itself"

    expected, got = tree_bytes(alone.store_dir), tree_bytes(merged.store_dir)
    assert "index.jsonl" in expected and "graph.json" in expected
    assert sorted(got) == sorted(expected)
    assert [name for name in expected if got[name] != expected[name]] == []
    site, merged_site = tree_bytes(alone.out_dir), tree_bytes(merged.out_dir)
    assert "index.html" in site
    assert [name for name in site if merged_site.get(name) != site[name]] == []


def test_callers_across_shards_are_resolved_after_the_merge(repo: Path, tmp_path: Path) -> None:
    """`service.py` calls into `util.py`: a caller only the whole repository shows."""
    shards = sharded_stores(repo, tmp_path)
    in_shards = [d for store in shards for d in Store(store).load().documents]
    assert all(not d.metadata.callers and not d.metadata.callees for d in in_shards), "a shard resolves no calls"
    merged = Workspace.create(repo, Config(), tmp_path / "merged", tmp_path / "merged-site")
    build(merged, site=False, from_shards=shards)
    documents = merged.load_state().documents
    across = [
        (d.chunk.path, callee)
        for d in documents
        for callee in d.metadata.callees
        if callee.split("#")[0] != d.chunk.path and shard_of(callee.split("#")[0], SHARDS) != shard_of(d.chunk.path, SHARDS)
    ]
    assert across, "no call crosses shards in the merged store"


def test_a_file_keeps_its_shard_when_files_are_added() -> None:
    paths = [f"src/module_{number}.py" for number in range(200)]
    before = {path: shard_of(path, 4) for path in paths}
    added = paths + [f"src/new_{number}.py" for number in range(50)]
    after = {path: shard_of(path, 4) for path in sorted(added, reverse=True)}
    assert all(after[path] == shard for path, shard in before.items())
    assert set(before.values()) == {1, 2, 3, 4}


def test_a_missing_shard_is_said_and_its_files_are_indexed_by_the_merge(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    alone = Workspace.create(repo, Config(), tmp_path / "alone", tmp_path / "alone-site")
    index(alone)
    shards = sharded_stores(repo, tmp_path)
    merged = Workspace.create(repo, Config(), tmp_path / "merged", tmp_path / "merged-site")
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        report = index(merged, from_shards=shards[:2])
    assert "2/3 not given" not in caplog.text and "3/3 not given" in caplog.text
    assert report.reprocessed == len(Store(shards[2]).load().files) and report.merged == report.files - report.reprocessed
    assert (merged.store_dir / "index.jsonl").read_bytes() == (alone.store_dir / "index.jsonl").read_bytes()


def test_a_shard_of_other_settings_is_said_and_not_used(repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    other = tmp_path / "other"
    index(Workspace.create(repo, Config(chunk_size=64), other, tmp_path / "unused"), shard=Shard(1, 1))
    merged = Workspace.create(repo, Config(), tmp_path / "merged", tmp_path / "merged-site")
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        report = index(merged, from_shards=[other])
    assert f"{other}: indexed with other settings" in caplog.text
    assert report.merged == 0 and report.reprocessed == report.files


def test_the_shard_store_records_which_shard_it_is_and_a_full_index_makes_it_whole(repo: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert main(["index", str(repo), "--store", str(store), "--shard", "2/3"]) == 0
    record = read_shard_record(store)
    assert record is not None and record.shard == Shard(2, 3)
    in_shard = set(Store(store).load().files)
    assert in_shard and all(shard_of(path, 3) == 2 for path in in_shard)
    assert main(["index", str(repo), "--store", str(store)]) == 0
    assert read_shard_record(store) is None
    whole = set(Store(store).load().files)
    assert in_shard < whole and {shard_of(path, 3) for path in whole} == {1, 2, 3}


@pytest.mark.parametrize("text", ["3", "0/2", "3/2", "1/0", "a/b", "1/300", "-1/2"])
def test_a_shard_spec_the_matrix_cannot_mean_is_one_line(text: str) -> None:
    with pytest.raises(RefdocError, match=r"^--shard .*K"):
        Shard.parse(text)


def test_the_cli_says_a_bad_shard_in_one_line(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["index", str(repo), "--store", str(tmp_path / "s"), "--shard", "4/3"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("refdoc-site: --shard 4/3:") and "\n" not in error


class FailingOnStepThree(ExtractiveSummarizer):
    """The offline summarizer, failing on one chunk: what failed is merged too."""

    def summarize(self, chunk, metadata):
        if chunk.name == "step3":
            raise ValueError("no summary for step3")
        return super().summarize(chunk, metadata)


def test_what_failed_in_a_shard_is_reported_by_the_merge_as_by_one_machine(repo: Path, tmp_path: Path) -> None:
    alone = Workspace.create(repo, Config(), tmp_path / "alone", tmp_path / "alone-site")
    index_phase.index(alone, FailingOnStepThree())
    stores = []
    for number in range(1, SHARDS + 1):
        stores.append(tmp_path / f"shard-{number}")
        index_phase.index(Workspace.create(repo, Config(), stores[-1], tmp_path / "unused"), FailingOnStepThree(), shard=Shard(number, SHARDS))
    merged = Workspace.create(repo, Config(), tmp_path / "merged", tmp_path / "merged-site")
    report = index_phase.index(merged, FailingOnStepThree(), from_shards=stores)
    assert report.reprocessed == 0 and any("step3" in line for line in report.failed)
    for name in ("discovery.json", "index.jsonl", "files.json"):
        assert (merged.store_dir / name).read_bytes() == (alone.store_dir / name).read_bytes(), name
