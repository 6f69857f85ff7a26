"""The pipeline, phase by phase: index → summarize → render → publish.

`build()` reads as the whole product. Each phase is one function in its own module here,
taking the workspace and returning its report; it reads what the phase before it stored,
so the CLI can run any phase alone against the same store. Each reuses its stored output
when its inputs are unchanged (core/reuse.py).

The LLM is chosen here, once: with a session, its `Summarizer` and doc writer; without,
the offline ones. The phases call either the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..core.kill_points import kill_point
from ..core.progress import heartbeat
from ..core.pages import plan_page
from ..core.records import Hierarchy
from ..core.shards import Shard
from ..core.workspace import (
    DECISIONS_NAME,
    DISCOVERY_NAME,
    FACTS_NAME,
    GRAPH_NAME,
    PLANS_NAME,
    RENDERED_NAME,
    WRITTEN_DECISIONS,
    WRITTEN_MILESTONES,
    Workspace,
    holding_store_lock,
)
from ..indexing.analyze import Analyzer
from ..indexing.summarize import ExtractiveSummarizer, Summarizer
from ..llm import LlmSession
from ..providers.openai_embed import OpenAIEmbedder
from ..rendering.outputs import remove_leftovers
from ..rendering.page_weight import ENGINE_PROGRESS
from ..search.embed import Embedder
from ..understanding.changes import ChangeMap
from ..understanding.llm_hierarchy import LlmSummarizer
from ..writing.doc_writers import DocWriter, ModelWriter, OfflineWriter
from ..writing.written import Plan
from . import index_phase, render_phase, summarize_phase
from .diff_phase import Base, change_map, store_change_map
from .index_phase import IndexReport, skipped_by_reason
from .write_phase import Planner, names_for

__all__ = [
    "DECISIONS_NAME", "DISCOVERY_NAME", "FACTS_NAME", "GRAPH_NAME", "PLANS_NAME", "RENDERED_NAME",
    "WRITTEN_DECISIONS", "WRITTEN_MILESTONES", "Base", "BuildReport", "IndexReport", "Workspace",
    "build", "changes", "index", "plan", "publish", "render", "skipped_by_reason", "summarize",
]

T = TypeVar("T")


@dataclass
class BuildReport:
    index: IndexReport
    pages: int
    site_dir: Path
    seconds: dict[str, float]
    rendered: int = 0
    """Pages the render phase rendered: those whose inputs changed."""
    taken: int = 0
    """Pages the engine took from its last build rather than convert again (MkDocs: page_reuse.py)."""


@holding_store_lock
def build(
    workspace: Workspace,
    analyzer: Analyzer | None = None,
    site: bool = True,
    llm: LlmSession | None = None,
    base: Base | None = None,
    from_shards: Sequence[Path] = (),
) -> BuildReport:
    """The whole product: index the code, summarize it, render the pages, build the site.

    With an LLM session (llm/), the model writes the summaries and pages; without, they are
    offline. With a `base`, the site has a "What changed" page (diff_phase.py). With the
    stores of shards (`from_shards`, core/shards.py), their files count as indexed.
    """
    summarizer, writer = summarizer_for(llm), writer_for(llm, workspace)
    seconds: dict[str, float] = {}

    def timed(name: str, phase: Callable[[], T]) -> T:
        started = time.perf_counter()
        with heartbeat(name):  # a line at least every 10 s, in every phase (core/progress.py)
            result = phase()
        seconds[name] = time.perf_counter() - started
        kill_point(f"{name} phase done")
        return result

    render_phase.workspace_corrections(workspace)  # a broken corrections file stops the build before any work
    remove_leftovers(workspace.out_dir)  # before discovery: an interrupted publish's folders are no source
    report = timed("index", lambda: index_phase.index(workspace, summarizer, analyzer, from_shards=from_shards))
    timed("summarize", lambda: summarize_phase.summarize(workspace, summarizer, writer))
    store_change_map(workspace, timed("diff", lambda: change_map(workspace, base)) if base else None)
    rendered = timed("render", lambda: render_phase.render_report(workspace))
    engine = workspace.config.engine  # the site phase is timed under the engine's name
    # The engine reads the rendered project only; the documents (homeassistant's 92,000
    # chunks, each with its vector as Python floats) would stay held beside every page
    # it converts.
    workspace.forget_state()
    site_dir = timed(engine, lambda: render_phase.publish(workspace)) if site else workspace.out_dir
    return BuildReport(report, len(rendered.pages), site_dir, seconds, rendered.rendered, ENGINE_PROGRESS["taken"] if site else 0)


def summarizer_for(llm: LlmSession | None) -> Summarizer:
    """The build's summarizer: the LLM's with a session, else the extractive one."""
    return ExtractiveSummarizer() if llm is None else LlmSummarizer(llm)


def writer_for(llm: LlmSession | None, workspace: Workspace) -> DocWriter:
    """The build's doc writer: the model's with a session, else the offline one."""
    language = workspace.config.language
    return OfflineWriter(language) if llm is None else ModelWriter(llm, language, dry_run=llm.dry_run)


# --- each phase alone, as the CLI runs it ---------------------------------------------------


@holding_store_lock
def index(
    workspace: Workspace,
    analyzer: Analyzer | None = None,
    embedder: Embedder | None = None,
    api_embedder: OpenAIEmbedder | None = None,
    llm: LlmSession | None = None,
    shard: Shard | None = None,
    from_shards: Sequence[Path] = (),
) -> IndexReport:
    """Phase 1 (index_phase.py): discover, chunk, analyze, summarize and embed changed files
    (with `shard`, only its files, into a shard's store; `from_shards`: finished by shards)."""
    with heartbeat("index"):
        return index_phase.index(workspace, summarizer_for(llm), analyzer, embedder, api_embedder, shard, from_shards)


@holding_store_lock
def summarize(workspace: Workspace, llm: LlmSession | None = None) -> Hierarchy:
    """Phase 2 (summarize_phase.py): the graphs, the hierarchy of summaries, decisions, plans."""
    with heartbeat("summarize"):
        return summarize_phase.summarize(workspace, summarizer_for(llm), writer_for(llm, workspace))


@holding_store_lock
def render(workspace: Workspace) -> list[str]:
    """Phase 3 (render_phase.py): every page into the MkDocs project; returns page paths."""
    with heartbeat("render"):
        return render_phase.render(workspace)


@holding_store_lock
def publish(workspace: Workspace) -> Path:
    """Phase 4 (render_phase.py): the MkDocs site, built, checked whole, swapped in."""
    with heartbeat(workspace.config.engine):
        return render_phase.publish(workspace)


@holding_store_lock
def changes(workspace: Workspace, base: Base, llm: LlmSession | None = None) -> ChangeMap:
    """`refdoc-site diff`: the change map from `base` to the workspace, indexed and summarized first."""
    index_phase.index(workspace, summarizer_for(llm))
    summarize_phase.summarize(workspace, summarizer_for(llm), writer_for(llm, workspace))
    return change_map(workspace, base)


@holding_store_lock
def plan(workspace: Workspace, query: str, llm: LlmSession | None = None) -> tuple[Plan, Path]:
    """`refdoc-site plan`: write the plan for `query` and render the pages; returns it and its page."""
    writer = writer_for(llm, workspace)
    hierarchy = summarize_phase.summarize(workspace, summarizer_for(llm), writer)
    names = names_for(workspace.load_state().documents, hierarchy)
    record = Planner(workspace, hierarchy, writer, names).write(query)
    render_phase.render(workspace)
    return record, workspace.project_dir / "docs" / plan_page(record.slug)
