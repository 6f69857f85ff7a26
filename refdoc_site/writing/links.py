"""Links: where a citation or a name in a written page points (a page of the site, an anchor).

The only module of the written pages that knows the site's page addresses.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.findings import EvidenceLink, MilestoneItem
from ..core.pages import SYSTEM_PAGE, chunk_anchor, file_page, module_page
from ..core.records import Document


@dataclass(frozen=True)
class Link:
    """Where a citation or a name points: a page of the site, an anchor on it, and what to show."""

    label: str
    page: str = ""
    """Docs-relative page (`files/app/x.py.md`), or "" when the source has no page (a commit)."""
    anchor: str = ""


def chunk_link(document: Document) -> Link:
    chunk = document.chunk
    return Link(f"{chunk.path}:{chunk.start_line}–{chunk.end_line}", file_page(chunk.path), chunk_anchor(chunk.symbol))


def file_link(path: str) -> Link:
    return Link(path, file_page(path))


def module_link(name: str) -> Link:
    return Link(name, module_page(name))


def evidence_link(item: EvidenceLink | MilestoneItem) -> Link:
    """A decision's evidence or a measured fact of the offline plan as a link."""
    if item.path:
        return Link(item.label, file_page(item.path), item.anchor)
    if isinstance(item, MilestoneItem) and item.module:
        return Link(item.label, module_page(item.module))
    return Link(item.label)


def system_link() -> Link:
    return Link("system summary", SYSTEM_PAGE)
