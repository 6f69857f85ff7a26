"""The pages the doc model writes (writers.py), grounded, as the store keeps them under
`written/` and the renderer reads them: the overview's narrative, the decision log, the
refactoring plan, and a plan per request. Field names and order are those of the stored JSON (`serial.py`).

Every text is a list of grounded segments (grounding.py: prose, names, citations), which
the renderer turns into Markdown with links.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .grounding import Grounded, GroundingReport
from .links import Link


@dataclass
class WrittenOverview:
    """`written/overview.json`: the overview's four answers as the doc model told them from
    the page's own facts (`context.overview_context`), each above the facts it tells."""

    model: str
    language: str
    what_it_is: Grounded
    parts: Grounded
    how_it_works: Grounded
    where_to_start: Grounded
    grounding: GroundingReport


@dataclass
class WrittenDecision:
    """One entry of the decision log the doc model wrote."""

    title: Grounded
    status: Grounded
    context: Grounded
    decision: Grounded
    consequences: Grounded
    evidence: list[Link] = field(default_factory=list)
    """The offline evidence the entry cites."""


@dataclass
class WrittenDecisions:
    """`written/decisions.json`: the decision log the doc model wrote."""

    model: str
    language: str
    entries: list[WrittenDecision]
    grounding: GroundingReport


@dataclass
class WrittenPhase:
    """One phase of the refactoring plan the doc model wrote from the measured facts."""

    title: Grounded
    goal: Grounded
    steps: list[Grounded]


@dataclass
class WrittenMilestones:
    """`written/milestones.json`: the refactoring plan the doc model wrote."""

    model: str
    language: str
    phases: list[WrittenPhase]
    grounding: GroundingReport


@dataclass
class PlanChange:
    title: Grounded
    detail: Grounded


@dataclass
class PlanChunk:
    """A chunk the search found for the request, linked, with its summary."""

    label: str
    page: str
    anchor: str
    symbol: str
    text: str
    """The chunk's one-line responsibility."""


@dataclass
class Plan:
    """`written/plans/{slug}.json`: how to carry out a request, and where it lands in the code."""

    slug: str
    """The page's name (`plans/{slug}.md`), from the query; "" until the planner stores it."""
    origin: str
    """`config` (a `plans:` entry of refdoc.yml, removed with it) or `cli` (`refdoc-site plan`)."""
    model: str
    """The doc model that wrote the plan; "" when the page only shows where the request lands."""
    language: str
    query: str
    searched: str
    """What was searched: the query, plus the terms the model expanded it to."""
    modules: list[Link]
    files: list[Link]
    chunks: list[PlanChunk]
    summary: Grounded
    changes: list[PlanChange]
    steps: list[Grounded]
    risks: list[Grounded]
    grounding: GroundingReport
