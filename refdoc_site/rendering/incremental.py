"""Incremental rendering: a file page is rendered and written only when the digest of what
it is rendered from changed since the pages on disk were written.

A file page's digest covers the site-wide inputs (`site_digest`: the templates, this
package's code, the configuration, the repository URL and commit the source links name,
the labels' language), its file's summary and documents (their vectors aside: no page
shows them), and what it shows of other files: each caller and callee of its definitions
(its path and symbol, or that it is gone) and where each code name of its docstrings links
(the target page and anchor, and whether that target is in the site). So a change in one
file re-renders its own page and the pages whose links or call lists it changes, nothing
else. The prose pages (overview, decisions, plans, modules) and the summaries are
rendered every time (they are few, and the search reads the prose pages' text), and
written only when their text changed.

The digests are kept in the store (`PAGES_NAME`) with every page that may be on disk;
before a page is written its digest is dropped from that record, so a render cut short
never leaves a digest claiming a page it did not write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import orjson

from ..core.pages import file_page
from ..core.reuse import digest
from ..core.serial import to_json
from ..writing.docstrings import Docstring
from .render import RenderedPage, SiteData, _Pages, docstring_parts, write_page

PAGES_NAME = "render-pages.json"
"""{"inputs": site digest, "pages": {page: digest, or "" for a page rendered every time or being written}}."""
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


def render_changed_pages(
    data: SiteData,
    docs_dir: Path,
    prose: list[RenderedPage],
    site: str,
    previous: dict[str, str],
    before_writing: Callable[[dict[str, str]], None],
) -> RenderedPages:
    """Render the prose pages given, the summaries, and each file page whose digest differs
    from `previous` (or whose file is missing); write those whose text changed; delete the
    pages of `previous` the site no longer has.

    `before_writing(record)` is called once before anything is written, with the record
    that is true whenever the writing stops: the unchanged pages' digests, and "" for every
    page that may be written or is still to be deleted.
    """
    pages = _Pages(data)
    digests = file_page_digests(pages, site)
    clean = {page for page, value in digests.items() if previous.get(page) == value and (docs_dir / page).is_file()}
    every = {page: "" for page in chain(previous, digests)} | {page: digests[page] for page in clean}
    before_writing(dict(sorted(every.items())))
    rendered = written = 0
    names = []
    for page, title, text in chain(prose, pages.reference(skip=clean)):
        rendered += 1
        written += write_page(docs_dir, page, title, text)
        names.append(page)
    current = set(names) | clean
    for stale in sorted(set(previous) - current):
        (docs_dir / stale).unlink(missing_ok=True)
    record = {page: digests.get(page, "") for page in sorted(current)}
    return RenderedPages(sorted(current), record, rendered, written)


def file_page_digests(pages: _Pages, site: str) -> dict[str, str]:
    """Each file page's digest (see the module's text)."""
    data = pages.data
    graph = data.graph
    digests = {}
    for path, summary in data.hierarchy.files.items():
        parts = [site, _json(to_json(summary))]
        for document in pages.by_path.get(path, []):
            chunk = document.chunk
            shown = to_json(document)
            for name in UNSHOWN_FIELDS:
                shown.pop(name, None)
            parts.append(_json(shown))
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


def code_names(parsed: Docstring) -> Iterator[str]:
    """The names a docstring's code parts link to (file.md.jinja2's `name_url` calls)."""
    for block in parsed.blocks:
        inlines = list(getattr(block, "inlines", []))
        for row in getattr(block, "rows", []):
            inlines.extend(row.description)
        yield from (part.target for part in inlines if not isinstance(part, str) and part.target)


def _json(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
