"""Doc comments read by each language's convention into one plain form.

A doc comment, its markers already taken off, is written in its language's format:
rustdoc and GoDoc are Markdown-like, Javadoc is HTML with `{@tag …}` inline tags, C#'s is
XML (`<summary>`, `<param name="x">`), C and C++ use Doxygen commands (`\\brief`,
`@param[in]`). `normalize` turns each into the form every later reader of a docstring
understands: paragraphs separated by a blank line, inline code in backticks, code in
fences, section titles as Markdown headings and parameters, returns and exceptions as
`@param` / `@returns` / `@throws` lines (`writing/docstrings.py` parses that form; the
extractive summary takes its first sentence). Text stays as written; the page escapes it.

Which format a language writes is `LanguageSpec.doc_format`.
"""

from __future__ import annotations

import html
import re

FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")

# --- rustdoc ------------------------------------------------------------------------------

RUST_CODE_INFO = frozenset({"", "rust", "no_run", "ignore", "should_panic", "compile_fail", "edition2018", "edition2021"})
"""Fence info strings of Rust doctests, whose `# `-prefixed lines rustdoc hides."""
MARKDOWN_REFERENCE_LINK = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
"""`[`chain()`][Error::chain]`: the link text stays."""
MARKDOWN_INLINE_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)")
MARKDOWN_LINK_DEFINITION = re.compile(r"^\s*\[[^\]\n]+\]:\s*\S+.*$")
HTML_ONLY_LINE = re.compile(r"^\s*(?:</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>\s*)+$")
"""A line of layout tags only (`<br>`, `<details>`): nothing to read."""
DOC_LINK = re.compile(r"(?<![\]`\w])\[((?:[\w:.]+(?:\(\))?)|`[^`\n]+`)\](?![\[(:])")
"""An intra-doc or GoDoc link `[Error::chain]`, `[io.Reader]`: a code name."""


def _rustdoc(text: str) -> str:
    lines: list[str] = []
    fence = ""
    hides = False
    for line in text.split("\n"):
        opened = FENCE.match(line)
        if fence:
            if line.strip().startswith(fence):
                fence = ""
            elif hides and re.match(r"^\s*#(?:\s|$)", line):
                continue  # a hidden doctest line: setup the reader never sees
            elif hides:
                line = re.sub(r"^(\s*)##", r"\1#", line)
            lines.append(line)
            continue
        if opened:
            fence, hides = opened[1], opened[2] in RUST_CODE_INFO
            lines.append(f"{opened[1]}{'rust' if hides else opened[2]}")
            continue
        if MARKDOWN_LINK_DEFINITION.match(line) or HTML_ONLY_LINE.match(line):
            continue
        lines.append(_markdown_links(html.unescape(line)))
    return "\n".join(lines)


MARKDOWN_IMAGE = re.compile(r"!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])?")
EMPTY_LINK = re.compile(r"\[\s*\](?:\([^)\n]*\)|\[[^\]\n]*\])")
"""What is left of a badge (`[![github]](url)`) once its image is gone."""


def _markdown_links(line: str) -> str:
    line = EMPTY_LINK.sub("", MARKDOWN_IMAGE.sub("", line))
    line = MARKDOWN_REFERENCE_LINK.sub(r"\1", line)
    line = MARKDOWN_INLINE_LINK.sub(r"\1", line)
    return DOC_LINK.sub(lambda m: m[1] if m[1].startswith("`") else f"`{m[1]}`", line)


# --- GoDoc --------------------------------------------------------------------------------

GO_HEADING = re.compile(r"^#\s+\S")
GO_DIRECTIVE = re.compile(r"^(?:go:\w+|\+build\b|nolint\b|lint:)")
"""Tool directives (`//go:build !windows`, `// +build`, `//go:generate`): not documentation."""


def _godoc(text: str) -> str:
    """GoDoc: indented runs are code, `# Heading` a heading, `[Name]` a link to a name."""
    lines = [line for line in text.split("\n") if not GO_DIRECTIVE.match(line)]
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line[:1] in (" ", "\t") and line.strip() and (not out or not out[-1].strip()):
            end = index
            while end < len(lines) and (lines[end][:1] in (" ", "\t") or not lines[end].strip()):
                end += 1
            while end > index and not lines[end - 1].strip():
                end -= 1
            out.extend(["```go", *_dedented(lines[index:end]), "```"])
            index = end
            continue
        out.append(_markdown_links(line) if not GO_HEADING.match(line) else line)
        index += 1
    return "\n".join(out)


def _dedented(lines: list[str]) -> list[str]:
    margin = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return [line[margin:] for line in lines]


# --- Javadoc ------------------------------------------------------------------------------

