"""The pages a change may have made wrong: those that cite the lines it edits.

The decision log cites its evidence, the plans their steps' code, the overview its flows'
definitions, the doc model's prose its citations, and a maintainer's correction its target
(core/corrections.py). Each such place is read from the revision's store; one whose cited
definition the change edits or removes (or, for a citation of a whole file, whose file it
edits) is listed in the change map's "May now be wrong", most important first: a
maintainer's correction (the site states it as checked), then decisions, the overview, the
plans and the model's prose.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..core.corrections import Correction, TargetKind, split_edge
from ..core.pages import chunk_anchor, file_page, plan_page
from ..core.serial import to_json
from ..core.store import Store
from ..core.workspace import DECISIONS_NAME, ORIENTATION_NAME, PLANS_NAME, WRITTEN_DECISIONS, WRITTEN_MILESTONES, WRITTEN_OVERVIEW
from ..understanding.changes import STALE_KINDS, Edited, StalePage

def _places(value: Any, pages: dict[str, str]) -> Iterator[tuple[str, str]]:
    """Every (path, anchor) a record's JSON cites: an evidence link or plan item (`path`,
    `anchor`), a stored link (`page`, `anchor`, a file page's), a flow's definition
    (`chunk_id`, `symbol`, `path`)."""
    if isinstance(value, list):
        for item in value:
            yield from _places(item, pages)
    elif isinstance(value, dict):
        if "chunk_id" in value and isinstance(value.get("path"), str):
            yield value["path"], chunk_anchor(str(value.get("symbol", "")))
        elif isinstance(value.get("path"), str) and "anchor" in value:
            yield value["path"], str(value["anchor"] or "")
        elif isinstance(value.get("page"), str) and value["page"] in pages:
            yield pages[value["page"]], str(value.get("anchor") or "")
        for item in value.values():
            if isinstance(item, (list, dict)):
                yield from _places(item, pages)


def stale_pages(
    store: Store, edited: Edited, paths: list[str], plans: list, corrections: list[Correction], to_review: set[str] = frozenset(),
) -> list[StalePage]:
    """The places of the site in `store` that cite what `edited` says the change edits, in
    `STALE_KINDS` order; `paths` are the revision's files (their pages are what a stored
    link names), `plans` its stored plans; the corrections in `to_review` (by key) are
    listed whatever the change edits: their code changed since they were written."""
    pages = {file_page(path): path for path in paths}
    found: list[StalePage] = []

    def cite(kind: str, page: str, anchor: str, title: str, record: Any) -> None:
        for path, cited_anchor in _places(record, pages):
            if cited := edited.cited(path, cited_anchor):
                found.append(StalePage(kind, page, anchor, title, cited))
                return

    def stored(name: str) -> Any:
        return store.read_json(name) if (store.directory / name).is_file() else None

    decisions = stored(WRITTEN_DECISIONS)
    for entry in (decisions or {}).get("entries", []) if isinstance(decisions, dict) else []:
        cite("decision", "decisions.md", "", _words(entry.get("title")), entry)
    for decision in stored(DECISIONS_NAME) or [] if decisions is None else []:
        cite("decision", "decisions.md", "", str(decision.get("title", "")), decision)
    orientation = stored(ORIENTATION_NAME) or {}
    for flow in orientation.get("flows", []) if isinstance(orientation, dict) else []:
        entry = flow.get("entry", {}).get("definition", {})
        cite("overview", "index.md", "", str(entry.get("shown") or entry.get("symbol", "")), flow)
    milestones = stored(WRITTEN_MILESTONES)
    for phase in (milestones or {}).get("phases", []) if isinstance(milestones, dict) else []:
        cite("plan", "plans/milestones.md", "", _words(phase.get("title")), phase)
    for milestone in stored(PLANS_NAME) or [] if milestones is None else []:
        cite("plan", "plans/milestones.md", "", str(milestone.get("title", "")), milestone)
    for plan in plans:
        cite("plan", plan_page(plan.slug), "", plan.query, to_json(plan))
    overview = stored(WRITTEN_OVERVIEW)
    for part in ("what_it_is", "parts", "how_it_works", "where_to_start"):
        cite("narrative", "index.md", "", part.replace("_", " "), (overview or {}).get(part, []) if isinstance(overview, dict) else [])
    found += _stale_corrections(corrections, edited, {s.title for s in found if s.kind == "decision"}, {s.page for s in found}, to_review)
    return sorted(found, key=lambda s: STALE_KINDS.index(s.kind))


def _stale_corrections(
    corrections: list[Correction], edited: Edited, decisions: set[str], pages: set[str], to_review: set[str],
) -> list[StalePage]:
    """The corrections whose target the change edits, or whose code changed since they were
    written (`cited` is then ""): their text may now be wrong too."""
    found = []
    for correction in corrections:
        target = correction.target
        if correction.kind is TargetKind.DEFINITION:
            path, _, symbol = target.partition("#")
            cited = edited.cited(path, chunk_anchor(symbol))
            where = (file_page(path), chunk_anchor(symbol))
        elif correction.kind is TargetKind.EDGE:
            ends = [end.partition("#") for end in split_edge(target) or ()]
            cited = next((c for path, _, symbol in ends if (c := edited.cited(path, chunk_anchor(symbol)))), "")
            where = (file_page(ends[0][0]), chunk_anchor(ends[0][2])) if ends else ("", "")
        elif correction.kind is TargetKind.DECISION:
            cited, where = (target if target in decisions else ""), ("decisions.md", "")
        else:
            page, _, anchor = target.partition("#")
            cited, where = (page if page in pages else ""), (page, anchor)
        if cited or correction.key in to_review:
            found.append(StalePage("correction", where[0], where[1], f"{correction.kind.value}: {target}", cited))
    return found


def _words(grounded: Any) -> str:
    """A written title's words, from its JSON segments."""
    if not isinstance(grounded, list):
        return ""
    return "".join(str(s.get("text") or s.get("code") or "") for s in grounded if isinstance(s, dict)).strip()
