"""Discover stage: which files of the repository are indexed, and why the others are not.

Honours every `.gitignore` in the tree (read directly, so git need not be installed) and
the configured include/exclude globs; skips binary, oversized, minified and generated
files with a counted reason; never follows a link out of the repository.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from .config import Config
from .languages import GENERATED_NAMES, PLAIN_TEXT, language_for
from .records import SkippedFile, SkipReason, SourceFile
from .redact import Redacted, Redactor, secret_file_rule

ALWAYS_PRUNED = frozenset(
    {".git", ".hg", ".svn", ".refdoc", "node_modules", "__pycache__", ".venv", "venv", ".tox",
     ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)
"""Directories never worth indexing, pruned even without a `.gitignore` saying so."""
BINARY_PROBE = 8192
MINIFIED_MEAN_LINE = 300
MINIFIED_NAME_SUFFIXES = (".min.js", ".min.css", ".bundle.js")


@dataclass
class Discovery:
    """What discovery accepted and what it skipped."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def skip_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for skipped in self.skipped:
            counts[skipped.reason.value] = counts.get(skipped.reason.value, 0) + 1
        return dict(sorted(counts.items()))


def discover(repo: Path, config: Config, extra_pruned: tuple[Path, ...] = ()) -> Discovery:
    """Walk `repo` and classify every file; paths come back sorted and repo-relative."""
    repo = repo.resolve()
    result = Discovery()
    include = _spec(config.include)
    exclude = _spec(config.exclude)
    pruned_paths = {p.resolve() for p in extra_pruned}
    ignore_stack: list[tuple[str, pathspec.PathSpec]] = []

    for directory, dirnames, filenames in os.walk(repo, followlinks=False):
        current = Path(directory)
        relative_dir = _relative(current, repo)
        ignore_stack = [(base, s) for base, s in ignore_stack if _is_within(relative_dir, base)]
        gitignore = current / ".gitignore"
        if gitignore.is_file():
            lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
            ignore_stack.append((relative_dir, pathspec.GitIgnoreSpec.from_lines(lines)))

        kept_dirs = []
        for name in sorted(dirnames):
            child = current / name
            relative = _join(relative_dir, name)
            if name in ALWAYS_PRUNED or child.resolve() in pruned_paths or child.is_symlink():
                continue
            if _ignored(relative + "/", ignore_stack) or exclude.match_file(relative + "/"):
                continue
            kept_dirs.append(name)
        dirnames[:] = kept_dirs

        for name in sorted(filenames):
            relative = _join(relative_dir, name)
            if name == ".gitignore":
                continue
            if _undecodable(relative):
                shown = relative.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                result.skipped.append(SkippedFile(shown, SkipReason.UNREADABLE, "file name is not valid UTF-8"))
                continue
            if _ignored(relative, ignore_stack):
                result.skipped.append(SkippedFile(relative, SkipReason.IGNORED, ".gitignore"))
                continue
            if exclude.match_file(relative):
                result.skipped.append(SkippedFile(relative, SkipReason.IGNORED, "exclude glob"))
                continue
            if config.include and not include.match_file(relative):
                result.skipped.append(SkippedFile(relative, SkipReason.IGNORED, "not included"))
                continue
            outcome = _classify(repo, current / name, relative, config)
            if isinstance(outcome, SkippedFile):
                result.skipped.append(outcome)
            else:
                result.files.append(outcome)
                if outcome.decode_errors:
                    result.warnings.append(
                        f"{relative}: not valid UTF-8; read with replacement characters"
                    )
    return result


def read_text(repo: Path, path: str, redactor: Redactor) -> Redacted:
    """A repository file's text with its secrets redacted, invalid UTF-8 replaced
    (discovery already warned): the one way the build reads what a repository holds."""
    return redactor.redact((repo / path).read_bytes().decode("utf-8", errors="replace"), path)


def _classify(repo: Path, path: Path, relative: str, config: Config) -> SourceFile | SkippedFile:
    if (rule := secret_file_rule(path.name)) is not None:  # before anything opens it
        return SkippedFile(relative, SkipReason.SECRET, f"named like a secret ({rule})")
    if path.is_symlink():
        target = path.resolve()
        if not _is_within(_relative_or_none(target, repo), ""):
            return SkippedFile(relative, SkipReason.SYMLINK_OUTSIDE, str(os.readlink(path)))
    name = path.name
    if name in GENERATED_NAMES:
        return SkippedFile(relative, SkipReason.GENERATED, "lock file")
    spec = language_for(relative)
    if spec is None:
        if not config.include:
            return SkippedFile(relative, SkipReason.UNSUPPORTED, Path(relative).suffix or name)
        spec = PLAIN_TEXT
    try:
        size = path.stat().st_size
        if size > config.max_file_size:
            return SkippedFile(
                relative, SkipReason.OVERSIZED, f"{size} bytes > max_file_size {config.max_file_size}"
            )
        data = path.read_bytes()
    except OSError as error:
        return SkippedFile(relative, SkipReason.UNREADABLE, error.strerror or str(error))
    if b"\0" in data[:BINARY_PROBE]:
        return SkippedFile(relative, SkipReason.BINARY, "NUL byte")
    if name.endswith(MINIFIED_NAME_SUFFIXES) or _looks_minified(data):
        return SkippedFile(relative, SkipReason.MINIFIED, "long lines")
    try:
        data.decode("utf-8")
        decode_errors = False
    except UnicodeDecodeError:
        decode_errors = True
    return SourceFile(
        path=relative,
        language=spec.name,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        decode_errors=decode_errors,
    )


def _undecodable(name: str) -> bool:
    """Whether a name holds bytes that are not UTF-8 (which Python keeps as lone surrogates):
    no page, link or JSON record can carry it."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _looks_minified(data: bytes) -> bool:
    if len(data) < 2000:
        return False
    lines = data.count(b"\n") + 1
    return len(data) / lines > MINIFIED_MEAN_LINE


def _spec(globs: tuple[str, ...]) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines(list(globs))


def _ignored(relative: str, stack: list[tuple[str, pathspec.PathSpec]]) -> bool:
    """Whether the nearest .gitignore files (deepest last) ignore a path."""
    ignored = False
    for base, spec in stack:
        inner = relative[len(base) + 1 :] if base else relative
        result = spec.check_file(inner)
        if result.include is not None:
            ignored = result.include
    return ignored


def _relative(path: Path, repo: Path) -> str:
    relative = path.relative_to(repo).as_posix()
    return "" if relative == "." else relative


def _relative_or_none(path: Path, repo: Path) -> str | None:
    try:
        return _relative(path, repo)
    except ValueError:
        return None


def _is_within(relative: str | None, base: str) -> bool:
    if relative is None:
        return False
    return base == "" or relative == base or relative.startswith(base + "/")


def _join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name
