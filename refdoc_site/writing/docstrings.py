"""Docstrings parsed into typed parts, so a file page can show them as prose, tables and code.

A docstring is written in one of a few conventions: Google (`Args:`), NumPy (`Parameters`
underlined with dashes), Sphinx fields (`:param x:`) or JSDoc tags (`@param {T} x`), with reST
roles (`:class:`~a.b.C``) and backticks inline and examples as `>>>` doctests, `::` literal
blocks or `@example`. The parser only finds the structure; it keeps every piece of text as
the repository wrote it, and the page escapes it (`templates/file.md.jinja2`): a docstring is
hostile input like any other text from the code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TABLE_SECTIONS = {
    "args": "parameters",
    "arguments": "parameters",
    "params": "parameters",
    "parameters": "parameters",
    "keyword args": "parameters",
    "keyword arguments": "parameters",
    "other parameters": "parameters",
    "attributes": "attributes",
    "returns": "returns",
    "return": "returns",
    "yields": "yields",
    "yield": "yields",
    "raises": "raises",
    "raise": "raises",
    "throws": "raises",
    "exceptions": "raises",
}
"""Section titles (Google and NumPy) whose entries become a table, by the table they fill."""
BLOCK_SECTIONS = {"example": "examples", "examples": "examples", "note": "notes", "notes": "notes",
                  "warning": "warnings", "warnings": "warnings", "see also": "see_also"}
"""Section titles whose body stays prose and code, under a title."""
SPHINX_FIELDS = {
    "param": "parameters",
    "parameter": "parameters",
    "arg": "parameters",
    "argument": "parameters",
    "key": "parameters",
    "keyword": "parameters",
    "type": "parameter_type",
    "returns": "returns",
    "return": "returns",
    "rtype": "return_type",
    "yields": "yields",
    "yield": "yields",
    "ytype": "yield_type",
    "raises": "raises",
    "raise": "raises",
    "except": "raises",
    "exception": "raises",
    "ivar": "attributes",
    "var": "attributes",
    "cvar": "attributes",
}
"""Sphinx field names (`:param x:`) by the table they fill; `*_type` fields fill a row's type."""
JSDOC_TAGS = {
    "param": "parameters",
    "arg": "parameters",
    "argument": "parameters",
    "property": "attributes",
    "prop": "attributes",
    "returns": "returns",
    "return": "returns",
    "yields": "yields",
    "yield": "yields",
    "throws": "raises",
    "throw": "raises",
    "exception": "raises",
}
"""JSDoc tags by the table they fill; `@example` is a code block."""
JSDOC_ACCESS_TAGS = frozenset({"public", "private", "protected", "package", "api", "access", "internal", "ignore"})
"""JSDoc tags that say who may call a definition (`@public`, `@api private`): the page's API
lists already say it, so the line is not shown."""
TABLE_ORDER = ("parameters", "attributes", "returns", "yields", "raises")
"""Where the types of a field list's rows live: the exception of a `raises` row is its type."""

