"""Decision records (ADR files) that the project keeps in Markdown, in the Nygard and MADR
layouts: one decision entry per record among the indexed files."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from ...core.findings import Decision, DecisionKind
from ...core.redact import Redactor
from ...core.store import FileEntry
from ...core.text import clip
from .text import PROSE_LIMIT, STATUS_LIMIT, TITLE_LIMIT, prose, read_redacted, whole_file

ADR_DIRECTORY_NAMES = frozenset({"adr", "adrs", "decisions", "decision-records"})
"""A Markdown file inside a directory of one of these names (any depth, any case) is a
decision record: covers docs/adr, doc/decisions, architecture/decisions, adr/, …"""
ADR_FILE_NAMES = (
    re.compile(r"^\d{3,4}-[^/]+\.(?:md|markdown)$", re.IGNORECASE),
    re.compile(r"^adr[-_ ]?\d+[^/]*\.(?:md|markdown)$", re.IGNORECASE),
)
"""File names that mark a decision record wherever it lives (`0001-use-x.md`, `ADR-001.md`)."""
NOT_ADR_FILE_NAMES = re.compile(r"^(?:readme|index)\.|template|^\d{4}-\d{2}-\d{2}-", re.IGNORECASE)
"""Indexes, templates and dated blog posts (`2024-01-31-post.md`) that sit beside records."""
MARKDOWN_SUFFIXES = (".md", ".markdown")

FRONT_MATTER = re.compile(r"\A---\s*\n.*?^---\s*$", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(?:```|~~~)")
TITLE_NUMBER = re.compile(
    r"^(?:(?:adr|rfc)[\s_-]*)?\d+(?:\.\d+)*(?:\s*[.:)\-–—]\s*|\s+)", re.IGNORECASE
)
"""Numbering in front of a record title: `1. `, `ADR-001: `, `0005 - `."""
SECTION_FIELDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("status", re.compile(r"^status\b")),
    ("consequences", re.compile(r"\b(?:consequences|implications)\b")),
    ("decision", re.compile(r"^(?:decision(?!\s+drivers)|chosen option|resolution)")),
    ("context", re.compile(r"^(?:context|problem|background|motivation)")),
)
"""Section headings of the Nygard and MADR layouts, by the field they fill; first match wins."""
STATUS_LINE = re.compile(
    r"^\s*(?:[-*+]\s*)?[*_]*status[*_]*\s*:[*_]*\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE
)
"""MADR front matter or bullet: `status: accepted`, `* Status: proposed`."""


def adr_decisions(repo: Path, files: dict[str, FileEntry], redactor: Redactor | None = None) -> list[Decision]:
    """One entry per decision record among the indexed files, in path order."""
    entries = []
    for path in sorted(files):
        if is_adr_path(path):
            text = read_redacted(repo, path, redactor)
            if text is not None:
                entries.append(parse_adr(text, path))
    return entries


def is_adr_path(path: str) -> bool:
    """Markdown in a decisions directory, or named like a numbered record anywhere."""
    name = posixpath.basename(path)
    if not name.lower().endswith(MARKDOWN_SUFFIXES) or NOT_ADR_FILE_NAMES.search(name):
        return False
    directories = {part.lower() for part in posixpath.dirname(path).split("/")}
    return bool(directories & ADR_DIRECTORY_NAMES) or any(p.match(name) for p in ADR_FILE_NAMES)


def parse_adr(text: str, path: str) -> Decision:
    """A decision entry from a Nygard or MADR record; missing sections stay empty."""
    title, sections = _markdown_sections(text)
    fields: dict[str, list[str]] = {name: [] for name, _ in SECTION_FIELDS}
    for heading, body in sections:
        normalised = TITLE_NUMBER.sub("", heading.strip("*_` ")).lower()
        name = next((n for n, pattern in SECTION_FIELDS if pattern.search(normalised)), None)
        if name:
            fields[name].append(body)
    status = prose("\n\n".join(fields["status"]), STATUS_LIMIT)
    if not status:
        found = STATUS_LINE.search(text)
        status = prose(found.group(1), STATUS_LIMIT) if found else ""
    status = status.rstrip(".")
    title = TITLE_NUMBER.sub("", title).strip() or _title_from_file_name(path)
    decision = prose("\n\n".join(fields["decision"]), PROSE_LIMIT)
    return Decision(
        title=clip(title, TITLE_LIMIT),
        kind=DecisionKind.ADR,
        status=status,
        context=prose("\n\n".join(fields["context"]), PROSE_LIMIT),
        decision=decision or title,
        consequences=prose("\n\n".join(fields["consequences"]), PROSE_LIMIT),
        evidence=[whole_file(path, path)],
    )


def _markdown_sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The first heading and the (heading, body) pairs after it, outside front matter and fences."""
    title = ""
    sections: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in FRONT_MATTER.sub("", text, count=1).splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = HEADING.match(line)
        if heading and not title:
            title = heading.group(2)
        elif heading:
            sections.append((heading.group(2), []))
        elif sections:
            sections[-1][1].append(line)
    return title, [(h, "\n".join(body)) for h, body in sections]


def _title_from_file_name(path: str) -> str:
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    words = TITLE_NUMBER.sub("", stem.replace("-", " ").replace("_", " ")).strip()
    return words[:1].upper() + words[1:]
