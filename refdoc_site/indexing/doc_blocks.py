"""Prose docs (reStructuredText and Markdown) read into typed blocks: paragraphs, code,
lists, quotes, admonitions, tables, each holding text and inline parts.

The file page shows a doc's sections as prose from these blocks (`rendering/doc_markdown.py`,
where every text is escaped), and a section's summary is its first sentence
(`plain_text`). reStructuredText goes through docutils with file inclusion and raw
output disabled; the roles and directives Sphinx adds, which docutils does not know, are
registered as they are met: a cross-reference role (`:func:`, `:ref:`, `:doc:`) becomes a
name, label or document part that the page may link, a directive that only configures
Sphinx (`.. currentmodule::`, `.. autoclass::`) becomes nothing, a version note an
admonition. Markdown goes through Python-Markdown, and of the HTML it makes only the tags
a block here stands for are read: a document's own raw HTML is dropped, its text kept.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

InlineKind = Literal["text", "code", "emphasis", "strong", "link", "name", "ref", "doc"]


@dataclass(frozen=True)
class Inline:
    """A run of text inside a block."""

    kind: InlineKind
    text: str = ""
    target: str = ""
    """A link's URL as written, a code name's qualified name, a `:ref:` label or a `:doc:` path."""
    children: tuple[Inline, ...] = ()
    """The text of an emphasis, strong or link, as inline parts."""


@dataclass
class Block:
    """One block of a doc's section."""

    kind: Literal["paragraph", "code", "list", "quote", "admonition", "table", "rule", "term"]
    inlines: list[Inline] = field(default_factory=list)
    """A paragraph's or a term's text, an admonition's argument (a version, a title)."""
    code: str = ""
    language: str = ""
    ordered: bool = False
    items: list[list[Block]] = field(default_factory=list)
    """A list's items, a quote's or an admonition's or a term's body (one item)."""
    rows: list[list[list[Inline]]] = field(default_factory=list)
    """A table's rows of cells, the header first."""
    name: str = ""
    """An admonition's kind (`note`, `warning`, `versionadded`, …)."""


@dataclass
class DocSection:
    """A doc chunk read: its title (None before the first heading) and its blocks."""

    title: list[Inline] | None
    blocks: list[Block]


KEPT = None
"""Where reStructuredText sections read are kept for the next phase (`doc_cache.KeptSections`),
set within `doc_cache.reading_once`; None reads every section afresh."""


def read_section(text: str, language: str) -> DocSection:
    """A section chunk's text as blocks; a text docutils or Markdown cannot read is kept as
    one code block, so nothing of it is lost and none of it is markup. A reST section read
    before in this build (`KEPT`) is not read again."""
    # lazy: the Markdown reader imports this module's records
    from .markdown_blocks import markdown_section

    kept = KEPT if language == "restructuredtext" else None
    found = kept.get(text) if kept is not None else None
    if found is not None:
        return found
    try:
        section = rst_section(text) if language == "restructuredtext" else markdown_section(text)
    except Exception:  # a parser's failure on odd input must not lose the page
        return DocSection(None, [Block("code", code=text, language="text")])
    if kept is not None:
        kept.put(text, section)
    return section


def plain_text(section: DocSection) -> str:
    """The section's prose as text, paragraphs apart by blank lines (for a summary)."""
    return "\n\n".join(_plain(block) for block in _prose_blocks(section.blocks) if _plain(block))


def inline_text(parts: list[Inline] | tuple[Inline, ...]) -> str:
    return "".join(part.text if not part.children else inline_text(part.children) for part in parts)


def _prose_blocks(blocks: list[Block]):
    for block in blocks:
        if block.kind == "paragraph":
            yield block
        elif block.kind in ("list", "quote", "term"):
            for item in block.items:
                yield from _prose_blocks(item)


def _plain(block: Block) -> str:
    text = " ".join(inline_text(block.inlines).split())
    return text


# --- reStructuredText ---------------------------------------------------------------------

