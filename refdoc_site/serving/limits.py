"""What a request to the server may be: a bounded body, a bounded question and history, and a
rate per client (a token bucket each; a refused request learns when to come back)."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_BODY_BYTES = 64 * 1024
"""A `POST ask` body longer than this is refused (413) before it is read."""
MAX_HISTORY_TURNS = 8
"""The conversation's last turns passed on with a question; older ones are dropped."""
MAX_TURN_CHARS = 4000
"""A turn's question or answer is cut to this many characters."""
DEFAULT_PER_MINUTE = 12
"""Questions a client may ask a minute (after a burst of `DEFAULT_BURST`)."""
DEFAULT_BURST = 4
MAX_CLIENTS = 10_000
"""Buckets kept at most; full ones are forgotten first."""
MAX_EPOCH_DIGITS = 12
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class Refused(Exception):
    """A request the server answers with `status` and a one-line `message` (no detail of the
    machine: no path, no setting)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass(frozen=True)
class AskRequest:
    question: str
    history: tuple[tuple[str, str], ...]
    """(question, answer) of the earlier turns, oldest first."""


def body_length(header: str | None) -> int:
    """The declared length of a `POST ask` body; refuses one missing, malformed or too long."""
    if header is None:
        raise Refused(411, "send the question as a JSON body with a Content-Length")
    try:
        length = int(header)
    except ValueError:
        raise Refused(400, "Content-Length: not a number") from None
    if length < 0:
        raise Refused(400, "Content-Length: negative")
    if length > MAX_BODY_BYTES:
        raise Refused(413, f"the request is {length} bytes, more than {MAX_BODY_BYTES}; shorten the question or the history")
    return length


def ask_request(body: bytes, max_question_chars: int) -> AskRequest:
    """The question and history of a `POST ask` body: `{"question": str, "history": [{"question",
    "answer"}, ...]}`; refuses anything else in one line."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: arrays nested thousands deep
        raise Refused(400, 'the body is not JSON; send {"question": "...", "history": []}') from None
    if not isinstance(data, dict) or not isinstance(data.get("question"), str):
        raise Refused(400, 'the body has no "question" string; send {"question": "...", "history": []}')
    question = _whole_characters(data["question"]).strip()
    if not question:
        raise Refused(400, "the question is empty; say what to ask")
    if len(question) > max_question_chars:
        raise Refused(413, f"the question is {len(question)} characters, more than {max_question_chars}; shorten it")
    history = data.get("history") or []
    if not isinstance(history, list) or not all(_is_turn(turn) for turn in history):
        raise Refused(400, '"history" must be a list of {"question": str, "answer": str}')
    turns = tuple(
        (_whole_characters(turn["question"][:MAX_TURN_CHARS]), _whole_characters(turn["answer"][:MAX_TURN_CHARS]))
        for turn in history[-MAX_HISTORY_TURNS:]
    )
    return AskRequest(question, turns)


def since_epoch(value: str) -> int:
    """The `since` of `ask/changes?since=EPOCH`: a few ASCII digits (`"²".isdigit()` is true,
    and `int` refuses a number of thousands of digits), else refused."""
    if not (value.isascii() and value.isdigit() and len(value) <= MAX_EPOCH_DIGITS):
        raise Refused(400, "ask/changes needs ?since=EPOCH, the epoch ask/health gave")
    return int(value)


def _whole_characters(text: str) -> str:
    """`text` with each lone surrogate (JSON's `"\\ud800"`, half an emoji cut by a client) as
    U+FFFD: the answer that quotes it must encode as UTF-8."""
    return LONE_SURROGATE.sub("\ufffd", text)


def _is_turn(turn: object) -> bool:
    return isinstance(turn, dict) and isinstance(turn.get("question"), str) and isinstance(turn.get("answer"), str)


class RateLimiter:
    """A token bucket per client: `burst` requests at once, then `per_minute` a minute."""

    def __init__(self, per_minute: float = DEFAULT_PER_MINUTE, burst: int = DEFAULT_BURST, clock: Callable[[], float] = time.monotonic) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("a rate needs per_minute > 0 and burst >= 1")
        self.rate = per_minute / 60.0
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, client: str) -> None:
        """Spend one of `client`'s tokens; refuses (429, with Retry-After) when none is left."""
        with self._lock:
            now = self.clock()
            tokens, since = self._buckets.get(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - since) * self.rate)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                wait = math.ceil((1.0 - tokens) / self.rate)
                raise Refused(429, f"too many questions; ask again in {wait} s", {"Retry-After": str(wait)})
            self._buckets[client] = (tokens - 1.0, now)
            if len(self._buckets) > MAX_CLIENTS:
                self._forget_full(now)

    def _forget_full(self, now: float) -> None:
        for client, (tokens, since) in list(self._buckets.items()):
            if tokens + (now - since) * self.rate >= self.burst:
                del self._buckets[client]
        while len(self._buckets) > MAX_CLIENTS:
            del self._buckets[next(iter(self._buckets))]
