"""A folder each render writes whole, written over what the last render left there.

homeassistant's search data is 49,000 files; clearing the folder and writing every file
again took 8 s to delete and 16 s to create them on a one-file change, most of them with
the same bytes as before. A `KeptFolder` leaves a file whose bytes are unchanged as it was
(its inode and time too: the site links it, see page_reuse.py `linked_copy`), writes a
changed one as a new file (never in place: the published site may hold a link to the old
one, which must keep its bytes until the new site replaces it), and on `finish` deletes
whatever this render did not write, so the folder holds exactly what a clear-and-write
would have. Only regular files in real folders are kept: when the folder holds anything
else (a link, a device), it is cleared first.

A file made from other bytes (`write_made`: the search pieces are gzipped JSON) is kept
without making it when a record beside the folder (`made`, outside the published folder)
says it was made from the same bytes and has the size it has. The record is read and
deleted when the folder is opened and written again by `finish` only: a render that stops
half way leaves none, and the next compares every file's bytes. The render clears the
folder when any file of it differs from what the last render recorded having written
(render_phase.py, project_files.py), so the record is never taken for a file changed since.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import orjson


class KeptFolder:
    """Writes the files of `root` by name (POSIX paths inside it)."""

    def __init__(self, root: Path, made: Path | None = None) -> None:
        self.root = root
        self.existing = _regular_files(root)
        if self.existing is None:  # something there is no plain file or folder
            shutil.rmtree(root, ignore_errors=True)
            self.existing = {}
        root.mkdir(parents=True, exist_ok=True)
        self.written: set[str] = set()
        self.kept = 0
        """Files whose bytes were already there."""
        self.made_path = made
        self.was_made: dict[str, list] = _read_made(made) if made is not None else {}
        self.made: dict[str, list] = {}
        """name → [SHA-1 of the bytes it was made from (or `key:` and the key it was made
        under), its size], for the next render."""

    def write(self, name: str, data: bytes) -> int:
        """Put `data` at `name`; returns its size."""
        path = self.root / name
        if name in self.existing and self.existing[name] == len(data) and _same_bytes(path, data):
            self.kept += 1
        else:
            if name in self.existing:
                path.unlink()  # a new file, not the old one rewritten
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        self.written.add(name)
        return len(data)

    def write_made(self, name: str, source: bytes, make: Callable[[bytes], bytes]) -> int:
        """Put `make(source)` at `name`, without making it when the file there was made
        from the same bytes; returns its size."""
        return self._write_recorded(name, hashlib.sha1(source, usedforsecurity=False).hexdigest(), lambda: make(source))

    def write_keyed(self, name: str, key: str, make: Callable[[], bytes]) -> int:
        """Put `make()` at `name`, without making it when the file there was made under the
        same `key` (a digest of everything its bytes are made from); returns its size."""
        return self._write_recorded(name, f"key:{key}", make)

    def _write_recorded(self, name: str, made_from: str, make: Callable[[], bytes]) -> int:
        """Put `make()` at `name` unless the record says the file there, of its size, was
        made from `made_from`; records it for the next render either way."""
        size = self.existing.get(name)
        if size is not None and self.was_made.get(name) == [made_from, size]:
            self.kept += 1
            self.written.add(name)
        else:
            size = self.write(name, make())
        self.made[name] = [made_from, size]
        return size

    def copy(self, name: str, source: Path) -> int:
        return self.write(name, source.read_bytes())

    def finish(self) -> int:
        """Delete the files and empty folders this render did not write; returns how many files."""
        gone = [name for name in self.existing if name not in self.written]
        for name in gone:
            (self.root / name).unlink(missing_ok=True)
        for directory, _, _ in os.walk(self.root, topdown=False):  # the deepest first
            if Path(directory) != self.root and not os.listdir(directory):
                os.rmdir(directory)
        if self.made_path is not None and self.made:
            self.made_path.write_bytes(orjson.dumps(dict(sorted(self.made.items()))))
        return len(gone)


def _regular_files(root: Path) -> dict[str, int] | None:
    """Each file under `root` with its size, or None when anything there is not a regular
    file or a folder (links are not followed)."""
    found: dict[str, int] = {}
    if not root.exists() and not root.is_symlink():
        return found
    if root.is_symlink() or not root.is_dir():
        return None
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        folder = Path(directory)
        for name in dirnames:
            if (folder / name).is_symlink():
                return None
        for name in filenames:
            status = (folder / name).lstat()
            if not stat.S_ISREG(status.st_mode):
                return None
            found[(folder / name).relative_to(root).as_posix()] = status.st_size
    return found


def _read_made(path: Path) -> dict[str, list]:
    """The record of what the files were made from, deleted once read; {} when there is none."""
    try:
        record = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        record = {}
    path.unlink(missing_ok=True)
    return record if isinstance(record, dict) else {}


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False
