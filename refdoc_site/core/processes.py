"""Forked helper processes that never outlive the build that forked them.

The index phase forks a pool of workers and the render phase forks one process for the
search data. A parent killed outright (SIGKILL, the OOM killer, a cancelled CI job) runs
no cleanup, and its workers would wait forever on a queue nobody writes to again. So
each child arranges its own death: on Linux the kernel sends it SIGKILL when its parent
goes (`prctl(PR_SET_PDEATHSIG)`); elsewhere a daemon thread watches its parent's pid.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PR_SET_PDEATHSIG = 1
"""From <linux/prctl.h>."""
PARENT_POLL_SECONDS = 0.5
"""How often the portable fallback looks whether the parent is still there."""


def die_with_parent(parent_pid: int) -> None:
    """Run first in a forked child of `parent_pid`: it ends when the parent does.

    The death signal is armed after the fork, so a parent that died in between is caught
    by looking at the parent pid once more. The child also drops the CLI's SIGTERM
    handler (a terminated child simply ends; only the parent releases the store lock) and
    leaves Ctrl-C to the parent, which stops handing out work and waits for it.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _kernel_kills_orphan():
        threading.Thread(target=_watch_parent, args=(parent_pid,), name="refdoc-parent-watch", daemon=True).start()
    if os.getppid() != parent_pid:
        os._exit(1)


def _kernel_kills_orphan() -> bool:
    """Ask Linux to SIGKILL this process when the thread that forked it ends."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    """The portable fallback: an orphan is adopted by another process, so its parent pid changes."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back for a few steps that must not be cut in half (a folder
    swap); they are delivered when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def run_as_child(parent_pid: int, function, args: tuple) -> None:
    """The target of a forked `multiprocessing.Process`: `function(*args)`, dying with the parent."""
    die_with_parent(parent_pid)
    function(*args)


def process_start_time(pid: int) -> str | None:
    """When process `pid` started, in clock ticks since boot ('' where unknown); None if it
    does not run. A zombie, killed but not yet reaped, does not run; a pid reused by
    another process shows another start time."""
    if not Path("/proc/self/stat").exists():
        return _signal_zero(pid)
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return None
    except OSError:
        return _signal_zero(pid)
    return None if fields[0] in ("Z", "X") else fields[19]


def _signal_zero(pid: int) -> str | None:
    """Whether `pid` runs, without /proc: '' if it does (or may), None if it does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:  # another user's process: it runs
        return ""
    return ""
