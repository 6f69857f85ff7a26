"""Discover stage: which files of the repository are indexed, and why the others are not.

Honours every `.gitignore` in the tree (read directly, so git need not be installed) as
git does: a file git tracks is never hidden by one (`git add -f`); and the configured
include/exclude globs; skips binary, oversized, minified and generated files with a
counted reason. A folder holding a site refdoc-site built (its marker, `index.html` and
`assets/`) is skipped as one, counted; a marker alone does not make a folder a site. The
files git tracks in a folder that is not walked (a built site, `node_modules/`, an
excluded one) are listed as skipped, for the change map (unindexed.py).

Only regular files are ever opened: a symbolic link is skipped as git stores it, a link
and not its target, and a FIFO, socket or device is skipped without being opened (opening
a FIFO waits for a writer that never comes).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

import pathspec

from ..core.config import CONFIG_NAME, Config
from ..core.pages import SITE_MARKER
from ..core.records import SkippedFile, SkipReason, SourceFile
from ..core.redact import secret_file_rule
from ..core.repository import TrackedFiles
from ..core.regular_files import read_regular, special_kind
from ..languages import GENERATED_NAMES, PLAIN_TEXT, language_for
from ..languages.c_family import settle_headers

ALWAYS_PRUNED = frozenset(
    {".git", ".hg", ".svn", ".refdoc", "node_modules", "__pycache__", ".venv", "venv", ".tox",
     ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)
"""Directories never worth indexing, pruned even without a `.gitignore` saying so."""
PRUNED_FOLDER = "in a pruned folder"
BINARY_PROBE = 8192
MINIFIED_MEAN_LINE = 300
MINIFIED_NAME_SUFFIXES = (".min.js", ".min.css", ".bundle.js")
SITE_TOOL = "refdoc-site"
"""The `tool` a built site's marker names (rendering/outputs.py writes it)."""
SITE_SHAPE = ("index.html", "assets")
"""What a built site holds beside its marker, besides pages."""


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


def discover(
    repo: Path, config: Config, extra_pruned: tuple[Path, ...] = (), tracked: TrackedFiles | None = None
) -> Discovery:
    """Walk `repo` and classify every file; paths come back sorted and repo-relative.
    `tracked` (git's files) overrides the `.gitignore` files; a built site's tracked files
    are listed as skipped with it, so the change map still sees them."""
    repo = repo.resolve()
    tracked = tracked or TrackedFiles()
    result = Discovery()
    include = _spec(config.include)
    exclude = _spec(config.exclude)
    pruned_paths = {p.resolve() for p in extra_pruned}
    ignore_stack: list[tuple[str, pathspec.PathSpec]] = []

    def unlisted(error: OSError) -> None:
        where = _relative_or_none(Path(error.filename), repo) if error.filename else None
        result.warnings.append(f"{where or '.'}: {_reason(error)}; folder skipped")

    for directory, dirnames, filenames in os.walk(repo, onerror=unlisted, followlinks=False):
        current = Path(directory)
        relative_dir = _relative(current, repo)
        ignore_stack = [(base, s) for base, s in ignore_stack if _is_within(relative_dir, base)]
        rules = _gitignore(current, relative_dir, result.warnings) if ".gitignore" in filenames else None
        if rules is not None:
            ignore_stack.append((relative_dir, rules))

        kept_dirs, linked_dirs = [], []
        for name in sorted(dirnames):
            child = current / name
            relative = _join(relative_dir, name)
            if name in ALWAYS_PRUNED:  # what git tracks in it is listed: a pull request can commit there
                result.skipped += [SkippedFile(path, SkipReason.IGNORED, PRUNED_FOLDER) for path in _tracked_inside(repo, child, relative, tracked)]
                continue
            if child.is_symlink():  # never walked into; classified with the files, as git stores it
                linked_dirs.append(name)
                continue
            if child.resolve() in pruned_paths:  # this build's store and output
                continue
            if (child / SITE_MARKER).is_file():
                if _built_site(child):
                    result.skipped += _skipped_site(repo, child, relative, tracked)
                    continue
                result.warnings.append(f"{relative}/{SITE_MARKER}: not the marker of a site refdoc-site built; the folder is indexed")
            if _ignored(relative + "/", ignore_stack) and not tracked.holds_under(relative):
                continue
            if exclude.match_file(relative + "/"):  # the repository's refdoc.yml says so: its tracked files are listed
                result.skipped += [SkippedFile(path, SkipReason.IGNORED, "exclude glob") for path in _tracked_inside(repo, child, relative, tracked)]
                continue
            kept_dirs.append(name)
        dirnames[:] = kept_dirs

        for name in sorted(filenames + linked_dirs):
            relative = _join(relative_dir, name)
            if name == ".gitignore":
                continue
            if _undecodable(relative):
                shown = relative.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                result.skipped.append(SkippedFile(shown, SkipReason.UNREADABLE, "file name is not valid UTF-8"))
                continue
            if _ignored(relative, ignore_stack) and not tracked.holds(relative):
                result.skipped.append(SkippedFile(relative, SkipReason.IGNORED, ".gitignore"))
                continue
            if exclude.match_file(relative):
                result.skipped.append(SkippedFile(relative, SkipReason.IGNORED, "exclude glob"))
                continue
            if config.include and not include.match_file(relative):
                result.skipped.append(SkippedFile(relative, SkipReason.IGNORED, "not included"))
                continue
            try:
                outcome = _classify(repo, current / name, relative, config)
            except OSError as error:  # unreadable, gone, or changed kind while looked at
                outcome = SkippedFile(relative, SkipReason.UNREADABLE, _reason(error))
            if isinstance(outcome, SkippedFile):
                result.skipped.append(outcome)
            else:
                result.files.append(outcome)
                if outcome.decode_errors:
                    result.warnings.append(
                        f"{relative}: not valid UTF-8; read with replacement characters"
                    )
    cpp_headers = settle_headers([(f.path, f.language) for f in result.files])
    if cpp_headers:
        result.files = [replace(f, language="cpp") if f.path in cpp_headers else f for f in result.files]
    return result


