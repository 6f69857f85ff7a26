"""The call graph: each call as written (`self.send`, `mod.func`, `c.send`) resolved to
the repository definitions it can mean, by its receiver.

A language server's answer comes first. Without one, the receiver decides
(`languages/receivers.py` holds what is per language):

- `self`/`cls`/`this`, and a Go method's receiver: a method of the owner (the enclosing
  class, or the object or constructor a JavaScript function is assigned to: `this` in
  `res.send = function` is `res`) or of its bases;
- a bare name: a definition in the same file, else one imported into the file; a name
  the file imports from outside the repository is never linked by name alone;
- a module or class as receiver (`utils.parse`, `Config.load`): through the file's imports;
- a local name bound to a class (`c = Client()`, `def f(c: Client)`, `t = make()` with
  `make` annotated to return a class): that class's method;
- an attribute of the owner (`self._transport`) typed in the class (`_t: Transport`, a Go
  struct field, a TypeScript field) or by what its methods assign to it: its class's method;
- a package imported from outside the repository (`requests.Session()`), or a local name
  bound to what one makes (`t := template.New("top")`, `s = requests.Session()`): never a
  repository definition, though one bears the name (`t.Execute` is no `Command.Execute`);
- any other receiver: only when exactly one repository definition bears the name and the
  name is no method of the language's built-in types (`", ".join`, `d.items`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
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
        """(file, owner) → its methods by name; the owner is a class, or the object or
        constructor a JavaScript function is assigned to (`res` of `res.send`)."""
        self.classes: dict[tuple[str, str], Chunk] = {}
        self.owner_files: dict[tuple[str, str], list[str]] = defaultdict(list)
        """(folder, owner) → the files declaring its methods (Go spreads them over a package)."""
        self.folder_files: dict[str, list[str]] = defaultdict(list)
        self._local_types: dict[str, dict[str, list[Chunk]]] = {}
        self._attributes: dict[tuple[str, str], dict[str, list[Chunk]]] = {}
        self._outside: dict[str, frozenset[str]] = {}
        for document in documents:
            chunk = document.chunk
            if chunk.kind not in DEFINITIONS or chunk.part > 1:
                continue
            self.by_name[chunk.name].append(chunk)
            if chunk.path not in self.by_path:
                self.folder_files[_folder(chunk.path)].append(chunk.path)
            self.by_path[chunk.path].append(chunk)
            owner = _owner(chunk)
            if owner:
                self.members[(chunk.path, owner)].setdefault(chunk.name, chunk)
                files = self.owner_files[(_folder(chunk.path), owner)]
                if chunk.path not in files:
                    files.append(chunk.path)
            if not owner or owner in receiver_rules(chunk.language).module_objects:
                self.top_level[(chunk.path, chunk.name)].append(chunk)
            if chunk.kind is ChunkKind.CLASS:
                self.classes[(chunk.path, chunk.symbol)] = chunk

    def resolve_call(self, chunk: Chunk, callee: str, definitions: dict[str, list[str]]) -> list[str]:
        """The chunk ids a call as written in `chunk` means: where a language server placed
        its definition when every place it named is a chunk (or outside the repository),
        else by the receiver."""
        short = callee.rsplit(".", 1)[-1]
        locations = definitions.get(callee)
        if locations:
            defined = [_defined_at(self.by_path, location, short) for location in locations]
            if all(target is not None for target in defined):
                return [t for t in defined if t]
        return [c.id for c in self.resolve(chunk, callee, self.local_types(chunk))]

    def resolve(self, chunk: Chunk, callee: str, bindings: dict[str, list[Chunk]]) -> list[Chunk]:
        """The definitions a call as written in `chunk` means; none when unsure. `bindings`:
        the classes the chunk's local names hold."""
        rules = receiver_rules(chunk.language)
        receiver, _, name = callee.rpartition(".")
        owner = _owner(chunk)
        self_names = _self_names(chunk, rules)
        if receiver in self_names or (not receiver and rules.implicit_self and (chunk.path, owner) in self.classes):
            members = self.member_of(chunk.path, owner, name, rules) if owner else []
            if receiver or members:
                return members
        if not receiver:
            # a name neither defined nor imported here is a built-in, a local, or the
            # method of a call's result (`make().run` is kept as `run`)
            found = self.visible(chunk.path, name)
            return found or ([] if self.imports_name(chunk.path, name) else self.unique(name, rules))
        head, _, attribute = receiver.partition(".")
        if receiver in bindings:
            classes = bindings[receiver]
        elif head in self_names and owner and attribute.isidentifier():
            classes = self.attribute_classes(chunk.path, owner, attribute, rules)
        else:
            classes = self.classes_named(chunk.path, receiver, rules) if not attribute else []
        if classes:
            return [m for c in classes for m in self.member_of(c.path, c.symbol, name, rules)]
        in_modules = [d for path in self.modules(chunk.path, receiver) for d in self.visible(path, name)]
        if in_modules:
            return in_modules
        if head in self.outside_locals(chunk) or self.from_outside(chunk.path, head):
            return []
        return self.unique(name, rules)

    def outside_locals(self, chunk: Chunk) -> frozenset[str]:
        """The chunk's local names bound only to calls of what it imports from outside the
        repository (`t := template.New("top")`, `s = requests.Session()`)."""
        if chunk.id not in self._outside:
            rules = receiver_rules(chunk.language)
            called = _matches(rules.call_bindings, chunk.content, "call")
            self._outside[chunk.id] = frozenset(
                name for name, calls in called.items() if all(self.from_outside(chunk.path, call) for call in calls)
            )
        return self._outside[chunk.id]

    def from_outside(self, path: str, call: str) -> bool:
        """Whether a call written in `path` is of a name the file imports from outside the
        repository (the module `template` of `template.New`, or `Session` itself)."""
        head = call.split(".", 1)[0]
        if self.visible(path, head) or self.modules(path, head):
            return False
        return self.imports_name(path, head)

    def local_types(self, chunk: Chunk) -> dict[str, list[Chunk]]:
        """Local name → the repository classes it holds in the chunk: declared or
        constructed (`c = Client()`, `c: Client`), else the annotated return type of the
        one call assigned to it (`t = make()`); a name bound two ways is left out."""
        if chunk.id in self._local_types:
            return self._local_types[chunk.id]
        self._local_types[chunk.id] = {}  # a call resolved below may ask again
        rules = receiver_rules(chunk.language)
        declared = _matches(rules.bindings, chunk.content, "type")
        called = _matches(rules.call_bindings, chunk.content, "call")
        types: dict[str, list[Chunk]] = {}
        for name, written in declared.items():
            if len(written) == 1:
                types[name] = self.classes_named(chunk.path, next(iter(written)), rules)
        for name, written in called.items():
            if name not in declared and len(written) == 1:
                types[name] = self.returned_classes(chunk, next(iter(written)))
        self._local_types[chunk.id] = {name: classes for name, classes in types.items() if classes}
        return self._local_types[chunk.id]

    def returned_classes(self, chunk: Chunk, call: str) -> list[Chunk]:
        """The classes a call in `chunk` returns: the class it constructs, or the
        annotated return type of the function it calls."""
        found: dict[str, Chunk] = {}
        for target in self.resolve(chunk, call, {}):
            if target.kind is ChunkKind.CLASS:
                found[target.id] = target
                continue
            rules = receiver_rules(target.language)
            match = rules.returns.search(target.signature) if rules.returns else None
            if match:
                found.update((c.id, c) for c in self.classes_named(target.path, match.group("type"), rules))
        return list(found.values())

    def attribute_classes(self, path: str, owner: str, attribute: str, rules: ReceiverRules) -> list[Chunk]:
        """The classes an attribute of the owner (`self._transport`) holds, from the owner
        or the nearest base that types it."""
        for current_path, current in self.lineage(path, owner, rules):
            classes = self.attributes(current_path, current).get(attribute)
            if classes:
                return classes
        return []

    def attributes(self, path: str, owner: str) -> dict[str, list[Chunk]]:
        """Attribute → class for one owner: its declared fields, and what its methods
        assign (`self._t: T`, `self._t = T()`, `self._t = make()`, `self._t = t`)."""
        key = (path, owner)
        if key in self._attributes:
            return self._attributes[key]
        self._attributes[key] = {}  # a method's call resolved below may ask again
        cls = self.classes.get(key)
        rules = receiver_rules(cls.language if cls else self.by_path[path][0].language)
        declared: dict[str, dict[str, Chunk]] = defaultdict(dict)
        inferred: dict[str, dict[str, Chunk]] = defaultdict(dict)
        if cls:
            for name, written in _matches(rules.fields, cls.content, "type").items():
                declared[name].update((c.id, c) for t in written for c in self.classes_named(path, t, rules))
        for member in self.owned(path, owner, rules):
            for pattern in rules.attributes:
                for match in pattern.finditer(member.content):
                    found = match.groupdict()
                    if found.get("type"):
                        classes, into = self.classes_named(member.path, found["type"], rules), declared
                    elif found.get("call"):
                        classes, into = self.returned_classes(member, found["call"]), inferred
                    else:
                        classes, into = self.local_types(member).get(found["local"], []), inferred
                    into[match.group("name")].update((c.id, c) for c in classes)
        typed = {name: list(classes.values()) for name, classes in inferred.items() if len(classes) == 1}
        typed.update({name: list(classes.values()) for name, classes in declared.items() if len(classes) == 1})
        self._attributes[key] = typed
        return typed

    def owned(self, path: str, owner: str, rules: ReceiverRules) -> list[Chunk]:
        """The methods of an owner, in its file or, where the language allows, its folder."""
        return [m for where in self.declaring_files(path, owner, rules) for m in self.members.get((where, owner), {}).values()]

    def declaring_files(self, path: str, owner: str, rules: ReceiverRules) -> list[str]:
        """The file itself, then the other files of its folder declaring methods of the
        owner when the language spreads a type's methods over its package."""
        if not rules.package_members:
            return [path]
        return [path, *(f for f in self.owner_files.get((_folder(path), owner), ()) if f != path)]

    def classes_named(self, path: str, name: str, rules: ReceiverRules) -> list[Chunk]:
        """The repository classes a type name written in `path` means."""
        found = [c for c in self.visible(path, name) if c.kind is ChunkKind.CLASS]
        if not found and rules.package_members:
            siblings = self.folder_files.get(_folder(path), [])
            found = [c for f in siblings for c in self.top_level.get((f, name), ()) if c.kind is ChunkKind.CLASS]
        return found

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

    def imports_name(self, path: str, name: str) -> bool:
        """Whether the file imports `name` itself (`var accepts = require('accepts')`,
        `from os.path import join`): a bare call of it is that import, whatever the
        repository defines elsewhere."""
        return any(written == name or written.endswith(("." + name, "/" + name)) for written in self.imports.get(path, ()))

    def modules(self, path: str, receiver: str) -> list[str]:
        """The repository files a receiver names as an imported module (`utils`,
        `pkg.utils`, `from . import utils`)."""
        files: list[str] = []
        for written in self.imports.get(path, ()):
            if written == receiver or written.endswith("." + receiver) or written.endswith("/" + receiver):
                files.extend(t for t in self.resolve_import(path, written) if t != path and _is_module_of(t, receiver))
        return list(dict.fromkeys(files))

    def member_of(self, path: str, owner: str, name: str, rules: ReceiverRules) -> list[Chunk]:
        """`name` on the owner or the nearest of its bases that defines it."""
        for current_path, current in self.lineage(path, owner, rules):
            for where in self.declaring_files(current_path, current, rules):
                member = self.members.get((where, current), {}).get(name)
                if member is not None:
                    return [member]
        return []

    def lineage(self, path: str, owner: str, rules: ReceiverRules) -> Iterator[tuple[str, str]]:
        """The owner, then its bases breadth first, each as (file, qualified name)."""
        seen: set[tuple[str, str]] = set()
        pending = [(path, owner)]
        while pending:
            current = pending.pop(0)
            if current in seen:
                continue
            seen.add(current)
            yield current
            cls = self.classes.get(current)
            if cls is not None:
                pending.extend((base.path, base.symbol) for base in self.bases(cls, rules))

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
        targets: list[str] = []
        unresolved: list[str] = []
        for callee in document.metadata.calls:
            found = resolver.resolve_call(chunk, callee, document.metadata.definitions)
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


def _matches(patterns: Iterable[re.Pattern[str]], text: str, group: str) -> dict[str, set[str]]:
    """Group `name` → the values of `group` the patterns find for it in the text."""
    found: dict[str, set[str]] = defaultdict(set)
    for pattern in patterns:
        for match in pattern.finditer(text):
            found[match.group("name")].add(match.group(group))
    return found


def _owner(chunk: Chunk) -> str:
    """What `self`/`this` means in a chunk: its class, or for a method assigned outside
    one (`res.send = function`, `Foo.prototype.bar`, Go's `func (c *Client) Do`) the
    object, constructor or type before its name."""
    if chunk.parent:
        return chunk.parent
    return chunk.symbol.rpartition(".")[0] if chunk.kind is ChunkKind.METHOD else ""


def _self_names(chunk: Chunk, rules: ReceiverRules) -> frozenset[str]:
    """The receivers naming the chunk's owner: the language's, and a receiver its
    signature declares (Go)."""
    match = rules.receiver.search(chunk.signature) if rules.receiver else None
    return rules.self_names | {match.group("name")} if match else rules.self_names


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


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
