"""The call graph: each call as written (`self.send`, `mod.func`, `c.send`) resolved to
the repository definitions it can mean, by its receiver.

A language server's answer comes first. Without one, the receiver decides
(`languages/receivers.py` holds what is per language):

- `self`/`cls`/`this`: a method of the enclosing class or of its bases;
- a bare name: a definition in the same file, else one imported into the file;
- a module or class as receiver (`utils.parse`, `Config.load`): through the file's imports;
- a local name bound to a class (`c = Client()`, `def f(c: Client)`): that class's method;
- any other receiver: only when exactly one repository definition bears the name and the
  name is no method of the language's built-in types (`", ".join`, `d.items`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..core.records import Chunk, ChunkKind, Document
from ..languages.receivers import ReceiverRules, receiver_rules

ResolveImport = Callable[[str, str], list[str]]
"""(file, import as written) → the repository files it names."""

MAX_REEXPORT_DEPTH = 4
"""How many `from .x import name` hops a name is followed through (package `__init__`s)."""

DEFINITIONS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS)


class CallResolver:
    """Indexes the repository's definitions once, then resolves calls chunk by chunk."""

    def __init__(self, documents: Iterable[Document], imports: dict[str, list[str]], resolve_import: ResolveImport) -> None:
        self.imports = imports
        self.resolve_import = resolve_import
        self.by_name: dict[str, list[Chunk]] = defaultdict(list)
        self.by_path: dict[str, list[Chunk]] = defaultdict(list)
        self.top_level: dict[tuple[str, str], list[Chunk]] = defaultdict(list)
        self.members: dict[tuple[str, str], dict[str, Chunk]] = defaultdict(dict)
        self.classes: dict[tuple[str, str], Chunk] = {}
        for document in documents:
            chunk = document.chunk
            if chunk.kind not in DEFINITIONS or chunk.part > 1:
                continue
            self.by_name[chunk.name].append(chunk)
            self.by_path[chunk.path].append(chunk)
            if chunk.parent:
                self.members[(chunk.path, chunk.parent)].setdefault(chunk.name, chunk)
            else:
                self.top_level[(chunk.path, chunk.name)].append(chunk)
            if chunk.kind is ChunkKind.CLASS:
                self.classes[(chunk.path, chunk.symbol)] = chunk

    def resolve_call(self, chunk: Chunk, callee: str, bindings: dict[str, str], definitions: dict[str, list[str]]) -> list[str]:
        """The chunk ids a call as written in `chunk` means: where a language server placed
        its definition when every place it named is a chunk (or outside the repository),
        else by the receiver."""
        short = callee.rsplit(".", 1)[-1]
        locations = definitions.get(callee)
        if locations:
            defined = [_defined_at(self.by_path, location, short) for location in locations]
            if all(target is not None for target in defined):
                return [t for t in defined if t]
        return [c.id for c in self.resolve(chunk, callee, bindings)]

    def resolve(self, chunk: Chunk, callee: str, bindings: dict[str, str]) -> list[Chunk]:
        """The definitions a call as written in `chunk` means; none when unsure."""
        rules = receiver_rules(chunk.language)
        receiver, _, name = callee.rpartition(".")
        enclosing = self.classes.get((chunk.path, chunk.parent))
        if receiver in rules.self_names or (not receiver and rules.implicit_self and enclosing):
            members = self.method_of(enclosing, name, rules) if enclosing else []
            if receiver or members:
                return members
        if not receiver:
            # a name neither defined nor imported here is a built-in, a local, or the
            # method of a call's result (`make().run` is kept as `run`)
            return self.visible(chunk.path, name) or self.unique(name, rules)
        typed = bindings.get(receiver) or (receiver if "." not in receiver else "")
        classes = [c for c in self.visible(chunk.path, typed) if c.kind is ChunkKind.CLASS] if typed else []
        if classes:
            return [m for c in classes for m in self.method_of(c, name, rules)]
        in_modules = [d for path in self.modules(chunk.path, receiver) for d in self.visible(path, name)]
        if in_modules:
            return in_modules
        return self.unique(name, rules)

    def unique(self, name: str, rules: ReceiverRules) -> list[Chunk]:
        """For a receiver of unknown type: the one repository definition of that name,
        unless a built-in type has a method of that name."""
        candidates = self.by_name.get(name, [])
        return candidates if len(candidates) == 1 and name not in rules.builtin_methods else []

    def visible(self, path: str, name: str, depth: int = 0) -> list[Chunk]:
        """Top-level definitions `name` means in the file `path`: its own, else one it
        imports (followed through re-exports)."""
        own = self.top_level.get((path, name))
        if own:
            return own
        if depth >= MAX_REEXPORT_DEPTH:
            return []
        found: list[Chunk] = []
        for written in self.imports.get(path, ()):
            module = _module_importing(written, name)
            if module is None:
                continue
            for target in self.resolve_import(path, module):
                if target != path:
                    found.extend(self.visible(target, name, depth + 1))
        if not found and depth == 0:
            # includes, wildcard and package imports bring in every name: one that only
            # one of the imported files defines
            imported = {t for written in self.imports.get(path, ()) for t in self.resolve_import(path, written) if t != path}
            found = [c for target in sorted(imported) for c in self.top_level.get((target, name), ())]
            found = found if len(found) == 1 else []
        return list({c.id: c for c in found}.values())

    def modules(self, path: str, receiver: str) -> list[str]:
        """The repository files a receiver names as an imported module (`utils`,
        `pkg.utils`, `from . import utils`)."""
        files: list[str] = []
        for written in self.imports.get(path, ()):
            if written == receiver or written.endswith("." + receiver) or written.endswith("/" + receiver):
                files.extend(t for t in self.resolve_import(path, written) if t != path and _is_module_of(t, receiver))
        return list(dict.fromkeys(files))

    def method_of(self, cls: Chunk, name: str, rules: ReceiverRules) -> list[Chunk]:
        """`name` on the class or the nearest of its bases that defines it."""
        seen: set[str] = set()
        pending = [cls]
        while pending:
            current = pending.pop(0)
            if current.id in seen:
                continue
            seen.add(current.id)
            member = self.members.get((current.path, current.symbol), {}).get(name)
            if member is not None:
                return [member]
            pending.extend(self.bases(current, rules))
        return []

    def bases(self, cls: Chunk, rules: ReceiverRules) -> list[Chunk]:
        """The repository classes a class's signature names as its bases."""
        match = rules.bases.search(cls.signature) if rules.bases else None
        if not match:
            return []
        found: list[Chunk] = []
        for written in match.group(1).split(","):
            base = written.strip()
            if not base or "=" in base or base.startswith("*"):
                continue
            module, _, name = base.rpartition(".")
            paths = self.modules(cls.path, module) if module else [cls.path]
            found.extend(c for path in paths for c in self.visible(path, name) if c.kind is ChunkKind.CLASS)
        return found


