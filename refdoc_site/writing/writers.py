"""What the doc model writes from the offline build's evidence: the overview's narrative,
the decision log, the refactoring plan, a plan for a query, and the search terms a query
expands to.

Each writer shows the model numbered sources (context.py), asks for one JSON object whose
statements cite those ids and put code names in backticks, checks the reply's shape (the
session repairs a bad one once), and grounds every text (grounding.py). The result is a
record (written.py) that the store keeps and the renderer reads; None means the model gave
nothing usable, and the caller keeps the offline page (the session counted the fallback).

The `session` is the build's `LlmSession` (refdoc_site/llm/): cached by the hash of the
request, concurrent, retried, budgeted and accounted per phase.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any, Protocol

import yaml

from ..core.findings import Decision, Milestone
from ..core.records import Document, Hierarchy
from ..core.resources import templates_dir
from ..understanding.orientation import Orientation
from .context import PlanContext, decisions_context, milestones_context, overview_context
from .grounding import Grounder, GroundingReport
from .links import Link, chunk_link, file_link, module_link
from .names import NameIndex
from .sources import SourceBook
from .written import (
    Plan,
    PlanChange,
    PlanChunk,
    WrittenDecision,
    WrittenDecisions,
    WrittenMilestones,
    WrittenOverview,
    WrittenPhase,
)

LANGUAGE_NAMES = {"en": "English", "ja": "Japanese (日本語)"}
MAX_DECISIONS = 20
MAX_PHASES = 6
MAX_STEPS = 12
MAX_CHANGES = 10
MAX_EXPANSION_TERMS = 10
MAX_TERM_CHARS = 40


class JsonSession(Protocol):
    """The part of `LlmSession` the writers use."""

    @property
    def doc_model(self) -> str: ...

    @property
    def summarizer_model(self) -> str: ...

    @property
    def language(self) -> str: ...

    def complete_json(
        self, phase: str, messages: list[dict], *, model: str, validate: Callable[[dict], str | None], expect_tokens: int = 200
    ) -> dict | None: ...


DOC_REPLY_TOKENS = 1500
"""What a page's reply is expected to cost, for the session's dry run and budget."""


@cache
def prompts() -> dict:
    """The prompts, kept as data beside the page templates (`written/prompts.yml`)."""
    return yaml.safe_load((templates_dir() / "written" / "prompts.yml").read_text(encoding="utf-8"))


def messages_for(phase: str, sources: str, language: str, **values: str) -> list[dict]:
    """The system rules with the phase's reply schema, then the phase's task and its sources."""
    page = prompts()[phase]
    language_name = LANGUAGE_NAMES.get(language, LANGUAGE_NAMES["en"])
    system = prompts()["rules"].replace("{language}", language_name).replace("{schema}", page["schema"])
    task = page["task"].format(**values) if values else page["task"]
    return [{"role": "system", "content": system}, {"role": "user", "content": f"{task}\n\nSources:\n{sources}"}]


def _ask(session: JsonSession, phase: str, sources: str, check: Callable[[dict], str | None], **values: str) -> dict | None:
    """The doc model's reply to one page's prompt, checked by `check`; None when unusable."""
    messages = messages_for(phase, sources, session.language, **values)
    return session.complete_json(phase, messages, model=session.doc_model, validate=check, expect_tokens=DOC_REPLY_TOKENS)


# --- index.md: the overview's narrative ------------------------------------------------------

OVERVIEW_ANSWERS = {"what_it_is": "system", "parts": "parts", "how_it_works": "flow", "where_to_start": "start"}
"""The record's fields by the reply's keys (single words: a model repeats a key's name in
its text, and a snake_case word there reads as code)."""


def write_overview(
    session: JsonSession, orientation: Orientation, hierarchy: Hierarchy, documents: list[Document], names: NameIndex
) -> WrittenOverview | None:
    """The overview's four answers told by the doc model from the page's own facts, every
    name and citation grounded; None keeps the overview as the offline build writes it."""
    book = overview_context(orientation, hierarchy, {d.chunk.id: d for d in documents})
    if len(book.sources) < 2:  # the system alone: nothing to tell it from
        return None

    def check(reply: dict) -> str | None:
        answers = reply.get("overview")
        problem = _fields(answers, required=tuple(OVERVIEW_ANSWERS.values()))
        if problem:
            return f"overview: {problem}"
        uncited = [key for key in OVERVIEW_ANSWERS.values() if not book.cited_ids(answers[key])]
        if uncited:
            return f"overview: {', '.join(uncited)} cite no source id of the list; cite them in square brackets, e.g. [{next(iter(book.sources))}]"
        return None

    reply = _ask(session, "overview", book.block(), check)
    if reply is None:
        return None
    grounder = Grounder(names, book)
    answers = {name: grounder.ground(reply["overview"][key]) for name, key in OVERVIEW_ANSWERS.items()}
    return WrittenOverview(session.doc_model, session.language, **answers, grounding=grounder.report)


# --- decisions.md ----------------------------------------------------------------------------

def write_decisions(session: JsonSession, decisions: list[Decision], hierarchy: Hierarchy, names: NameIndex) -> WrittenDecisions | None:
    """The decision log as the doc model writes it from the offline evidence; None to keep the offline page."""
    if not decisions:
        return None
    book = decisions_context(decisions, hierarchy)
    check = _check_items(book, "decisions", required=("title", "decision"), optional=("status", "context", "consequences"), cited=("context", "decision", "consequences"))
    reply = _ask(session, "decisions", book.block(), check)
    if reply is None:
        return None
    grounder = Grounder(names, book)
    entries = []
    for item in reply["decisions"][:MAX_DECISIONS]:
        cited = [i for name in ("context", "decision", "consequences") for i in book.cited_ids(item.get(name, "")) if i.startswith("E")]
        entries.append(WrittenDecision(
            title=grounder.ground(item["title"], statement=False),
            status=grounder.ground(item.get("status", ""), statement=False),
            context=grounder.ground(item.get("context", "")),
            decision=grounder.ground(item["decision"]),
            consequences=grounder.ground(item.get("consequences", "")),
            evidence=_evidence_links(book, cited),
        ))
    return WrittenDecisions(session.doc_model, session.language, entries, grounder.report)


# --- plans/milestones.md -----------------------------------------------------------------------

def write_milestones(session: JsonSession, milestones: list[Milestone], hierarchy: Hierarchy, names: NameIndex) -> WrittenMilestones | None:
    """The refactoring plan as the doc model writes it from the measured facts; None to keep the offline page."""
    if not milestones:
        return None
    facts = milestones_context(milestones, hierarchy)
    book = facts.book
    sections = [book.block([next(iter(book.sources))])]
    for title, goal, ids in facts.phases:
        sections.append(f"Facts for '{title}' ({goal}):\n{book.block(ids)}")
    sections.append(book.block([i for i in book.sources if i.startswith("M")]))
    sources = "\n\n".join(s for s in sections if s)
    check = _check_items(book, "phases", required=("title", "goal"), lists=("steps",), cited=("steps",))
    reply = _ask(session, "milestones", sources, check)
    if reply is None:
        return None
    grounder = Grounder(names, book)
    phases = [
        WrittenPhase(
            title=grounder.ground(phase["title"], statement=False),
            goal=grounder.ground(phase["goal"]),
            steps=[grounder.ground(step) for step in phase["steps"][:MAX_STEPS]],
        )
        for phase in reply["phases"][:MAX_PHASES]
    ]
    return WrittenMilestones(session.doc_model, session.language, phases, grounder.report)


# --- plans/{query}.md ----------------------------------------------------------------------------

def write_plan(session: JsonSession, context: PlanContext, names: NameIndex) -> Plan | None:
    """A plan for the query, written by the doc model from the context; None to use `extractive_plan`."""
    book = context.book
    changes = _check_items(book, "changes", required=("title", "detail"), cited=("detail",))

    def check(reply: dict) -> str | None:
        return _fields(reply, required=("summary",)) or _string_lists(reply, ("steps", "risks")) or changes(reply)

    reply = _ask(session, "plans", book.block(), check, query=json.dumps(context.query, ensure_ascii=False))
    if reply is None:
        return None
    grounder = Grounder(names, book)
    return _plan(
        context,
        session.doc_model,
        session.language,
        summary=grounder.ground(reply["summary"]),
        changes=[
            PlanChange(grounder.ground(change["title"], statement=False), grounder.ground(change["detail"]))
            for change in reply["changes"][:MAX_CHANGES]
        ],
        steps=[grounder.ground(step) for step in reply.get("steps", [])[:MAX_STEPS]],
        risks=[grounder.ground(risk) for risk in reply.get("risks", [])[:MAX_STEPS]],
        grounding=grounder.report,
    )


def extractive_plan(context: PlanContext, language: str) -> Plan:
    """Without a model: where the request lands, from the search, for a person to plan from."""
    return _plan(context, "", language, summary=[], changes=[], steps=[], risks=[], grounding=GroundingReport())


def _plan(context: PlanContext, model: str, language: str, **written: Any) -> Plan:
    """A plan with the query and the context it was drawn from, linked: shown under every plan.
    The planner gives it its slug and origin when it stores it."""
    chunks = []
    for document in context.chunks:
        link = chunk_link(document)
        chunks.append(PlanChunk(link.label, link.page, link.anchor, document.chunk.symbol, document.summary.responsibility))
    return Plan(
        slug="",
        origin="",
        model=model,
        language=language,
        query=context.query,
        searched=context.search_text,
        modules=[module_link(m) for m in context.modules],
        files=[file_link(p) for p in context.files],
        chunks=chunks,
        **written,
    )


# --- query expansion ---------------------------------------------------------------------------

def expand_query(session: JsonSession, query: str) -> list[str]:
    """Search terms the query stands for (cached like every request); [] when the model gave none."""
    system = prompts()["expand"]["system"].replace("{limit}", str(MAX_EXPANSION_TERMS))
    messages = [{"role": "system", "content": system}, {"role": "user", "content": query}]
    reply = session.complete_json("expand", messages, model=session.summarizer_model, validate=_check_terms, expect_tokens=60)
    if reply is None:
        return []
    words = query.lower().split()
    return list(dict.fromkeys(t.strip() for t in reply["terms"] if t.strip() and t.strip().lower() not in words))[:MAX_EXPANSION_TERMS]


def _check_terms(reply: dict) -> str | None:
    terms = reply.get("terms")
    if not isinstance(terms, list) or not terms:
        return '"terms" must be a non-empty list of strings'
    if not all(isinstance(t, str) and 0 < len(t.strip()) <= MAX_TERM_CHARS for t in terms):
        return f'every term must be a string of 1 to {MAX_TERM_CHARS} characters'
    return None


# --- shared ----------------------------------------------------------------------------------


def _check_items(
    book: SourceBook, key: str, *, required: tuple[str, ...], optional: tuple[str, ...] = (),
    lists: tuple[str, ...] = (), cited: tuple[str, ...] = (),
) -> Callable[[dict], str | None]:
    """A check that `reply[key]` is a non-empty list of objects with these string fields and
    lists of strings, each citing at least one source of `book` in its `cited` fields."""

    def check(reply: dict) -> str | None:
        items = reply.get(key)
        if not isinstance(items, list) or not items:
            return f'"{key}" must be a non-empty list'
        for number, item in enumerate(items, start=1):
            problem = _fields(item, required, optional) or _string_lists(item, lists, non_empty=True)
            if problem:
                return f"{key} item {number}: {problem}"
            texts = [text for name in cited for text in ([item[name]] if isinstance(item.get(name), str) else item.get(name, []))]
            if not any(book.cited_ids(text) for text in texts):
                return f"{key} item {number} cites no source id of the list; cite them in square brackets, e.g. [{next(iter(book.sources))}]"
        return None

    return check


def _string_lists(item: dict, names: tuple[str, ...], non_empty: bool = False) -> str | None:
    for name in names:
        value = item.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value) or (non_empty and not value):
            return f'"{name}" must be a {"non-empty " if non_empty else ""}list of strings'
    return None


def _fields(item: object, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> str | None:
    if not isinstance(item, dict):
        return "expected an object"
    for name in required:
        if not isinstance(item.get(name), str) or not item[name].strip():
            return f'"{name}" must be a non-empty string'
    for name in optional:
        if name in item and not isinstance(item[name], str):
            return f'"{name}" must be a string'
    return None


def _evidence_links(book: SourceBook, cited: list[str]) -> list[Link]:
    seen: dict[tuple[str, str, str], Link] = {}
    for source_id in dict.fromkeys(cited):
        for link in book.links(source_id):
            seen.setdefault((link.label, link.page, link.anchor), link)
    return list(seen.values())
