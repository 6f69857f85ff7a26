"""An MkDocs rebuild that converts only the pages whose Markdown changed.

MkDocs converts and writes every page on every build: on homeassistant, 13,000 pages and
seven minutes after a one-file change that left all but a few of them as they were. Its
own `--dirty` build skips a page whose source is older than its output, but it trusts
modification times, keeps whatever stale file lies in the output, and reads no further
than the page: the footer's build stamp and the canonical address change on every build.

This module keeps, in the store, the pages of the last build as MkDocs wrote them
(`CACHE_DIR` beside the MkDocs project, hard links to the published files) and a record
(`CACHE_RECORD`): the SHA-256 of each page's Markdown (without the commit its source links
name), what made every page (`key`: the
project's `mkdocs.yml` without the values of one build, the theme override, the hook's
code, the versions of the packages that write a page) and those values of that build (the
site's address, the build stamp, the commit the "This is wrong" links name). A build with
the same key takes each page whose Markdown has the same digest from there, with the old
build's values replaced by this one's (`rebased`), and MkDocs converts and writes the
others only (a page taken is marked unmodified, MkDocs' `dirty` build skips it). The
result is the site a full build writes, byte for byte (tests/test_page_reuse.py).

Nothing is taken when the key differs (a module added or removed changes the navigation,
so every page); a page is converted again when its Markdown names a page of the last build
that is gone (it may link there: MkDocs checks the link) or when its old values are not
found in it. The output
folder is a fresh one, as for any build: no file of an earlier site is ever left in it.
The search data is linked into it, not copied (`linked_copy`): 49,000 files on homeassistant.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import posixpath
import re
import shutil
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from ..core.store import read_tagged_json
from ..search.site_search import DATA_DIR
from . import page_weight, stamp
from .page_weight import ENGINE_PROGRESS, SHARED_DIR, SHARED_PARTS
from .render import source_commit

CACHE_DIR = "built-pages"
"""The last build's pages, relative to the MkDocs project (in the store)."""
CACHE_RECORD = "built-pages.json"
FORMAT = "refdoc-built-pages/1"
PAGE_PACKAGES = ("mkdocs", "mkdocs-material", "markdown", "pymdown-extensions", "pygments", "jinja2", "refdoc-site")
"""The packages whose code writes a page: another version may write other bytes."""
HOOK_MODULES = (page_weight, stamp)
"""The modules the project's hook runs on each page (page_weight.HOOK_SOURCE)."""
BUILD_VALUES = re.compile(r'^(site_url|copyright|  refdoc_commit_date|    commit): .*$', re.M)
"""The lines of the generated `mkdocs.yml` that change from one build to the next without
changing what a page says: masked in the key, replaced in a page taken (`rebased`)."""
SHARED_REFERENCE = re.compile(re.escape(SHARED_DIR) + r'/(?:icons\.svg#(i[0-9a-f]+)|([0-9a-f]+\.js))"')
"""A page's reference to the icon sheet or a shared script (page_weight.shared_parts_referenced)."""
LINKED = f"{DATA_DIR}/"
"""The static files the site links (a hard link, where the file system allows) instead of
copying: the search data, which the render never writes in place (core/kept_files.py
writes a changed file as a new one), so the published file keeps its bytes."""
DIRTY_WARNING = "A 'dirty' build is being performed"

log = logging.getLogger("refdoc_site")


@dataclass(frozen=True)
class BuildValues:
    """What differs in every page from one build to the next: the canonical address's
    start, the footer's stamp and the commit of the report links."""

    site_url: str = ""
    copyright: str = ""
    commit: str = ""

    @classmethod
    def of(cls, config: Any) -> BuildValues:
        report = (config.get("extra") or {}).get("refdoc_report") or {}
        return cls(config.get("site_url") or "", config.get("copyright") or "", str(report.get("commit") or ""))

    def marks(self) -> list[str]:
        """The strings a page holds these values in (empty for a value the build has not)."""
        return [
            f'<link rel="canonical" href="{self.site_url}' if self.site_url else "",
            f'<div class="md-copyright__highlight">\n{self.copyright}\n</div>' if self.copyright else "",
            f'data-report-commit="{self.commit}"' if self.commit else "",
        ]


def rebased(page: str, old: BuildValues, new: BuildValues) -> str | None:
    """`page`, written by a build with `old` values, as a build with `new` ones writes it;
    None when an old value is not where the theme writes it (the page is built again). The
    source links are at the new commit too (their Markdown was compared without it)."""
    for before, after in zip(old.marks(), new.marks()):
        if bool(before) != bool(after):
            return None
        if before == after:
            continue
        if page.count(before) != 1:
            return None
        page = page.replace(before, after)
    if old.commit and new.commit:
        page = page.replace(source_commit(old.commit), source_commit(new.commit))
    return page