JAVADOC_INLINE = re.compile(r"\{@(code|literal|link|linkplain|value|docRoot|inheritDoc)\b\s*((?:[^{}]|\{[^{}]*\})*)\}")
HTML_CODE = re.compile(r"<(code|tt|var)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
HTML_PRE = re.compile(r"<pre>\s*(.*?)\s*</pre>", re.DOTALL | re.IGNORECASE)
HTML_PARAGRAPH = re.compile(r"\s*<(?:p|br|/p|ul|/ul|ol|/ol|/li|div|/div|blockquote|/blockquote)\b[^>]*>\s*", re.IGNORECASE)
HTML_ITEM = re.compile(r"\s*<li\b[^>]*>\s*", re.IGNORECASE)
HTML_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")


def _javadoc(text: str) -> str:
    text = HTML_PRE.sub(lambda m: "\n\n```java\n" + _javadoc_code(m[1]) + "\n```\n\n", text)
    text = _outside_code(text, lambda prose: JAVADOC_INLINE.sub(_javadoc_tag, prose))
    text = _outside_code(text, lambda prose: HTML_CODE.sub(lambda m: f"`{html.unescape(m[2]).strip()}`", prose))
    text = _outside_code(text, _html_prose)
    return _clean_prose(text)


def _html_prose(text: str) -> str:
    text = HTML_ITEM.sub("\n- ", text)
    text = HTML_PARAGRAPH.sub("\n\n", text)
    return html.unescape(HTML_TAG.sub("", text))


CODE_SPAN = re.compile(r"(^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^[ \t]*\2[ \t]*$|`[^`\n]+`)", re.MULTILINE)


def _outside_code(text: str, change) -> str:
    """`change` applied to the prose between code spans and fences, which stay as written."""
    pieces = []
    position = 0
    for match in CODE_SPAN.finditer(text):
        pieces.append(change(text[position : match.start()]))
        pieces.append(match[0])
        position = match.end()
    pieces.append(change(text[position:]))
    return "".join(pieces)


def _javadoc_code(code: str) -> str:
    inner = re.fullmatch(r"\{@code\s?(.*)\}", code.strip(), re.DOTALL)
    body = inner[1] if inner else HTML_TAG.sub("", code)
    return html.unescape(body).strip("\n")


def _javadoc_tag(match: re.Match) -> str:
    tag, body = match[1], match[2].strip()
    if tag in ("code", "literal"):
        return f"`{body}`" if tag == "code" else body
    if tag in ("link", "linkplain", "value"):
        target, _, label = body.partition(" ")
        if label.strip():
            return label.strip()
        name = target.lstrip("#").replace("#", ".")
        return f"`{name}`" if name else ""
    return ""


# --- C# XML documentation -----------------------------------------------------------------

XML_REFERENCE = re.compile(r"<(see|seealso|paramref|typeparamref)\s+(?:cref|name|langword|href)\s*=\s*\"([^\"]*)\"\s*(?:/>|>(.*?)</\1>)", re.DOTALL)
XML_NAMED = re.compile(r"<(param|typeparam|exception)\s+(?:name|cref)\s*=\s*\"([^\"]*)\"\s*>(.*?)</\1>|<(param|typeparam|exception)\s+(?:name|cref)\s*=\s*\"([^\"]*)\"\s*/>", re.DOTALL)
XML_SECTION = re.compile(r"<(summary|remarks|returns|value|example)\b[^>]*>(.*?)</\1>", re.DOTALL)
XML_CODE_BLOCK = re.compile(r"<code\b[^>]*>(.*?)</code>", re.DOTALL)
XML_INLINE_CODE = re.compile(r"<c>(.*?)</c>", re.DOTALL)
XML_BREAK = re.compile(r"\s*<(?:para|/para|br|list|/list|/item|/description|/term)\b[^>]*>\s*")
XML_ITEM = re.compile(r"\s*<item\b[^>]*>\s*")


def _xmldoc(text: str) -> str:
    if not re.search(r"<\w", text):
        return text
    text = XML_CODE_BLOCK.sub(lambda m: "\n```csharp\n" + "\n".join(_dedented(html.unescape(m[1]).strip("\n").split("\n"))) + "\n```\n", text)
    text = XML_REFERENCE.sub(lambda m: _xml_reference(m[2], m[3]), text)
    text = XML_INLINE_CODE.sub(lambda m: f"`{html.unescape(m[1]).strip()}`", text)
    text = re.sub(r"<inheritdoc\b[^>]*/?>", "", text)
    named: list[str] = []

    def take_named(match: re.Match) -> str:
        tag = match[1] or match[4]
        name = _cref(match[2] if match[1] else match[5])
        description = _one_line(match[3] or "")
        if tag == "exception":
            named.append(f"@throws {{{name}}} {description}".rstrip())
        else:
            named.append(f"@param {name} {description}".rstrip())
        return ""

    text = XML_NAMED.sub(take_named, text)
    parts: list[str] = []
    tail: list[str] = []
    found = False
    for match in XML_SECTION.finditer(text):
        found = True
        tag, body = match[1], _xml_prose(match[2])
        if tag == "summary":
            parts.insert(0, body)
        elif tag in ("returns", "value"):
            tail.append(f"@returns {_one_line(body)}")
        elif tag == "example":
            tail.extend(["# Examples", body])
        else:
            parts.append(body)
    rest = XML_SECTION.sub("", text)
    if not found:
        parts.append(_xml_prose(rest))
    elif HTML_TAG.sub("", rest).strip():
        parts.append(_xml_prose(rest))
    return "\n\n".join(p for p in [*parts, "\n".join(named), *tail] if p.strip())


def _xml_prose(text: str) -> str:
    def prose(piece: str) -> str:
        piece = XML_ITEM.sub("\n- ", piece)
        piece = XML_BREAK.sub("\n\n", piece)
        return html.unescape(HTML_TAG.sub("", piece))

    return _clean_prose(_outside_code(text, prose))


def _xml_reference(target: str, label: str | None) -> str:
    if label and label.strip():
        return label.strip()
    return f"`{_cref(target)}`"


def _cref(target: str) -> str:
    """`T:MediatR.IMediator` → `MediatR.IMediator`; `M:Foo.Bar(System.Int32)` → `Foo.Bar`."""
    target = re.sub(r"^[A-Z]:", "", target.strip())
    return re.sub(r"\(.*\)$", "", target).replace("{", "<").replace("}", ">")


# --- Doxygen ------------------------------------------------------------------------------

DOXYGEN_PARAM = re.compile(r"^[ \t]*[@\\]param(?:\[[\w, ]*\])?[ \t]+", re.MULTILINE)
DOXYGEN_RETURN = re.compile(r"^[ \t]*[@\\](?:returns?|retval|result)\b[ \t]*", re.MULTILINE)
DOXYGEN_THROWS = re.compile(r"^[ \t]*[@\\](?:throws?|exception)\b[ \t]*", re.MULTILINE)
DOXYGEN_LEAD = re.compile(r"^[ \t]*[@\\](?:brief|short|details)\b[ \t]*", re.MULTILINE)
"""Commands whose text is the description itself: the command goes, the text stays."""
DOXYGEN_STRUCTURAL = re.compile(r"^[ \t]*[@\\](?:fn|def|struct|class|var|typedef|file|ingroup|defgroup|addtogroup|name)\b.*$", re.MULTILINE)
"""Commands that say which entity a detached block documents: not prose."""
DOXYGEN_CODE = re.compile(r"[@\\]code\b(?:\{[^}]*\})?(.*?)[@\\]endcode", re.DOTALL)
DOXYGEN_INLINE = re.compile(r"[@\\](?:c|p|ref)[ \t]+([\w:.()]+)")


def _doxygen(text: str) -> str:
    text = DOXYGEN_CODE.sub(lambda m: "\n```\n" + "\n".join(_dedented(m[1].strip("\n").split("\n"))) + "\n```\n", text)
    text = DOXYGEN_PARAM.sub("@param ", text)
    text = DOXYGEN_RETURN.sub("@returns ", text)
    text = DOXYGEN_THROWS.sub("@throws ", text)
    text = DOXYGEN_STRUCTURAL.sub("", text)
    text = DOXYGEN_LEAD.sub("", text)
    text = re.sub(r"^[ \t]*[@\\](note|warning|see|sa)\b[ \t]*", lambda m: {"sa": "See also: "}.get(m[1], m[1].capitalize() + ": "), text, flags=re.MULTILINE)
    return DOXYGEN_INLINE.sub(r"`\1`", text)


# --- shared -------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(_xml_prose(text).split())


def _clean_prose(text: str) -> str:
    """Blank runs inside a line closed up, at most one blank line between paragraphs,
    fenced code left as it is."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        opened = FENCE.match(line)
        if fence or opened:
            if fence and line.strip().startswith(fence):
                fence = ""
            elif opened and not fence:
                fence = opened[1]
            out.append(line.rstrip())
            continue
        stripped = " ".join(line.split())
        if stripped or (out and out[-1]):
            out.append(stripped)
    return "\n".join(out).strip()


FORMATS = {
    "rustdoc": _rustdoc,
    "godoc": _godoc,
    "javadoc": _javadoc,
    "xmldoc": _xmldoc,
    "doxygen": _doxygen,
}
"""Every doc comment format a `LanguageSpec.doc_format` may name."""


def normalize(text: str, doc_format: str) -> str:
    """A doc comment (markers taken off) in the plain form; unchanged for a format
    without a reader ("" : the comment is already plain text)."""
    reader = FORMATS.get(doc_format)
    return reader(text).strip() if reader and text else text
