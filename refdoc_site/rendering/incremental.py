"""Incremental rendering: a file or module page is rendered and written only when the digest
of what it is rendered from changed since the pages on disk were written.

A file page's digest covers the site-wide inputs (`site_digest`: the templates, this
package's code, the configuration, the repository URL and commit the source links name,
the labels' language), its file's summary and documents (their vectors aside: no page
shows them), and what it shows of other files: each caller and callee of its definitions
(its path and symbol, or that it is gone) and where each code name of its docstrings links
(the target page and anchor, and whether that target is in the site); a prose doc's page
covers where its links, labels, doc references and code names lead. So a change in one
file re-renders its own page and the pages whose links or call lists it changes, nothing
else. A module page's digest covers its summary, its map and its files' summaries
and documents; an unchanged one's text is read back from its file for the search. The
overview, decisions, plans and summaries are rendered every time (they are few) and
written only when their text changed.

The digests are kept in the store (`PAGES_NAME`) with every page that may be on disk;
before a page is written its digest is dropped from that record, so a render cut short
never leaves a digest claiming a page it did not write.

The commit the source links name is not in the digests: every commit would render every
file page again (homeassistant: 12,000 pages, a minute). The record says which commit the
pages on disk link at; after a new commit, an unchanged page is rewritten with its links
at the new one (`relinked`: `/blob/<old>/` becomes `/blob/<new>/`, all a page holds of the
commit), the bytes a render of it at that commit writes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import orjson

from ..core.pages import file_page, module_page
from ..core.reuse import digest
from ..core.serial import to_json
from ..understanding.components import module_id
from ..writing.docstrings import Docstring
from .doc_markdown import PROSE_LANGUAGES
from .corrected import corrected_sections_only, section_pages
from .llms import without_front_matter
from .render import RenderedPage, SiteData, _Pages, docstring_parts, page_file, source_commit, write_page

PAGES_NAME = "render-pages.json"
"""{"inputs": site digest, "commit": the source links' commit, "pages": {page: digest, or ""
for a page rendered every time or being written}}."""
UNSHOWN_FIELDS = ("embedding", "indexedAt")
"""A document's fields no page shows: its vector, and when it was indexed."""


@dataclass
class RenderedPages:
    pages: list[str]
    """Every page of the site, sorted."""
    digests: dict[str, str]
    """Each page's digest ("" for a page rendered every time): the record to keep."""
    rendered: int
    written: int


