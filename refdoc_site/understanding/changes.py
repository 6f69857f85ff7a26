"""The change map: what a revision changed against a base, read from the two stores.

A reviewer sees the lines a pull request touches; the map says what they mean for the rest
of the code: the definitions added, changed and removed, the modules they belong to, the
callers that call a changed definition (through the call graph, so also from files the pull
request did not touch), and the security boundaries and dependency cycles gained or lost.

Both sides are stores an index and a summarize run wrote (the graph is needed for callers,
modules and cycles), compared by chunk id (`path#Qualified.name`) and content: a definition
that only moved keeps its content, so it is not changed.

A file the index skipped (minified, oversized, excluded, in a built site: unindexed.py)
still counts: it is listed among the files as not indexed, and a boundary its text gained
or lost is one of the file, not of a definition.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from ..core.pages import chunk_anchor
from ..core.records import ChunkKind, Document
from ..core.serial import from_json
from ..core.store import Store
from ..core.workspace import GRAPH_NAME
from ..indexing.unindexed import UnindexedFile, stored_unindexed
from .graph import RepoGraph

DEFINITION_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS})
"""What the map lists as definitions: module-level statements, Markdown sections and token
windows have no callers and no name a reviewer would look for."""


class ChangeStatus(str, Enum):
    ADDED = "added"
    CHANGED = "changed"
    REMOVED = "removed"


@dataclass
class FileChange:
    path: str
    module: str
    status: ChangeStatus
    not_indexed: str = ""
    """Why the index skipped the file (a `SkipReason` value; the revision's, or the base's
    for a removed file), "" for an indexed one."""


@dataclass
class DefinitionChange:
    id: str
    """`path#Qualified.name`, as in the store."""
    path: str
    symbol: str
    kind: str
    module: str
    status: ChangeStatus
    public: bool
    """No part of its qualified name is private (`_name`; dunder names are public):
    changing it can break code outside the repository."""


@dataclass
class AffectedCaller:
    """A definition that calls a changed or removed one: its behaviour may change with it."""

    id: str
    path: str
    symbol: str
    calls: list[str]
    """The changed or removed definitions it calls (chunk ids)."""
    edited: bool
    """The change edits the caller itself; an unedited one is what the diff does not show."""
    present: bool = True
    """Still in the revision (it calls a removed definition from the base otherwise)."""


@dataclass
class BoundaryChange:
    """A definition that became, or stopped being, a security boundary (a subprocess,
    a query, deserialisation, … as the analysis tiers detect them)."""

    id: str
    path: str
    symbol: str
    """"" for a file that is not indexed: the boundary is the whole file's."""
    reason: str
    gained: bool
    not_indexed: str = ""
    """Why the index skipped the file, for a boundary of a file that is not indexed."""


@dataclass
class CycleChange:
    """A strongly connected group of modules that appeared or disappeared."""

    modules: list[str]
    gained: bool


STALE_KINDS = ("correction", "decision", "overview", "plan", "narrative")
"""What cites edited lines, in the order the map lists it (writing/stale.py finds them)."""


@dataclass
class StalePage:
    """A place of the revision's site that cites what the change edits."""

    kind: str
    """One of `STALE_KINDS`."""
    page: str
    anchor: str
    title: str
    """What on the page: a decision's or plan's title, a section, a correction's target."""
    cited: str
    """The definition (`path#Qualified.name`) or file it cites that the change edits."""


@dataclass
class Edited:
    """What the change edits, as citations name it."""

    definitions: dict[tuple[str, str], str]
    """(path, anchor) of each changed or removed definition → its id."""
    files: set[str]
    """Every file added, changed or removed."""
    anchors: set[tuple[str, str]]
    """(path, anchor) of every definition of either side: a citation of another anchor
    (a module's top-level code, a doc's section) stands for its whole file."""

    def cited(self, path: str, anchor: str) -> str:
        """The edited definition or file the citation names, "" when it names nothing edited."""
        if anchor and (path, anchor) in self.anchors:
            return self.definitions.get((path, anchor), "")
        return path if path in self.files else ""


