"""Refactoring plan: phases proposed from measured facts about the repository only.

A phase exists only when its facts do (a module cycle, a file over the size threshold,
a function called from many places, an undocumented public file), and every item states
the number that put it there, so the plan can be checked against the code and never
invents work. Thresholds are named constants below.

Phases are `Milestone` records (core/findings.py), saved as `plans.json` and rendered by
`templates/milestones.md.jinja2`. Their sentences are phrased from `PlanFacts` through the
label tables (core/plan_phrases.py): English here, the site's language on the page.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from ..core.findings import Milestone, MilestoneItem, PlanFacts
from ..core.pages import chunk_anchor
from ..core.plan_phrases import definition_label, phase_title, plan_text
from ..core.records import Chunk, ChunkKind, Document, FileRole, Hierarchy
from .graph import RepoGraph

MAX_ITEMS = 10
"""Items per phase; a plan is read by people, the full numbers are on the pages."""
LARGE_FILE_LINES = 500
LONG_DEFINITION_LINES = 60
HIGH_MODULE_FAN_OUT = 5
"""A module importing from at least this many other modules is a coupling hotspot."""
HIGH_MODULE_FAN_IN = 5
HIGH_CALL_FAN_IN = 10
"""A definition called from at least this many chunks is a coupling hotspot."""
MAX_CYCLE_IMPORTS = 3
"""File imports named per cycle, so one large cycle does not hide the others."""
DEFINITION_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD})
"""Definitions long enough to split: a class is as long as its methods, which are listed."""
DOC_FOLDERS = frozenset({"docs", "doc", "documentation"})
"""Code in these folders (Sphinx's `conf.py`, a guide's snippets) builds or shows the docs:
it is not what a refactoring of the project works on."""
DOMINANT_SHARE = 0.6
"""A class this share of its file's lines is what splitting the file means splitting."""
NOT_CODE_LANGUAGES = frozenset({"markdown", "restructuredtext", "text", "config"})
"""Long prose or configuration is not a file to split."""


def plan_milestones(
    documents: list[Document], hierarchy: Hierarchy, graph: RepoGraph
) -> list[Milestone]:
    """The phases whose facts exist: cycles, then size, coupling and documentation.

    Only the project's own files count (`FileSummary.file_role`): tests, fixtures,
    vendored and generated code are not what its refactoring works on."""
    documents, hierarchy, graph = own_facts(documents, hierarchy, graph)
    phases = (
        _cycles_phase(graph),
        _size_phase(documents, hierarchy),
        _coupling_phase(documents, hierarchy, graph),
        _documentation_phase(hierarchy),
    )
    return [phase for phase in phases if phase]


def _cycles_phase(graph: RepoGraph) -> Milestone | None:
    """Each cycle, then the file imports along its lightest module edge: the cheapest cut."""
    if not graph.cycles:
        return None
    items = []
    for cycle in graph.cycles:
        edges = _cycle_edges(cycle, graph)
        count = sum(len(imports) for imports in edges.values())
        items.append(_item(" ↔ ".join(cycle), _facts("cycle", members=len(cycle), file_imports=count)))
        if not edges:
            continue
        lightest = min(edges, key=lambda edge: (len(edges[edge]), edge))
        for source, target in edges[lightest][:MAX_CYCLE_IMPORTS]:
            words = {"target": target, "source_module": lightest[0], "target_module": lightest[1]}
            items.append(_item(source, _facts("cycle_import", words=words, imports=len(edges[lightest])), path=source))
    return _phase("cycles", _facts("cycles_goal", n=len(graph.cycles)), items[:MAX_ITEMS])