def _classify(repo: Path, path: Path, relative: str, config: Config) -> SourceFile | SkippedFile:
    """The first check a file fails names why it is skipped; one that passes them all is indexed."""
    if (rule := secret_file_rule(path.name)) is not None:  # before anything opens it
        return SkippedFile(relative, SkipReason.SECRET, f"named like a secret ({rule})")
    if relative == CONFIG_NAME:
        return SkippedFile(relative, SkipReason.OWN_CONFIG, "the build's settings")
    if relative == config.corrections:  # applied to the pages it corrects (rendering/corrected.py)
        return SkippedFile(relative, SkipReason.OWN_CONFIG, "the maintainers' corrections")
    status = path.lstat()
    if stat.S_ISLNK(status.st_mode):
        return _skipped_link(repo, path, relative)
    kind = special_kind(status.st_mode)
    if kind:
        return SkippedFile(relative, SkipReason.SPECIAL, kind)
    name = path.name
    if name in GENERATED_NAMES:
        return SkippedFile(relative, SkipReason.GENERATED, "lock file")
    spec = language_for(relative)
    if spec is None:
        if not config.include:
            return SkippedFile(relative, SkipReason.UNSUPPORTED, Path(relative).suffix or name)
        spec = PLAIN_TEXT
    limit = config.max_file_size
    if status.st_size > limit:
        return SkippedFile(relative, SkipReason.OVERSIZED, f"{status.st_size} bytes > max_file_size {limit}")
    data = read_regular(path, limit=limit)
    if len(data) > limit:
        return SkippedFile(relative, SkipReason.OVERSIZED, f"grew past max_file_size {limit} while read")
    if b"\0" in data[:BINARY_PROBE]:
        return SkippedFile(relative, SkipReason.BINARY, "NUL byte")
    if name.endswith(MINIFIED_NAME_SUFFIXES) or _looks_minified(data):
        return SkippedFile(relative, SkipReason.MINIFIED, "long lines")
    try:
        text = data.decode("utf-8")
        decode_errors = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        decode_errors = True
    spec = language_for(relative, text) or spec
    return SourceFile(
        path=relative,
        language=spec.name,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        decode_errors=decode_errors,
    )


def _built_site(folder: Path) -> bool:
    """Whether `folder` is a site refdoc-site built: its marker says so and it has the shape."""
    try:
        marker = json.loads(read_regular(folder / SITE_MARKER, limit=4096))
    except (OSError, ValueError):
        return False
    if not isinstance(marker, dict) or marker.get("tool") != SITE_TOOL:
        return False
    return all((folder / part).exists() and not (folder / part).is_symlink() for part in SITE_SHAPE)


def _skipped_site(repo: Path, folder: Path, relative: str, tracked: TrackedFiles) -> list[SkippedFile]:
    """A built site, skipped whole and counted; each file of it git tracks is listed too (a
    pull request can add a file to a committed site: the change map must see it)."""
    skipped = [SkippedFile(relative + "/", SkipReason.BUILT_SITE, f"a site refdoc-site built ({SITE_MARKER})")]
    detail = f"in the built site {relative}/"
    return skipped + [SkippedFile(path, SkipReason.BUILT_SITE, detail) for path in _tracked_inside(repo, folder, relative, tracked)]


def _tracked_inside(repo: Path, folder: Path, relative: str, tracked: TrackedFiles) -> list[str]:
    """The files git tracks in a folder discovery does not walk, sorted."""
    if not tracked.holds_under(relative):
        return []
    if tracked.everything:
        inside = [_relative(Path(d) / name, repo) for d, _, names in os.walk(folder) for name in names]
    else:
        inside = [path for path in tracked.files if path.startswith(relative + "/")]
    return sorted(path for path in inside if not _undecodable(path))


def _undecodable(name: str) -> bool:
    """Whether a name holds bytes that are not UTF-8 (which Python keeps as lone surrogates):
    no page, link or JSON record can carry it."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _skipped_link(repo: Path, path: Path, relative: str) -> SkippedFile:
    """Why a symbolic link is skipped. Its target, when a file of the repository, is
    indexed under its own path: once, as git stores it."""
    written = os.readlink(path)
    target = _relative_or_none(Path(os.path.realpath(path)), repo)  # no error on a loop
    if target is None:
        return SkippedFile(relative, SkipReason.SYMLINK_OUTSIDE, written)
    try:
        mode = path.stat().st_mode
    except OSError as error:  # dangling, or a loop
        return SkippedFile(relative, SkipReason.SYMLINK, f"broken link to {written}: {_reason(error)}")
    kind = special_kind(mode)
    what = f"a {kind} {target or '.'}" if kind else target
    return SkippedFile(relative, SkipReason.SYMLINK, f"links to {what}")


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _gitignore(folder: Path, relative_dir: str, warnings: list[str]) -> pathspec.PathSpec | None:
    """A folder's `.gitignore` rules; one that is a link (git does not follow it either)
    or unreadable is not applied, with a warning."""
    try:
        data = read_regular(folder / ".gitignore")
    except OSError as error:
        warnings.append(f"{_join(relative_dir, '.gitignore')}: {_reason(error)}; not applied")
        return None
    return pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", errors="replace").splitlines())


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
