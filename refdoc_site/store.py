"""Store stage: `.refdoc/index.jsonl` and the state beside it, written atomically.

Layout of the store directory:

- `index.jsonl`: one `Document` a line (chunk, summary, metadata, embedding, indexedAt);
- `files.json`: per indexed file its hash, language, imports and chunk ids, plus the
  settings fingerprint that decides whether an unchanged file may be reused;
- `graph.json`, `summaries/hierarchy.json`, `evidence.json`: written by later phases.
- `api_vectors.npz`: the optional API embedder's vectors (`providers/openai_embed.py`).

Every write goes to a temporary file in the same directory and is renamed over the old
one, so an interrupted build leaves the previous store intact.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from .errors import StoreError
from .records import Document

INDEX_NAME = "index.jsonl"
FILES_NAME = "files.json"
STORE_VERSION = 1


@dataclass
class FileEntry:
    """What the store remembers about one indexed file."""

    path: str
    language: str
    sha256: str
    size: int
    lines: int
    imports: list[str] = field(default_factory=list)
    chunk_ids: list[str] = field(default_factory=list)
    deferred: bool = False
    """A tier left the file to a later build (the language servers' budget ran out):
    the next build analyses it again although its content did not change."""
    secrets_redacted: int = 0
    """Secrets replaced in the file's text before anything was made from it (redact.py)."""


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
                        documents.append(Document.from_dict(orjson.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise StoreError(
                f"{self.index_path}:{number}: unreadable document ({error}); delete the store directory to rebuild"
            ) from None
        files = {path: FileEntry(**entry) for path, entry in files_data.get("files", {}).items()}
        return StoreState(documents, files, files_data.get("fingerprint", ""), files_data.get("embedder", ""))

    def save(self, state: StoreState) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.write_lines(INDEX_NAME, (orjson.dumps(d.to_dict()).decode() for d in state.documents))
        self.write_json(
            FILES_NAME,
            {
                "version": STORE_VERSION,
                "fingerprint": state.fingerprint,
                "embedder": state.embedder,
                "files": {path: asdict(entry) for path, entry in sorted(state.files.items())},
            },
        )

    def read_json(self, name: str) -> Any:
        path = self.directory / name
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StoreError(f"{path}: missing; run `refdoc-site index` (or `build`) first") from None
        except json.JSONDecodeError as error:
            raise StoreError(f"{path}:{error.lineno}: not valid JSON; delete it and rebuild") from None

    def write_json(self, name: str, data: Any) -> Path:
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=False)
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
