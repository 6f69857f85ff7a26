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
from collections.abc import Iterator

FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")

# --- rustdoc ------------------------------------------------------------------------------

RUST_CODE_INFO = frozenset({"", "rust", "no_run", "ignore", "should_panic", "compile_fail", "edition2018", "edition2021"})
"""Fence info strings of Rust doctests, whose `# `-prefixed lines rustdoc hides."""
MARKDOWN_REFERENCE_LINK = re.compile(r"\[([^\[\]\n]+)\]\[[^\[\]\n]*\]")
"""`[`chain()`][Error::chain]`: the link text stays."""
MARKDOWN_INLINE_LINK = re.compile(r"\[([^\[\]\n]+)\]\([^()\n]*\)")
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
        if not line.strip() and lines and not lines[-1].strip():
            continue  # one blank line where a dropped line stood between two
        lines.append(_markdown_links(html.unescape(line)))
    return "\n".join(lines)


MARKDOWN_IMAGE = re.compile(r"!\[[^\[\]\n]*\](?:\([^()\n]*\)|\[[^\[\]\n]*\])?")
EMPTY_LINK = re.compile(r"\[ *\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")
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


# --- markup read one tag at a time ---------------------------------------------------------

MARKUP = re.compile(r"`[^`]*`|<(/?)([A-Za-z][\w-]*)([^<>]*?)(/?)>")
"""A code span (kept as written) or a tag; every expression here is read once from left
to right, so a comment of a thousand unclosed `<summary>` costs what its length does."""
ATTRIBUTE = re.compile(r"\b(cref|name|langword|href)\s*=\s*\"([^\"]*)\"")


