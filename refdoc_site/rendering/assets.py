"""Which files of the repository the site may ship as its own scripts: the gate between a
checkout and `assets/`.

A script the site ships runs on its pages, so the repository supplies one only when the
operator trusts it (trust.py), and even then only a file that git would publish and that
looks like what it claims to be: a mistyped or hostile `mermaid_js: .git/config` must not
copy the token `actions/checkout` keeps there onto the web. A file is refused when:

- its name, or its target's, is a secret by convention (`.env*`, `*.pem`: redact.py);
- it lies under `.git` (or another version-control folder) or the store;
- a `.gitignore` of the repository ignores it (a git-ignored `.env.local` is a local file);
- its bytes do not look like Mermaid (`looks_like`).

The operator's own copies (REFDOC_MERMAID_JS, the operator's cache) are not the
repository's and pass unchecked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pathspec

from ..core.redact import secret_file_rule
from ..core.trust import is_inside

PRUNED_FOLDERS = frozenset({".git", ".hg", ".svn", ".refdoc"})
"""Folders whose files never reach the site: version control (credentials in `.git/config`)
and the store."""
CLASSIC_SIZE = (256 * 1024, 32 * 1024 * 1024)
"""Bytes a `mermaid.min.js` may have: Mermaid 10 and 11 are 2.5-3.6 MB; a credentials file is
a few hundred bytes."""
CLASSIC_WORDS = (b"mermaid", b"flowchart", b"sequenceDiagram", b"securityLevel")
"""Words every build of Mermaid's classic script holds (its diagram names and settings)."""
MODULE_ENTRY_SIZE = (1024, 2 * 1024 * 1024)
MODULE_ENTRY_WORDS = (b"mermaid", b"./chunks/mermaid.esm.min/")
MODULE_CHUNK_SIZE = (1, 16 * 1024 * 1024)


def repository_file_refusal(repo: Path, path: Path, store: Path | None = None) -> str:
    """Why the repository's file `path` may not be published as a script ("" when it may):
    the secret-name, version-control, store and `.gitignore` rules. A path outside the
    repository (a trusted configuration may name one) is held to the secret-name rule."""
    resolved = Path(os.path.realpath(path))
    for name in {path.name, resolved.name}:
        if rule := secret_file_rule(name):
            return f"it is named like a secret ({rule})"
    if store is not None and is_inside(store, resolved):
        return "it lies in the store"
    real_repo, named_repo = Path(os.path.realpath(repo)), Path(os.path.abspath(repo))
    for candidate, root in ((Path(os.path.abspath(path)), named_repo), (resolved, real_repo)):
        if not candidate.is_relative_to(root):
            continue
        relative = candidate.relative_to(root)
        if pruned := PRUNED_FOLDERS.intersection(relative.parts):  # `.git` itself too: a work tree's gitdir file
            return f"it lies in {sorted(pruned)[0]}/, whose files are never published"
        if git_ignored(root, relative.as_posix()):
            return "a .gitignore of the repository ignores it, so it is no file of the repository's"
    return ""


def git_ignored(repo: Path, relative: str) -> bool:
    """Whether the `.gitignore` files from the repository's root down to `relative`'s folder
    ignore it or a folder above it (read directly, as discovery reads them: git need not run)."""
    parts = relative.split("/")
    stack: list[tuple[str, pathspec.PathSpec]] = []
    for depth in range(len(parts)):
        base = "/".join(parts[:depth])
        rules = repo / base / ".gitignore"
        if rules.is_file() and not rules.is_symlink():
            text = rules.read_bytes().decode("utf-8", errors="replace")
            stack.append((base, pathspec.GitIgnoreSpec.from_lines(text.splitlines())))
        target = "/".join(parts[: depth + 1]) + ("/" if depth < len(parts) - 1 else "")
        if _ignored(target, stack):
            return True
    return False


def _ignored(relative: str, stack: list[tuple[str, pathspec.PathSpec]]) -> bool:
    ignored = False
    for base, spec in stack:
        result = spec.check_file(relative[len(base) + 1 :] if base else relative)
        if result.include is not None:
            ignored = result.include
    return ignored


def looks_like(path: Path, size: tuple[int, int], words: tuple[bytes, ...]) -> str:
    """Why `path` is not a script of this kind ("" when it is): its size outside `size`, a
    NUL byte, text that is not UTF-8, or one of `words` missing."""
    try:
        length = path.stat().st_size
        if not size[0] <= length <= size[1]:
            return f"{length} bytes, where a Mermaid script has {size[0]} to {size[1]}"
        data = path.read_bytes()
    except OSError as error:
        return f"unreadable ({error.strerror or error})"
    if b"\0" in data:
        return "it holds NUL bytes, so it is no script"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "it is not UTF-8 text, so it is no script"
    missing = [word.decode() for word in words if word not in data]
    return f"it lacks {', '.join(missing)}, which Mermaid holds" if missing else ""


def classic_refusal(path: Path) -> str:
    return looks_like(path, CLASSIC_SIZE, CLASSIC_WORDS)


def module_entry_refusal(path: Path) -> str:
    return looks_like(path, MODULE_ENTRY_SIZE, MODULE_ENTRY_WORDS)


def module_chunk_refusal(path: Path) -> str:
    return looks_like(path, MODULE_CHUNK_SIZE, ())
