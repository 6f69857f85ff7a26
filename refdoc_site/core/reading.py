"""The one reader of repository files: regular files only, secrets redacted.

Every phase that reads what a repository holds (chunking, language servers, decision
evidence) reads it through `read_text`, so no text reaches the store, a prompt or a page
unredacted, and no link or special file is followed.
"""

from __future__ import annotations

from pathlib import Path

from .redact import Redacted, Redactor
from .regular_files import read_regular


def read_text(repo: Path, path: str, redactor: Redactor) -> Redacted:
    """A repository file's text with its secrets redacted, invalid UTF-8 replaced
    (discovery already warned): the one way the build reads what a repository holds.

    Raises `OSError` (`NotRegularFile` among them) when the path is no longer a regular
    file (or a link now stands in its place): the caller skips and counts that file."""
    return redactor.redact(read_regular(repo / path).decode("utf-8", errors="replace"), path)