def _cycle_edges(
    cycle: list[str], graph: RepoGraph
) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(source module, target module) → the (importer, imported) file pairs behind the edge."""
    members = set(cycle)
    edges: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for path in sorted(graph.file_imports):
        source = graph.module_of.get(path, "")
        if source not in members:
            continue
        for target in graph.file_imports[path]:
            destination = graph.module_of.get(target, "")
            if destination in members and destination != source:
                edges[(source, destination)].append((path, target))
    return dict(edges)


def _size_phase(documents: list[Document], hierarchy: Hierarchy) -> Milestone | None:
    large = sorted(
        (
            f
            for f in hierarchy.files.values()
            if f.lines > LARGE_FILE_LINES and f.language not in NOT_CODE_LANGUAGES
        ),
        key=lambda f: (-f.lines, f.path),
    )
    long = [
        (lines, chunk)
        for lines, chunk in _definition_lengths(documents)
        if lines > LONG_DEFINITION_LINES
    ]
    long.sort(key=lambda pair: (-pair[0], pair[1].path, pair[1].symbol))
    if not large and not long:
        return None
    goal = _facts(
        "size_goal_both" if large and long else "size_goal_files" if large else "size_goal_definitions",
        **({"files": len(large), "file_limit": LARGE_FILE_LINES} if large else {}),
        **({"definitions": len(long), "definition_limit": LONG_DEFINITION_LINES} if long else {}),
    )
    by_path: dict[str, list[Chunk]] = defaultdict(list)
    for document in documents:
        by_path[document.chunk.path].append(document.chunk)
    return _phase(
        "size",
        goal,
        _allot(
            [
                [_item(f.path, _file_split(f.lines, by_path[f.path]), path=f.path) for f in large],
                [_chunk_item(chunk, _facts(f"long_{chunk.kind.value}", lines=lines)) for lines, chunk in long],
            ],
            MAX_ITEMS,
        ),
    )


def _definition_lengths(documents: list[Document]) -> list[tuple[int, Chunk]]:
    """(lines, first chunk) per function, method or class; one split in parts counts once."""
    whole: list[tuple[int, Chunk]] = []
    split: dict[tuple[str, str], list[Chunk]] = defaultdict(list)
    for document in documents:
        chunk = document.chunk
        if chunk.kind not in DEFINITION_KINDS:
            continue
        if chunk.part:
            split[(chunk.path, chunk.symbol)].append(chunk)
        else:
            whole.append((chunk.end_line - chunk.start_line + 1, chunk))
    for parts in split.values():
        lines = max(c.end_line for c in parts) - min(c.start_line for c in parts) + 1
        whole.append((lines, min(parts, key=lambda c: c.part)))
    return whole


def _coupling_phase(
    documents: list[Document], hierarchy: Hierarchy, graph: RepoGraph
) -> Milestone | None:
    fan_out = sorted(
        (
            (len(deps), module)
            for module, deps in graph.module_deps.items()
            if len(deps) >= HIGH_MODULE_FAN_OUT
        ),
        key=lambda pair: (-pair[0], pair[1]),
    )
    fan_in = sorted(
        (
            (len(m.used_by), name)
            for name, m in hierarchy.modules.items()
            if len(m.used_by) >= HIGH_MODULE_FAN_IN
        ),
        key=lambda pair: (-pair[0], pair[1]),
    )
    by_id = {d.chunk.id: d.chunk for d in documents}
    called = sorted(
        (
            (len(callers), by_id[chunk_id], callers)
            for chunk_id, all_callers in graph.callers.items()
            if chunk_id in by_id
            for callers in [[by_id[c] for c in all_callers if c in by_id and by_id[c].path != by_id[chunk_id].path]]
            if len(callers) >= HIGH_CALL_FAN_IN
        ),
        key=lambda triple: (-triple[0], triple[1].id),
    )
    if not fan_out and not fan_in and not called:
        return None
    return _phase(
        "coupling",
        _facts("coupling_goal"),
        _allot(
            [
                [_item(m, _facts("fan_out", names={"named": graph.module_deps.get(m, [])}, modules=n), module=m) for n, m in fan_out],
                [_item(m, _facts("fan_in", names={"named": hierarchy.modules[m].used_by}, modules=n), module=m) for n, m in fan_in],
                [_chunk_item(chunk, _caller_facts(n, callers)) for n, chunk, callers in called],
            ],
            MAX_ITEMS,
        ),
    )


def _documentation_phase(hierarchy: Hierarchy) -> Milestone | None:
    undocumented = sorted(
        (
            f
            for f in hierarchy.files.values()
            if not f.has_docs and f.public_api
        ),
        key=lambda f: (-f.lines, f.path),
    )
    if not undocumented:
        return None
    items = [
        _item(f.path, _facts("undocumented", names={"api": f.public_api}, lines=f.lines, public_names=len(f.public_api)), path=f.path)
        for f in undocumented[:MAX_ITEMS]
    ]
    return _phase("documentation", _facts("documentation_goal", n=len(undocumented)), items)


def own_facts(
    documents: list[Document], hierarchy: Hierarchy, graph: RepoGraph
) -> tuple[list[Document], Hierarchy, RepoGraph]:
    """The facts without the files that are not the project's own (tests, fixtures,
    examples, vendored and generated code), nor the modules made of nothing else, nor the
    dependencies on those modules. Code under a docs folder (`docs/conf.py`) is not the
    project's own either."""
    others = {path for path, f in hierarchy.files.items() if f.file_role is not FileRole.SOURCE or _in_doc_folder(path)}
    foreign = {name for name, m in hierarchy.modules.items() if m.files and others.issuperset(m.files)}
    files = {path: f for path, f in hierarchy.files.items() if path not in others}
    modules = {
        name: replace(m, used_by=[u for u in m.used_by if u not in foreign])
        for name, m in hierarchy.modules.items()
        if name not in foreign
    }
    module_deps = {
        m: [d for d in deps if d not in foreign] for m, deps in graph.module_deps.items() if m not in foreign
    }
    return (
        [d for d in documents if d.chunk.path not in others],
        Hierarchy(hierarchy.system, modules, files),
        replace(graph, module_deps=module_deps),
    )