@dataclass
class CallGraph:
    """Who calls whom, by chunk id, and what each chunk calls that means no chunk."""

    calls: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → chunk ids it calls."""
    callers: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → chunk ids calling it."""
    unresolved: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → its calls as written that resolved to no repository chunk (only chunks with any)."""


def call_graph(documents: list[Document], imports: dict[str, list[str]], resolve_import: ResolveImport) -> CallGraph:
    """Every chunk's calls as written (`Metadata.calls`), resolved across the repository."""
    resolver = CallResolver(documents, imports, resolve_import)
    graph = CallGraph()
    callers: dict[str, list[str]] = defaultdict(list)
    for document in documents:
        chunk = document.chunk
        bindings = local_bindings(chunk)
        targets: list[str] = []
        unresolved: list[str] = []
        for callee in document.metadata.calls:
            found = resolver.resolve_call(chunk, callee, bindings, document.metadata.definitions)
            if not found:
                unresolved.append(callee)
            targets.extend(t for t in found if t != chunk.id)
        graph.calls[chunk.id] = list(dict.fromkeys(targets))
        if unresolved:
            graph.unresolved[chunk.id] = unresolved
        for target in graph.calls[chunk.id]:
            callers[target].append(chunk.id)
    graph.callers = {k: list(dict.fromkeys(v)) for k, v in callers.items()}
    return graph


def local_bindings(chunk: Chunk) -> dict[str, str]:
    """Local name → the class it is constructed from or annotated with in the chunk's
    source; a name bound to two different classes is left out."""
    found: dict[str, set[str]] = defaultdict(set)
    for pattern in receiver_rules(chunk.language).bindings:
        for match in pattern.finditer(chunk.content):
            found[match.group("name")].add(match.group("type"))
    return {name: next(iter(types)) for name, types in found.items() if len(types) == 1}


def _module_importing(written: str, name: str) -> str | None:
    """The module of an import as written that brings in `name` (`.models.User` → `.models`,
    `..User` → `..`), or None when it brings in another name."""
    if not written.endswith(name) or written == name:
        return None
    module = written[: -len(name)]
    if module.strip(".") == "":
        return module
    return module[:-1] if module.endswith(".") else None


def _is_module_of(path: str, receiver: str) -> bool:
    """Whether the file is the module the receiver names (`pkg/utils.py`,
    `pkg/utils/__init__.py` for `utils`), not its package reached by a shorter prefix."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    last = receiver.rsplit(".", 1)[-1]
    if stem in ("__init__", "index", "mod"):
        stem = path.rsplit("/", 2)[-2] if path.count("/") else stem
    return stem == last


def _defined_at(by_path: dict[str, list[Chunk]], location: str, name: str) -> str | None:
    """The chunk id a definition location names: `""` outside the repository, None when
    no chunk of that name is there (the location is stale or points at an import)."""
    if not location:
        return ""
    path, _, line = location.rpartition(":")
    around = [c for c in by_path.get(path, ()) if c.start_line <= int(line) <= c.end_line]
    named = [c for c in around if c.name == name]
    return min(named, key=lambda c: c.end_line - c.start_line).id if named else None
