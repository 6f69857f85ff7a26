"""Which chunks' calls a rebuild resolves again, and which keep the last graph's answers.

Resolving every call of homeassistant's 92,000 chunks takes 18 s of CPU; a pull request
changes a few files. A chunk outside them keeps its last answers unless something it
could mean changed, judged conservatively (it may resolve again for nothing, never keep a
stale answer):

- its file changed, or what its file's imports name did (a file added or removed);
- a file it reads names through re-exports changed its imports (importers, four hops);
- its text or its symbol names a definition of a changed file, as it is or as it was,
  or a class whose bases name one, through every level, or a function whose signature
  does (`def make() -> Client`);
- a language server placed one of its calls in a changed file (lines move);
- it called a chunk that is gone.

The result equals resolving every chunk (tested on edits of each kind). `CallInputs` is
what each file gives the resolver, kept beside the graph; without it, with other
settings, or when most chunks would resolve again, every chunk does.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..core.records import ChunkKind, Document
from ..core.reuse import digest
from ..core.store import FileEntry
from .calls import DEFINITIONS
REEXPORT_HOPS = 4
"""How far a changed file's imports reach: `CallResolver` follows re-exports as far."""
ALL_OVER = 0.5
"""Past this share of the chunks, every chunk is resolved again (the same work, simpler)."""
WORD = re.compile(r"[A-Za-z_$][\w$]*")
SYMBOL = re.compile(r"[\w$.:~<>]+")
"""A definition's symbol (`Client.send`, `ns::Type`), not a heading's or `(module)`."""
SCAN_WORDS = 64
"""Up to this many names a chunk's text is searched for each; past it, split into words."""


@dataclass
class CallInputs:
    """What the call graph was resolved from, file by file."""

    settings: str = ""
    """The resolver's code and the graph's settings: another value resolves everything."""
    files: dict[str, str] = field(default_factory=dict)
    """Path → `<content digest>:<imports digest>` (`file_inputs`)."""


def call_inputs(settings: str, files: Mapping[str, FileEntry]) -> CallInputs:
    """The inputs of a graph resolved now from the indexed `files`."""
    return CallInputs(settings, {path: file_inputs(entry) for path, entry in sorted(files.items())})


def file_inputs(entry: FileEntry) -> str:
    """A file's part of the resolver's input: its content as analysed (a deferred file is
    analysed again), and apart, what its imports and namespaces name."""
    content = digest(entry.sha256, entry.language, repr(entry.deferred), *entry.chunk_ids)[:16]
    imports = digest(*entry.imports, "|", *entry.namespaces)[:16]
    return f"{content}:{imports}"


@dataclass
class KnownCalls:
    """The last graph's answers, what they were resolved from, and the inputs now."""

    calls: Mapping[str, list[str]]
    unresolved: Mapping[str, list[str]]
    file_imports: Mapping[str, list[str]]
    inputs: CallInputs
    current: CallInputs


def chunks_to_resolve(last: KnownCalls, documents: list[Document], file_imports: Mapping[str, list[str]]) -> set[str] | None:
    """The ids of the chunks whose calls may change with the files that changed since the
    `last` graph (`file_imports`: the files' imports resolved now), or None when every
    chunk is to be resolved."""
    known, current, known_calls, known_imports = last.inputs, last.current, last.calls, last.file_imports
    if known.settings != current.settings or not known.files:
        return None
    changed = {p for p in known.files.keys() | current.files.keys() if known.files.get(p) != current.files.get(p)}
    if not changed:
        return set()
    imports_changed = {p for p in changed if _imports_part(known.files.get(p)) != _imports_part(current.files.get(p))}
    zone = changed | {p for p in known_imports.keys() | file_imports.keys() if known_imports.get(p) != file_imports.get(p)}
    zone |= importers(imports_changed, [known_imports, file_imports])
    names = changed_names(known_calls, documents, changed)
    present = {document.chunk.id for document in documents}
    located = re.compile("|".join(re.escape(path + ":") for path in sorted(changed)))
    mentions = _finder(names)
    chosen = set()
    most = ALL_OVER * len(documents)
    for document in documents:
        chunk = document.chunk
        before = known_calls.get(chunk.id)
        if (
            chunk.path in zone or before is None or any(target not in present for target in before)
            or mentions(chunk.content) or mentions(chunk.symbol)
            or any(located.match(place) for places in document.metadata.definitions.values() for place in places)
        ):
            chosen.add(chunk.id)
            if len(chosen) > most:  # every chunk then: the rest need not be looked at
                return None
    return chosen


def _imports_part(inputs: str | None) -> str:
    return (inputs or "").partition(":")[2]


def importers(paths: set[str], graphs: Iterable[Mapping[str, list[str]]]) -> set[str]:
    """The files importing any of `paths` in any of the graphs' file imports, and those
    importing them, up to REEXPORT_HOPS levels."""
    imported_by: dict[str, set[str]] = defaultdict(set)
    for graph in graphs:
        for source, targets in graph.items():
            for target in targets:
                imported_by[target].add(source)
    found: set[str] = set()
    level = set(paths)
    for _ in range(REEXPORT_HOPS):
        level = {source for path in level for source in imported_by.get(path, ())} - found
        if not level:
            break
        found |= level
    return found


def changed_names(known_calls: Mapping[str, list[str]], documents: list[Document], changed: set[str]) -> set[str]:
    """The names of the definitions in `changed` files, now and before (the last graph's
    chunk ids), and, through every level, of the classes whose bases and the definitions
    whose signatures name a class among them or one that is gone."""
    names: set[str] = set()
    classes: set[str] = set()
    now: set[str] = set()
    for document in documents:
        chunk = document.chunk
        if chunk.path in changed:
            now.add(chunk.id)
            if chunk.kind in DEFINITIONS:
                names.update(WORD.findall(chunk.symbol))
                if chunk.kind is ChunkKind.CLASS:
                    classes.add(chunk.name)
    for chunk_id in known_calls:
        path, _, symbol = chunk_id.partition("#")
        # gone: what it was is not known, its name is (not a module's `(module)` or a heading)
        if path in changed and chunk_id not in now and SYMBOL.fullmatch(symbol):
            gone = WORD.findall(symbol)
            names.update(gone)
            classes.update(gone[-1:])
    definitions = [d.chunk for d in documents if d.chunk.kind in DEFINITIONS]
    while classes:
        mentions = _finder(classes)
        named = [chunk for chunk in definitions if chunk.name not in names and mentions(chunk.signature)]
        names.update(chunk.name for chunk in named)
        classes = {chunk.name for chunk in named if chunk.kind is ChunkKind.CLASS}
    return names


def _finder(names: set[str]):
    """A test of whether a text holds any of `names` as a whole word."""
    if not names:
        return lambda text: False
    pattern = re.compile(r"(?<![\w$])(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w$])")
    if len(names) > SCAN_WORDS:
        return lambda text: not names.isdisjoint(WORD.findall(text))
    return lambda text: any(name in text for name in names) and pattern.search(text) is not None