GOOGLE_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*?):\s*$")
NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
SPHINX_FIELD = re.compile(r"^:(\w+)(?:\s([^:]*))?:(?:\s+(.*)|$)")
JSDOC_TAG = re.compile(r"^@(\w+)\b\s*(.*)$")
JSDOC_TYPE = re.compile(r"^\{((?:[^{}]|\{[^{}]*\})*)\}\s*")
GOOGLE_ENTRY = re.compile(r"^(\*{0,2}[\w.\[\]]+)\s*(?:\(((?:[^()]|\([^()]*\))*)\)\s*)?:\s*(.*)$")
NUMPY_NAME = re.compile(r"\*{0,2}[\w., *\[\]]+")
"""The `name` of a numpy entry's `name : type`, matched on the text before its first colon,
blanks stripped (an expression reading the blanks and the colon too re-read the blanks)."""
TYPE_LIKE = re.compile(r"^[\w.\[\], |]+$")
DIRECTIVE = re.compile(r"^\.\.\s+([\w:-]+)::\s*(.*)$")
"""A reST directive: `.. versionchanged:: 8.0`, `.. code-block:: python`, `.. note::`."""
CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "doctest"})
TEXT_DIRECTIVES = frozenset({"note", "warning", "seealso", "tip", "hint", "important", "caution", "attention", "danger"})
"""Directives whose first line is already their text, not an argument (`.. note:: Beware.`)."""
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
INLINE_CODE = re.compile(
    r":(?:[\w-]+:)?(?P<rolename>[\w-]+):`(?P<role>[^`]+)`"  # reST role: :class:`~a.b.C`, :py:func:`f`
    r"|``(?P<double>[^`]+?)``"  # reST literal
    r"|`(?P<single>[^`]+)`_{0,2}"  # interpreted text, Markdown code, reST link `x`_
    r"|\{@link(?:code|plain)?\s+(?P<link>[^}\s|]+)[^}]*\}"  # JSDoc {@link Name}
)
TEXT_ROLES = frozenset({"ref", "doc", "term", "abbr", "numref"})
"""reST roles that cite a place in the docs, not a name in the code: their title is text."""
MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
"""A Markdown heading in a doc comment (rustdoc's `# Examples`)."""
ROLE_TITLE = re.compile(r"^(.*?)(?<!\s)\s*<([^<>]+)>$")
"""A role with an explicit title: `:class:`the context <click.Context>``. The title ends
at a non-blank (the shortest title always does), so a run of blanks is read once, not
again from each of its blanks (a role of 10,000 blanks took 2.9 s)."""


@dataclass(frozen=True)
class Code:
    """An inline code name; `target` is the name to look up for a link ("" for none)."""

    code: str
    target: str = ""


Inline = str | Code
"""Prose is text and code names in reading order."""


@dataclass
class Paragraph:
    inlines: list[Inline]
    kind: str = "paragraph"


@dataclass
class CodeBlock:
    code: str
    language: str = ""
    """A highlighter's name, or "" for the definition's own language."""
    kind: str = "code"


@dataclass
class Title:
    """A section's title (`examples`, `notes`): a key of the pages' labels."""

    key: str
    kind: str = "title"


@dataclass
class Directive:
    """A reST directive other than code (`versionchanged`, `note`, `admonition`, …): its
    name, its argument (`8.0`, an admonition's title) and its body, parsed as a docstring
    (prose, literal blocks and doctests stay what they are)."""

    name: str
    argument: str
    blocks: list[Block]
    kind: str = "directive"


@dataclass
class FieldRow:
    name: str = ""
    type: str = ""
    description: list[Inline] = field(default_factory=list)


@dataclass
class FieldTable:
    """Parameters, attributes, returns, yields or raises (`key`), one row per entry."""

    key: str
    rows: list[FieldRow] = field(default_factory=list)
    kind: str = "table"

    @property
    def has_names(self) -> bool:
        return any(row.name for row in self.rows)

    @property
    def has_types(self) -> bool:
        return any(row.type for row in self.rows)


Block = Paragraph | CodeBlock | Title | Directive | FieldTable


@dataclass
class Docstring:
    blocks: list[Block] = field(default_factory=list)
    """The docstring's parts in its order, except the field tables: they follow the leading
    prose, before the first titled section or directive (examples, notes, version notes)."""


def parse_docstring(text: str) -> Docstring:
    """The parts of a docstring of any of the conventions above (they may be mixed)."""
    lines = text.expandtabs().split("\n")
    tables: dict[str, FieldTable] = {}
    blocks = _blocks(lines, tables)
    found = [tables[key] for key in TABLE_ORDER if key in tables and tables[key].rows]
    first_section = next((i for i, block in enumerate(blocks) if block.kind in ("title", "directive")), len(blocks))
    return Docstring(blocks[:first_section] + found + blocks[first_section:])


def inline_parts(text: str) -> list[Inline]:
    """Prose as text and code names: reST roles, backticks and `{@link}` become `Code`,
    except the roles that cite the docs (`:ref:`), whose title stays text."""
    parts: list[Inline] = []
    position = 0
    for match in INLINE_CODE.finditer(text):
        if match.start() > position:
            parts.append(text[position : match.start()])
        if match["role"] is not None and match["rolename"] in TEXT_ROLES:
            titled = ROLE_TITLE.match(match["role"].strip())
            parts.append(titled[1] if titled and titled[1] else match["role"].strip().lstrip("~!"))
        else:
            parts.append(_code(match))
        position = match.end()
    if position < len(text):
        parts.append(text[position:])
    return parts


