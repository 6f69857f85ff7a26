"""The response cache: every usable LLM reply, keyed by a hash of what was asked.

The key covers the model, the messages, the temperature and the response format, so the
same question is never paid for twice: a rebuild of an unchanged repository asks nothing,
and a build that stopped half way (a crash, a dead server, a spent budget) resumes where
the replies end. Replies are appended to `STORE/llm-cache/responses.jsonl` as they arrive,
one line per reply written with a single append; a line cut short by a crash is skipped
when read, and `compact()` rewrites the file atomically without such lines or repeats.
Only replies that passed validation are stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from ..core.store import atomic_file

CACHE_DIR = "llm-cache"
CACHE_FILE = "responses.jsonl"


@dataclass(frozen=True)
class CachedReply:
    key: str
    phase: str
    model: str
    content: str
    prompt_tokens: int
    completion_tokens: int


def request_key(model: str, messages: list[dict], temperature: float, response_format: dict | None) -> str:
    """The sha256 of everything that shapes a reply."""
    shape = {"model": model, "messages": messages, "temperature": temperature, "response_format": response_format}
    return hashlib.sha256(json.dumps(shape, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class ResponseCache:
    """Replies by key, read once from the store and appended to as they arrive."""

    def __init__(self, store_dir: Path) -> None:
        self.path = store_dir / CACHE_DIR / CACHE_FILE
        self._lock = threading.Lock()
        self._replies: dict[str, CachedReply] = {}
        self._stale_lines = 0
        """Lines a compaction would drop: cut short, unreadable or repeated."""
        if self.path.exists():
            self._read()

    def _read(self) -> None:
        with self.path.open("rb") as handle:
            for raw in handle:
                try:
                    reply = CachedReply(**json.loads(raw))
                except (ValueError, TypeError):
                    self._stale_lines += 1
                    continue
                if reply.key in self._replies:
                    self._stale_lines += 1
                self._replies[reply.key] = reply

    def __len__(self) -> int:
        return len(self._replies)

    def get(self, key: str) -> CachedReply | None:
        return self._replies.get(key)

    def put(self, reply: CachedReply) -> None:
        line = (json.dumps(asdict(reply), ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            if reply.key in self._replies:
                self._stale_lines += 1
            self._replies[reply.key] = reply
            self.path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(descriptor, line)
            finally:
                os.close(descriptor)

    def compact(self) -> None:
        """Rewrite the file without lines cut short or repeated, when it has any."""
        with self._lock:
            if not self._stale_lines:
                return
            with atomic_file(self.path) as handle:
                for reply in self._replies.values():
                    handle.write(json.dumps(asdict(reply), ensure_ascii=False) + "\n")
            self._stale_lines = 0
