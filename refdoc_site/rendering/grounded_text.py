"""Grounded text (writing/grounding.py) as the pages' Markdown: what the doc model wrote,
each name it used checked against the index, each statement with the records it rests on."""

from __future__ import annotations

from collections.abc import Callable

from ..core.pages import SYSTEM_PAGE
from ..core.resources import Labels
from ..writing.grounding import Citation, Grounded, TextSegment
from ..writing.links import Link
from ..writing.written import PlanChunk
from .markup import _escape_inline, code_span, escape_text


def grounded_markdown(segments: Grounded, url: Callable[[Link], str | None] | None, labels: Labels) -> str:
    """Grounded segments (grounding.py) as Markdown: prose escaped, names as code spans linked
    to their pages, flagged names marked, a statement's citations in brackets after it.

    `url(target)` makes a page-relative URL of a stored link, or None where it has no page;
    no `url` renders names and citations unlinked. `labels` are the written pages' headings
    and notes in the output language.
    """
    out: list[str] = []
    citations: list[str] = []

    def flush() -> None:
        if citations:
            out.append(" (" + "; ".join(citations) + ")")
            citations.clear()

    for segment in segments:
        if isinstance(segment, Citation):
            if url is not None:
                address = url(segment.link)
                label = escape_text(shown_label(segment.link, labels))
                citations.append(f"[{label}]({address})" if address else label)
            continue
        flush()
        if isinstance(segment, TextSegment):
            out.append(_escape_inline(segment.text))
            continue
        address = url(segment.link) if url is not None and segment.link is not None else None
        if segment.flagged:
            out.append(f"{code_span(segment.code)} *({labels['flagged']})*")
        elif address:
            out.append(f"[{code_span(segment.code)}]({address})")
        else:
            out.append(code_span(segment.code))
    flush()
    return "".join(out).strip()


def shown_label(target: Link | PlanChunk, labels: Labels) -> str:
    """A stored link's label; the system summary's in the output language."""
    return labels["system_summary"] if target.page == SYSTEM_PAGE else target.label