def _code(match: re.Match) -> Code:
    if match["role"] is not None:
        role = match["role"].strip()
        titled = ROLE_TITLE.match(role)
        if titled and titled[1]:
            return Code(titled[1], titled[2].lstrip("~!"))
        if role.startswith("!"):
            return Code(role[1:])
        target = role.lstrip("~")
        return Code(target.rsplit(".", 1)[-1] if role.startswith("~") else target, target)
    name = (match["double"] or match["single"] or match["link"] or "").strip()
    return Code(name, name)


def _blocks(lines: list[str], tables: dict[str, FieldTable]) -> list[Block]:
    """Blocks of `lines` (dedented); field lists anywhere are collected into `tables`."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    index = 0

    def flush() -> None:
        text = " ".join(line.strip() for line in paragraph)
        paragraph.clear()
        if text.endswith("::"):
            text = text[:-2].rstrip()
            text = text + ":" if text and not text.endswith(":") else text
        if text:
            blocks.append(Paragraph(inline_parts(text)))

    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if not stripped:
            literal = bool(paragraph) and paragraph[-1].rstrip().endswith("::")
            paragraph_indent = _indent(paragraph[0]) if paragraph else 0
            flush()
            if literal:
                body, index = _indented(lines, index + 1, paragraph_indent)
                if body:
                    blocks.append(CodeBlock(body))
                continue
            index += 1
            continue
        if (fence := FENCE.match(line)) and not paragraph:
            end = next((i for i in range(index + 1, len(lines)) if lines[i].strip().startswith(fence[1])), len(lines))
            blocks.append(CodeBlock(_dedent(lines[index + 1 : end]), fence[2]))
            index = end + 1
            continue
        if stripped.startswith(">>>") and not paragraph:
            end = next((i for i in range(index, len(lines)) if not lines[i].strip()), len(lines))
            blocks.append(CodeBlock(_dedent(lines[index:end]), "pycon"))
            index = end
            continue
        if (directive := DIRECTIVE.match(stripped)) and not paragraph:
            body, index = _indented(lines, index + 1, _indent(line))
            name, argument = directive[1].lower(), directive[2].strip()
            if name in CODE_DIRECTIVES:
                blocks.append(CodeBlock(body, argument))
            elif name in TEXT_DIRECTIVES:
                blocks.append(Directive(name, "", _blocks(([argument] if argument else []) + body.split("\n"), tables)))
            else:
                blocks.append(Directive(name, argument, _blocks(body.split("\n"), tables)))
            continue
        if (heading := MARKDOWN_HEADING.match(stripped)) and _title(heading[1]) in BLOCK_SECTIONS:
            flush()
            blocks.append(Title(BLOCK_SECTIONS[_title(heading[1])]))
            index += 1
            continue
        header = _section_header(lines, index)
        if header is not None:
            flush()
            key, body_start = header
            numpy = body_start == index + 2
            body, index = _section_body(lines, body_start, _indent(line), numpy)
            if key in TABLE_SECTIONS.values():
                _fill_table(tables.setdefault(key, FieldTable(key)), body, numpy)
            elif not any(line.strip() for line in body):  # the title of what follows unindented (a fence)
                blocks.append(Title(key))
            elif stripped.endswith("::") or (key == "examples" and _bare_code(body)):
                blocks.append(Title(key))
                blocks.append(CodeBlock("\n".join(body).strip("\n")))
            else:
                blocks.append(Title(key))
                blocks.extend(_blocks(body, tables))
            continue
        if (sphinx := SPHINX_FIELD.match(stripped)) and sphinx[1].lower() in SPHINX_FIELDS:
            flush()
            rest, index = _continued(lines, index)
            _add_sphinx_field(tables, SPHINX_FIELDS[sphinx[1].lower()], (sphinx[2] or "").strip(), " ".join([sphinx[3] or "", rest]).strip())
            continue
        if (tag := JSDOC_TAG.match(stripped)) and tag[1] in JSDOC_ACCESS_TAGS:
            flush()
            index += 1
            continue
        if (tag := JSDOC_TAG.match(stripped)) and (tag[1] in JSDOC_TAGS or tag[1] == "example"):
            flush()
            if tag[1] == "example":
                end = next((i for i in range(index + 1, len(lines)) if lines[i].strip().startswith("@")), len(lines))
                blocks.append(Title("examples"))
                blocks.append(CodeBlock(_dedent(([tag[2]] if tag[2] else []) + lines[index + 1 : end]).strip("\n")))
                index = end
                continue
            rest, index = _continued(lines, index, jsdoc=True)
            _add_jsdoc_tag(tables, JSDOC_TAGS[tag[1]], " ".join([tag[2], rest]).strip())
            continue
        paragraph.append(line)
        index += 1
    flush()
    return blocks


def _section_header(lines: list[str], index: int) -> tuple[str, int] | None:
    """(the section's key, where its body starts) when `lines[index]` opens a known section."""
    stripped = lines[index].strip()
    underlined = index + 1 < len(lines) and NUMPY_RULE.match(lines[index + 1])
    title = stripped.lower()
    if underlined and title in TABLE_SECTIONS | BLOCK_SECTIONS:
        return (TABLE_SECTIONS | BLOCK_SECTIONS)[title], index + 2
    colon = GOOGLE_HEADER.match(stripped)
    if colon and colon[1].lower() in TABLE_SECTIONS | BLOCK_SECTIONS:
        return (TABLE_SECTIONS | BLOCK_SECTIONS)[colon[1].lower()], index + 1
    if stripped.endswith("::") and stripped[:-2].strip().lower() in BLOCK_SECTIONS:
        return BLOCK_SECTIONS[stripped[:-2].strip().lower()], index + 1
    return None


def _bare_code(body: list[str]) -> bool:
    """Whether an examples section is code as it stands (`req.is('html'); // => true`): none
    of its lines is a doctest prompt or opens a literal block, which prose would lead into."""
    return not any(line.lstrip().startswith(">>>") or line.rstrip().endswith("::") for line in body)


def _section_body(lines: list[str], start: int, indent: int, numpy: bool) -> tuple[list[str], int]:
    """A section's lines, dedented, and where the next part starts.

    A Google section ends at the first line not indented under its title; a NumPy one at the
    next underlined title or a blank line followed by text at the title's indentation that
    no entry could be.
    """
    end = start
    while end < len(lines):
        line = lines[end]
        if line.strip():
            if numpy:
                if _section_header(lines, end) is not None and _indent(line) <= indent:
                    break
            elif _indent(line) <= indent:
                break
        end += 1
    return _dedent(lines[start:end]).split("\n"), end


def _fill_table(table: FieldTable, body: list[str], numpy: bool) -> None:
    """Rows of a Google or NumPy section: an entry line at the body's indentation, its
    description on the same line or indented below it. A Google `Returns:` or `Yields:`
    section is one entry whose lines may all sit at the same indentation."""
    one_entry = not numpy and table.key in ("returns", "yields")
    entries: list[tuple[str, list[str]]] = []
    for line in body:
        if not line.strip():
            continue
        starts_entry = _indent(line) == 0 and (numpy or not entries or bool(GOOGLE_ENTRY.match(line.strip())))
        if not entries or (starts_entry and not one_entry):
            entries.append((line.strip(), []))
        else:
            entries[-1][1].append(line.strip())
    for head, more in entries:
        table.rows.append(_numpy_row(table.key, head, " ".join(more)) if numpy else _google_row(table.key, head, " ".join(more)))


def _title(heading: str) -> str:
    """A heading's text, closing hashes off (an expression re-read blanks)."""
    return heading.rstrip().rstrip("#").rstrip().lower()


def _numpy_row(key: str, head: str, more: str) -> FieldRow:
    """`name : type` (or a bare name) for parameters; `type` or `name : type` for the others."""
    name, colon, kind = head.partition(":")
    if colon and NUMPY_NAME.fullmatch(name.rstrip()):
        return FieldRow(name=name.strip(), type=kind.strip(), description=inline_parts(more))
    if key in ("parameters", "attributes"):
        return FieldRow(name=head, description=inline_parts(more))
    return FieldRow(type=head, description=inline_parts(more))


def _google_row(key: str, head: str, more: str) -> FieldRow:
    """`name (type): text` for parameters; `Type: text` (or just text) for the others."""
    entry = GOOGLE_ENTRY.match(head)
    if key in ("parameters", "attributes"):
        if entry:
            return FieldRow(name=entry[1], type=entry[2] or "", description=inline_parts(_joined(entry[3], more)))
        return FieldRow(name=head, description=inline_parts(more))
    if entry and not entry[2] and TYPE_LIKE.match(entry[1]):
        return FieldRow(type=entry[1], description=inline_parts(_joined(entry[3], more)))
    return FieldRow(description=inline_parts(_joined(head, more)))


def _joined(*texts: str) -> str:
    return " ".join(text for text in texts if text)


def _add_sphinx_field(tables: dict[str, FieldTable], key: str, argument: str, text: str) -> None:
    """`:param int x: text`, `:type x: int`, `:returns: text`, `:rtype: int`, `:raises E: text`."""
    if key.endswith("_type"):
        owner = {"parameter_type": "parameters", "return_type": "returns", "yield_type": "yields"}[key]
        table = tables.setdefault(owner, FieldTable(owner))
        row = next((r for r in table.rows if r.name == argument), None) if owner == "parameters" else (table.rows[0] if table.rows else None)
        if row is None:
            row = FieldRow(name=argument if owner == "parameters" else "")
            table.rows.append(row)
        row.type = text
        return
    table = tables.setdefault(key, FieldTable(key))
    if key == "raises":
        table.rows.append(FieldRow(type=argument, description=inline_parts(text)))
        return
    if key in ("returns", "yields"):
        if table.rows and not table.rows[0].description:
            table.rows[0].description = inline_parts(text)
        else:
            table.rows.append(FieldRow(description=inline_parts(text)))
        return
    kind, _, name = argument.rpartition(" ")
    row = next((r for r in table.rows if r.name == name), None)
    if row is None:
        row = FieldRow(name=name)
        table.rows.append(row)
    row.type = row.type or kind
    row.description = inline_parts(text)


def _add_jsdoc_tag(tables: dict[str, FieldTable], key: str, text: str) -> None:
    """`@param {string} [name=default] - text`, `@returns {T} text`, `@throws {E} text`."""
    kind = ""
    if typed := JSDOC_TYPE.match(text):
        kind, text = typed[1].strip(), text[typed.end() :]
    table = tables.setdefault(key, FieldTable(key))
    if key in ("parameters", "attributes"):
        name, _, text = text.partition(" ")
        name = name.strip("[]").split("=", 1)[0] if name.startswith("[") else name
        table.rows.append(FieldRow(name=name, type=kind, description=inline_parts(text.strip().removeprefix("- ").strip())))
        return
    table.rows.append(FieldRow(type=kind, description=inline_parts(text.strip().removeprefix("- ").strip())))


def _continued(lines: list[str], index: int, jsdoc: bool = False) -> tuple[str, int]:
    """The continuation of a field or tag at `lines[index]`: the following lines that are
    indented under it (Sphinx) or, in JSDoc, that start no new tag; up to a blank line."""
    own = _indent(lines[index])
    parts = []
    index += 1
    while index < len(lines) and lines[index].strip():
        line = lines[index]
        starts_new = line.strip().startswith("@") if jsdoc else (_indent(line) <= own)
        if starts_new:
            break
        parts.append(line.strip())
        index += 1
    return " ".join(parts), index


def _indented(lines: list[str], start: int, indent: int) -> tuple[str, int]:
    """A literal block after `::`: the lines indented more than the paragraph, blank ones kept."""
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    return _dedent(lines[start:end]).strip("\n"), end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _dedent(lines: list[str]) -> str:
    margin = min((_indent(line) for line in lines if line.strip()), default=0)
    return "\n".join(line[margin:].rstrip() for line in lines)
