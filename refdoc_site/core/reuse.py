"""Reuse of unchanged work: the one way a phase asks "are my inputs unchanged since the last
run?" and, when they are, returns its stored output instead of running.

A phase hashes everything its output depends on into an inputs digest, and keeps that
digest in a JSON record beside its output (`PhaseRecord`). The next run with the same
digest, and its output still there, reuses the output. A run that is not final (the LLM
left some text offline) records a `partial` digest no later run matches, so the next
build runs the phase again, while the phases after it still see that its output changed.

The index phase reuses per file rather than per phase: a file whose content hash and the
index `fingerprint` (settings, providers, this package's code) are unchanged keeps its
stored documents.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .. import __version__
from .config import Config
from .errors import StoreError
from .records import Document
from .serial import to_json
from .store import Store, StoreState

CODE_SUFFIXES = (".py", ".scm", ".json", ".txt", ".tsv")
"""This package's files whose change reindexes: its code and its language data."""


def digest(*parts: str) -> str:
    """The hex SHA-256 of the parts, joined by `|`."""
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def files_digest(paths: Iterable[Path], *, named: bool = False) -> str:
    """A hash of the files' bytes in the given order, each preceded by its name if `named`
    (a renamed file then counts as a change)."""
    hashed = hashlib.sha256()
    for path in paths:
        if named:
            hashed.update(path.name.encode() + b"\0")
        hashed.update(path.read_bytes())
    return hashed.hexdigest()


@cache
def code_digest() -> str:
    """A hash of this package's own code and language data, so an upgrade reindexes."""
    package = Path(__file__).parent.parent
    paths = sorted(p for p in package.rglob("*") if p.suffix in CODE_SUFFIXES and "__pycache__" not in p.parts)
    return files_digest(paths)


def fingerprint(config: Config, *providers: str) -> str:
    """What shapes a file's documents besides its content: the chunk settings, the names of
    the providers that made them, the redaction rules and this package's code."""
    shape = "|".join((__version__, str(config.chunk_settings()), *providers, code_digest()))
    return digest(shape)[:16]


def inputs_digest(state: StoreState, config: Config, *parts: str) -> str:
    """A hash of the indexed files, the index fingerprint, the configuration and `parts`:
    what a phase after the index depends on."""
    files = "".join(f"{path}:{entry.sha256}\n" for path, entry in sorted(state.files.items()))
    return digest(__version__, state.fingerprint, files, repr(config), *parts)


def summaries_digest(documents: Sequence[Document]) -> str:
    """A hash of the chunk summaries: they change without their files when a model rewrites them."""
    hashed = hashlib.sha256()
    for document in documents:
        hashed.update(repr(sorted(to_json(document.summary).items())).encode())
    return hashed.hexdigest()


def partial(inputs: str, outputs: object) -> str:
    """The digest of a run that is not final: no later run matches it, and it differs with
    the outputs, so the phases after this one see them change."""
    return f"{inputs}-partial-{hashlib.sha256(repr(outputs).encode()).hexdigest()[:12]}"


@dataclass(frozen=True)
class PhaseRecord:
    """A phase's JSON record in the store: the inputs digest its output was made from, and
    whatever else the phase reports (`{..., "inputs": digest}`)."""

    store: Store
    name: str

    @property
    def path(self) -> Path:
        return self.store.directory / self.name

    def inputs(self) -> str:
        """The recorded inputs digest; '' when there is no record or it cannot be read."""
        if not self.path.exists():
            return ""
        try:
            return self.read().get("inputs", "")
        except StoreError:
            return ""

    def unchanged(self, inputs: str) -> bool:
        """Whether the last run had these inputs: its output may be reused."""
        return bool(inputs) and self.inputs() == inputs

    def read(self) -> dict:
        return self.store.read_json(self.name)

    def save(self, inputs: str, **report: object) -> None:
        self.store.write_json(self.name, {**report, "inputs": inputs})

    def forget(self) -> None:
        """Drop the record first, so a run cut short is never taken for a finished one."""
        self.path.unlink(missing_ok=True)