ROLE_USE = re.compile(r":([A-Za-z][\w.+:-]*?):`")
DIRECTIVE_USE = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w.+:-]*)::", re.MULTILINE)
CODE_ROLES = frozenset(
    "func class meth attr data exc obj mod const type var member function method attribute "
    "exception module object enum struct macro envvar option program command file samp "
    "makevar confval kbd".split()
)
"""Roles whose text is code: Python's and the other domains' cross-references, files, keys."""
NAME_ROLES = frozenset("func class meth attr data exc obj mod const function method attribute exception module object".split())
"""Of those, the ones naming a definition the page may link."""
SPHINX_ADMONITIONS = {
    "versionadded": "versionadded",
    "versionchanged": "versionchanged",
    "deprecated": "deprecated",
    "versionremoved": "deprecated",
    "seealso": "seealso",
}
"""Sphinx directives shown as an admonition, by the label their title takes."""
SPHINX_CONTENT_DIRECTIVES = frozenset({"only", "tabs", "tab", "tab-set", "tab-item", "group-tab", "centered", "hlist"})
"""Sphinx directives whose content is the document's own text."""
SPHINX_CODE_DIRECTIVES = frozenset({"code-block", "sourcecode", "literalinclude-text"})

_registered: set[str] = set()


def rst_section(text: str) -> DocSection:
    # lazy: docutils is read only for reStructuredText files, in the index workers and the render
    from docutils import nodes
    from docutils.utils import new_document

    _register_sphinx_markup(text)
    parser, settings = _rst_parser()
    document = new_document("<doc>", copy.copy(settings))
    parser.parse(text, document)
    title: list[Inline] | None = None
    body = list(document.children)
    sections = [child for child in body if isinstance(child, nodes.section)]
    if sections and not any(isinstance(child, (nodes.paragraph, nodes.literal_block)) for child in body[: body.index(sections[0])]):
        section = sections[0]
        heading = next((c for c in section.children if isinstance(c, nodes.title)), None)
        title = _rst_inlines(heading.children) if heading is not None else None
        body = body[: body.index(section)] + [c for c in section.children if not isinstance(c, nodes.title)] + body[body.index(section) + 1 :]
    return DocSection(title, _rst_blocks(body))


@lru_cache(maxsize=1)
def _rst_parser():
    """docutils' parser and its settings, made once rather than for every section (as
    `publish_doctree` would). Its transforms are not needed: a role's or an embedded
    link's target is set as it is parsed."""
    # lazy: see rst_section
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    settings = get_default_settings(Parser)
    for name, value in RST_SETTINGS.items():
        setattr(settings, name, value)
    return Parser(), settings


RST_SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": False,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "syntax_highlight": "none",
    "character_level_inline_markup": False,
}
"""Quiet, and never reading a file (`.. include::`) or passing markup through (`.. raw::`)."""


def _register_sphinx_markup(text: str) -> None:
    """Register each role and directive the text uses that docutils does not know."""
    # lazy: see rst_section
    from docutils.parsers.rst import directives, roles
    from docutils.parsers.rst.languages import en

    for name in set(ROLE_USE.findall(text)):
        key = name.lower()
        if key in _registered or key in roles._roles or key in roles._role_registry or key in en.roles:
            continue
        roles.register_local_role(key, _sphinx_role)
        _registered.add(key)
    for name in set(DIRECTIVE_USE.findall(text)):
        key = name.lower()
        if key in _registered or key in directives._directive_registry or key in directives._directives or key in en.directives:
            continue
        directives.register_directive(key, _sphinx_directive(key))
        _registered.add(key)


ROLE_TITLE = re.compile(r"^(.*?)\s*<([^<>]*)>$", re.DOTALL)