def _in_doc_folder(path: str) -> bool:
    return bool(DOC_FOLDERS & {part.lower() for part in path.split("/")[:-1]})


def _file_split(lines: int, chunks: list[Chunk]) -> PlanFacts:
    """A large file's item (`chunks`, the file's): its lines, and its largest top-level
    definitions, the parts to move out."""
    own = [c for c in chunks if c.part <= 1]
    classes = {c.symbol for c in own if c.kind is ChunkKind.CLASS}
    top = sorted(  # express's response.js is its `res.*` members: methods outside any class
        (c for c in own if c.parent not in classes and c.kind in (ChunkKind.CLASS, ChunkKind.FUNCTION, ChunkKind.METHOD)),
        key=lambda c: (-(c.end_line - c.start_line), c.start_line),
    )
    main = top[0] if top else None
    if main is not None and main.kind is ChunkKind.CLASS and main.end_line - main.start_line + 1 >= DOMINANT_SHARE * lines:
        methods = sorted(
            (c for c in own if c.parent == main.symbol),
            key=lambda c: (-(c.end_line - c.start_line), c.start_line),
        )
        if methods:
            named = [c.symbol.rsplit(".", 1)[-1] for c in methods]
            return _facts("split_class", names={"named": named}, words={"class": main.symbol}, lines=lines, methods=len(methods))
    if len(top) < 2:
        return _facts("split_whole", lines=lines)
    return _facts("split_top", names={"named": [c.symbol for c in top]}, lines=lines)


def _caller_facts(count: int, callers: list[Chunk]) -> PlanFacts:
    files = sorted({c.path for c in callers})
    return _facts("called", names={"named": files}, places=count, other_files=len(files))


def _facts(key: str, names: dict[str, list[str]] | None = None, words: dict[str, str] | None = None, **numbers: int) -> PlanFacts:
    return PlanFacts(key, numbers, names or {}, words or {})


def _phase(phase: str, goal: PlanFacts, items: list[MilestoneItem]) -> Milestone:
    """A phase phrased in English from its facts, which it keeps for a page in another language."""
    return Milestone(phase_title(phase), plan_text(goal), items, phase=phase, facts=goal)


def _item(label: str, facts: PlanFacts, path: str = "", anchor: str = "", module: str = "", symbol: str = "") -> MilestoneItem:
    return MilestoneItem(label, path, anchor, module, plan_text(facts), facts=facts, symbol=symbol)


def _chunk_item(chunk: Chunk, facts: PlanFacts) -> MilestoneItem:
    return _item(
        definition_label(chunk.symbol, chunk.path),
        facts,
        path=chunk.path,
        anchor=chunk_anchor(chunk.symbol),
        symbol=chunk.symbol,
    )


def _allot(groups: list[list[MilestoneItem]], limit: int) -> list[MilestoneItem]:
    """Ranked groups concatenated, each trimmed so together they fit `limit`.

    Room is shared in turns, so every kind of fact in a phase keeps its best items
    before any kind gets more; a kind with few items leaves its share to the others.
    """
    taken = [0] * len(groups)
    total = 0
    while total < limit and any(taken[i] < len(group) for i, group in enumerate(groups)):
        for i, group in enumerate(groups):
            if total < limit and taken[i] < len(group):
                taken[i] += 1
                total += 1
    return [item for group, count in zip(groups, taken, strict=True) for item in group[:count]]
