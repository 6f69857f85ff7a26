"""A build says something at least every 10 s in every phase: the heartbeat prints a line
whenever none came for a while, with what the phase can tell (the engine's pages so far)."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import mkdocs.commands.build
import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core import progress
from refdoc_site.core.progress import heartbeat


class StampedStream(io.StringIO):
    """A stream that keeps when each line came."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        self.lines += [(time.monotonic(), line) for line in text.splitlines() if line]
        return super().write(text)

    def isatty(self) -> bool:
        return False


@pytest.fixture
def quick_heartbeat(monkeypatch) -> None:
    monkeypatch.setattr(progress, "HEARTBEAT_SILENCE", 0.2)
    monkeypatch.setattr(progress, "HEARTBEAT_TICK", 0.02)


def test_a_silent_block_gets_a_line_every_so_often_with_its_status(quick_heartbeat) -> None:
    stream = StampedStream()
    count = {"n": 0}
    with heartbeat("engine", lambda: f"{count['n']} pages written", stream):
        for _ in range(10):
            count["n"] += 1
            time.sleep(0.1)
    lines = [line for _, line in stream.lines]
    assert len(lines) >= 3, lines
    assert all(re.fullmatch(r"engine: \d+ pages written, \d+s so far", line) for line in lines), lines
    times = [at for at, _ in stream.lines]
    assert max(b - a for a, b in zip(times, times[1:])) < 1.0


def test_nested_the_innermost_speaks(quick_heartbeat) -> None:
    stream = StampedStream()
    with heartbeat("render", stream=stream):
        with heartbeat("pages", lambda: "3 rendered", stream):
            time.sleep(0.6)
        inner_done = time.monotonic()
    during = {line.split(":")[0] for at, line in stream.lines if at < inner_done}
    assert during == {"pages"}, stream.lines


def test_progress_lines_keep_the_heartbeat_quiet(quick_heartbeat, monkeypatch) -> None:
    monkeypatch.setattr(progress, "PLAIN_INTERVAL", 0.05)
    stream = StampedStream()
    progress._activity.printed()  # the earlier tests' last line was long ago
    with heartbeat("index", stream=stream):
        for _ in progress.progress(range(20), 20, "index", stream=stream):
            time.sleep(0.03)
    assert stream.lines and all(re.match(r"index: \d+/20 files", line) for _, line in stream.lines), stream.lines


def test_a_failing_status_does_not_stop_the_phase(quick_heartbeat) -> None:
    stream = StampedStream()
    with heartbeat("summarize", lambda: 1 / 0, stream):
        time.sleep(0.4)
    assert any("ZeroDivisionError" in line for _, line in stream.lines)


def test_the_engine_phase_reports_the_pages_written_so_far(tmp_path: Path, monkeypatch, quick_heartbeat) -> None:
    """MkDocs prints nothing while it writes thousands of pages; the build still does."""
    repo = write_repo(tmp_path / "repo", {f"pkg/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(5)})
    original = mkdocs.commands.build.build

    def slow_engine(config, **kwargs):
        original(config, **kwargs)
        time.sleep(0.6)  # a big site: the pages are written, the engine still works

    monkeypatch.setattr(mkdocs.commands.build, "build", slow_engine)
    stream = StampedStream()
    monkeypatch.setattr("sys.stderr", stream)
    assert main(["build", str(repo), "--out", str(tmp_path / "out")]) == 0
    engine = [line for _, line in stream.lines if line.startswith("mkdocs: ")]
    assert engine and all(re.fullmatch(r"mkdocs: \d+ of \d+ pages converted, \d+ written, \d+s so far", line) for line in engine), stream.lines
    converted, total, written = map(int, re.match(r"mkdocs: (\d+) of (\d+) pages converted, (\d+) written", engine[-1]).groups())
    assert converted == written >= total > 5


def test_the_command_speaks_while_it_loads() -> None:
    """The import of the command line (every phase's modules) runs under a heartbeat: on a
    loaded runner it took 10-15 s before the first phase's line. Here the heartbeat is made
    quick in a fresh interpreter, where nothing of refdoc_site is imported yet."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from refdoc_site.core import progress\n"
        "progress.HEARTBEAT_SILENCE, progress.HEARTBEAT_TICK = 0.0, 0.001\n"
        "assert 'refdoc_site.cli' not in sys.modules\n"
        "sys.argv = ['refdoc-site', '--version']\n"
        "from refdoc_site.launch import main\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^starting: \d+s so far$", done.stderr, re.MULTILINE), done.stderr
    assert done.stdout.strip(), "the command itself ran after loading"
