"""One command at a time on a store: a second build waits for the first and both end with
one whole site; a lock left by a dead process is taken over, a live one is waited for up
to a bound; SIGTERM releases it; a build killed outright leaves no worker behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import exited_pid, write_repo
from test_publish_safety import SOURCES, assert_site_whole

from refdoc_site.cli import main
from refdoc_site.core.store import LOCK_NAME, LOCK_WAIT_ENV, store_lock


def cli(*args: str, **kwargs) -> subprocess.Popen:
    """`refdoc-site ARGS` in its own process, as CI would run it."""
    return subprocess.Popen(
        [sys.executable, "-m", "refdoc_site", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    )


def write_lock(store: Path, pid: int, process_start: str = "", command: str = "build") -> Path:
    store.mkdir(parents=True, exist_ok=True)
    holder = {"pid": pid, "host": socket.gethostname(), "started": "2026-01-01T00:00:00+00:00", "command": command, "process_start": process_start}
    (store / LOCK_NAME).write_text(json.dumps(holder), encoding="utf-8")
    return store / LOCK_NAME


def children_of(pid: int) -> set[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie awaiting its reaper is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_two_builds_started_together_both_finish_with_one_whole_site(tmp_path) -> None:
    repo, out = many_files_repo(tmp_path / "repo", 120), tmp_path / "public"  # a build of some seconds

    builds = [cli("build", str(repo), "--out", str(out)) for _ in range(2)]
    results = [build.communicate(timeout=240) for build in builds]

    assert [build.returncode for build in builds] == [0, 0], results
    stderr = "".join(err for _, err in results)
    assert stderr.count("waiting for the build of pid") == 1, stderr
    assert all("pages built" in output for output, _ in results)
    assert_site_whole(out, repo / ".refdoc")
    assert not (repo / ".refdoc" / LOCK_NAME).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["public", "repo"]


def test_a_lock_left_by_a_dead_process_is_taken_over_in_one_line(tmp_path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    dead = exited_pid()
    write_lock(repo / ".refdoc", dead)

    assert main(["build", str(repo), "--out", str(tmp_path / "public")]) == 0

    taken_over = [line for line in caplog.messages if "taking over the lock" in line]
    assert taken_over == [f"{repo.resolve() / '.refdoc' / LOCK_NAME}: taking over the lock of the build of pid {dead} (since 2026-01-01T00:00:00+00:00): pid {dead} is no longer running"]
    assert not (repo / ".refdoc" / LOCK_NAME).exists()
    assert_site_whole(tmp_path / "public", repo / ".refdoc")


def test_a_lock_whose_pid_now_belongs_to_another_process_is_taken_over(tmp_path, caplog) -> None:
    store = tmp_path / "store"
    write_lock(store, os.getpid(), process_start="1")  # this pid, but not started at tick 1
    with store_lock(store, "index", wait_seconds=0):
        holder = json.loads((store / LOCK_NAME).read_text(encoding="utf-8"))
        assert (holder["pid"], holder["command"]) == (os.getpid(), "index")
    assert "is now another process" in caplog.text
    assert not (store / LOCK_NAME).exists()


def test_a_live_holder_is_waited_for_up_to_the_bound(tmp_path, monkeypatch, capsys, caplog) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = write_lock(repo / ".refdoc", sleeper.pid, command="summarize")
        monkeypatch.setenv(LOCK_WAIT_ENV, "0.6")
        started = time.monotonic()

        assert main(["index", str(repo)]) == 2

        assert 0.5 < time.monotonic() - started < 10
        assert caplog.messages == [
            f"waiting for the summarize of pid {sleeper.pid} (since 2026-01-01T00:00:00+00:00) to finish with the store {lock.parent.resolve()}"
        ]
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"refdoc-site: {lock.resolve()}: still held by the summarize of pid {sleeper.pid}")
        assert f"delete {lock.resolve()}" in err and "\n" not in err
        assert json.loads(lock.read_text(encoding="utf-8"))["pid"] == sleeper.pid  # not ours to remove
        assert not (repo / ".refdoc" / "index.jsonl").exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_nested_phases_share_one_hold_and_an_exception_releases_it(tmp_path) -> None:
    store = tmp_path / "store"
    with pytest.raises(RuntimeError):
        with store_lock(store, "build", wait_seconds=0):
            with store_lock(store, "index", wait_seconds=0):
                assert json.loads((store / LOCK_NAME).read_text(encoding="utf-8"))["command"] == "build"
            assert (store / LOCK_NAME).exists()
            raise RuntimeError("a phase failed")
    assert not store.exists()  # the lock made the folder, and nothing else was written


def many_files_repo(root: Path, count: int = 400) -> Path:
    """A repository big enough that the index phase forks its pool of workers."""
    body = "def handler_{n}(request):\n    \"\"\"Answer request {n}.\"\"\"\n    return helper_{n}(request) + {n}\n\n\ndef helper_{n}(value):\n    return len(str(value))\n"
    return write_repo(root, {f"app/handlers_{n}.py": body.format(n=n) for n in range(count)})


def wait_for(condition, seconds: float, step: float = 0.005):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return condition()


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or (os.cpu_count() or 1) < 2, reason="needs /proc and a pool")
def test_index_workers_die_with_a_build_killed_outright(tmp_path) -> None:
    repo = many_files_repo(tmp_path / "repo")
    assert_all_gone(kill_when_children_appear(["index", str(repo)], 2))


def kill_when_children_appear(command: list[str], count: int) -> set[int]:
    """Start `refdoc-site COMMAND`, SIGKILL it once it has `count` children; returns them."""
    process = cli(*command)
    children = wait_for(lambda: children_of(process.pid) if len(children_of(process.pid)) >= count else set(), 120)
    assert len(children) >= count, process.communicate()
    process.send_signal(signal.SIGKILL)
    process.wait()
    return children


def assert_all_gone(pids: set[int]) -> None:
    try:
        assert wait_for(lambda: not any(running(pid) for pid in pids), 5, 0.05), [pid for pid in pids if running(pid)]
    finally:
        for pid in pids:  # when the test fails: no orphan is left on the machine
            if running(pid):
                os.kill(pid, signal.SIGKILL)


RENDER_PHASE_PARENT = """
import sys
import time
import refdoc_site.core.processes
from refdoc_site.core.processes import alongside

