"""Whose code each indexed file is: the project's own, or a test, fixture, example,
vendored copy or generated file kept beside it.

Later phases need the difference: an ADR in a test fixture is not the repository's
decision, a test function is no public API and a generated parser is no refactoring
hotspot. The evidence, strongest first: `.gitattributes` (Linguist attributes, set or
unset), a generator's marker at the head of the file, a generator's file name, the test
folders the manifests declare, then folder and file-name conventions (the tables in
`languages/roles.py`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path

import pathspec

from ..core.reading import read_text
from ..core.records import FileRole
from ..core.redact import Redactor
from ..core.regular_files import read_regular
from ..languages.roles import (
    GENERATED_FOLDERS,
    GENERATED_MARKERS,
    GITATTRIBUTES_ROLES,
    MARKER_LINES,
    ROLE_DIRECTORIES,
    ROLE_FILE_NAMES,
    SOURCE_FOLDER_NAMES,
    TOP_TEST_DIRECTORIES,
)
from .evidence.manifests import declared_test_paths, manifest_kind

HEAD_BYTES = 4096
"""Bytes read from a file's head to look for a generator's marker."""
GITATTRIBUTES = ".gitattributes"
Attributes = list[tuple[pathspec.PathSpec, FileRole | None]]
"""(pattern, role) per `.gitattributes` rule; None where the attribute is unset."""


def classify_files(repo: Path, paths: Iterable[str], redactor: Redactor) -> dict[str, FileRole]:
    """The role of every path. A file that cannot be read is classified by its path alone."""
    paths = sorted(paths)
    attributes = _gitattributes(repo)
    test_folders = _declared_test_folders(repo, paths, redactor)
    return {path: _role(repo, path, attributes, test_folders) for path in paths}


def roles_inputs(repo: Path) -> str:
    """What the roles depend on beyond the indexed files' contents: `.gitattributes`, which
    is not indexed, so that a change to it alone classifies again."""
    return _gitattributes_text(repo)


def own_files(roles: dict[str, FileRole]) -> set[str]:
    """The paths that are the project's own code and documents."""
    return {path for path, role in roles.items() if role is FileRole.SOURCE}


def role_by_path(path: str, test_folders: tuple[str, ...] = ()) -> FileRole:
    """The role that folder and file-name conventions alone give a path."""
    name = posixpath.basename(path)
    folders = {part.lower() for part in posixpath.dirname(path).split("/") if part}
    if ROLE_FILE_NAMES["generated"].search(name) or any(GENERATED_FOLDERS.search(folder) for folder in folders):
        return FileRole.GENERATED
    for role in ("vendored", "fixture"):
        if folders & ROLE_DIRECTORIES[role]:
            return FileRole(role)
    top = path.split("/", 1)[0].lower() if "/" in path else ""
    if ROLE_FILE_NAMES["test"].search(name) or folders & ROLE_DIRECTORIES["test"] or top in TOP_TEST_DIRECTORIES:
        return FileRole.TEST
    if any(path.startswith(folder + "/") for folder in test_folders):
        return FileRole.TEST
    if folders & ROLE_DIRECTORIES["example"]:
        return FileRole.EXAMPLE
    return FileRole.SOURCE


def has_generated_marker(head: str) -> bool:
    """Whether one of a file's first lines is a comment saying a generator wrote it."""
    return any(GENERATED_MARKERS.search(line) for line in head.splitlines()[:MARKER_LINES])


def _role(repo: Path, path: str, attributes: Attributes, test_folders: tuple[str, ...]) -> FileRole:
    for spec, role in reversed(attributes):  # the last matching line wins, as in git
        if spec.match_file(path):
            return role or FileRole.SOURCE
    if has_generated_marker(_head(repo, path)):
        return FileRole.GENERATED
    return role_by_path(path, test_folders)


def _head(repo: Path, path: str) -> str:
    try:
        return read_regular(repo / path, limit=HEAD_BYTES)[:HEAD_BYTES].decode("utf-8", errors="replace")
    except OSError:  # gone or replaced since indexed: the path still tells something
        return ""


def _gitattributes(repo: Path) -> Attributes:
    """(pattern, role) per root `.gitattributes` line with a Linguist attribute; role None
    where the attribute is unset, which makes the files the project's own."""
    rules = []
    for line in _gitattributes_text(repo).splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        for attribute in fields[1:]:
            name, _, value = attribute.lstrip("-!").partition("=")
            if name in GITATTRIBUTES_ROLES:
                unset = attribute.startswith(("-", "!")) or value.lower() == "false"
                role = None if unset else FileRole(GITATTRIBUTES_ROLES[name])
                rules.append((pathspec.GitIgnoreSpec.from_lines([fields[0]]), role))
    return rules


def _gitattributes_text(repo: Path) -> str:
    try:
        return read_regular(repo / GITATTRIBUTES).decode("utf-8", errors="replace")
    except OSError:  # none, or not a regular file: no attributes
        return ""


def _declared_test_folders(repo: Path, paths: list[str], redactor: Redactor) -> tuple[str, ...]:
    """Repository-relative test folders the indexed manifests declare."""
    folders = []
    for path in paths:
        kind = manifest_kind(path)
        if kind not in ("pyproject", "setup.cfg", "package.json"):
            continue
        try:
            text = read_text(repo, path, redactor).text
        except OSError:  # gone since indexed
            continue
        base = posixpath.dirname(path)
        for declared in declared_test_paths(kind, text):
            folder = posixpath.normpath(posixpath.join(base, declared.strip("/")))
            inside = folder != "." and not folder.startswith("..")
            if inside and posixpath.basename(folder).lower() not in SOURCE_FOLDER_NAMES:
                folders.append(folder)
    return tuple(folders)
