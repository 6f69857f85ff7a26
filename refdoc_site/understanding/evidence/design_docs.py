"""Decisions the repository explains in its own prose: each section of a design doc
(flask's `docs/design.rst`, "Design Decisions in Flask": the explicit application object,
the routing system, one template engine, …), and a "why" or "rationale" section of any
other doc, linked to that section on the doc's page."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from ...core.findings import Decision, DecisionKind, EvidenceLink
from ...core.pages import chunk_anchor
from ...core.redact import Redactor
from ...core.store import FileEntry
from ...core.text import clip, first_sentences
from ...indexing.doc_blocks import plain_text, read_section
from ...indexing.text_chunks import doc_sections
from .adr import is_adr_path
from .text import PROSE_LIMIT, TITLE_LIMIT, read_redacted

DOC_LANGUAGES = frozenset({"markdown", "restructuredtext"})
DESIGN_DOC_NAMES = re.compile(r"^(?:design|design[-_ ]decisions|architecture|rationale|philosophy|why[-_ ]\w+|decisions)$", re.IGNORECASE)
"""A doc's file name (without its suffix) that makes each of its sections a decision."""
DESIGN_TITLES = re.compile(r"\bdesign\b|\bdecisions?\b|\brationale\b|\bphilosophy\b|^why\b", re.IGNORECASE)
"""A doc's title that does the same ("Design Decisions in Flask", "Why we use X")."""
WHY_SECTION = re.compile(r"^(?:why\b|rationale\b|design (?:decisions?|rationale)\b|motivation\b)", re.IGNORECASE)
"""A section heading of any other doc that explains a choice."""
MAX_DESIGN_DECISIONS = 20


def design_decisions(repo: Path, files: dict[str, FileEntry], redactor: Redactor | None = None) -> list[Decision]:
    """A decision per section of each design doc, then per "why" section elsewhere, in path order."""
    design: list[Decision] = []
    why: list[Decision] = []
    for path in sorted(files):
        entry = files[path]
        if entry.language not in DOC_LANGUAGES or is_adr_path(path):
            continue
        text = read_redacted(repo, path, redactor)
        if text is None:
            continue
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        sections = doc_sections(lines, entry.language)
        if not sections:
            continue
        stem = posixpath.basename(path).rsplit(".", 1)[0]
        title = sections[0][1]
        is_design = bool(DESIGN_DOC_NAMES.match(stem) or DESIGN_TITLES.search(title))
        for index, (start, symbol, level) in enumerate(sections):
            end = sections[index + 1][0] if index + 1 < len(sections) else len(lines)
            heading = symbol.rsplit(" > ", 1)[-1]
            if is_design and level > 1 and (level == 2 or not _has_design_parent(sections, index)):
                target = design
            elif not is_design and WHY_SECTION.match(heading):
                target = why
            else:
                continue
            said = plain_text(read_section("\n".join(lines[start:end]), entry.language))
            if not said.strip():
                continue
            target.append(_decision(path, heading, symbol, title if is_design else "", said))
    return (design + why)[:MAX_DESIGN_DECISIONS]


def _has_design_parent(sections: list[tuple[int, str, int]], index: int) -> bool:
    """Whether a deeper section sits under a level-2 one (which is the decision it belongs to)."""
    return any(level == 2 for _, _, level in sections[:index])


def _decision(path: str, heading: str, symbol: str, doc_title: str, said: str) -> Decision:
    decision = first_sentences(said, PROSE_LIMIT)  # the first paragraph: what was chosen, often why
    return Decision(
        title=clip(heading, TITLE_LIMIT),
        kind=DecisionKind.DESIGN,
        status="",
        context=clip(f"{doc_title} ({path})" if doc_title else path, PROSE_LIMIT),
        decision=decision or heading,
        consequences="",
        evidence=[EvidenceLink(f"{path}: {heading}", path, chunk_anchor(symbol))],
    )
