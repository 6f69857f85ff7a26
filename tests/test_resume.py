"""A build killed outright at any point leaves a store the next build finishes from: the
same site and store as a clean build, no lock left, and the work done before the kill
not done again. The kill points are the test-only hook of core/kill_points.py."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from helpers import write_repo
from test_publish_safety import SOURCES as SHOP

from refdoc_site.core.index_journal import JOURNAL_NAME, IndexJournal, JournaledFile
from refdoc_site.core.kill_points import KILL_AT_ENV
from refdoc_site.core.records import Chunk, ChunkKind, ChunkSummary, Document, Metadata
from refdoc_site.core.store import LOCK_NAME, FileEntry

SOURCES = SHOP | {
    "web/greet.js": """
        export function greet(name) {
          return "hi " + name;
        }
    """,
}
KILLS = 20
SEED = 13
NEVER = "1000000"
"""A kill point no build reaches: the hook only traces the points passed."""


def build(repo: Path, store: Path, out: Path, kill_at: str) -> subprocess.CompletedProcess:
    """`refdoc-site build` in its own process, killed at kill point `kill_at`."""
    return subprocess.run(
        [sys.executable, "-m", "refdoc_site", "build", str(repo), "--store", str(store), "--out", str(out)],
        capture_output=True, text=True, check=False, env=os.environ | {KILL_AT_ENV: kill_at}, timeout=120,
    )


def points(run: subprocess.CompletedProcess) -> list[str]:
    """The kill points the run passed, in order."""
    return re.findall(r"^kill point \d+: (.*)$", run.stderr, flags=re.MULTILINE)


def tree(root: Path, documents_without: str = "") -> dict[str, object]:
    """Every file under `root` by relative path: its bytes' hash, or for `index.jsonl` its
    documents without the `documents_without` field (the time they were indexed)."""
    found: dict[str, object] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        if documents_without and path.name == "index.jsonl":
            found[relative] = [{k: v for k, v in orjson.loads(line).items() if k != documents_without} for line in path.read_bytes().splitlines()]
        else:
            found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def index_line(run: subprocess.CompletedProcess) -> tuple[int, int]:
    """(processed, unchanged) from the build's index line."""
    match = re.search(r"^index: \d+ files \((\d+) processed, (\d+) unchanged", run.stdout, flags=re.MULTILINE)
    assert match, run.stdout
    return int(match[1]), int(match[2])


def test_a_build_killed_at_twenty_random_points_always_resumes(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    clean = build(repo, tmp_path / "clean-store", tmp_path / "clean-site", NEVER)
    assert clean.returncode == 0, clean.stderr
    assert sum(p.startswith("journaled ") for p in points(clean)) == len(SOURCES)
    site, store = tree(tmp_path / "clean-site"), tree(tmp_path / "clean-store", documents_without="indexedAt")
    shutil.copytree(tmp_path / "clean-site", tmp_path / "over-site")
    over = build(repo, tmp_path / "over-store", tmp_path / "over-site", NEVER)  # replacing a published site
    assert over.returncode == 0 and tree(tmp_path / "over-site") == site, over.stderr
    totals = [len(points(clean)), len(points(over))]
    assert totals[0] >= 15 and totals[1] > totals[0]  # the swap has kill points of its own
    rng = random.Random(SEED)
    for trial in range(KILLS):
        work = tmp_path / f"trial-{trial}"
        if trial % 2:  # a site published before: the kill may fall in the swap
            shutil.copytree(tmp_path / "clean-site", work / "site")
        kill_at = rng.randint(1, totals[trial % 2])
        killed = build(repo, work / "store", work / "site", str(kill_at))
        assert killed.returncode == -signal.SIGKILL, f"kill point {kill_at}: {killed.stderr}"
        done = points(killed)
        assert len(done) == kill_at
        resumed = build(repo, work / "store", work / "site", NEVER)
        context = f"killed at point {kill_at} ({done[-1]})"
        assert resumed.returncode == 0, f"{context}: {resumed.stderr}"
        assert "taking over the lock" in resumed.stderr, context
        assert not (work / "store" / LOCK_NAME).exists() and not (work / "store" / JOURNAL_NAME).exists(), context
        assert tree(work / "site") == site, context
        assert sorted(p.name for p in work.iterdir()) == ["site", "store"], context  # no staging or retired folder left
        assert tree(work / "store", documents_without="indexedAt") == store, context
        journaled = {p.removeprefix("journaled ") for p in done if p.startswith("journaled ")}
        store_written = "wrote files.json" in done
        assert index_line(resumed) == ((0, len(SOURCES)) if store_written else (len(SOURCES) - len(journaled), len(journaled))), context
        redone = points(resumed)
        assert not journaled & {p.removeprefix("journaled ") for p in redone}, context
        if "summarize phase done" in done:
            assert "wrote hierarchy.json" not in redone, context


def document(path: str) -> Document:
    chunk = Chunk(id=f"{path}#f", path=path, language="python", kind=ChunkKind.FUNCTION, name="f", symbol="f", signature="def f()", start_line=1, end_line=2, content="def f():\n    pass")
    return Document(chunk, ChunkSummary("Does f.", "", "", "", ""), Metadata(), [], "2026-01-01T00:00:00+00:00", "sha")


def journaled(path: str, sha: str) -> JournaledFile:
    return JournaledFile(FileEntry(path, "python", sha, 10, 2, chunk_ids=[f"{path}#f"]), [document(path)], [])


def test_the_journal_keeps_whole_lines_of_its_own_fingerprint(tmp_path: Path) -> None:
    journal = IndexJournal(tmp_path, "fp1")
    journal.start({})
    journal.append(journaled("a.py", "1"))
    journal.append(journaled("b.py", "2"))
    journal.close()
    whole = (tmp_path / JOURNAL_NAME).read_bytes()
    (tmp_path / JOURNAL_NAME).write_bytes(whole[: len(whole) - 40])  # the kill cut the last line short
    found = IndexJournal(tmp_path, "fp1").finished()
    assert list(found) == ["a.py"] and found["a.py"].documents[0].summary.responsibility == "Does f."
    assert IndexJournal(tmp_path, "fp2").finished() == {}  # other settings: nothing reusable
    (tmp_path / JOURNAL_NAME).write_text(json.dumps({"version": 0}) + "\n", encoding="utf-8")
    assert IndexJournal(tmp_path, "fp1").finished() == {}


def test_a_journaled_file_changed_since_is_processed_again(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    killed = build(repo, tmp_path / "store", tmp_path / "site", "4")  # every file journaled, the store not yet written
    assert killed.returncode == -signal.SIGKILL and not (tmp_path / "store" / "files.json").exists()
    (repo / "shop" / "cart.py").write_text("def add_item(cart, item):\n    cart.insert(0, item)\n", encoding="utf-8")
    resumed = build(repo, tmp_path / "store", tmp_path / "site", NEVER)
    assert resumed.returncode == 0, resumed.stderr
    assert index_line(resumed) == (1, len(SOURCES) - 1)
    assert "cart.insert(0, item)" in (tmp_path / "store" / "index.jsonl").read_text(encoding="utf-8")


@pytest.mark.parametrize("value", ["", None])
def test_without_the_hook_no_kill_point_is_traced(tmp_path: Path, value: str | None) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    env = {k: v for k, v in os.environ.items() if k != KILL_AT_ENV} | ({KILL_AT_ENV: value} if value is not None else {})
    run = subprocess.run(
        [sys.executable, "-m", "refdoc_site", "index", str(repo), "--store", str(tmp_path / "store")],
        capture_output=True, text=True, check=False, env=env, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "kill point" not in run.stderr
