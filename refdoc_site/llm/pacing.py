"""How fast the session asks: an adaptive limit on requests in flight, and the workers.

A hosted API answers many requests at once; a local server (llama.cpp, Ollama on a
laptop) answers one or two and queues the rest, and a queued request's timeout runs while
it waits. So the session starts at the configured concurrency and patience and adapts:
a timed-out request halves the requests in flight (down to one) and doubles the seconds a
request may take (up to `MAX_TIMEOUT_FACTOR` times the configured timeout); a run of
answers in time brings concurrency back up one step at a time. The client's own retries
of that request have already queued behind the server's work, so what adapts is every
request after it.

The workers are daemon threads: when the build is stopped (SIGTERM, Ctrl-C) the main
thread unwinds at once, and a request still in flight does not keep the process alive.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_TIMEOUT_FACTOR = 4.0
"""The adapted timeout stays within this many times the configured one."""
WAIT_STEP = 0.25
"""Seconds between the consumer's looks at a result it waits for."""
SUCCESSES_TO_GROW = 8
"""Answers in time, in a row, after which one more request may be in flight."""


class Throttle:
    """At most `limit` requests in flight; the limit and the timeout adapt to timeouts."""

    def __init__(self, concurrency: int, timeout: float) -> None:
        self.most = max(1, concurrency)
        self.limit = self.most
        self.base_timeout = timeout
        self.timeout = timeout
        """Seconds the next request may take."""
        self.timeouts = 0
        """Requests that timed out: each one slowed the build down."""
        self._in_flight = 0
        self._in_time = 0
        self._changed = threading.Condition()

    def __enter__(self) -> Throttle:
        with self._changed:
            self._changed.wait_for(lambda: self._in_flight < self.limit)
            self._in_flight += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._changed:
            self._in_flight -= 1
            self._changed.notify_all()

    def answered(self) -> None:
        """A reply came in time: after a run of them, one more request may be in flight."""
        with self._changed:
            self._in_time += 1
            if self._in_time >= SUCCESSES_TO_GROW and self.limit < self.most:
                self.limit += 1
                self._in_time = 0
                self._changed.notify_all()

    def timed_out(self) -> None:
        """A request ran out of time: the server is slower than the settings assume."""
        with self._changed:
            self.timeouts += 1
            self._in_time = 0
            self.limit = max(1, self.limit // 2)
            self.timeout = min(self.timeout * 2, self.base_timeout * MAX_TIMEOUT_FACTOR)


def ordered_map(fn: Callable[[T], R], items: list[T], workers: int) -> Iterator[R]:
    """`fn` over `items` on `workers` daemon threads, yielding results in order; the first
    exception is raised when its item's turn comes. Closing the iterator (or an exception
    in the consumer) leaves the items not started unstarted."""
    slots: list[queue.SimpleQueue] = [queue.SimpleQueue() for _ in items]
    todo: queue.SimpleQueue = queue.SimpleQueue()
    for index in range(len(items)):
        todo.put(index)
    stopped = threading.Event()

    def work() -> None:
        while not stopped.is_set():
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            try:
                slots[index].put((True, fn(items[index])))
            except BaseException as error:  # handed to the consumer, raised in its thread
                slots[index].put((False, error))

    for number in range(max(1, min(workers, len(items)))):
        threading.Thread(target=work, name=f"llm-{number}", daemon=True).start()
    try:
        for slot in slots:
            ok, value = _next(slot)
            if not ok:
                raise value
            yield value
    finally:
        stopped.set()


def _next(slot: queue.SimpleQueue) -> tuple[bool, object]:
    """The slot's result, waiting in short steps so that a signal's handler (SIGTERM's
    `Terminated`) runs in the waiting thread within a fraction of a second."""
    while True:
        try:
            return slot.get(timeout=WAIT_STEP)
        except queue.Empty:
            continue
