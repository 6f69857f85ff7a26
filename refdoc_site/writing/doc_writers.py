"""Who writes the doc model's pages: the LLM's writer, or the offline one. The build picks
one at its start, and the phases call it the same way.

The offline writer is what a build without a model does: no decision log or milestones of
its own (the offline pages stay), and a plan that lists where the request lands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..core.findings import Decision, Milestone
from ..core.records import Document, Hierarchy
from ..understanding.orientation import Orientation
from .context import PlanContext
from .names import NameIndex
from .writers import (
    JsonSession,
    expand_query,
    extractive_plan,
    write_decisions,
    write_milestones,
    write_overview,
    write_plan,
)
from .written import Plan, WrittenDecisions, WrittenMilestones, WrittenOverview

Names = Callable[[], NameIndex]
"""The names a model's text is grounded in, built on the first call (offline, never)."""


class DocWriter(Protocol):
    """What writes the overview's narrative, the decision log, the refactoring plan and the
    plan for a request."""

    stores: bool
    """False in a dry run: it asks (to estimate) and nothing it writes is stored."""

    def overview(self, orientation: Orientation, hierarchy: Hierarchy, documents: list[Document], names: Names) -> WrittenOverview | None:
        """The overview's four answers told from its facts; None keeps the offline overview."""
        ...

    def decisions(self, found: list[Decision], hierarchy: Hierarchy, names: Names) -> WrittenDecisions | None:
        """The written decision log from the offline evidence; None keeps the offline page."""
        ...

    def milestones(self, found: list[Milestone], hierarchy: Hierarchy, names: Names) -> WrittenMilestones | None:
        """The written refactoring plan from the measured facts; None keeps the offline page."""
        ...

    def expand(self, query: str) -> list[str]:
        """Search terms the request stands for, besides its own words."""
        ...

    def plan(self, context: PlanContext, names: Names) -> Plan:
        """The plan record for the request the context was drawn for."""
        ...


class OfflineWriter:
    """Without a model: the offline pages stay, and a plan is where its request lands."""

    stores = True

    def __init__(self, language: str) -> None:
        self.language = language

    def overview(self, orientation: Orientation, hierarchy: Hierarchy, documents: list[Document], names: Names) -> WrittenOverview | None:
        return None

    def decisions(self, found: list[Decision], hierarchy: Hierarchy, names: Names) -> WrittenDecisions | None:
        return None

    def milestones(self, found: list[Milestone], hierarchy: Hierarchy, names: Names) -> WrittenMilestones | None:
        return None

    def expand(self, query: str) -> list[str]:
        return []

    def plan(self, context: PlanContext, names: Names) -> Plan:
        return extractive_plan(context, self.language)


class ModelWriter(OfflineWriter):
    """The session's doc model writes each page; where it gives nothing usable (counted by
    the session), the offline writer's page stays."""

    def __init__(self, session: JsonSession, language: str, *, dry_run: bool = False) -> None:
        super().__init__(language)
        self.session = session
        self.stores = not dry_run

    def overview(self, orientation: Orientation, hierarchy: Hierarchy, documents: list[Document], names: Names) -> WrittenOverview | None:
        return write_overview(self.session, orientation, hierarchy, documents, names())

    def decisions(self, found: list[Decision], hierarchy: Hierarchy, names: Names) -> WrittenDecisions | None:
        return write_decisions(self.session, found, hierarchy, names())

    def milestones(self, found: list[Milestone], hierarchy: Hierarchy, names: Names) -> WrittenMilestones | None:
        return write_milestones(self.session, found, hierarchy, names())

    def expand(self, query: str) -> list[str]:
        return expand_query(self.session, query)

    def plan(self, context: PlanContext, names: Names) -> Plan:
        return write_plan(self.session, context, names()) or super().plan(context, names)
