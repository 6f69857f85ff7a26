"""The index phase's journal: each processed file's documents, appended to
`STORE/index.journal.jsonl` as soon as the file is done, so that a build killed in the
middle of indexing loses none of the files it finished.

The store itself (`index.jsonl`, `files.json`) is written once, at the end of the phase;
until then the journal is the only record of the work. The next index run reads it back:
a journaled file whose content hash still matches, under the same index fingerprint, is
taken as processed rather than processed again. The phase deletes the journal once the
store holds its results. A line cut short by the kill (the last one) is ignored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import orjson

from .kill_points import kill_point
from .records import Document
from .serial import from_json, to_json
from .store import STORE_VERSION, FileEntry

JOURNAL_NAME = "index.journal.jsonl"

log = logging.getLogger("refdoc_site")


@dataclass
class JournaledFile:
    """One file's results as the journal kept them."""

    entry: FileEntry
    documents: list[Document]
    failed: list[str]


class IndexJournal:
    """Appends finished files to the journal of one store and reads back an earlier run's."""

    def __init__(self, directory: Path, fingerprint: str) -> None:
        self.path = directory / JOURNAL_NAME
        self.header = {"version": STORE_VERSION, "fingerprint": fingerprint}
        self._handle: IO[bytes] | None = None
        self._kept: dict[str, JournaledFile] = {}

    def finished(self) -> dict[str, JournaledFile]:
        """The files an interrupted run with the same fingerprint finished, by path."""
        try:
            lines = self.path.read_bytes().splitlines()
        except FileNotFoundError:
            return {}
        if not lines or _parsed(lines[0]) != self.header:
            return {}  # another fingerprint's work: of no use to this run
        found: dict[str, JournaledFile] = {}
        for line in lines[1:]:
            record = _parsed(line)
            if not isinstance(record, dict):
                break  # the line the kill cut short
            try:
                entry = from_json(FileEntry, record["entry"])
                documents = [from_json(Document, d) for d in record["documents"]]
            except (KeyError, TypeError, ValueError):
                break
            found[entry.path] = JournaledFile(entry, documents, record.get("failed", []))
        if found:
            log.info(f"{self.path}: resuming {len(found)} files an interrupted index run finished")
        return found

    def start(self, kept: dict[str, JournaledFile]) -> None:
        """Begin this run's journal with the earlier run's files still valid; the file itself
        is written only once there is something to keep, so a run that finishes nothing
        leaves the store as it was."""
        self._kept = kept
        if kept:
            self._open()

    def append(self, journaled: JournaledFile) -> None:
        """Record one finished file; it survives this process being killed from here on."""
        handle = self._handle or self._open()
        _write(handle, journaled)
        handle.flush()  # in the kernel's hands: a SIGKILL no longer loses it
        kill_point(f"journaled {journaled.entry.path}")

    def _open(self) -> IO[bytes]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = handle = self.path.open("wb")
        handle.write(orjson.dumps(self.header) + b"\n")
        for journaled in self._kept.values():
            _write(handle, journaled)
        handle.flush()
        return handle

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def remove(self) -> None:
        """Drop the journal once the store holds everything it recorded."""
        self.close()
        self.path.unlink(missing_ok=True)


def _write(handle: IO[bytes], journaled: JournaledFile) -> None:
    record = {"entry": to_json(journaled.entry), "documents": [to_json(d) for d in journaled.documents], "failed": journaled.failed}
    handle.write(orjson.dumps(record) + b"\n")


def _parsed(line: bytes) -> object:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
