"""The pages the doc writer writes from what the offline build found (part of the summarize
phase), and the plan for a request (`refdoc-site plan`, and refdoc.yml's `plans:`).

The writer is chosen once per build (writing/doc_writers.py): the model's, or the offline
one, which keeps the offline decision log and milestones and lists where a request lands.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache, cached_property, partial

from ..core.findings import Decision, Milestone
from ..core.pages import plan_slug
from ..core.records import Document, Hierarchy
from ..core.serial import from_json, to_json
from ..core.store import Store
from ..core.workspace import WRITTEN_DECISIONS, WRITTEN_MILESTONES, WRITTEN_OVERVIEW, WRITTEN_PLANS, Workspace
from ..search.embed import matching_embedder
from ..search.ranking import SearchIndex
from ..understanding.orientation import Orientation
from ..writing.context import plan_context
from ..writing.doc_writers import DocWriter, Names
from ..writing.names import NameIndex
from ..writing.written import Plan


def write_pages(
    workspace: Workspace, hierarchy: Hierarchy, orientation: Orientation, decisions: list[Decision], milestones: list[Milestone],
    writer: DocWriter,
) -> None:
    """The written overview, decision log and milestones, and the configured plans; a page
    the writer gives nothing for is removed, so the offline one shows (unless the writer
    stores nothing)."""
    store = workspace.store
    configured = {plan_slug(query): query for query in workspace.config.plans}
    documents = workspace.load_state().documents
    names = names_for(documents, hierarchy)
    written = (
        (WRITTEN_OVERVIEW, lambda: writer.overview(orientation, hierarchy, documents, names)),
        (WRITTEN_DECISIONS, lambda: writer.decisions(decisions, hierarchy, names)),
        (WRITTEN_MILESTONES, lambda: writer.milestones(milestones, hierarchy, names)),
    )
    for name, write in written:
        record = write()
        if record is not None:
            store.write_json(name, to_json(record))
        elif writer.stores:
            (store.directory / name).unlink(missing_ok=True)
    for stale in stored_plans(store):
        if stale.origin == "config" and stale.slug not in configured and writer.stores:
            (store.directory / WRITTEN_PLANS / f"{stale.slug}.json").unlink()
    if configured:
        planner = Planner(workspace, hierarchy, writer, names)
        for query in configured.values():
            planner.write(query, origin="config")


def names_for(documents: list[Document], hierarchy: Hierarchy) -> Names:
    """The name index of the documents and the hierarchy, built when a writer first asks."""
    return cache(partial(NameIndex, documents, hierarchy))


@dataclass
class Planner:
    """Writes `plans/{slug}.md` records: the writer's plan for a request."""

    workspace: Workspace
    hierarchy: Hierarchy
    writer: DocWriter
    names: Names

    @cached_property
    def search(self):
        state = self.workspace.load_state()
        return SearchIndex.build(state.documents), matching_embedder(state)

    def write(self, query: str, origin: str = "cli") -> Plan:
        """The plan record for `query`, stored under its slug (unless the writer stores nothing)."""
        search_index, embedder = self.search
        documents = self.workspace.load_state().documents
        context = plan_context(query, documents, self.hierarchy, search_index, embedder, expansion=self.writer.expand(query))
        record = replace(self.writer.plan(context, self.names), slug=plan_slug(query), origin=origin)
        if self.writer.stores:
            self.workspace.store.write_json(f"{WRITTEN_PLANS}/{record.slug}.json", to_json(record))
        return record


def stored_plans(store: Store) -> list[Plan]:
    """Every plan written so far, by slug."""
    directory = store.directory / WRITTEN_PLANS
    return [from_json(Plan, store.read_json(f"{WRITTEN_PLANS}/{path.name}")) for path in sorted(directory.glob("*.json"))]
