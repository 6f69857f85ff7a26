"""Progress of long phases: a bar with ETA on a terminal, plain lines in CI logs, and a
heartbeat while a phase has nothing to count.

A CI runner (and a reader) takes a log that says nothing for minutes for a hung job, and
several steps count nothing this process can see: the summaries, the render, the site
engine's build. So every phase runs under `heartbeat`, a thread that prints a line
whenever the stream has had none for `HEARTBEAT_SILENCE` seconds, with what the phase can
say of its own progress (the engine's pages written so far) and the time it has taken.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TextIO, TypeVar

T = TypeVar("T")
PLAIN_INTERVAL = 10.0
"""Seconds between two plain progress lines."""
HEARTBEAT_SILENCE = 5.0
"""Seconds without a progress line after which the heartbeat prints one: half of
`PLAIN_INTERVAL`, so that a loaded machine's late wake-up (or a second's hold of the
interpreter by a long call into C) still keeps every gap within it."""
HEARTBEAT_TICK = 0.5
"""How often the heartbeat looks at the clock."""


class _Activity:
    """When the last progress line was printed, whether a terminal bar is drawn, and the
    heartbeats running, innermost last (only it prints: it knows most)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last_line = time.monotonic()
        self.bars = 0
        self.beats: list[_Beat] = []

    def printed(self) -> None:
        with self.lock:
            self.last_line = time.monotonic()


_activity = _Activity()


def _forked() -> None:
    """In a forked child: a fresh record (the parent's lock may have been held by its
    heartbeat thread, which the child does not have)."""
    global _activity
    _activity = _Activity()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def progress(items: Iterable[T], total: int, label: str, unit: str = "files", stream: TextIO | None = None) -> Iterator[T]:
    """Yield `items`, reporting how far along they are on `stream` (stderr by default)."""
    stream = stream or sys.stderr
    if total == 0:
        yield from items
        return
    if stream.isatty():
        from tqdm import tqdm  # lazy: ~50 ms to import, and only a terminal draws a bar

        _activity.bars += 1
        try:
            yield from tqdm(items, total=total, desc=label, unit=f" {unit}", file=stream, leave=False)
        finally:
            _activity.bars -= 1
        return
    started = last = time.monotonic()
    done = 0
    for item in items:
        yield item
        done += 1
        now = time.monotonic()
        if now - last >= PLAIN_INTERVAL and done < total:
            rate = done / (now - started)
            eta = (total - done) / rate if rate else 0.0
            _say(f"{label}: {done}/{total} {unit}, about {eta:.0f}s left", stream)
            last = now
    if time.monotonic() - started >= PLAIN_INTERVAL:
        _say(f"{label}: {done}/{total} {unit} done", stream)


def _say(line: str, stream: TextIO) -> None:
    print(line, file=stream, flush=True)
    _activity.printed()


class _Beat:
    def __init__(self, label: str, status: Callable[[], str] | None, stream: TextIO | None) -> None:
        self.label = label
        self.status = status
        self.stream = stream
        self.started = time.monotonic()
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(HEARTBEAT_TICK):
            with _activity.lock:
                quiet = time.monotonic() - _activity.last_line >= HEARTBEAT_SILENCE
                innermost = bool(_activity.beats) and _activity.beats[-1] is self
            if quiet and innermost and not _activity.bars:
                self.beat()

    def beat(self) -> None:
        try:
            detail = self.status() if self.status is not None else ""
        except Exception as error:  # a status is a courtesy: a failing one never stops the phase
            detail = f"({type(error).__name__})"
        elapsed = time.monotonic() - self.started
        _say(f"{self.label}: {detail + ', ' if detail else ''}{elapsed:.0f}s so far", self.stream or sys.stderr)


@contextmanager
def heartbeat(label: str, status: Callable[[], str] | None = None, stream: TextIO | None = None) -> Iterator[None]:
    """Run the block with a line on `stream` (stderr by default) whenever none came for
    `HEARTBEAT_SILENCE` seconds: `label: status(), Ns so far`. `status` is called from the
    heartbeat's thread, so it only reads (counts files, a counter). Nested, the innermost
    heartbeat speaks; none does while a terminal bar is drawn (the bar moves)."""
    beat = _Beat(label, status, stream)
    thread = threading.Thread(target=beat.run, name=f"refdoc-heartbeat-{label}", daemon=True)
    with _activity.lock:
        _activity.beats.append(beat)
    thread.start()
    try:
        yield
    finally:
        beat.stopped.set()
        thread.join()
        with _activity.lock:
            _activity.beats.remove(beat)