def _sphinx_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """A Sphinx role as a name, a label or a document reference, or text."""
    # lazy: see rst_section
    from docutils import nodes

    role = name.lower().rsplit(":", 1)[-1]
    shown, target = text, text
    titled = ROLE_TITLE.match(text)
    if titled and titled.group(1):
        shown, target = titled.group(1), titled.group(2)
    target = target.lstrip("!")
    if not titled:
        shown = shown.lstrip("!")
        if shown.startswith("~"):
            shown = shown[1:].lstrip(".").rsplit(".", 1)[-1]
        elif shown.startswith("."):
            shown = shown[1:]
        target = target.lstrip("~")
    target = target.lstrip(".")
    if role in ("ref", "doc", "term", "numref", "any", "keyword", "token", "pep", "rfc", "issue", "pr", "user", "gh", "ghissue"):
        node = nodes.reference(rawtext, shown)
        node["refdoc_kind"] = role if role in ("ref", "doc") else ""
        node["refdoc_target"] = target if role in ("ref", "doc") else ""
        return [node], []
    if role in CODE_ROLES:
        node = nodes.literal(rawtext, shown)
        if role in NAME_ROLES and not text.startswith("!"):
            node["refdoc_target"] = target
        return [node], []
    return [nodes.Text(shown)], []


def _sphinx_directive(name: str):
    """A directive class for a Sphinx directive docutils lacks."""
    # lazy: see rst_section
    from docutils import nodes
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList

    class SphinxDirective(Directive):
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = None  # any option is accepted and ignored

        def run(self):
            argument = self.arguments[0] if self.arguments else ""
            if name in SPHINX_CODE_DIRECTIVES:
                block = nodes.literal_block("\n".join(self.content), "\n".join(self.content))
                block["language"] = argument
                return [block]
            if name in SPHINX_ADMONITIONS:
                node = nodes.admonition()
                node["refdoc_kind"] = SPHINX_ADMONITIONS[name]
                version, _, said = argument.partition("\n") if name != "seealso" else ("", "", argument)
                node["refdoc_argument"] = " ".join(version.split())
                content = StringList([said], self.content.source(0) if self.content else "") if said.strip() else StringList()
                content.extend(self.content)
                self.state.nested_parse(content, self.content_offset, node)
                return [node]
            if name in SPHINX_CONTENT_DIRECTIVES:
                node = nodes.container()
                self.state.nested_parse(self.content, self.content_offset, node)
                return [node]
            if name.startswith("auto") and argument.strip():  # autodoc: the definition it documents, by name
                target = argument.splitlines()[0].split("(", 1)[0].strip()
                name_node = nodes.literal(target, target)
                name_node["refdoc_target"] = target
                return [nodes.paragraph("", "", name_node)]
            return []  # configuration (currentmodule, module, toctree, …): no text

    SphinxDirective.__name__ = f"Sphinx_{re.sub(r'[^0-9A-Za-z]', '_', name)}"
    return SphinxDirective


ADMONITION_NODES = ("note", "warning", "tip", "important", "caution", "danger", "attention", "hint", "error", "admonition", "seealso")


def _rst_blocks(children) -> list[Block]:
    # lazy: see rst_section
    from docutils import nodes

    blocks: list[Block] = []
    for node in children:
        if isinstance(node, (nodes.system_message, nodes.comment, nodes.target, nodes.substitution_definition, nodes.raw, nodes.pending, nodes.image, nodes.figure, nodes.problematic)):
            continue
        if isinstance(node, nodes.title):
            blocks.append(Block("paragraph", [Inline("strong", children=tuple(_rst_inlines(node.children)))]))
        elif isinstance(node, nodes.section):
            blocks += _rst_blocks(node.children)
        elif isinstance(node, (nodes.paragraph, nodes.rubric, nodes.line)):
            inlines = _rst_inlines(node.children)
            if inline_text(inlines).strip():
                blocks.append(Block("paragraph", [Inline("strong", children=tuple(inlines))] if isinstance(node, nodes.rubric) else inlines))
        elif isinstance(node, nodes.doctest_block):
            blocks.append(Block("code", code=node.astext(), language="pycon"))
        elif isinstance(node, nodes.literal_block):
            classes = [c for c in node.get("classes", []) if c != "code"]
            language = node.get("language") or (classes[0] if classes else "")
            code = node.astext()
            blocks.append(Block("code", code=code, language=language or _literal_language(code)))
        elif isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            items = [_rst_blocks(item.children) for item in node.children if isinstance(item, nodes.list_item)]
            blocks.append(Block("list", ordered=isinstance(node, nodes.enumerated_list), items=items))
        elif isinstance(node, (nodes.definition_list, nodes.field_list, nodes.option_list)):
            blocks += _rst_terms(node)
        elif isinstance(node, nodes.block_quote):
            inner = _rst_blocks(node.children)
            if inner:
                blocks.append(Block("quote", items=[inner]))
        elif isinstance(node, nodes.Admonition) or node.tagname in ADMONITION_NODES:
            kind = node.get("refdoc_kind") or node.tagname
            argument = node.get("refdoc_argument", "")
            inner = [c for c in node.children if not isinstance(c, nodes.title)]
            heading = next((c for c in node.children if isinstance(c, nodes.title)), None)
            title = _rst_inlines(heading.children) if heading is not None else ([Inline("text", argument)] if argument else [])
            blocks.append(Block("admonition", title, name=kind, items=[_rst_blocks(inner)]))
        elif isinstance(node, nodes.table):
            rows = [[_cell(entry) for entry in row.children] for row in node.findall(nodes.row)]
            if rows:
                blocks.append(Block("table", rows=rows))
        elif isinstance(node, nodes.transition):
            blocks.append(Block("rule"))
        elif isinstance(node, nodes.line_block):
            lines = [_rst_inlines(line.children) for line in node.findall(nodes.line)]
            blocks += [Block("paragraph", inlines) for inlines in lines if inline_text(inlines).strip()]
        elif isinstance(node, nodes.Element):
            blocks += _rst_blocks(node.children)
    return blocks


