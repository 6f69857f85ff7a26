"""Odd files in a repository: FIFOs, sockets, devices and symbolic links of every kind
(loops, dangling, to folders, out of the repository) are skipped with a counted reason,
never opened, never a traceback; the real CLI build of such a repository ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import write_repo
from hostile import ODD, add_odd_files

from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.core.reading import read_text
from refdoc_site.core.records import SkipReason
from refdoc_site.core.redact import Redactor
from refdoc_site.core.regular_files import NotRegularFile
from refdoc_site.indexing.discover import discover
from refdoc_site.pipeline import index_phase

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs and symlinks")

ROOT = Path(__file__).resolve().parents[1]
def within(seconds: float, work: Callable[[], object]) -> object:
    """`work()`'s result or exception, failing the test (not hanging it) when a FIFO blocks it."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = work()
        except BaseException as error:  # handed back to the test's thread
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s: a special file was opened"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def test_discovery_skips_every_odd_file_with_its_reason(tmp_path):
    repo = write_repo(tmp_path / "repo", {"app.py": "def app():\n    return 1\n"})
    expected = add_odd_files(repo)
    found = within(20, lambda: discover(repo, Config()))
    assert [f.path for f in found.files] == ["app.py", f"{ODD}/target.py"]
    skipped = {s.path: s for s in found.skipped}
    assert set(skipped) == set(expected)
    for path, (reason, detail) in expected.items():
        assert skipped[path].reason is reason, (path, skipped[path])
        assert detail in skipped[path].detail, (path, skipped[path])
    counts = found.skip_counts()
    assert counts["symlink"] == 7 and counts["symlink outside the repository"] == 2
    assert not found.warnings


def test_an_error_on_one_file_skips_and_counts_that_file_only(tmp_path, monkeypatch):
    repo = write_repo(tmp_path / "repo", {"a.py": "x = 1\n", "gone.py": "y = 2\n", "z.py": "z = 3\n"})
    real_lstat = Path.lstat

    def vanishing(path: Path):
        if path.name == "gone.py":
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return real_lstat(path)

    monkeypatch.setattr(Path, "lstat", vanishing)
    found = discover(repo, Config())
    assert [f.path for f in found.files] == ["a.py", "z.py"]
    [skipped] = found.skipped
    assert (skipped.path, skipped.reason, skipped.detail) == ("gone.py", SkipReason.UNREADABLE, "No such file or directory")


def test_a_linked_gitignore_is_not_applied_and_says_so(tmp_path):
    repo = write_repo(tmp_path / "repo", {"rules": "*.py\n", "app.py": "x = 1\n"})
    os.symlink("rules", repo / ".gitignore")
    found = discover(repo, Config())
    assert [f.path for f in found.files] == ["app.py"]
    assert found.warnings == [".gitignore: a symbolic link, not read; not applied"]


def test_read_text_refuses_a_file_swapped_for_a_fifo_or_a_link(tmp_path):
    repo = write_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    outside = write_repo(tmp_path / "outside", {"secret.py": "TOKEN = 1\n"})
    assert [f.path for f in discover(repo, Config()).files] == ["app.py"]
    (repo / "app.py").unlink()
    os.mkfifo(repo / "app.py")
    with pytest.raises(NotRegularFile, match="FIFO"):
        within(20, lambda: read_text(repo, "app.py", Redactor()))
    (repo / "app.py").unlink()
    os.symlink(outside / "secret.py", repo / "app.py")
    with pytest.raises(NotRegularFile, match="symbolic link"):
        read_text(repo, "app.py", Redactor())


def test_the_index_skips_and_counts_a_file_swapped_after_discovery(tmp_path, monkeypatch, capsys):
    repo = write_repo(tmp_path / "repo", {"app.py": "def app():\n    return 1\n", "swapped.py": "x = 1\n"})
    real_discover = index_phase.discover

    def discover_then_swap(*args, **kwargs):
        found = real_discover(*args, **kwargs)
        (repo / "swapped.py").unlink()
        os.mkfifo(repo / "swapped.py")
        return found

    monkeypatch.setattr(index_phase, "discover", discover_then_swap)
    code = within(120, lambda: main(["index", str(repo)]))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "swapped.py: NotRegularFile: a FIFO, not a regular file; file skipped" in captured.err
    assert "1 failed" in captured.out


def test_the_cli_builds_a_repository_of_odd_files_and_counts_them(tmp_path):
    repo = write_repo(tmp_path / "repo", {"app.py": '"""The app."""\n\n\ndef app():\n    return 1\n'})
    expected = add_odd_files(repo)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    def cli(*arguments: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "refdoc_site", *arguments]
        return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300)

    built = cli("build", str(repo), "--out", str(tmp_path / "site"))
    assert built.returncode == 0, built.stderr
    assert "Traceback" not in built.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    discovery = json.loads((repo / ".refdoc" / "discovery.json").read_text(encoding="utf-8"))
    reasons = {entry["path"]: entry["reason"] for entry in discovery["skipped"]}
    assert reasons == {path: reason.value for path, (reason, _) in expected.items()}

    stats = cli("stats", str(repo))
    assert stats.returncode == 0, stats.stderr
    counts = {}
    for path, (reason, _) in expected.items():
        counts[reason.value] = counts.get(reason.value, 0) + 1
    for reason, count in counts.items():
        assert f"{reason} {count}" in stats.stdout, stats.stdout


def test_a_fifo_in_place_of_refdoc_yml_is_a_one_line_error(tmp_path, capsys):
    repo = write_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    os.mkfifo(repo / "refdoc.yml")
    code = within(20, lambda: main(["index", str(repo)]))
    error = capsys.readouterr().err.strip()
    assert code != 0
    assert error.splitlines() == [error]
    assert "refdoc.yml: cannot be read (a FIFO, not a regular file); check the file" in error