@dataclass
class ChangeMap:
    """What the revision changed against `base`, each list in a stable order."""

    base: str
    """What the revision was compared with: a revision name, or the base store's folder."""
    files: list[FileChange] = field(default_factory=list)
    definitions: list[DefinitionChange] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)
    """Modules holding a changed file."""
    callers: list[AffectedCaller] = field(default_factory=list)
    boundaries: list[BoundaryChange] = field(default_factory=list)
    cycles: list[CycleChange] = field(default_factory=list)
    stale: list[StalePage] = field(default_factory=list)
    """The revision's pages that cite what the change edits: they may now be wrong."""

    @property
    def empty(self) -> bool:
        return not (self.files or self.definitions or self.cycles)


@dataclass
class Snapshot:
    """One side of the comparison: a store's documents, file hashes and graph."""

    documents: list[Document]
    file_hashes: dict[str, str]
    graph: RepoGraph
    unindexed: dict[str, UnindexedFile] = field(default_factory=dict)
    """The files it saw but did not index, by path."""


def load_snapshot(store_dir: Path) -> Snapshot:
    """The store in `store_dir` as one side of the comparison; it must have been summarized
    (the graph is read from it)."""
    store = Store(store_dir)
    state = store.load()
    graph = from_json(RepoGraph, store.read_json(GRAPH_NAME))
    hashes = {path: entry.sha256 for path, entry in state.files.items()}
    unindexed = {path: file for path, file in stored_unindexed(store).items() if path not in hashes}
    return Snapshot(state.documents, hashes, graph, unindexed)


@dataclass
class _Definition:
    """A definition's windows taken together: one content hash, one boundary reason."""

    document: Document
    windows: list[str]
    """Its chunk ids, one a window (`path#name~2` for the second)."""
    digest: str
    boundary: str


def _definitions(documents: Iterable[Document]) -> dict[str, _Definition]:
    parts: dict[str, list[Document]] = {}
    for document in documents:
        if document.chunk.kind in DEFINITION_KINDS:
            parts.setdefault(_definition_id(document), []).append(document)
    definitions = {}
    for key, windows in parts.items():
        windows.sort(key=lambda d: d.chunk.part)
        digest = hashlib.sha256("\0".join(w.chunk.content for w in windows).encode("utf-8", "surrogatepass")).hexdigest()
        boundary = next((w.metadata.securityBoundary for w in windows if w.metadata.securityBoundary), "")
        definitions[key] = _Definition(windows[0], [w.chunk.id for w in windows], digest, boundary)
    return definitions


def _definition_id(document: Document) -> str:
    """A definition's id without its window number: every window of it is one definition."""
    return f"{document.chunk.path}#{document.chunk.symbol}"


def is_public(symbol: str) -> bool:
    return not any(part.startswith(("_", "#")) and not (part.startswith("__") and part.endswith("__")) for part in symbol.split("."))


def compare(base: Snapshot, head: Snapshot, base_name: str) -> ChangeMap:
    """The change map from `base` to `head`."""
    changes = ChangeMap(base_name)
    changes.files = _file_changes(base, head)
    before, after = _definitions(base.documents), _definitions(head.documents)
    statuses = {key: ChangeStatus.ADDED for key in after.keys() - before.keys()}
    statuses |= {key: ChangeStatus.REMOVED for key in before.keys() - after.keys()}
    statuses |= {key: ChangeStatus.CHANGED for key in after.keys() & before.keys() if after[key].digest != before[key].digest}
    for key in sorted(statuses):
        status = statuses[key]
        definition = (before if status is ChangeStatus.REMOVED else after)[key]
        graph = base.graph if status is ChangeStatus.REMOVED else head.graph
        chunk = definition.document.chunk
        changes.definitions.append(DefinitionChange(
            key, chunk.path, chunk.symbol, chunk.kind.value, graph.module_of.get(chunk.path, ""), status, is_public(chunk.symbol)
        ))
    changes.modules = sorted({change.module for change in changes.files if change.module})
    changes.callers = _affected_callers(statuses, before, after, base.graph, head.graph)
    changes.boundaries = sorted(
        _boundary_changes(before, after) + _unindexed_boundary_changes(base.unindexed, head.unindexed),
        key=lambda c: (not c.gained, c.id),
    )
    changes.cycles = _cycle_changes(base.graph.cycles, head.graph.cycles)
    return changes


