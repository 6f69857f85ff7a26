"""Text helpers every layer writes prose with: sentence picking, clipping, identifier words.

They live at the bottom layer because the summarizers, the hierarchy, the decision
evidence and the LLM summaries all shorten text by the same rule.
"""

from __future__ import annotations

import re
import unicodedata

MAX_PROSE = 200
"""Characters of one summary field at most."""
MIN_PROSE = 100
"""A shorter field gets more said (context, or what the LLM is asked for at least)."""

SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")
MARKUP = re.compile(r"`{1,3}|\*\*|__|:(?:func|class|meth|attr|data|exc|obj|mod):")
REST_ROLE = re.compile(r":(?:[\w-]+:)+`(~?)([^`<]*?)\s*(?:<([^>`]*)>)?`")
"""A reST role (:class:`~click.Context`, :ref:`text <target>`); `~` shows the last part only."""


def _role_text(match: re.Match[str]) -> str:
    tilde, text, target = match.groups()
    text = text or target or ""
    return text.rsplit(".", 1)[-1] if tilde else text


MARKDOWN_NOISE = (  # brackets and parentheses stop every run, so none re-reads a line from each `[`
    (re.compile(r"^[ \t]*(?:={3,}|-{3,})\s*$", re.MULTILINE), ""),  # a setext heading's underline
    (re.compile(r"\[!\[[^\[\]\n]*\]\]?(?:\([^()\n]*\)|\[[^\[\]\n]*\])?(?:\([^()\n]*\))?"), " "),  # badge links
    (re.compile(r"!\[[^\[\]\n]*\]\([^()\n]*\)"), " "),  # images
    (re.compile(r"\[([^\[\]\n]+)\]\([^()\n]*\)"), r"\1"),  # links: keep their text
    (re.compile(r"^[ \t]*\[[^\]]+\]:\s*\S+.*$", re.MULTILINE), ""),  # link reference definitions
    (re.compile(r"\[([^\[\]\n]+)\]\[[^\[\]\n]*\]"), r"\1"),  # reference links: keep their text
    (re.compile(r"</?(?:a|b|i|em|strong|br|img|p|div|span|kbd|sup|sub|picture|source|center|h[1-6])\b[^>]*>", re.IGNORECASE), " "),  # layout tags of READMEs
    (re.compile(r"&(?:[A-Za-z]+|#\d+);"), " "),  # HTML entities
)


def strip_markdown_noise(text: str) -> str:
    """Text without badges, images, link targets, HTML tags and entities or heading rules."""
    for pattern, replacement in MARKDOWN_NOISE:
        text = pattern.sub(replacement, text)
    return text


INVISIBLE = "\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0"
"""Characters that change how a name shows without showing themselves: the bidi embeddings,
overrides, isolates and marks (`invoice\u202egpj.py` shows as "invoiceypj.jpg"), zero-width
spaces, joiners and the BOM, the soft hyphen and the blank fillers of Hangul."""
INVISIBLE_CHARACTERS = re.compile(f"[{INVISIBLE}]")
TERMINAL_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{INVISIBLE}]")
"""Control characters but tab and newline, the line separators and the invisible ones: a
repository's text or a model's reply printed with them could move the cursor, recolour,
retitle or clear the reader's terminal, write its clipboard (OSC 52), or reorder a line."""
TERMINAL_LINE_UNSAFE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029{INVISIBLE}]")


def terminal_text(text: str, one_line: bool = False) -> str:
    """`text` safe to print on a terminal: each control or invisible character written as
    its escape (`\\x1b`, `\\u202e`), so that it shows and does nothing. `one_line` escapes
    newlines too: a name in a line of its own cannot start another."""
    return (TERMINAL_LINE_UNSAFE if one_line else TERMINAL_UNSAFE).sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    if match[0] in "\n\r":
        return repr(match[0])[1:-1]
    code = ord(match[0])
    return f"\\x{code:02x}" if code <= 0x7F else f"\\u{code:04x}"  # \\u0085 too: JSON printed stays JSON


