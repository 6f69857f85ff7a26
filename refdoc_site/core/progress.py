"""Progress of long phases: a bar with ETA on a terminal, plain lines in CI logs."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")
PLAIN_INTERVAL = 10.0
"""Seconds between two plain progress lines."""


def progress(items: Iterable[T], total: int, label: str, unit: str = "files", stream: TextIO | None = None) -> Iterator[T]:
    """Yield `items`, reporting how far along they are on `stream` (stderr by default)."""
    stream = stream or sys.stderr
    if total == 0:
        yield from items
        return
    if stream.isatty():
        from tqdm import tqdm  # lazy: ~50 ms to import, and only a terminal draws a bar

        yield from tqdm(items, total=total, desc=label, unit=f" {unit}", file=stream, leave=False)
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
            print(f"{label}: {done}/{total} {unit}, about {eta:.0f}s left", file=stream, flush=True)
            last = now
    if time.monotonic() - started >= PLAIN_INTERVAL:
        print(f"{label}: {done}/{total} {unit} done", file=stream, flush=True)
