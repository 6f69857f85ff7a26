"""The generated MkDocs project holds only what refdoc-site wrote: the engine publishes every
file of `docs/` (raw `.html` too), runs the hooks `mkdocs.yml` names and reads the theme
override, so a file put there by anyone else (a store that came with the repository) would
be published or run.

Each whole render records the SHA-256 of every file of the project it wrote (`FILES_NAME`).
The next render is skipped only when the files on disk are exactly those bytes; otherwise
it keeps (does not write again) only the pages whose bytes are as recorded, the project's
settings, hook and theme override are written anew, the engine's outputs are cleared, and
`remove_unwritten` deletes from `docs/` every file the render did not write.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from ..search.site_search import DATA_DIR

FILES_NAME = "render-files.json"
"""{"files": {path in the project: SHA-256}}: what the last render wrote."""
PROJECT_PARTS = ("docs", "mkdocs.yml", "hooks", "overrides")
"""What the render writes and the engine reads."""
ENGINE_OUTPUTS = ("site", ".cache")
"""What the engine writes into the project for its next build (Zensical builds there and
keeps a cache): cleared with the rest, since the engine copies its `site/` out whole."""
WHOLLY_WRITTEN = ("assets/", f"{DATA_DIR}/")
"""Folders of `docs/` each render writes whole (the site's assets and search data)."""
WRITTEN_OVER = (f"{DATA_DIR}/",)
"""Of those, the ones written over the last render's files rather than cleared first
(core/kept_files.py: a file with the same bytes stays, the rest is deleted)."""


Scan = dict[str, tuple[tuple[int, ...], str]]
"""Path in the project → (what its status says of its bytes, its SHA-256)."""


def project_files(project_dir: Path, known: Scan | None = None) -> dict[str, str]:
    """Each file of the project's parts by path, with its SHA-256; a link or any other entry
    that is no regular file maps to "" (no record ever matches it). `known`: an earlier scan
    of this run (`scan_project`), whose digest a file keeps while its status is the same."""
    return {path: sha for path, (_, sha) in scan_project(project_dir, known).items()}


def scan_project(project_dir: Path, known: Scan | None = None) -> Scan:
    """`project_files` with each file's status: its inode, size and change times. A file
    keeps its digest in `known` only while none of them moved; no program sets a file's
    change time (`st_ctime_ns`) back, so a write since is always seen."""
    known = known or {}
    found: Scan = {}

    def add(path: Path, relative: str) -> None:
        status = path.lstat()
        if not stat.S_ISREG(status.st_mode):
            found[relative] = ((), "")
            return
        key = (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
        kept = known.get(relative)
        found[relative] = (key, kept[1]) if kept is not None and kept[0] == key else (key, _file_digest(path))

    for part in PROJECT_PARTS:
        path = project_dir / part
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            add(path, part)
            continue
        for directory, dirnames, filenames in os.walk(path, followlinks=False):
            folder = Path(directory)
            for name in filenames + [d for d in dirnames if (folder / d).is_symlink()]:
                add(folder / name, (folder / name).relative_to(project_dir).as_posix())
    return found


def _file_digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            sha.update(block)
    return sha.hexdigest()


@dataclass(frozen=True)
class ProjectCheck:
    """The project on disk against what the last whole render wrote."""

    differing: list[str]
    """Files added, changed or turned into links since, and files gone, sorted; empty
    when the project is as written (and there is a record of it)."""
    as_written: set[str]
    """The pages of `docs/` (paths in it) whose bytes are as the last whole render wrote
    them: the only ones a render may keep without writing them again."""
    scan: Scan
    """What was read: the render's record of what it wrote reads again only what changed since."""


def check_project(project_dir: Path, recorded: dict[str, str]) -> ProjectCheck:
    scan = scan_project(project_dir)
    same = {path for path, (_, sha) in scan.items() if sha and recorded.get(path) == sha}
    differing = sorted((set(scan) | set(recorded)) - same) or ([] if recorded else ["(no record of the last render)"])
    return ProjectCheck(differing, {path.removeprefix("docs/") for path in same if path.startswith("docs/")}, scan)


def clear_engine_outputs(project_dir: Path) -> None:
    """Delete what the engine keeps in the project for its next build: it would copy a file
    put there into the site."""
    for part in ENGINE_OUTPUTS:
        shutil.rmtree(project_dir / part, ignore_errors=True)


def remove_unwritten(docs_dir: Path, written: set[str]) -> list[str]:
    """Delete from `docs/` every file (or link) that is neither one of `written` (paths in
    `docs/`) nor in a folder the render writes whole; returns their paths."""
    removed = []
    for directory, dirnames, filenames in os.walk(docs_dir, followlinks=False):
        folder = Path(directory)
        for name in filenames + [d for d in dirnames if (folder / d).is_symlink()]:
            path = folder / name
            relative = path.relative_to(docs_dir).as_posix()
            if relative in written and not path.is_symlink():
                continue
            if relative.startswith(WHOLLY_WRITTEN) and not path.is_symlink():
                continue
            path.unlink()
            removed.append(relative)
    return sorted(removed)