if sys.argv[1] == "watcher":  # the portable fallback, as where there is no prctl
    refdoc_site.core.processes._kernel_kills_orphan = lambda: False


def write_search_data():  # runs in the child once it has arranged to die with its parent
    print("armed", flush=True)
    time.sleep(120)


with alongside(write_search_data, ()):  # as the render phase forks the search data's writer
    time.sleep(120)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or (os.cpu_count() or 1) < 2, reason="needs /proc and a fork")
@pytest.mark.parametrize("death", ["kernel", "watcher"])
def test_the_render_phase_process_dies_with_its_parent_killed_outright(death) -> None:
    parent = subprocess.Popen([sys.executable, "-c", RENDER_PHASE_PARENT, death], stdout=subprocess.PIPE, text=True)
    assert parent.stdout.readline() == "armed\n"
    child = children_of(parent.pid)
    assert len(child) == 1

    parent.send_signal(signal.SIGKILL)
    parent.wait()

    assert_all_gone(child)


def test_sigterm_ends_a_build_and_releases_the_lock(tmp_path) -> None:
    repo = many_files_repo(tmp_path / "repo", 200)
    build = cli("build", str(repo), "--out", str(tmp_path / "public"))
    lock = repo / ".refdoc" / LOCK_NAME
    assert wait_for(lock.exists, 60)

    build.send_signal(signal.SIGTERM)
    _, err = build.communicate(timeout=60)

    assert build.returncode == 128 + signal.SIGTERM, err
    assert "refdoc-site: terminated; the store keeps what was written before" in err
    assert not lock.exists()
    second = cli("build", str(repo), "--out", str(tmp_path / "public"))
    output, err = second.communicate(timeout=240)
    assert second.returncode == 0, err
    assert "waiting for" not in err and "taking over" not in err
    assert_site_whole(tmp_path / "public", repo / ".refdoc")


def test_another_thread_waits_for_the_holding_thread(tmp_path) -> None:
    store, order = tmp_path / "store", []

    def take_it_next() -> None:
        with store_lock(store, "index", wait_seconds=30):
            order.append("second")

    with store_lock(store, "build", wait_seconds=0):
        second = threading.Thread(target=take_it_next)
        second.start()
        time.sleep(0.5)
        order.append("first done")
    second.join(30)
    assert order == ["first done", "second"]
    assert not (store / LOCK_NAME).exists()