def _literal_language(code: str) -> str:
    """A `::` block's language, as Sphinx highlights it by default: a Python session, Python
    when it parses as Python, else plain text (a shell command, a config file)."""
    if code.lstrip().startswith(">>>"):
        return "pycon"
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return ""
    return "python"


def _rst_terms(node) -> list[Block]:
    # lazy: see rst_section
    from docutils import nodes

    blocks = []
    for item in node.children:
        names = [c for c in item.children if isinstance(c, (nodes.term, nodes.field_name, nodes.option_group))]
        bodies = [c for c in item.children if isinstance(c, (nodes.definition, nodes.field_body, nodes.description))]
        term = [part for name in names for part in _rst_inlines(name.children)]
        body = [block for b in bodies for block in _rst_blocks(b.children)]
        blocks.append(Block("term", term, items=[body]))
    return blocks


def _cell(entry) -> list[Inline]:
    # lazy: see rst_section
    from docutils import nodes

    parts: list[Inline] = []
    for paragraph in entry.findall(nodes.paragraph):
        if parts:
            parts.append(Inline("text", " "))
        parts += _rst_inlines(paragraph.children)
    return parts or [Inline("text", entry.astext())]


def _rst_inlines(children) -> list[Inline]:
    # lazy: see rst_section
    from docutils import nodes

    parts: list[Inline] = []
    for node in children:
        if isinstance(node, (nodes.system_message, nodes.target, nodes.footnote_reference, nodes.substitution_reference, nodes.image, nodes.raw)):
            continue
        if isinstance(node, nodes.Text):
            parts.append(Inline("text", str(node)))
        elif isinstance(node, nodes.literal):
            target = node.get("refdoc_target", "")
            parts.append(Inline("name" if target else "code", node.astext(), target))
        elif isinstance(node, nodes.emphasis) or isinstance(node, nodes.title_reference):
            parts.append(Inline("emphasis", children=tuple(_rst_inlines(node.children))))
        elif isinstance(node, nodes.strong):
            parts.append(Inline("strong", children=tuple(_rst_inlines(node.children))))
        elif isinstance(node, nodes.reference):
            kind = node.get("refdoc_kind", "")
            if kind in ("ref", "doc"):
                parts.append(Inline(kind, node.astext(), node["refdoc_target"]))
            elif node.get("refuri"):
                parts.append(Inline("link", target=node["refuri"], children=tuple(_rst_inlines(node.children))))
            else:
                parts += _rst_inlines(node.children)
        elif isinstance(node, nodes.problematic):
            parts.append(Inline("text", node.astext()))
        elif isinstance(node, nodes.Element):
            parts += _rst_inlines(node.children)
    return parts
