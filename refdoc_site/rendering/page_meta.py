"""A page's description for search engines and link previews: its first paragraph of prose.

Every page the build writes opens with its title and then says what it is about (the
overview its system summary, a file page the file's role, a module page its boundary);
that first paragraph, its Markdown marks taken off, is the `<meta name="description">`
Material and Zensical print from the front matter. Tables, lists, code, diagrams and
attribute lines are not prose and are passed over.
"""

from __future__ import annotations

import re

from ..core.text import first_sentences

DESCRIPTION_CHARS = 160
"""What search engines show of a description."""
NOT_PROSE = re.compile(r"^\s*(?:#|\||[-*+] |\d+\. |```|~~~|<|!!!|\?\?\?|:::|\{|>|\[\^|---|===)")
"""Lines that open a heading, table, list, fence, HTML block, admonition, attribute list or rule."""
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
INLINE_MARK = re.compile(r"\\(?=[\\`*_{}\[\]()#+\-.!|<>])|`|\*\*|__")


def page_description(markdown: str) -> str:
    """The first prose paragraph of a generated page as plain text, at most
    `DESCRIPTION_CHARS`; empty when the page has none."""
    paragraph: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or NOT_PROSE.match(line) or not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    text = INLINE_MARK.sub("", LINK.sub(r"\1", " ".join(paragraph)))
    return first_sentences(text, DESCRIPTION_CHARS)
