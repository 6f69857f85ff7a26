"""Reading a file only when it is a regular one: never through a symbolic link put in its
place, never waiting on a FIFO or reading a device without end.

The check is made on the open descriptor, so a path that changed kind since it was
looked at (discovery, then the index a moment later) is refused, not trusted.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

SPECIAL_FILE_KINDS = (
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISDIR, "folder"),
)
"""What a file that is not a regular one is, by its mode, for messages and skip reasons."""
READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once (instead of waiting for a writer); fstat refuses it
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""A link in the file's place makes the open fail instead of being followed."""


class NotRegularFile(OSError):
    """The path is a symbolic link, a FIFO, a socket, a device or a folder."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def read_regular(path: Path, limit: int | None = None, follow_links: bool = False) -> bytes:
    """The bytes of a regular file, at most `limit + 1` of them when a limit is given.

    Raises `NotRegularFile` for anything else, and for a symbolic link unless
    `follow_links` (a file the user named, not one found in a repository)."""
    try:
        descriptor = os.open(path, READ_FLAGS | (0 if follow_links else NO_FOLLOW))
    except OSError as error:
        if error.errno == errno.ELOOP and not follow_links and os.path.islink(path):
            raise NotRegularFile(errno.ELOOP, "a symbolic link, not read", str(path)) from error
        raise
    with open(descriptor, "rb") as handle:
        kind = special_kind(os.fstat(descriptor).st_mode)
        if kind:
            raise NotRegularFile(errno.EINVAL, f"a {kind}, not a regular file", str(path))
        return handle.read() if limit is None else handle.read(limit + 1)


def special_kind(mode: int) -> str:
    """What a file that is not a regular one is (`FIFO`, `socket`, …), or "" for a regular file."""
    if stat.S_ISREG(mode):
        return ""
    return next((kind for is_kind, kind in SPECIAL_FILE_KINDS if is_kind(mode)), "special file")