class IncrementalRender:
    """One render of the site over the pages `previous` (the stored record) says are on disk."""

    def __init__(self, data: SiteData, docs_dir: Path, site: str, previous: dict[str, str], as_written: set[str], linked: str = "") -> None:
        self.pages = _Pages(data)
        self.relink = (source_commit(linked), source_commit(data.commit)) if linked and data.commit and linked != data.commit else None
        """The source links' commit on disk and now, when they differ (`linked`: the commit the pages of `previous` name)."""
        self.docs_dir = docs_dir
        self.site = site
        self.previous = previous
        self.as_written = as_written
        """The pages whose bytes on disk are as the last whole render wrote them
        (project_files.py): a page edited since, by anyone, is written again."""
        self.shown = {document.chunk.id: _json(_shown(to_json(document))) for document in data.documents}
        self.always = section_pages(data.corrections)
        """The pages a section correction is on: never clean (its state is of their text now)."""
        self.early: list[RenderedPage] = []
        """The file and component pages with a section correction, rendered with the prose."""
        self.digests: dict[str, str] = {}
        self.clean: set[str] = set()
        self.rendered = 0
        self._compare(module_page_digests(self.pages, site, self.shown))

    def _compare(self, digests: dict[str, str]) -> None:
        """Take in pages' digests; those that match `previous`, with their file there as
        written, are clean (but those a section correction is on)."""
        self.digests |= digests
        self.clean |= {page for page, value in digests.items() if self.previous.get(page) == value and page in self.as_written} - self.always

    def prose(self) -> list[RenderedPage]:
        """The prose pages (search reads their sections): an unchanged module page's text
        is read back from its file, the others rendered. Then the other pages a section
        correction is on are rendered (`early`): search reads their corrected sections."""
        prose = []
        for page, title, text in self.pages.prose(skip=self.clean):
            kept = _text_as_written(self.docs_dir / page, title) if page in self.clean and not text else None
            kept = self.relinked(kept) if kept is not None else None
            if kept is None and page in self.clean:
                self.clean.discard(page)  # not as written: render it
                text = next(t for p, _, t in self.pages.prose(only={page}))
            self.rendered += kept is None
            prose.append((page, title, text if kept is None else kept))
        self.early = list(self.pages.reference(only=self.always))
        self.rendered += len(self.early)
        return prose

    def relinked(self, text: str) -> str:
        """A page's text with its source links at this render's commit."""
        return text.replace(*self.relink) if self.relink else text

    def searched(self, prose: list[RenderedPage]) -> list[RenderedPage]:
        """What the search indexes of the pages: the prose pages whole, of the `early` ones
        the sections a correction is on."""
        placed = list(self.pages.sections_placed.values())
        return prose + [(page, title, corrected_sections_only(text, [v for v in placed if v.target.startswith(f"{page}#")])) for page, title, text in self.early]

    def write(self, prose: list[RenderedPage], before_writing: Callable[[dict[str, str]], None]) -> RenderedPages:
        """Write the prose pages and summaries whose text changed, render and write each file
        page whose digest changed; delete the pages of `previous` the site no longer has.

        `before_writing(record)` is called once before anything is written, with the record
        that is true whenever the writing stops: the unchanged pages' digests, and "" for
        every page that may be written or is still to be deleted.
        """
        self._compare(file_page_digests(self.pages, self.site, self.shown))  # while the search data is written
        every = {page: "" for page in chain(self.previous, self.digests)} | ({} if self.relink else {page: self.digests[page] for page in self.clean})
        before_writing(dict(sorted(every.items())))  # relinked pages are being written too
        written = 0
        for page in sorted(self.clean) if self.relink else ():
            path = self.docs_dir / page
            text = path.read_text(encoding="utf-8")
            moved = self.relinked(text)
            if moved != text:
                path.write_text(moved, encoding="utf-8")
                written += 1
        names = []
        for page, title, text in prose:
            written += page not in self.clean and write_page(self.docs_dir, page, title, text)
            names.append(page)
        early = {page for page, _, _ in self.early}
        for page, title, text in chain(self.early, self.pages.reference(skip=self.clean | early)):
            self.rendered += page not in early
            written += write_page(self.docs_dir, page, title, text)
            names.append(page)
        current = set(names) | self.clean
        for stale in sorted(set(self.previous) - current):
            (self.docs_dir / stale).unlink(missing_ok=True)
        record = {page: self.digests.get(page, "") for page in sorted(current)}
        return RenderedPages(sorted(current), record, self.rendered, written)


def file_page_digests(pages: _Pages, site: str, shown: dict[str, str]) -> dict[str, str]:
    """Each file page's digest (see the module's text); `shown` is each document's JSON
    without the fields no page shows, by chunk id."""
    data = pages.data
    graph = data.graph
    digests = {}
    for path, summary in data.hierarchy.files.items():
        parts = [site, _json(to_json(summary))]
        if summary.language in PROSE_LANGUAGES:
            parts.extend(doc_link_inputs(pages, path))
        for document in pages.by_path.get(path, []):
            chunk = document.chunk
            parts.append(shown[chunk.id])
            for edges in (graph.callers, graph.calls):
                for other in edges.get(chunk.id, []):
                    found = pages.by_id.get(other)
                    parts.append(f"{other}>{found.chunk.path}:{found.chunk.symbol}" if found else f"{other}>")
                parts.append(";")
            if chunk.docstring:
                for name in code_names(docstring_parts(chunk.docstring)):
                    target = pages.docstring_names.target(name, chunk.symbol, chunk.path)
                    parts.append(f"{name}>{target.page}#{target.anchor}:{pages.exists(target.page, target.anchor)}" if target else f"{name}>")
        digests[file_page(path)] = digest(*parts)
    return digests


