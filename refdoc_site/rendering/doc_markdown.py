"""A prose doc's sections (indexing/doc_blocks.py) as the Markdown of its file page.

Nothing of the document reaches the page as markup: every text goes through
`escape_text`, every code through a span or fence it cannot close, and the only markup is
what this module writes (paragraphs, lists, quotes, tables, admonitions with titles from
the labels). A link is kept when it points to the web (`http`, `https`, `mailto`) or to a
page of this site (another indexed doc, a section's anchor, a definition): any other
target (`javascript:`, a file the site has no page for) leaves its text alone, so that
`mkdocs build --strict` finds no broken link.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..core.pages import chunk_anchor, file_page
from ..core.records import Chunk
from ..indexing.doc_blocks import Block, DocSection, Inline, inline_text, read_section
from .markup import _escape_inline, _fenced, code_span, escape_text, link_target

WEB_LINK = re.compile(r"^(?:https?://[^\s]+|mailto:[^\s]+)$", re.IGNORECASE)
FENCE_LANGUAGES = frozenset(
    "python py python3 pycon pytb bash sh shell console shell-session text none json yaml yml toml ini cfg "
    "html xml jinja html+jinja css javascript js typescript ts sql diff rst markdown md go rust java c cpp "
    "docker dockerfile nginx apache make makefile".split()
)
"""Highlighting languages a fence may name; any other (the document's own words) is plain text."""
ADMONITION_TYPES = {
    "note": "note",
    "hint": "tip",
    "tip": "tip",
    "important": "info",
    "seealso": "info",
    "versionadded": "info",
    "versionchanged": "info",
    "deprecated": "warning",
    "warning": "warning",
    "caution": "warning",
    "attention": "warning",
    "danger": "danger",
    "error": "danger",
}
"""A docutils or Sphinx admonition by the Material admonition that shows it."""
INDENT = "    "


@dataclass
class DocLinks:
    """Where a doc's links lead on this site, from the page `here`."""

    path: str
    """The doc's repository path."""
    pages: dict[str, set[str]]
    """Every page of the site with the anchors on it."""
    doc_paths: dict[str, str]
    """Each indexed doc by its path without the suffix (`docs/quickstart`)."""
    labels: dict[str, tuple[str, str, str]]
    """Each reST label (`.. _label:`) by (file page, anchor, section title)."""
    link: Callable[[str, str], str]
    """A page and anchor as a URL from the current page."""
    name_url: Callable[[str], str]
    """A code name's URL, or ""."""

    def url(self, target: str) -> str:
        """A written link's URL on the page, or "" to show its text alone."""
        target = target.strip()
        if WEB_LINK.match(target):
            return link_target(target)
        if not target or re.match(r"^[A-Za-z][\w+.-]*:", target) or target.startswith(("//", "/")):
            return ""
        path, _, fragment = target.partition("#")
        page = file_page(posixpath.normpath(posixpath.join(posixpath.dirname(self.path), path))) if path else file_page(self.path)
        if page not in self.pages:
            return ""
        anchor = _section_anchor(fragment, self.pages[page]) if fragment else ""
        if not anchor and page == file_page(self.path):
            return ""  # a link to a heading this page does not have leads nowhere
        return self.link(page, anchor)

    def doc(self, target: str) -> str:
        """A `:doc:` target: relative to the doc, or from the docs' root when it starts with `/`."""
        top = self.path.split("/", 1)[0] if "/" in self.path else ""
        base = posixpath.join(top, target.lstrip("/")) if target.startswith("/") else posixpath.join(posixpath.dirname(self.path), target)
        found = self.doc_paths.get(posixpath.normpath(base))
        return self.link(file_page(found), "") if found else ""

    def ref(self, label: str) -> tuple[str, str]:
        """A `:ref:` label's URL and its section's title (what Sphinx shows without a title)."""
        place = self.labels.get(label.lower())
        return (self.link(place[0], place[1]), place[2]) if place and place[0] in self.pages else ("", "")


def _section_anchor(fragment: str, anchors: set[str]) -> str:
    """The anchor a written `#fragment` means: itself, or the section whose title it slugs
    (`#how-it-works` is this site's `chunk-Guide-How-it-works`), the shortest if several."""
    if fragment in anchors:
        return fragment
    wanted = re.sub(r"[\W_]+", "", fragment.lower())
    if not wanted:
        return ""
    matches = [a for a in anchors if re.sub(r"[\W_]+", "", a.lower()).endswith(wanted)]
    return min(matches, key=lambda a: (len(a), a)) if matches else ""


REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S.*$", re.MULTILINE)
"""A Markdown link reference definition (`[npm-url]: https://…`): often at the end of the
file, far from the section that uses it."""


RST_LABEL = re.compile(r"^\.\. _([^:`]+|`[^`]+`):\s*$")


def rst_labels(path: str, chunks: list[Chunk]) -> dict[str, tuple[str, str, str]]:
    """Each `.. _label:` of a reST doc by the section it stands before: the next chunk's
    anchor (a label sits at the end of the section before its own)."""
    ordered = sorted((c for c in chunks if c.part <= 1), key=lambda c: c.start_line)
    found: dict[str, tuple[str, str, str]] = {}
    for index, chunk in enumerate(ordered):
        for line in chunk.content.split("\n"):
            match = RST_LABEL.match(line)
            if match:
                following = ordered[index + 1] if index + 1 < len(ordered) else chunk
                found.setdefault(match.group(1).strip("`").lower(), (file_page(path), chunk_anchor(following.symbol), following.name))
    return found


def title_markdown(section: DocSection, fallback: str) -> str:
    """A section's heading text: its title's words and code, no links."""
    if not section.title:
        return escape_text(fallback)
    return _inlines(section.title, None).strip() or escape_text(fallback)


def blocks_markdown(blocks: list[Block], links: DocLinks, labels: dict, show_code: bool = True) -> str:
    """The blocks as Markdown, one blank line apart."""
    written = [_block(block, links, labels, show_code) for block in blocks]
    return "\n\n".join(text for text in written if text.strip())


def _block(block: Block, links: DocLinks, labels: dict, show_code: bool) -> str:
    if block.kind == "paragraph":
        return _inlines(block.inlines, links).strip()
    if block.kind == "code":
        if not show_code or not block.code.strip():
            return ""
        language = block.language.lower() if block.language.lower() in FENCE_LANGUAGES else "text"
        return _fenced(block.code, language)
    if block.kind == "list":
        return _list(block, links, labels, show_code)
    if block.kind == "quote":
        inner = blocks_markdown(block.items[0] if block.items else [], links, labels, show_code)
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n")) if inner else ""
    if block.kind == "admonition":
        kind = ADMONITION_TYPES.get(block.name, "note")
        title = labels.get(block.name, "")
        argument = _inlines(block.inlines, None).strip()
        heading = " ".join(part for part in (title, argument) if part).replace('"', "&quot;")
        inner = blocks_markdown(block.items[0] if block.items else [], links, labels, show_code)
        if not inner and not heading:
            return ""
        head = f'!!! {kind} "{heading}"' if heading else f"!!! {kind}"
        return head + ("\n\n" + _indented(inner) if inner else "")
    if block.kind == "table":
        return _table(block, links)
    if block.kind == "term":
        term = _inlines(block.inlines, links).strip()
        inner = blocks_markdown(block.items[0] if block.items else [], links, labels, show_code)
        head = f"**{term}**" if term else ""
        return "\n\n".join(part for part in (head, _indented_quote(inner)) if part)
    if block.kind == "rule":
        return "---"
    return ""


def _list(block: Block, links: DocLinks, labels: dict, show_code: bool) -> str:
    items = []
    for number, item in enumerate(block.items, start=1):
        parts = [_block(b, links, labels, show_code) for b in item]
        parts = [p for p in parts if p.strip()]
        if not parts:
            continue
        marker = f"{number}. " if block.ordered else "- "
        if item and item[0].kind != "paragraph":
            parts.insert(0, "&#8203;")
        first, rest = parts[0], parts[1:]
        text = marker + first.replace("\n", "\n" + INDENT)
        if rest:
            text += "\n\n" + "\n\n".join(_indented(p) for p in rest)
        items.append(text)
    loose = any(len(item) > 1 for item in block.items)
    return ("\n\n" if loose else "\n").join(items)


def _table(block: Block, links: DocLinks) -> str:
    """A Markdown table; one without a header row gets an empty one (Markdown needs it)."""
    width = max(len(row) for row in block.rows)
    rows = block.rows if len(block.rows) > 1 else [[[] for _ in range(width)], *block.rows]
    lines = []
    for index, row in enumerate(rows):
        cells = [_inlines(cell, links).strip() or " " for cell in row] + [" "] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if index == 0:
            lines.append("|" + " --- |" * width)
    return "\n".join(lines)


def _indented(text: str) -> str:
    return "\n".join(INDENT + line if line else "" for line in text.split("\n"))


def _indented_quote(text: str) -> str:
    """A definition's body under its term, set off as Material sets a quote."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n")) if text else ""


def _inlines(parts: list[Inline] | tuple[Inline, ...], links: DocLinks | None) -> str:
    out = []
    for part in parts:
        if part.kind == "text":
            out.append(_escape_inline(part.text))
        elif part.kind == "code":
            out.append(code_span(part.text))
        elif part.kind == "name":
            url = links.name_url(part.target) if links else ""
            out.append(f"[{code_span(part.text)}]({url})" if url else code_span(part.text))
        elif part.kind in ("ref", "doc"):
            url, title = (links.ref(part.target) if part.kind == "ref" else (links.doc(part.target), "")) if links else ("", "")
            text = escape_text(title if title and part.text == part.target else part.text)
            out.append(f"[{text}]({url})" if url and text else text)
        elif part.kind in ("emphasis", "strong"):
            out.append(_wrapped(part, "*" if part.kind == "emphasis" else "**", links))
        elif part.kind == "link":
            inner = _inlines(part.children, None).strip() or escape_text(part.target)
            url = links.url(part.target) if links else ""
            out.append(f"[{inner}]({url})" if url else inner)
    return "".join(out)


def _wrapped(part: Inline, marker: str, links: DocLinks | None) -> str:
    inner = _inlines(part.children, links)
    text = inner.strip()
    if not text:
        return inner
    raw = inline_text(part.children)
    before = " " if raw[:1].isspace() else ""
    after = " " if raw[-1:].isspace() else ""
    return f"{before}{marker}{text}{marker}{after}"


PROSE_LANGUAGES = frozenset({"markdown", "restructuredtext"})
"""Doc languages whose file page is the document as prose (`templates/doc.md.jinja2`)."""


@dataclass
class DocPart:
    """One section of a doc page: its heading and its text as Markdown."""

    level: int
    heading: str
    anchor: str
    body: str


@dataclass
class DocPage:
    """A prose doc as its page shows it."""

    title: DocPart | None
    """The doc's one top-level section, which heads the page; None when it has several
    (or none), and the page's heading is the path."""
    intro: str
    """The text before the first title."""
    parts: list[DocPart]


def doc_page(
    path: str,
    sections: list,
    pages: dict[str, set[str]],
    doc_paths: dict[str, str],
    labels_by_name: dict[str, tuple[str, str, str]],
    link: Callable[[str, str], str],
    name_url: Callable[[object], Callable[[str], str]],
    directive_labels: dict,
    show_code: bool,
) -> DocPage:
    """The doc's sections (writing/sections.py's `PageSection`s, windows merged) as a page:
    the title levels of the doc, shifted so that a doc with one top-level title has it as
    the page's heading and its next level as the page's sections."""
    intro: list[str] = []
    read = []
    references = "\n".join(m.group(0) for section in sections if section.chunk.language == "markdown" for m in REFERENCE_DEFINITION.finditer(section.chunk.content))
    for section in sections:
        chunk = section.chunk
        parsed = read_section(f"{chunk.content}\n\n{references}" if references else chunk.content, chunk.language)
        links = DocLinks(path, pages, doc_paths, labels_by_name, link, name_url(section))
        body = blocks_markdown(parsed.blocks, links, directive_labels, show_code)
        if chunk.symbol == posixpath.basename(path) and chunk.start_line == 1 and parsed.title is None:
            intro.append(body)  # the text before the first title
            continue
        level = chunk.symbol.count(" > ") + 1  # the chunker's titles are the anchors the site links
        read.append(DocPart(level, title_markdown(parsed, chunk.name), chunk_anchor(chunk.symbol), body))
    top = [part for part in read if part.level == 1]
    title = top[0] if len(top) == 1 and read and read[0] is top[0] else None
    shift = 0 if title is not None else 1
    parts = [DocPart(min(part.level + shift, 6), part.heading, part.anchor, part.body) for part in read if part is not title]
    return DocPage(title, "\n\n".join(text for text in intro if text), parts)