def edited_places(base: Snapshot, head: Snapshot, changes: ChangeMap) -> Edited:
    """What `changes` edits, as the pages' citations name it (writing/stale.py)."""
    anchors = {(d.chunk.path, chunk_anchor(d.chunk.symbol)) for side in (base, head) for d in side.documents if d.chunk.kind in DEFINITION_KINDS}
    edited = {
        (change.path, chunk_anchor(change.symbol)): change.id
        for change in changes.definitions if change.status is not ChangeStatus.ADDED
    }
    return Edited(edited, {change.path for change in changes.files}, anchors)


def _file_changes(base: Snapshot, head: Snapshot) -> list[FileChange]:
    """Every file added, changed or removed, indexed or not (a file's hash is its content's
    either way: one that only stopped being indexed did not change)."""
    before = base.file_hashes | {path: file.sha256 for path, file in base.unindexed.items()}
    after = head.file_hashes | {path: file.sha256 for path, file in head.unindexed.items()}
    changes = []
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        status = ChangeStatus.ADDED if old is None else ChangeStatus.REMOVED if new is None else ChangeStatus.CHANGED
        side = base if status is ChangeStatus.REMOVED else head
        skipped = side.unindexed.get(path)
        changes.append(FileChange(path, side.graph.module_of.get(path, ""), status, skipped.reason if skipped else ""))
    return changes


def _affected_callers(
    statuses: dict[str, ChangeStatus],
    before: dict[str, _Definition],
    after: dict[str, _Definition],
    base_graph: RepoGraph,
    head_graph: RepoGraph,
) -> list[AffectedCaller]:
    """Who calls a changed definition now, and who called a removed one; unedited callers
    first (the diff does not show them), then by id."""
    definition_of = {window: key for side in (before, after) for key, d in side.items() for window in d.windows}
    called: dict[str, set[str]] = {}
    for key, status in statuses.items():
        if status is ChangeStatus.ADDED:
            continue
        side, graph = (before, base_graph) if status is ChangeStatus.REMOVED else (after, head_graph)
        for window in side[key].windows:
            for caller in graph.callers.get(window, ()):
                caller_key = definition_of.get(caller)
                if caller_key and caller_key != key:
                    called.setdefault(caller_key, set()).add(key)
    callers = []
    for key, targets in called.items():
        chunk = (after.get(key) or before[key]).document.chunk
        callers.append(AffectedCaller(key, chunk.path, chunk.symbol, sorted(targets), key in statuses, key in after))
    return sorted(callers, key=lambda c: (c.edited, not c.present, c.id))


def _boundary_changes(before: dict[str, _Definition], after: dict[str, _Definition]) -> list[BoundaryChange]:
    changes = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        old_reason, new_reason = old.boundary if old else "", new.boundary if new else ""
        if bool(old_reason) == bool(new_reason):
            continue
        definition = new if new_reason else old
        chunk = definition.document.chunk
        changes.append(BoundaryChange(key, chunk.path, chunk.symbol, new_reason or old_reason, bool(new_reason)))
    return changes


def _unindexed_boundary_changes(before: dict[str, UnindexedFile], after: dict[str, UnindexedFile]) -> list[BoundaryChange]:
    """Boundaries of files that are not indexed, gained or lost as the file's."""
    changes = []
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        old_reason, new_reason = old.boundary if old else "", new.boundary if new else ""
        if bool(old_reason) != bool(new_reason):
            file = new if new_reason else old
            changes.append(BoundaryChange(path, path, "", new_reason or old_reason, bool(new_reason), file.reason))
    return changes


def _cycle_changes(before: list[list[str]], after: list[list[str]]) -> list[CycleChange]:
    old, new = {frozenset(c) for c in before}, {frozenset(c) for c in after}
    gained = [CycleChange(sorted(c), True) for c in new - old]
    lost = [CycleChange(sorted(c), False) for c in old - new]
    return sorted(gained, key=lambda c: c.modules) + sorted(lost, key=lambda c: c.modules)
