"""Shared test helpers: small repositories written into a temporary directory."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path


def dedent(text: str) -> str:
    """Inline source: dedented, without the leading newline of the triple quote."""
    return textwrap.dedent(text).lstrip("\n")


def write_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (repo-relative path → text or bytes) under `root`; returns `root`.

    Text is dedented, so triple-quoted sources may be indented like the test itself.
    """
    root.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(dedent(content), encoding="utf-8")
    return root


def source_file(path: str, language: str, text: str):
    """A `SourceFile` record for inline text, as discovery would make it."""
    from refdoc_site.records import SourceFile

    data = text.encode("utf-8")
    return SourceFile(path, language, len(data), hashlib.sha256(data).hexdigest())
