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
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path


class KeptFolder:
    """Writes the files of `root` by name (POSIX paths inside it)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.existing = _regular_files(root)
        if self.existing is None:  # something there is no plain file or folder
            shutil.rmtree(root, ignore_errors=True)
            self.existing = {}
        root.mkdir(parents=True, exist_ok=True)
        self.written: set[str] = set()
        self.kept = 0
        """Files whose bytes were already there."""

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


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False