def visible_text(text: str) -> str:
    """`text` with what changes how it shows written out as `⟨U+202E⟩`: each invisible
    character, and, in text that is not NFC, each character NFC would join to the one
    before it (`é.py` in NFD is `e⟨U+0301⟩.py`, beside its NFC twin `é.py`)."""
    return "".join(f"⟨U+{ord(c):04X}⟩" if marked else c for c, marked in _marked(text))


def deceptive_characters(text: str) -> list[str]:
    """What `visible_text` writes out, each once, named (`U+202E RIGHT-TO-LEFT OVERRIDE`)."""
    found = dict.fromkeys(c for c, marked in _marked(text) if marked)
    return [f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in found]


def _marked(text: str) -> list[tuple[str, bool]]:
    composed = unicodedata.is_normalized("NFC", text)
    if composed and not INVISIBLE_CHARACTERS.search(text):
        return [(c, False) for c in text]
    return [
        (c, bool(INVISIBLE_CHARACTERS.match(c)) or (not composed and i > 0 and _joins(text[i - 1], c)))
        for i, c in enumerate(text)
    ]


def _joins(before: str, character: str) -> bool:
    return len(unicodedata.normalize("NFC", before + character)) < 2


CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def one_line(value: object) -> str:
    """A name or prose as one line: whitespace collapsed, control characters (which
    Markdown drops, HTML refuses and XML forbids) shown as U+FFFD, and the characters that
    change how a name shows without showing (a bidi override, a zero-width space, the
    combining mark of an NFD twin) written out as `⟨U+202E⟩` (`visible_text`)."""
    text = " ".join(str(value).split())
    return visible_text(CONTROL.sub("\ufffd", text) if CONTROL.search(text) else text)


MARKDOWN_OPENERS = re.compile(r"[\\`\[\]]|<(?=[A-Za-z/!?])")
"""What would open or close a code span, a link or an HTML tag (or autolink) in a line of
Markdown, and the backslash that would escape the next character."""
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
"""A code span: its text is literal wherever the Markdown is rendered."""


def markdown_line(text: str) -> str:
    """A repository's name or summary as one line of Markdown text (an answer's): whitespace
    collapsed, so that a newline in a path starts no block, and outside its code spans
    (kept: `List<int>` stays code) `[`, `]`, backticks and backslashes escaped and a `<`
    that would open a tag written `&lt;`, so that it opens no HTML and ends no link."""
    line = " ".join(text.split())
    out, position = [], 0
    for span in CODE_SPAN.finditer(line):
        out += [_markdown_escaped(line[position : span.start()]), span[0]]
        position = span.end()
    return "".join([*out, _markdown_escaped(line[position:])])


def _markdown_escaped(text: str) -> str:
    return MARKDOWN_OPENERS.sub(lambda match: "&lt;" if match[0] == "<" else "\\" + match[0], text)


def first_sentences(text: str, limit: int) -> str:
    """The first paragraph's sentences that fit in `limit` characters (at least one)."""
    paragraphs = re.split(r"\n\s*\n", strip_markdown_noise(text).strip())
    paragraph = next((p for p in paragraphs if p.strip(" \t\n.…")), "")
    paragraph = REST_ROLE.sub(_role_text, paragraph)
    paragraph = re.sub(r" (?=[.,;:!?](?:\s|$))", "", " ".join(MARKUP.sub("", paragraph).split()))
    if not paragraph:
        return ""
    sentences = SENTENCE_END.split(paragraph)
    taken = sentences[0]
    for sentence in sentences[1:]:
        if len(taken) + 1 + len(sentence) > limit:
            break
        taken = f"{taken} {sentence}"
    return clip(taken, limit)


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def split_identifier(name: str) -> list[str]:
    """`parseHTTPResponse_v2` → parse, http, response, v2."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]
