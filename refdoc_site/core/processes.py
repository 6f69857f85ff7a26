"""Forked helper processes that never outlive the build that forked them.

The index phase forks a pool of workers and the render phase forks one process for the
search data. A parent killed outright (SIGKILL, the OOM killer, a cancelled CI job) runs
no cleanup, and its workers would wait forever on a queue nobody writes to again. So
each child arranges its own death: on Linux the kernel sends it SIGKILL when its parent
goes (`prctl(PR_SET_PDEATHSIG)`); elsewhere a daemon thread watches its parent's pid.

Each child also keeps the native thread pools (OpenBLAS, OpenMP, MKL) to one thread: numpy
is loaded in the parent before the fork, so its BLAS already sized its pool to every core,
and a pool of workers each running that many threads oversubscribes the cores. Measured
with `refdoc-site index` on django (issue 21): 36.9 s wall with the pool, 8.5 s with the
pool and one BLAS thread a worker. The environment variables are read only when the
library loads, so the limit is set at run time (threadpoolctl). The same work done in
this process (too few files for a pool, or language servers that stay here) keeps the
same limit while it runs: each chunk's vector products are too small for several threads,
whose waiting only burns the other cores. Measured on django in one process, 2 cores
under load: 102.9 s of CPU (294 s wall) for the index phase with numpy's own pool of two
threads, 20.5 s (61 s wall) with one.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TypeVar

from threadpoolctl import threadpool_limits

from .errors import SiteBuildError
from .progress import progress

T = TypeVar("T")
R = TypeVar("R")

PR_SET_PDEATHSIG = 1
"""From <linux/prctl.h>."""
PARENT_POLL_SECONDS = 0.5
"""How often the portable fallback looks whether the parent is still there."""
NATIVE_THREADS_PER_CHILD = 1
"""Threads each native pool (BLAS, OpenMP) may run in a forked child: the children are the
parallelism, one a core."""


def die_with_parent(parent_pid: int) -> None:
    """Run first in a forked child of `parent_pid`: it ends when the parent does.

    The death signal is armed after the fork, so a parent that died in between is caught
    by looking at the parent pid once more. The child also drops the CLI's SIGTERM
    handler (a terminated child simply ends; only the parent releases the store lock) and
    leaves Ctrl-C to the parent, which stops handing out work and waits for it. Its native
    thread pools run one thread each (the module's docstring says why). What it inherited
    is frozen out of its garbage collections: a collection would walk homeassistant's
    millions of objects, and writing their counts would copy the pages they share with
    the parent.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threadpool_limits(NATIVE_THREADS_PER_CHILD)
    gc.freeze()
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


MAX_WORKERS = 4
"""Forked workers at most: past this, the index phase waits on the disk and the store."""


def can_fork() -> bool:
    """Whether helper processes may be forked here: several cores and the fork start method."""
    return "fork" in multiprocessing.get_all_start_methods() and (os.cpu_count() or 1) >= 2


def forked_map(
    function: Callable[[T], R], items: Sequence[T], label: str, *, parallel: bool = True, each: Callable[[R], None] | None = None,
    unit: str = "files",
) -> list[R]:
    """`[function(item) for item in items]` with a progress bar; when `parallel` and
    processes can be forked, in a pool of forked workers. `each`, if given, sees every
    result in this process as soon as it arrives (to keep it before the rest are done).

    The workers inherit `function` through the fork rather than by pickling (it may hold
    grammars, models, a redactor); only the items and the results cross between processes.
    They die with this process, even when it is killed outright.
    """
    if not parallel or not can_fork():
        with threadpool_limits(NATIVE_THREADS_PER_CHILD):  # as in a worker: see the module's docstring
            return _seen((function(item) for item in progress(items, len(items), label, unit)), each)
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker, initargs=(os.getpid(), function)
    )
    try:
        return _seen(progress(pool.map(_in_worker, items, chunksize=8), len(items), label, unit), each)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # interrupted: the queued items are dropped


def _seen(results: Iterable[R], each: Callable[[R], None] | None) -> list[R]:
    """The results as a list, each shown to `each` as it comes."""
    collected = []
    for result in results:
        if each is not None:
            each(result)
        collected.append(result)
    return collected


_worker_function: Callable | None = None
"""In a forked worker only (set by its initializer, never in the parent): what it runs."""


def _start_worker(parent_pid: int, function: Callable) -> None:
    global _worker_function
    die_with_parent(parent_pid)
    _worker_function = function


def _in_worker(item):
    return _worker_function(item)


@contextmanager
def alongside(function: Callable[..., object], args: tuple, parallel: bool = True) -> Iterator[None]:
    """Run `function(*args)` in a forked process while the body runs; fail if it failed.

    Where processes cannot be forked (or not `parallel`), it runs here before the body.
    The process dies with this one, even when this one is killed outright.
    """
    if not parallel or not can_fork():
        function(*args)
        yield
        return
    process = multiprocessing.get_context("fork").Process(target=run_as_child, args=(os.getpid(), function, args))
    process.start()
    try:
        yield
    finally:
        process.join()
    if process.exitcode != 0:
        raise SiteBuildError(f"{function.__name__} failed (exit code {process.exitcode}); see the error above")


@contextmanager
def computed_alongside(function: Callable[..., R], args: tuple, parallel: bool = True) -> Iterator[Callable[[], R]]:
    """`function(*args)` computed in a forked process while the body runs; the body calls
    what this yields for the value (which waits for it, and raises what it raised). Where
    processes cannot be forked (or not `parallel`), the value is computed here when asked."""
    if not parallel or not can_fork():
        yield cache(lambda: function(*args))
        return
    pool = ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker, initargs=(os.getpid(), lambda _: function(*args))
    )
    try:
        yield pool.submit(_in_worker, None).result
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


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


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that every `finally` runs (the store lock goes).
    Not an `Exception`: the handlers that skip a failing file must not swallow it."""


@contextmanager
def terminated_on_sigterm() -> Iterator[None]:
    """While the block runs, SIGTERM raises `Terminated` in the main thread (the command line
    ends on it as on Ctrl-C); in another thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
