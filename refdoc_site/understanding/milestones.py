"""Refactoring plan: phases proposed from measured facts about the repository only.

A phase exists only when its facts do (a module cycle, a file over the size threshold,
a function called from many places, an undocumented public file), and every item states
the number that put it there, so the plan can be checked against the code and never
invents work. Thresholds are named constants below.

Phases are `Milestone` records (core/findings.py), saved as `plans.json` and rendered by
`templates/milestones.md.jinja2`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from ..core.findings import Milestone, MilestoneItem
from ..core.pages import chunk_anchor
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
NAMED_IN_ITEM = 3
"""Definitions or files an item names before "…"."""
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
        items.append(
            _item(
                " ↔ ".join(cycle),
                f"{len(cycle)} modules importing each other "
                f"through {_plural(count, 'file import')}",
            )
        )
        if not edges:
            continue
        lightest = min(edges, key=lambda edge: (len(edges[edge]), edge))
        weight = _plural(len(edges[lightest]), "import")
        for source, target in edges[lightest][:MAX_CYCLE_IMPORTS]:
            items.append(
                _item(
                    source,
                    f"imports {target}: {lightest[0]} → {lightest[1]} "
                    f"is the cycle's lightest edge ({weight})",
                    path=source,
                )
            )
    return Milestone(
        title="Break dependency cycles between modules",
        goal=f"{_plural(len(graph.cycles), 'group')} of modules "
        f"{_verb(len(graph.cycles), 'import')} each other, so no module in a group "
        "can be understood, tested or replaced alone. Cut each cycle where it is thinnest: move or "
        "invert the listed imports until the module graph has no cycle.",
        items=items[:MAX_ITEMS],
    )


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
    facts = []
    if large:
        facts.append(f"{_plural(len(large), 'file')} over {LARGE_FILE_LINES} lines")
    if long:
        facts.append(f"{_plural(len(long), 'definition')} over {LONG_DEFINITION_LINES} lines")
    return Milestone(
        title="Split the largest files and longest definitions",
        goal=f"The repository has {' and '.join(facts)}. Split them along their "
        "responsibilities so that each part can be read, reviewed and tested on its own.",
        items=_allot(
            [
                [_item(f.path, _file_split(f.path, f.lines, documents), path=f.path) for f in large],
                [
                    _chunk_item(chunk, f"{lines} lines ({chunk.kind.value}): extract its steps into functions of their own")
                    for lines, chunk in long
                ],
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
    return Milestone(
        title="Reduce coupling at the hotspots",
        goal="These modules and definitions have the most dependencies in or out within the "
        "project's own code (tests, examples and docs apart), so a change to them reaches "
        "furthest. Narrow their interfaces, split what unrelated users need, or invert "
        "dependencies so that fewer parts of the code rely on each.",
        items=_allot(
            [
                [_item(m, f"imports {_plural(n, 'module')} ({_named(graph.module_deps.get(m, []))}): move what it uses of the least-used ones behind one of its own interfaces", module=m) for n, m in fan_out],
                [_item(m, f"used by {_plural(n, 'module')} ({_named(hierarchy.modules[m].used_by)}): keep its public names stable and split off what only some of them use", module=m) for n, m in fan_in],
                [_chunk_item(chunk, _caller_text(n, callers)) for n, chunk, callers in called],
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
    items = []
    for f in undocumented[:MAX_ITEMS]:
        names = ", ".join(f.public_api[:3]) + ("…" if len(f.public_api) > 3 else "")
        items.append(
            _item(
                f.path,
                f"{f.lines} lines, {_plural(len(f.public_api), 'public name')} ({names}) "
                "and no doc comment",
                path=f.path,
            )
        )
    return Milestone(
        title="Document the public API",
        goal=f"{_plural(len(undocumented), 'file')} {_verb(len(undocumented), 'expose')} "
        "public names without a single docstring or "
        "doc comment. Document them, largest first, starting with what other modules call.",
        items=items,
    )


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


def _file_split(path: str, lines: int, documents: list[Document]) -> str:
    """A large file's item: its lines, and its largest top-level definitions, the parts to move out."""
    own = [d.chunk for d in documents if d.chunk.path == path and d.chunk.part <= 1]
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
            named = _named([c.symbol.rsplit(".", 1)[-1] for c in methods])
            return (
                f"{lines} lines, mostly the class {main.symbol} ({_plural(len(methods), 'method')}): move its largest "
                f"methods ({named}) into helpers or a base class of their own"
            )
    if len(top) < 2:
        return f"{lines} lines: split it along its responsibilities"
    return f"{lines} lines: move its largest definitions ({_named([c.symbol for c in top])}) into modules of their own"


def _caller_text(count: int, callers: list[Chunk]) -> str:
    files = sorted({c.path for c in callers})
    return (
        f"called from {_plural(count, 'place')} in {_plural(len(files), 'other file')} of the project's code "
        f"({_named(files)}): a change to its signature reaches all of them; give the callers that "
        "need less a narrower function"
    )


def _named(names: list[str]) -> str:
    return ", ".join(names[:NAMED_IN_ITEM]) + (" …" if len(names) > NAMED_IN_ITEM else "")


def _item(label: str, text: str, path: str = "", anchor: str = "", module: str = "") -> MilestoneItem:
    return MilestoneItem(label, path, anchor, module, text)


def _chunk_item(chunk: Chunk, text: str) -> MilestoneItem:
    return _item(
        f"{chunk.symbol} in {chunk.path}",
        text,
        path=chunk.path,
        anchor=chunk_anchor(chunk.symbol),
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


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _verb(count: int, verb: str) -> str:
    """A verb agreeing with `count` subjects (`1 file exposes`, `2 files expose`)."""
    return verb + "s" if count == 1 else verb