WRITTEN_LINK = re.compile(r"\]\(\s*([^)\s]+)|<([^<>`\s]+)>`_|^ {0,3}\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
"""A link target a doc writes: Markdown's inline or reference link, reST's embedded URI."""
ROLE_TARGET = re.compile(r":([A-Za-z][\w.+:-]*?):`([^`]+)`|^[ \t]*\.\.[ \t]+(auto[\w:-]*)::[ \t]*([^\s(]+)", re.MULTILINE)
"""A reST role and its target, or an autodoc directive and the name it documents."""


def doc_link_inputs(pages: _Pages, path: str) -> Iterator[str]:
    """What a prose doc's page shows of other pages: where each link, label, doc and code
    name it writes leads (doc_markdown.py resolves them the same way)."""
    page = file_page(path)
    for document in pages.by_path.get(path, []):
        content = document.chunk.content
        for match in WRITTEN_LINK.finditer(content):
            target = next(group for group in match.groups() if group)
            linked = target.split("#", 1)[0]
            other = file_page(posixpath.normpath(posixpath.join(posixpath.dirname(path), linked))) if linked else page
            yield f"{target}>{other}:{','.join(sorted(pages.anchors.get(other, ()))) if other in pages.anchors else '-'}"
        for found_role, found_written, directive, documented in ROLE_TARGET.findall(content):
            role, written = (found_role, found_written) if found_role else (directive, documented)
            target = written.rsplit("<", 1)[-1].rstrip(">").strip("~!.")
            kind = role.lower().rsplit(":", 1)[-1]
            if kind == "ref":
                yield f"ref:{target}>{pages.doc_labels.get(target.lower())}"
            elif kind == "doc":
                yield f"doc:{target}>{sorted(pages.doc_paths.items())}"
            else:
                found = pages.docstring_names.target(target, document.chunk.symbol, path)
                yield f"{target}>{found.page}#{found.anchor}:{pages.exists(found.page, found.anchor)}" if found else f"{target}>"


def module_page_digests(pages: _Pages, site: str, shown: dict[str, str]) -> dict[str, str]:
    """Each module page's digest: the site-wide inputs, the module's summary and diagram,
    and the summaries and documents of its files (its tables and public API)."""
    files = pages.data.hierarchy.files
    digests = {}
    for name, module in pages.data.hierarchy.modules.items():
        parts = [site, _json(to_json(module)), pages.map_key(module_id(name))]
        for path in module.files:
            summary = files.get(path)
            parts.append(_json(to_json(summary)) if summary is not None else f"{path}>")
            parts.extend(shown.get(chunk_id, f"{chunk_id}>") for chunk_id in (summary.chunk_ids if summary is not None else []))
        digests[module_page(name)] = digest(*parts)
    return digests


def _shown(document_json: dict) -> dict:
    for name in UNSHOWN_FIELDS:
        document_json.pop(name, None)
    return document_json


def _text_as_written(path: Path, title: str | None) -> str | None:
    """A page file's text after its front matter, or None when the file is not what
    `write_page` writes for that text."""
    content = path.read_text(encoding="utf-8")
    text = without_front_matter(content)
    return text if content == page_file(title, text) else None


def code_names(parsed: Docstring) -> Iterator[str]:
    """The names a docstring's code parts link to (file.md.jinja2's `name_url` calls)."""
    for block in parsed.blocks:
        inlines = list(getattr(block, "inlines", []))
        for row in getattr(block, "rows", []):
            inlines.extend(row.description)
        yield from (part.target for part in inlines if not isinstance(part, str) and part.target)


def _json(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
