"""The prose pages in the site's search: the overview, module pages, decision log and plans,
one search row per section.

These pages are rendered Markdown, not stored chunks, so their sections are cut here from
the page text and become documents of kind `page`, ranked with the code. The heading ids
come from Python-Markdown's own `toc` extension, run with the extensions the site's
`mkdocs.yml` lists, so a result lands on the anchor MkDocs writes. Code blocks (Mermaid
diagrams, examples) and maps' SVG drawings are left out of a section's text: the code itself is indexed as code.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import markdown

from ..core.errors import StoreError
from ..core.records import Chunk, ChunkKind, ChunkSummary, Document, Metadata
from ..core.serial import from_json
from ..core.store import Store

EXTENSIONS = ["attr_list", "md_in_html", "admonition", "tables", "toc", "pymdownx.details", "pymdownx.superfences"]
"""The Markdown extensions of `mkdocs.yml.template` that shape headings and their ids."""
HEADING_RE = re.compile(r'<h([1-6]) id="([^"]*)"[^>]*>(.*?)</h\1>', re.S)
CODE_BLOCK_RE = re.compile(r"<pre\b.*?</pre>|<svg\b.*?</svg>", re.S)
"""Code blocks, and the component maps' drawings: names to click, not prose to search."""
TAG_RE = re.compile(r"<[^>]+>")
SUMMARY_CHARS = 200
"""A section's text shown under its heading in a result."""
SECTIONS_NAME = "render-sections.json"
"""The prose pages' search sections, embedded, by the digest of each page's text and the
model, in the pages' order (the render writes it: `pipeline/render_phase.searched_sections`)."""


@dataclass(frozen=True)
class ProsePage:
    """A rendered page: its path in the MkDocs project, its title and its Markdown."""

    page: str
    title: str
    """'' where the page's first heading is its title."""
    text: str


def page_documents(pages: list[ProsePage]) -> list[Document]:
    """One document per section of each page (the text before the first heading belongs to
    the page's first heading, a page without headings is one section); a heading with no
    text under it is left out."""
    converter = markdown.Markdown(extensions=EXTENSIONS)
    documents = []
    for page in pages:
        converter.reset()
        documents.extend(_sections(page, converter.convert(page.text)))
    return documents


def _sections(page: ProsePage, page_html: str) -> list[Document]:
    headings = list(HEADING_RE.finditer(page_html))
    if not headings:
        text = _plain_text(page_html)
        return [_document(page.page, page.title, "", page.title, text)] if text else []
    page_title = page.title or _plain_text(headings[0].group(3))
    documents = []
    for number, heading in enumerate(headings):
        end = headings[number + 1].start() if number + 1 < len(headings) else len(page_html)
        start = heading.end() if number else 0
        text = _plain_text(page_html[start:end] if number else page_html[:end].replace(heading.group(0), " "))
        title = _plain_text(heading.group(3))
        if text:
            documents.append(_document(page.page, page_title, heading.group(2), title or page_title, text))
    return documents


def _plain_text(fragment: str) -> str:
    """A fragment of HTML as one line of text, without its code blocks."""
    return " ".join(html.unescape(TAG_RE.sub(" ", CODE_BLOCK_RE.sub(" ", fragment))).split())


def _document(page: str, page_title: str, anchor: str, heading: str, text: str) -> Document:
    """The page's title is the section's notes: it shows above the heading in a result and
    its words find the page's sections."""
    chunk = Chunk(
        id=f"{page}#{anchor}", path=page, language="markdown", kind=ChunkKind.PAGE, name=heading,
        symbol=heading, signature="", start_line=0, end_line=0, content=text,
    )
    summary = ChunkSummary(
        responsibility=_shortened(text), inputOutput="", sideEffects="", mainDependencies="", notes=page_title
    )
    return Document(chunk=chunk, summary=summary, metadata=Metadata(), embedding=[], indexedAt="")


def page_anchor(document: Document) -> str:
    """The heading id a page section's result lands on ('' for a page without headings)."""
    return document.chunk.id.partition("#")[2]


def _shortened(text: str) -> str:
    if len(text) <= SUMMARY_CHARS:
        return text
    return text[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"


# --- the sections the last render stored -------------------------------------------------


def stored_sections(store: Store, with_vectors: bool) -> list[Document]:
    """The prose pages' sections the last render gave the site's search, in its order: what
    `query`, `ask` and `mcp` rank beside the chunks, so that they rank what the browser does."""
    return sections_of(stored_by_digest(store), with_vectors)


def sections_of(kept: dict[str, list], with_vectors: bool) -> list[Document]:
    """The sections of `kept` (page digest → its sections), in its order; with vectors, those
    the model embedded (the site ships vectors for all or none)."""
    sections = [section for found in kept.values() for section in from_json(list[Document], found)]
    return [section for section in sections if section.embedding] if with_vectors else sections


def stored_by_digest(store: Store | None) -> dict[str, list]:
    """`SECTIONS_NAME` as stored; empty when there is none or it cannot be read (the next
    render writes it again)."""
    if store is None or not (store.directory / SECTIONS_NAME).is_file():
        return {}
    try:
        found = store.read_json(SECTIONS_NAME)
    except StoreError:
        return {}
    return found if isinstance(found, dict) else {}
