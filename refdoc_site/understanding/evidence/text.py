"""What the three collectors share: the length limits, Markdown made into plain sentences,
evidence links, and files read redacted, as the index reads them."""

from __future__ import annotations

import re
from pathlib import Path

from ...core.decision_phrases import TITLE_LIMIT  # noqa: F401  (the collectors' title limit too)
from ...core.findings import EvidenceLink
from ...core.reading import read_text
from ...core.redact import Redactor
from ...core.text import first_sentences

PROSE_LIMIT = 320
"""Characters of context, decision or consequences prose kept per entry."""
STATUS_LIMIT = 80

LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def prose(markdown: str, limit: int) -> str:
    """Markdown as plain sentences: list items become sentences, links their text."""
    pieces: list[str] = []
    for paragraph in re.split(r"\n\s*\n", HTML_COMMENT.sub("", markdown)):
        items: list[list[str]] = []
        for line in paragraph.splitlines():
            if BULLET.match(line) or not items:
                items.append([BULLET.sub("", line)])
            else:
                items[-1].append(line)
        for item in items:
            sentence = " ".join(" ".join(item).split())
            if sentence and sentence.strip("-=*_ "):
                pieces.append(sentence if sentence[-1] in ".!?:;" else sentence + ".")
    return first_sentences(LINK.sub(r"\1", " ".join(pieces)), limit)


def whole_file(label: str, path: str) -> EvidenceLink:
    """Whole files and commits are the evidence here, so no anchor inside a page."""
    return EvidenceLink(label, path)


def read_redacted(repo: Path, path: str, redactor: Redactor | None) -> str | None:
    """The file's text, redacted like the index's; None when it cannot be read."""
    try:
        return read_text(repo, path, redactor or Redactor()).text
    except OSError:
        return None
