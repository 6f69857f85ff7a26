"""Markdown docs read into the blocks of `doc_blocks.py`: Python-Markdown (MkDocs' own)
makes HTML, of which only the tags a block stands for are read; a document's own raw HTML
is dropped, its text kept (and the contents of scripts, styles and frames dropped)."""

from __future__ import annotations

from html.parser import HTMLParser

from .doc_blocks import Block, DocSection, Inline, inline_text

DROPPED_WITH_CONTENT = frozenset({"script", "style", "template", "textarea", "title"})
"""Raw HTML whose content is no text of the document (and which HTML itself reads as raw
text up to its end tag); any other tag is left out and its text kept."""


def markdown_section(text: str) -> DocSection:
    # lazy: Python-Markdown (MkDocs' own) is read only for Markdown docs
    import markdown

    rendered = markdown.markdown(text, extensions=["fenced_code", "tables"], output_format="html")
    reader = _HtmlBlocks()
    reader.feed(rendered)
    reader.close()
    return DocSection(reader.title, reader.finish())


class _HtmlBlocks(HTMLParser):
    """The blocks of Python-Markdown's HTML; tags outside them are read as their text."""

    BLOCK_TAGS = frozenset({"p", "pre", "ul", "ol", "li", "blockquote", "table", "tr", "th", "td", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "dl", "dt", "dd"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[Inline] | None = None
        self.root: list[Block] = []
        self.containers: list[tuple[str, list[Block] | Block]] = [("root", self.root)]
        self.inline_stack: list[tuple[str, str, list[Inline]]] = []
        self.inlines: list[Inline] | None = None
        self.code: list[str] | None = None
        self.code_language = ""
        self.dropping = 0
        self.seen_block = False
        self.heading = ""
        self.row: list[list[Inline]] | None = None
        self.table: Block | None = None

    # where the next block goes
    def _body(self) -> list[Block]:
        kind, holder = self.containers[-1]
        if isinstance(holder, list):
            return holder
        if not holder.items:
            holder.items.append([])
        return holder.items[-1]

    def _open_inlines(self) -> None:
        if self.inlines is None:
            self.inlines = []
            self.inline_stack = []

    def _close_paragraph(self) -> None:
        if self.inlines is not None:
            while self.inline_stack:
                self._pop_inline()
            inlines = self.inlines
            self.inlines = None
            if inline_text(inlines).strip():
                if self.heading:
                    if self.title is None and not self.seen_block:
                        self.title = inlines
                    else:
                        self._body().append(Block("paragraph", [Inline("strong", children=tuple(inlines))]))
                else:
                    self._body().append(Block("paragraph", inlines))
                self.seen_block = True

    def _pop_inline(self) -> None:
        tag, href, parts = self.inline_stack.pop()
        target = self.inline_stack[-1][2] if self.inline_stack else self.inlines
        if tag == "a":
            target.append(Inline("link", target=href, children=tuple(parts)))
        elif tag == "code":
            target.append(Inline("code", inline_text(parts)))
        else:
            target.append(Inline("strong" if tag in ("strong", "b") else "emphasis", children=tuple(parts)))

    def _text(self, data: str) -> None:
        if self.dropping:
            return
        if self.code is not None:
            self.code.append(data)
            return
        if self.row is not None and self.inlines is None:
            return
        if self.inlines is None:
            if not data.strip():
                return
            self._open_inlines()
        (self.inline_stack[-1][2] if self.inline_stack else self.inlines).append(Inline("text", data))

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if self.dropping or tag in DROPPED_WITH_CONTENT:
            self.dropping += tag in DROPPED_WITH_CONTENT
            return
        if self.code is not None:
            if tag == "code":
                classes = (attributes.get("class") or "").split()
                self.code_language = next((c.removeprefix("language-") for c in classes if c.startswith("language-")), "")
            return
        if tag in ("p", "h1", "h2", "h3", "h4", "h5", "h6", "dt"):
            self._close_paragraph()
            self.heading = tag if tag.startswith("h") else ""
            self._open_inlines()
        elif tag == "pre":
            self._close_paragraph()
            self.code = []
            self.code_language = ""
        elif tag in ("ul", "ol"):
            self._close_paragraph()
            block = Block("list", ordered=tag == "ol")
            self._body().append(block)
            self.containers.append((tag, block))
        elif tag == "li":
            self._close_paragraph()
            kind, holder = self.containers[-1]
            if isinstance(holder, Block):
                holder.items.append([])
        elif tag == "blockquote":
            self._close_paragraph()
            block = Block("quote", items=[[]])
            self._body().append(block)
            self.containers.append((tag, block))
        elif tag == "table":
            self._close_paragraph()
            self.table = Block("table")
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.inlines = []
            self.inline_stack = []
        elif tag == "hr":
            self._close_paragraph()
            self._body().append(Block("rule"))
        elif tag == "br":
            self._text(" ")
        elif tag == "img":
            self._text(attributes.get("alt") or "")
        elif tag in ("a", "em", "i", "strong", "b", "code"):
            self._open_inlines()
            self.inline_stack.append((tag, attributes.get("href") or "" if tag == "a" else "", []))

    def handle_endtag(self, tag):
        if self.dropping:
            self.dropping -= tag in DROPPED_WITH_CONTENT
            return
        if self.code is not None:
            if tag == "pre":
                code = "".join(self.code).removesuffix("\n")
                self.code = None
                self._body().append(Block("code", code=code, language=self.code_language))
                self.seen_block = True
            return
        if tag in ("p", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "li", "dd"):
            self._close_paragraph()
            self.heading = ""
        elif tag in ("ul", "ol", "blockquote") and len(self.containers) > 1 and self.containers[-1][0] == tag:
            self._close_paragraph()
            self.containers.pop()
        elif tag in ("td", "th") and self.row is not None:
            while self.inline_stack:
                self._pop_inline()
            self.row.append(self.inlines or [])
            self.inlines = None
        elif tag == "tr" and self.table is not None and self.row is not None:
            self.table.rows.append(self.row)
            self.row = None
        elif tag == "table" and self.table is not None:
            if self.table.rows:
                self._body().append(self.table)
            self.table = None
        elif self.inline_stack and self.inline_stack[-1][0] == tag:
            self._pop_inline()

    def handle_data(self, data):
        self._text(data)

    def finish(self) -> list[Block]:
        self._close_paragraph()
        return self.root
