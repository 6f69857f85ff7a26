"""Markdown and HTML made of the repository's text: escaped prose, code spans and fences
its own backticks cannot close, link targets that nothing in them can end. Every page
kind writes the repository's text through these (render.py, doc_markdown.py, llms.py)."""

from __future__ import annotations

import re
from urllib.parse import quote

from ..core.text import one_line

MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]{}#|])")
BLOCK_START = re.compile(r"^(\d*)([-+!?=]|(?<=\d)\.)")
"""A list item (`- `, `+ `, `1. `), an admonition (`!!!`), details (`???`) or a rule."""


def _escape_inline(text: str) -> str:
    """Like `escape_text`, but a space at either end is kept: the text sits between other segments."""
    escaped = escape_text(text)
    if not escaped:
        return " " if text and text.isspace() else ""
    return (" " if text[:1].isspace() else "") + escaped + (" " if text[-1:].isspace() else "")


def escape_text(value: object) -> str:
    """Prose from the code, shown as text: HTML escaped, Markdown markup neutralised.

    Characters Markdown lets a backslash escape get one; `~` (which it does not) and a
    line start that would open a block (a list, `!!!` admonition, `???` details, rule)
    become character references.
    """
    text = one_line(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("~", "&#126;")
    return BLOCK_START.sub(lambda match: f"{match[1]}&#{ord(match[2])};", text, count=1)


def code_span(value: object) -> str:
    """An inline code span that the value's own backticks cannot close."""
    text = one_line(value)
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def code_fence(value: str, language: str = "", first_line: int = 0) -> str:
    """A fenced block that the value's own backtick runs cannot close."""
    options = f' linenums="{first_line}"' if first_line else ""
    return _fenced(value, _HIGHLIGHT.get(language, "text") + options)


def _fenced(value: str, info: str) -> str:
    """Longer than any backtick run in the value, wherever it stands: Markdown also ends
    lines at a carriage return, which a line-start check would not see."""
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{value}\n{fence}"


URL_KEPT = ":/?#&=@%+,;!$*~[]"


def link_target(url: str) -> str:
    """A configured URL as a Markdown link target: whatever could end the target (spaces,
    parentheses, angle brackets) or the HTML attribute (quotes) percent-encoded, and `&`
    written `&amp;` (Markdown leaves an `&` that looks like a character reference as it is,
    and the browser would decode it)."""
    return quote(url, safe=URL_KEPT).replace("&", "&amp;")


_HIGHLIGHT = {
    "python": "python",
    "pycon": "pycon",
    "javascript": "javascript",
    "typescript": "typescript",
    "tsx": "tsx",
    "go": "go",
    "rust": "rust",
    "java": "java",
    "csharp": "csharp",
    "c": "c",
    "cpp": "cpp",
    "markdown": "markdown",
    "ruby": "ruby",
    "php": "php",
    "shell": "bash",
    "sql": "sql",
    "kotlin": "kotlin",
    "swift": "swift",
    "scala": "scala",
    "lua": "lua",
    "css": "css",
    "html": "html",
    "config": "text",
}