class _Markup:
    """Text written out piece by piece into nested parts: a section (`<summary>`), a code
    span or block opened by a tag and closed by its end tag, or the text outside them."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, str, list[str]]] = [("", "", [])]
        """(tag, attribute, pieces) of each open part, the outermost first."""
        self.closed: list[tuple[str, str, str]] = []
        """(tag, attribute, text) of the sections closed so far, in their order."""
        self.open_count: dict[str, int] = {}

    def write(self, text: str) -> None:
        self.parts[-1][2].append(text)

    def tags(self, text: str) -> Iterator[re.Match]:
        """The tags of `text`, in order; the text between them (entities decoded) and its
        code spans are written out as they come."""
        position = 0
        for match in MARKUP.finditer(text):
            self.write(html.unescape(text[position : match.start()]))
            position = match.end()
            if match[2] is None:
                self.write(match[0])
            else:
                yield match
        self.write(html.unescape(text[position:]))

    def open(self, tag: str, attribute: str = "") -> None:
        self.parts.append((tag, attribute, []))
        self.open_count[tag] = self.open_count.get(tag, 0) + 1

    def close(self, tag: str) -> tuple[str, str] | None:
        """The text and attribute of the innermost open `tag`, which ends here (with any
        part opened inside it and never closed), or None when none is open."""
        if not self.open_count.get(tag):
            return None
        inner: list[str] = []
        while True:
            name, attribute, pieces = self.parts.pop()
            self.open_count[name] -= 1
            inner.append("".join(pieces))
            if name == tag:
                return "".join(reversed(inner)), attribute

    def finish(self) -> str:
        while len(self.parts) > 1:
            _name, _attribute, pieces = self.parts.pop()
            self.write("".join(pieces))
        return "".join(self.parts[0][2])


def _fenced(code: str, language: str) -> str:
    return "\n\n```" + language + "\n" + "\n".join(_dedented(code.strip("\n").split("\n"))) + "\n```\n\n"


# --- Javadoc ------------------------------------------------------------------------------

JAVADOC_INLINE = re.compile(r"\{@(code|literal|link|linkplain|value|docRoot|inheritDoc)\b\s*((?:[^{}]|\{[^{}]*\})*)\}")
HTML_BREAKS = frozenset({"p", "br", "ul", "ol", "li", "div", "blockquote", "dl", "dt", "dd", "table", "tr", "h1", "h2", "h3", "h4", "h5", "h6"})
HTML_INLINE_CODE = frozenset({"code", "tt", "var", "samp", "kbd"})


def _javadoc(text: str) -> str:
    """Javadoc: `{@code x}` and `<code>x</code>` are code, `{@link A#b label}` its label,
    `<pre>` a code block, `<p>` and list items break paragraphs, other HTML is dropped."""
    text = JAVADOC_INLINE.sub(_javadoc_tag, text)
    markup = _Markup()
    for match in markup.tags(text):
        tag, closing = match[2].lower(), bool(match[1])
        if tag == "pre" or tag in HTML_INLINE_CODE:
            if not closing:
                markup.open(tag)
                continue
            inner = markup.close(tag)
            if inner is not None:
                code = inner[0]
                if tag == "pre":
                    markup.write(_fenced(code[1:-1] if code.startswith("`") and code.endswith("`") else code, "java"))
                else:
                    markup.write(f"`{code.strip().strip('`')}`")
        elif tag in HTML_BREAKS:
            markup.write("\n- " if tag == "li" and not closing else "\n\n")
    return _clean_prose(markup.finish())


def _javadoc_tag(match: re.Match) -> str:
    tag, body = match[1], match[2].strip()
    if tag == "code":
        return f"`{body}`"
    if tag == "literal":
        return html.escape(body, quote=False)  # read back as text, not as markup
    if tag in ("link", "linkplain", "value"):
        target, _, label = body.partition(" ")
        if label.strip():
            return label.strip()
        name = target.lstrip("#").replace("#", ".")
        return f"`{name}`" if name else ""
    return ""


# --- C# XML documentation -----------------------------------------------------------------

XML_SECTIONS = frozenset({"summary", "remarks", "returns", "value", "example", "param", "typeparam", "exception"})
XML_REFERENCES = frozenset({"see", "seealso", "paramref", "typeparamref"})
XML_BREAKS = frozenset({"para", "br", "list", "item", "p"})


def _xmldoc(text: str) -> str:
    """C#'s XML documentation: `<summary>` first, then `<remarks>`; `<param>`,
    `<typeparam>`, `<returns>`/`<value>` and `<exception>` as `@param`/`@returns`/`@throws`
    lines; `<example>` under an Examples heading; `<c>` and `<code>` code, `<see cref>` and
    `<paramref>` code names (or their own text)."""
    if "<" not in text:
        return text
    markup = _Markup()
    for match in markup.tags(text):
        tag, closing, self_closing = match[2].lower(), bool(match[1]), bool(match[4])
        attribute = ATTRIBUTE.search(match[3])
        target = _cref(attribute[2]) if attribute else ""
        if tag in XML_SECTIONS:
            if self_closing:
                markup.closed.append((tag, target, ""))
            elif not closing:
                markup.open(tag, target)
            elif (inner := markup.close(tag)) is not None:
                markup.closed.append((tag, inner[1], inner[0]))
        elif tag in XML_REFERENCES:
            if self_closing:
                markup.write(f"`{target}`")
            elif not closing:
                markup.open(tag, target)
            elif (inner := markup.close(tag)) is not None:
                markup.write(inner[0].strip() or f"`{inner[1]}`")
        elif tag in ("c", "code"):
            if not closing and not self_closing:
                markup.open(tag)
            elif closing and (inner := markup.close(tag)) is not None:
                markup.write(f"`{inner[0].strip()}`" if tag == "c" else _fenced(inner[0], "csharp"))
        elif tag in XML_BREAKS:
            markup.write("\n- " if tag == "item" and not closing else "\n\n")
    rest = _clean_prose(markup.finish())
    return _xml_sections(markup.closed, rest)


def _xml_sections(sections: list[tuple[str, str, str]], rest: str) -> str:
    prose = [_clean_prose(body) for tag, _, body in sections if tag == "summary"]
    prose += [_clean_prose(body) for tag, _, body in sections if tag == "remarks"]
    if rest:
        prose.append(rest)
    fields = []
    for tag, name, body in sections:
        line = " ".join(body.split())
        if tag in ("param", "typeparam"):
            fields.append(f"@param {name} {line}".rstrip())
        elif tag == "exception":
            fields.append(f"@throws {{{name}}} {line}".rstrip())
        elif tag in ("returns", "value") and line:
            fields.append(f"@returns {line}")
    examples = [f"# Examples\n\n{_clean_prose(body)}" for tag, _, body in sections if tag == "example"]
    return "\n\n".join(part for part in [*prose, "\n".join(fields), *examples] if part.strip())


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
DOXYGEN_CODE_MARK = re.compile(r"[@\\](end)?code\b(?:\{[^{}]*\})?")
DOXYGEN_INLINE = re.compile(r"[@\\](?:c|p|ref)[ \t]+([\w:.()]+)")


def _doxygen(text: str) -> str:
    text = _doxygen_code(text)
    text = DOXYGEN_PARAM.sub("@param ", text)
    text = DOXYGEN_RETURN.sub("@returns ", text)
    text = DOXYGEN_THROWS.sub("@throws ", text)
    text = DOXYGEN_STRUCTURAL.sub("", text)
    text = DOXYGEN_LEAD.sub("", text)
    text = re.sub(r"^[ \t]*[@\\](note|warning|see|sa)\b[ \t]*", lambda m: {"sa": "See also: "}.get(m[1], m[1].capitalize() + ": "), text, flags=re.MULTILINE)
    return DOXYGEN_INLINE.sub(r"`\1`", text)


def _doxygen_code(text: str) -> str:
    """`\\code … \\endcode` as fences, each opening paired with the next end in one scan."""
    pieces: list[str] = []
    position = 0
    opened: int | None = None
    for mark in DOXYGEN_CODE_MARK.finditer(text):
        if mark[1] is None and opened is None:
            pieces.append(text[position : mark.start()])
            opened = mark.end()
        elif mark[1] is not None and opened is not None:
            pieces.append(_fenced(text[opened : mark.start()], ""))
            opened = None
            position = mark.end()
    pieces.append(text[position:] if opened is None else text[opened:])
    return "".join(pieces)


# --- shared -------------------------------------------------------------------------------


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
