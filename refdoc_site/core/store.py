"""Store stage: `.refdoc/index.jsonl` and the state beside it, written atomically.

Layout of the store directory:

- `index.jsonl`: one `Document` a line (chunk, summary, metadata, embedding, indexedAt);
- `files.json`: per indexed file its hash, language, imports and chunk ids, plus the
  settings fingerprint that decides whether an unchanged file may be reused;
- `graph.json`, `summaries/hierarchy.json`, `evidence.json`: written by later phases.
- `api_vectors.npz`: the optional API embedder's vectors (`search/api_vectors.py`).
- `shard.json`: in the store of one shard of the files only (`core/shards.py`).
- `lock`: present while a command writes the store (`store_lock`): who holds it and since when.

Every write goes to a temporary file in the same directory and is renamed over the old
one, so an interrupted build leaves the previous store intact.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

import orjson

from .errors import StoreError, StoreLockedError
from .kill_points import kill_point
from .processes import process_start_time
from .records import Document
from .serial import OMIT_DEFAULT, from_json, to_json

INDEX_NAME = "index.jsonl"
FILES_NAME = "files.json"
STORE_VERSION = 2
"""Raised when a record's meaning changes (2: `callees` became resolved chunk ids, the
calls as written moved to `calls`): an older store is reindexed whole."""


@dataclass
class FileEntry:
    """What the store remembers about one indexed file."""

    path: str
    language: str
    sha256: str
    size: int
    lines: int
    imports: list[str] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)
    """Namespaces the file declares (C#): what other files' imports name."""
    chunk_ids: list[str] = field(default_factory=list)
    deferred: bool = False
    """A tier left the file to a later build (the language servers' budget ran out):
    the next build analyses it again although its content did not change."""
    secrets_redacted: int = 0
    """Secrets replaced in the file's text before anything was made from it (redact.py)."""
    secret_rules: dict[str, int] = field(default_factory=dict)
    """How many of them each rule found (`github-fine-grained-pat`: 1): which rule fired,
    never what it found."""
    unparsed: str = field(default="", metadata={OMIT_DEFAULT: True})
    """Why a file of a language with a grammar got no syntax tree (`languages.parse_refusal`:
    over the parser's read or CPU budget); "" for every other file."""


@dataclass
class StoreState:
    documents: list[Document] = field(default_factory=list)
    files: dict[str, FileEntry] = field(default_factory=dict)
    fingerprint: str = ""
    """Settings that shape chunks and summaries; a change reprocesses every file."""
    embedder: str = ""
    """Name of the model that made the stored vectors; empty when there are none."""

    def documents_by_path(self) -> dict[str, list[Document]]:
        grouped: dict[str, list[Document]] = {}
        for document in self.documents:
            grouped.setdefault(document.chunk.path, []).append(document)
        return grouped


class Store:
    """Reads and writes one store directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @property
    def index_path(self) -> Path:
        return self.directory / INDEX_NAME

    def exists(self) -> bool:
        return self.index_path.exists() and (self.directory / FILES_NAME).exists()

    def load(self) -> StoreState:
        if not self.exists():
            return StoreState()
        files_data = self.read_json(FILES_NAME)
        if files_data.get("version") != STORE_VERSION:
            return StoreState()
        documents = []
        try:
            with self.index_path.open(encoding="utf-8") as handle:
                for number, line in enumerate(handle, start=1):
                    if line.strip():
                        # orjson reads the vectors about twice as fast as json (and writes
                        # them seven times as fast); a no-change rebuild spends most of its
                        # time here.
                        documents.append(from_json(Document, orjson.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise StoreError(
                f"{self.index_path}:{number}: unreadable document ({error}); delete the store directory to rebuild"
            ) from None
        files = {path: from_json(FileEntry, entry) for path, entry in files_data.get("files", {}).items()}
        return StoreState(documents, files, files_data.get("fingerprint", ""), files_data.get("embedder", ""))

    def save(self, state: StoreState) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.write_lines(INDEX_NAME, (orjson.dumps(to_json(d)).decode() for d in state.documents))
        self.write_json(
            FILES_NAME,
            {
                "version": STORE_VERSION,
                "fingerprint": state.fingerprint,
                "embedder": state.embedder,
                "files": {path: to_json(entry) for path, entry in sorted(state.files.items())},
            },
        )

    def read_json(self, name: str) -> Any:
        """A record of the store (orjson reads homeassistant's 37 MB graph three times as fast as json)."""
        path = self.directory / name
        try:
            return orjson.loads(path.read_bytes())
        except FileNotFoundError:
            raise StoreError(f"{path}: missing; run `refdoc-site index` (or `build`) first") from None
        except orjson.JSONDecodeError as error:
            raise StoreError(f"{path}:{error.lineno}: not valid JSON; delete it and rebuild") from None

    def write_json(self, name: str, data: Any) -> Path:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
        return self.write_lines(name, [text])

    def write_lines(self, name: str, lines: Iterable[str]) -> Path:
        return write_atomically(self.directory / name, lines)


def write_atomically(path: Path, lines: Iterable[str]) -> Path:
    """Write lines to `path` through a temporary file renamed over it."""
    with atomic_file(path) as handle:
        for line in lines:
            handle.write(line)
            handle.write("\n")
    return path


@contextmanager
def atomic_file(path: Path, binary: bool = False) -> Iterator[IO]:
    """A temporary file beside `path` (UTF-8 text, or bytes), renamed over it when the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") if binary else os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    kill_point(f"wrote {path.name}")


# --- the store lock -------------------------------------------------------------------------

LOCK_NAME = "lock"
LOCK_WAIT_ENV = "REFDOC_LOCK_WAIT"
DEFAULT_LOCK_WAIT_SECONDS = 1800.0
"""How long a command waits for another one on the same store: longer than a big build."""
LOCK_POLL_SECONDS = 0.25
UNREADABLE_LOCK_GRACE_SECONDS = 10.0
"""A lock file with no readable holder is taken for debris only once this old: younger,
it may be one being written where there is no guard (no `fcntl`)."""

log = logging.getLogger("refdoc_site")
_held_locks: dict[tuple[Path, int], int] = {}
"""(store directory, thread) pairs holding the store's lock, with how deep: the phases nest.
Another thread of this process waits like another process would."""


@dataclass(frozen=True)
class LockHolder:
    """Who holds a store's lock, as written in the lock file."""

    pid: int
    host: str
    started: str
    command: str
    process_start: str = ""
    """The holder's start time in the kernel's clock (Linux), to tell a reused pid apart."""

    def describe(self) -> str:
        if not self.pid:
            return self.command
        where = "" if self.host == socket.gethostname() else f" on {self.host}"
        return f"the {self.command} of pid {self.pid}{where} (since {self.started})"

    def stale_reason(self) -> str:
        """Why this lock is left over from a process that no longer runs; empty if it may run."""
        if self.host != socket.gethostname():
            return ""  # another machine's process cannot be looked at from here
        start = process_start_time(self.pid)
        if start is None:
            return f"pid {self.pid} is no longer running"
        if self.process_start and start and start != self.process_start:
            return f"pid {self.pid} is now another process"
        return ""


BEING_WRITTEN = LockHolder(0, "", "", "a command that is just starting")
"""A lock file whose holder cannot be read yet."""


@contextmanager
def store_lock(directory: Path, command: str, wait_seconds: float | None = None) -> Iterator[None]:
    """Hold `directory/lock` while the block writes the store; nested uses share one hold.

    A second command on the same store waits for the first (one line says whose build it
    waits for), up to `wait_seconds` (default: `REFDOC_LOCK_WAIT` or 30 minutes), then
    fails with one line. A lock whose holder died on this machine is taken over, saying so.
    The lock goes when the block ends, by an exception too (the CLI turns SIGTERM into
    one). Forked children inherit this state but never release: only the holder's pid does.
    A store directory that the lock created and the command left empty goes too.
    """
    directory = directory.resolve()
    holding = (directory, threading.get_ident())
    if _held_locks.get(holding):
        _held_locks[holding] += 1
        try:
            yield
        finally:
            _held_locks[holding] -= 1
        return
    created_directory = not directory.exists()
    owner = _acquire(directory / LOCK_NAME, command, _wait_seconds(wait_seconds))
    _held_locks[holding] = 1
    try:
        yield
    finally:
        if os.getpid() == owner.pid:
            del _held_locks[holding]
            _release(directory / LOCK_NAME, owner, remove_empty_directory=created_directory)


def _wait_seconds(given: float | None) -> float:
    if given is not None:
        return given
    text = os.environ.get(LOCK_WAIT_ENV, "")
    try:
        return float(text) if text else DEFAULT_LOCK_WAIT_SECONDS
    except ValueError:
        raise StoreError(f"{LOCK_WAIT_ENV}={text!r}: expected a number of seconds") from None


def _acquire(path: Path, command: str, wait_seconds: float) -> LockHolder:
    try:
        return _wait_and_take(path, command, wait_seconds)
    except OSError as error:
        raise StoreError(f"{path}: cannot take the store's lock ({error.strerror}); check that the store folder is writable") from None


def _wait_and_take(path: Path, command: str, wait_seconds: float) -> LockHolder:
    deadline = time.monotonic() + wait_seconds
    announced: LockHolder | None = None
    while True:
        with _guard(path.parent):
            holder = _read_holder(path)
            if holder is not None and (reason := holder.stale_reason()):
                log.warning(f"{path}: taking over the lock of {holder.describe()}: {reason}")
                path.unlink(missing_ok=True)
                holder = None
            if holder is None:
                owner = _me(command)
                if _create(path, owner):
                    return owner
                continue
        if holder != announced:
            log.warning(f"waiting for {holder.describe()} to finish with the store {path.parent}")
            announced = holder
        if time.monotonic() >= deadline:
            raise StoreLockedError(
                f"{path}: still held by {holder.describe()} after {wait_seconds:.0f} s; wait for it, or, if no "
                f"refdoc-site runs there any more, delete {path} (set {LOCK_WAIT_ENV} to wait longer)"
            )
        time.sleep(LOCK_POLL_SECONDS)


def _me(command: str) -> LockHolder:
    return LockHolder(
        pid=os.getpid(),
        host=socket.gethostname(),
        started=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        command=command,
        process_start=process_start_time(os.getpid()) or "",
    )


def _create(path: Path, owner: LockHolder) -> bool:
    """Create the lock file, only if there is none (O_EXCL); False if another process won."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except (FileExistsError, FileNotFoundError):  # another process won, or removed the empty store
        return False
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(asdict(owner), handle)
    return True


def _read_holder(path: Path) -> LockHolder | None:
    """The lock's holder, None without a lock (debris removed), or BEING_WRITTEN."""
    try:
        text = path.read_text(encoding="utf-8")
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return None
    try:
        return LockHolder(**json.loads(text))
    except (json.JSONDecodeError, TypeError):
        if age < UNREADABLE_LOCK_GRACE_SECONDS:
            return BEING_WRITTEN
        log.warning(f"{path}: removing an unreadable lock file")
        path.unlink(missing_ok=True)
        return None


def _release(path: Path, owner: LockHolder, remove_empty_directory: bool) -> None:
    """Remove our lock file (never one that replaced it), and its directory if it is empty."""
    with _guard(path.parent):
        if _read_holder(path) == owner:
            path.unlink(missing_ok=True)
        if remove_empty_directory:
            try:
                path.parent.rmdir()
            except OSError:  # the command wrote the store, or another one waits in it
                pass


@contextmanager
def _guard(directory: Path) -> Iterator[None]:
    """Serialise looking at and replacing the lock between processes, so that two cannot
    both take over a stale lock: `flock` on the store directory itself, which the kernel
    releases when its holder dies. Where there is no `fcntl`, O_EXCL alone decides."""
    directory.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl  # optional: POSIX only; elsewhere O_EXCL alone decides
    except ImportError:
        yield
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def read_tagged_json(path: Path, key: str, value: str) -> dict | None:
    """The JSON object in `path` when its `key` is `value` (a file this tool wrote, in a
    format it reads); None when it is missing, unreadable or another's."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get(key) == value else None