@dataclass
class PageReuse:
    """MkDocs plugin events (added to the loaded config by site.build_site) that take the
    unchanged pages from the last build's and store this build's for the next."""

    project_dir: Path
    digests: dict[str, str] = field(default_factory=dict)
    _pages: dict[str, str] = field(default_factory=dict)
    """src_uri → the page's path in the site, for every page of this build."""

    def on_files(self, files: Any, config: Any) -> Any:
        folders = Folders()  # the site's folders, each made once (homeassistant: 63,000 files)
        for file in files:
            if file.src_uri.startswith(LINKED) and not file.is_documentation_page():
                file.copy_file = linked_copy(file, folders)
        commit = BuildValues.of(config).commit
        self.digests = {file.src_uri: _digest(Path(file.abs_src_path), commit) for file in files.documentation_pages()}
        self._pages = {file.src_uri: file.dest_uri for file in files.documentation_pages()}
        record = _read_record(self.project_dir)
        key = build_key(Path(config.config_file_path))
        if record is None or record.get("key") != key:
            return files
        gone = [posixpath.basename(page).encode("utf-8") for page in set(record["pages"]) - set(self.digests)]
        old, new = BuildValues(**record["values"]), BuildValues.of(config)
        cached = self.project_dir / CACHE_DIR
        site = Path(config["site_dir"])
        parts = record.get("parts") or {}
        for file in files.documentation_pages():
            entry = record["pages"].get(file.src_uri)
            if entry is None or entry[0] != self.digests[file.src_uri] or entry[1] != file.dest_uri:
                continue
            if gone and _names_any(Path(file.abs_src_path), gone):
                continue  # it may link to a page that is gone: MkDocs checks that link
            try:
                page = rebased((cached / file.dest_uri).read_text(encoding="utf-8"), old, new)
            except (OSError, UnicodeDecodeError):
                continue
            if page is None or not _parts_known(page, parts):
                continue
            target = site / file.dest_uri
            folders.make(target.parent)
            target.write_text(page, encoding="utf-8")
            for icon, script in SHARED_REFERENCE.findall(page):
                SHARED_PARTS[icon or script] = parts[icon or script]
            file.is_modified = _unmodified  # MkDocs' dirty build neither converts nor writes it
            ENGINE_PROGRESS["taken"] += 1  # the build's report reads it (render_phase.publish resets it)
        return files

    def on_nav(self, nav: Any, config: Any, files: Any) -> Any:
        """A page taken is not read, so its date (the sitemap's) is set here, as the hook sets a read page's."""
        for file in files.documentation_pages():
            if file.is_modified is _unmodified and file.page is not None:
                stamp.on_pre_page(file.page, config)
        return nav

    def save(self, config: Any) -> None:
        """Keep this build's pages (hard links into the built site) and their record, for the next build."""
        site = Path(config["site_dir"])
        fresh = self.project_dir / f"{CACHE_DIR}.new"
        shutil.rmtree(fresh, ignore_errors=True)
        pages = {}
        folders = Folders()
        for src_uri, dest_uri in self._pages.items():
            source = site / dest_uri
            if not source.is_file():
                continue
            target = fresh / dest_uri
            folders.make(target.parent)
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
            pages[src_uri] = [self.digests[src_uri], dest_uri]
        record = {
            "format": FORMAT,
            "key": build_key(Path(config.config_file_path)),
            "values": BuildValues.of(config).__dict__,
            "parts": dict(sorted(SHARED_PARTS.items())),
            "pages": pages,
        }
        (self.project_dir / CACHE_RECORD).unlink(missing_ok=True)  # no record of pages being replaced
        shutil.rmtree(self.project_dir / CACHE_DIR, ignore_errors=True)
        if fresh.exists():
            os.rename(fresh, self.project_dir / CACHE_DIR)
        (self.project_dir / CACHE_RECORD).write_text(json.dumps(record, sort_keys=True) + "\n", encoding="utf-8")


def _unmodified() -> bool:
    return False


class Folders:
    """The folders one build has made, so that writing many files into few folders asks the
    file system for each folder once, not once a file."""

    def __init__(self) -> None:
        self.made: set[str] = set()

    def make(self, folder: str | Path) -> None:
        folder = str(folder)
        if folder not in self.made:
            os.makedirs(folder, exist_ok=True)
            self.made.add(folder)


def linked_copy(file: Any, folders: Folders) -> Any:
    """MkDocs' `File.copy_file` for `file`, linking its source into the site (a copy where
    the file system cannot link, as across devices); `folders`: those this build made."""

    def copy_file(dirty: bool = False) -> None:
        target = file.abs_dest_path
        folders.make(os.path.dirname(target))
        try:
            os.link(file.abs_src_path, target)
        except OSError:
            shutil.copyfile(file.abs_src_path, target)

    return copy_file


def _names_any(path: Path, names: list[bytes]) -> bool:
    """Whether a page's Markdown holds any of these file names (a link to a page holds its name)."""
    text = path.read_bytes()
    return any(name in text for name in names)


def _parts_known(page: str, parts: dict[str, str]) -> bool:
    return all((icon or script) in parts for icon, script in SHARED_REFERENCE.findall(page))


def build_key(config_path: Path) -> str:
    """What every page of a build depends on besides its own Markdown and `BuildValues`."""
    digest = hashlib.sha256(FORMAT.encode())
    digest.update(BUILD_VALUES.sub(r"\1:", config_path.read_text(encoding="utf-8")).encode("utf-8"))
    overrides = config_path.parent / "overrides"
    for path in sorted(overrides.rglob("*")) if overrides.is_dir() else []:
        if path.is_file():
            digest.update(f"\0{path.relative_to(overrides).as_posix()}\0".encode() + path.read_bytes())
    for module in HOOK_MODULES:
        digest.update(Path(module.__file__).read_bytes())
    for package in PAGE_PACKAGES:
        try:
            digest.update(f"\0{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"\0{package}=-".encode())
    return digest.hexdigest()


def _digest(path: Path, commit: str) -> str:
    """A page's Markdown's SHA-256, its source links' commit left out (`rebased` puts it back)."""
    text = path.read_bytes()
    return hashlib.sha256(text.replace(source_commit(commit).encode(), b"/blob/-/") if commit else text).hexdigest()


def _read_record(project_dir: Path) -> dict | None:
    return read_tagged_json(project_dir / CACHE_RECORD, "format", FORMAT)


class DirtyWarningFilter(logging.Filter):
    """Drops MkDocs' warning that a dirty build is performed: this one is exact, and under
    `--strict` the warning would fail it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(DIRTY_WARNING)
