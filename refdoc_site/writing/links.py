"""Links: where a citation or a name in a written page points (a page of the site, an anchor).

The only module of the written pages that knows the site's page addresses.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.records import Document
from ..rendering.pages import SYSTEM_PAGE, chunk_anchor, file_page, module_page


@dataclass(frozen=True)
class Link:
    """Where a citation or a name points: a page of the site, an anchor on it, and what to show."""

    label: str
    page: str = ""
    """Docs-relative page (`files/app/x.py.md`), or "" when the source has no page (a commit)."""
    anchor: str = ""

    def to_dict(self) -> dict:
        return {"label": self.label, "page": self.page, "anchor": self.anchor}

    @classmethod
    def from_dict(cls, data: dict) -> Link:
        return cls(data["label"], data.get("page", ""), data.get("anchor", ""))


def chunk_link(document: Document) -> Link:
    chunk = document.chunk
    return Link(f"{chunk.path}:{chunk.start_line}–{chunk.end_line}", file_page(chunk.path), chunk_anchor(chunk.symbol, chunk.part))


def file_link(path: str) -> Link:
    return Link(path, file_page(path))


def module_link(name: str) -> Link:
    return Link(name, module_page(name))


def evidence_link(item: dict) -> Link:
    """An offline evidence or plan item (`label`, `path`, `anchor`, `module`) as a link."""
    if item.get("path"):
        return Link(item["label"], file_page(item["path"]), item.get("anchor", ""))
    if item.get("module"):
        return Link(item["label"], module_page(item["module"]))
    return Link(item["label"])


def system_link() -> Link:
    return Link("system summary", SYSTEM_PAGE)
