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

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from ..core.records import Chunk, ChunkKind, Document
from ..languages.c_family import MACRO_SIGNATURE
from ..languages.receivers import ReceiverRules, receiver_rules
from .declared_types import EXTENSION, DeclaredTypes, _definition_id, _folder, _matches, _owner
from .written_imports import import_owner, is_module_of, module_importing

ResolveImport = Callable[[str, str], list[str]]
"""(file, import as written) → the repository files it names."""

MAX_REEXPORT_DEPTH = 4
"""How many `from .x import name` hops a name is followed through (package `__init__`s)."""

DEFINITIONS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS)


class CallResolver(DeclaredTypes):
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
        self.extensions: dict[str, list[Chunk]] = defaultdict(list)
        self.overloads: dict[tuple[str, str, str], list[Chunk]] = defaultdict(list)
        """(file, owner, name) → the definitions of that name there, in source order."""
        self.owner_anywhere: dict[str, list[str]] = defaultdict(list)
        """Owner → every file declaring its methods (C++ defines them out of line anywhere)."""
        self._local_types: dict[str, dict[str, list[Chunk]]] = {}
        self._declared: dict[str, dict[str, list[Chunk]]] = {}
        self._attributes: dict[tuple[str, str], dict[str, list[Chunk]]] = {}
        self.windows: dict[str, list[Chunk]] = defaultdict(list)
        self._outside: dict[str, frozenset[str]] = {}
        self._visible: dict[tuple[str, str, int], list[Chunk]] = {}
        """`visible`'s answers: a name is looked up in a file once however many calls write it."""
        self._imported: dict[str, list[tuple[str, str]]] = {}
        self._external: dict[tuple[str, str], bool] = {}
        self._modules: dict[tuple[str, str], list[str]] = {}
        self._from_outside: dict[tuple[str, str], bool] = {}
        self._classes_named: dict[tuple[str, str, int], list[Chunk]] = {}
        """The answers of the lookups below that depend only on a file and a name (and the
        language's rules, one object a language): asked once, however many calls ask."""
        for document in documents:
            chunk = document.chunk
            if chunk.kind in DEFINITIONS and chunk.part >= 1:
                self.windows[_definition_id(chunk.id)].append(chunk)
            if chunk.kind not in DEFINITIONS or chunk.part > 1 or MACRO_SIGNATURE.match(chunk.signature):
                continue
            self.by_name[chunk.name].append(chunk)
            self.overloads[(chunk.path, _owner(chunk), chunk.name)].append(chunk)
            if EXTENSION.search(chunk.signature):
                self.extensions[chunk.name].append(chunk)
            if chunk.path not in self.by_path:
                self.folder_files[_folder(chunk.path)].append(chunk.path)
            self.by_path[chunk.path].append(chunk)
            owner = _owner(chunk)
            if owner:
                self.members[(chunk.path, owner)].setdefault(chunk.name, chunk)
                files = self.owner_files[(_folder(chunk.path), owner)]
                if chunk.path not in files:
                    files.append(chunk.path)
                if chunk.path not in self.owner_anywhere[owner]:
                    self.owner_anywhere[owner].append(chunk.path)
            if not owner or owner in receiver_rules(chunk.language).module_objects:
                self.top_level[(chunk.path, chunk.name)].append(chunk)
            if chunk.kind is ChunkKind.CLASS:
                self.classes[(chunk.path, chunk.symbol)] = chunk

    def resolve_call(
        self, chunk: Chunk, callee: str, definitions: dict[str, list[str]], arguments: list[list[str]] | None = None
    ) -> list[str]:
        """The chunk ids a call as written in `chunk` means: where a language server placed
        its definition when every place it named is a chunk (or outside the repository),
        else by the receiver; of overloads, those its sites' arguments fit."""
        short = callee.rsplit(".", 1)[-1]
        locations = definitions.get(callee)
        if locations:
            defined = [_defined_at(self.by_path, location, short) for location in locations]
            if all(target is not None for target in defined):
                return [t for t in defined if t]
        found = self.constructors(self.resolve(chunk, callee, self.local_types(chunk)))
        return [c.id for c in (self.by_arguments(chunk, found, arguments) if arguments else found)]

    def constructors(self, targets: list[Chunk]) -> list[Chunk]:
        """A class called (`new Foo(…)`, `Foo x(…)`) runs its constructor, where the
        language gives it a chunk of its own (`Foo.Foo`)."""
        found: list[Chunk] = []
        for target in targets:
            rules = receiver_rules(target.language)
            constructor = None
            if target.kind is ChunkKind.CLASS and rules.overloads:
                constructor = next((self.members.get((f, target.symbol), {}).get(target.name) for f in self.declaring_files(target.path, target.symbol, rules) if self.members.get((f, target.symbol), {}).get(target.name)), None)
            found.append(constructor or target)
        return found

    def resolve(self, chunk: Chunk, callee: str, bindings: dict[str, list[Chunk]]) -> list[Chunk]:
        """The definitions a call as written in `chunk` means; none when unsure. `bindings`:
        the classes the chunk's local names hold."""
        rules = receiver_rules(chunk.language)
        receiver, _, name = callee.rpartition(".")
        if receiver == RESULT:  # a method of what a call returned (`make().run`): only its name tells
            return self.unique(name, rules)
        receiver = _without_path_prefix(receiver, rules)
        owner = _owner(chunk)
        self_names = _self_names(chunk, rules)
        if receiver in self_names or (not receiver and rules.implicit_self and (chunk.path, owner) in self.classes):
            members = self.member_of(chunk.path, owner, name, rules) if owner else []
            if receiver or members:
                return members
        if not receiver:
            # a name neither defined nor imported here is a built-in, a local, or the
            # method of a call's result (`make().run` is kept as `run`)
            found = self.visible(chunk.path, name) or self.in_package(chunk.path, name, rules)
            return found or ([] if self.imports_name(chunk.path, name) else self.unique(name, rules))
        head, _, attribute = receiver.partition(".")
        typed = self.declared_types(chunk) if rules.static_types else {}
        if receiver in bindings and receiver not in typed:  # a declared type outranks a guess
            classes = bindings[receiver]
        elif head in self_names and owner and attribute.isidentifier():
            classes = self.attribute_classes(chunk.path, owner, attribute, rules)
            if not classes and attribute in self.declared_fields(chunk.path, owner, rules):
                return []  # a field of a library type (`c.flags *pflag.FlagSet`)
        elif rules.implicit_self and owner and head not in typed and head in self.declared_fields(chunk.path, owner, rules):
            classes = self.attribute_classes(chunk.path, owner, head, rules)  # a field named without `this.`
            if classes and attribute:
                classes = [f for c in classes for f in self.attribute_classes(c.path, c.symbol, attribute, rules)]
            if not classes:
                return []
        elif head in typed and head not in self_names:
            classes = typed[head]
            if classes and attribute:  # `e.inner.by_ref()`: the field of the declared type
                classes = [f for c in classes for f in self.attribute_classes(c.path, c.symbol, attribute, rules)]
            if not classes:  # declared with a library or built-in type (`buf *bytes.Buffer`, `s: &str`)
                return self.extension(name)  # …unless the repository extends it (C#'s `this Type t`)
        else:
            classes = self.classes_named(chunk.path, receiver, rules) if not attribute else []
        if classes:
            return [m for c in classes for m in self.member_of(c.path, c.symbol, name, rules)]
        in_modules = [d for path in self.modules(chunk.path, receiver) for d in self.visible(path, name)]
        if in_modules:
            return in_modules
        if self.external_module(chunk.path, head):
            return []  # `fmt.Sprintf`, `strings.Contains`: a package the file imports from outside
        if head in self.outside_locals(chunk) or self.from_outside(chunk.path, head):
            return []
        return self.extension(name) or self.unique(name, rules)

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
        key = (path, head)
        if key not in self._from_outside:
            self._from_outside[key] = not (self.visible(path, head) or self.modules(path, head)) and self.imports_name(path, head)
        return self._from_outside[key]

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
            if match and match.group("type") == "Self" and _owner(target):
                cls = self.class_of(target.path, _owner(target), rules)
                found.update({cls.id: cls} if cls else {})
            elif match:
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
        rules = receiver_rules(self.by_path[path][0].language) if self.by_path.get(path) else receiver_rules("")
        cls = self.class_of(path, owner, rules)
        declared: dict[str, dict[str, Chunk]] = defaultdict(dict)
        inferred: dict[str, dict[str, Chunk]] = defaultdict(dict)
        if cls:
            for name, written in _matches(rules.fields, cls.content, "type").items():
                declared[name].update((c.id, c) for t in written for c in self.classes_named(cls.path, t, rules))
            for name, written in _matches(rules.typed_fields, cls.content, "type").items():
                typed = [self.type_classes(cls.path, t, rules) for t in written]
                declared[name].update((c.id, c) for classes in typed for c in classes or ())
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
        if rules.members_anywhere:  # C++: a header declares, any source may define (`Status DB::Open(…)`)
            return [path, *(f for f in self.owner_anywhere.get(owner, ()) if f != path)]
        if not rules.package_members:
            return [path]
        return [path, *(f for f in self.owner_files.get((_folder(path), owner), ()) if f != path)]

    def classes_named(self, path: str, name: str, rules: ReceiverRules) -> list[Chunk]:
        """The repository classes a type name written in `path` means (a shared list)."""
        key = (path, name, id(rules))
        if key not in self._classes_named:
            self._classes_named[key] = self._named_classes(path, name, rules)
        return self._classes_named[key]

    def _named_classes(self, path: str, name: str, rules: ReceiverRules) -> list[Chunk]:
        found = [c for c in self.visible(path, name) if c.kind is ChunkKind.CLASS]
        if not found and rules.static_types:  # a nested class named inside its file (`Builder` in FieldSpec.java)
            nested = [c for c in self.by_path.get(path, ()) if c.kind is ChunkKind.CLASS and c.name == name and c.parent]
            found = nested if len(nested) == 1 else []
        if not found and self.imports_from_outside(path, name, rules):
            return []  # `use core::error::Error`: the name is a library's, whatever the repository calls its own
        if not found and rules.package_members:
            siblings = self.folder_files.get(_folder(path), [])
            found = [c for f in siblings for c in self.top_level.get((f, name), ()) if c.kind is ChunkKind.CLASS]
        if not found and rules.static_types:
            # a namespace or a package the imports do not map to files (C#'s `using`, a
            # nested class): the one class of that name in the repository's language
            language = self.by_path[path][0].language if self.by_path.get(path) else ""
            found = [c for c in self.by_name.get(name, ()) if c.kind is ChunkKind.CLASS and c.language == language and not c.parent]
            found = found if len(found) == 1 else []
        return found

    def in_package(self, path: str, name: str, rules: ReceiverRules) -> list[Chunk]:
        """A top-level definition of another file of the folder, where the language
        makes a package of it (Go's functions, Java's classes), when only one bears the name."""
        if not rules.package_scope:
            return []
        found = [c for f in self.folder_files.get(_folder(path), ()) if f != path for c in self.top_level.get((f, name), ())]
        return found if len(found) == 1 else []

    def unique(self, name: str, rules: ReceiverRules) -> list[Chunk]:
        """For a receiver of unknown type: the one repository definition of that name,
        unless a built-in type has a method of that name."""
        candidates = self.by_name.get(name, [])
        return candidates if len(candidates) == 1 and name not in rules.builtin_methods else []

    def visible(self, path: str, name: str, depth: int = 0) -> list[Chunk]:
        """Top-level definitions `name` means in the file `path`: its own, else one it
        imports (followed through re-exports). The list is shared: callers copy it to change it."""
        own = self.top_level.get((path, name))
        if own:
            return own
        if depth >= MAX_REEXPORT_DEPTH:
            return []
        key = (path, name, depth)
        if key not in self._visible:
            self._visible[key] = self._imported_visible(path, name, depth)
        return self._visible[key]

    def _imported_visible(self, path: str, name: str, depth: int) -> list[Chunk]:
        found: list[Chunk] = []
        for written in self.imports.get(path, ()):
            module = module_importing(written, name)
            if module is None:
                continue
            for target in self.resolve_import(path, module):
                if target != path:
                    found.extend(self.visible(target, name, depth + 1) or self.static_member(target, module, name))
        if not found and depth == 0:
            # includes, wildcard and package imports bring in every name: one that only
            # one of the imported files defines (or a class of it, `import static …Util.*`)
            imported = self.imported_files(path)
            found = [c for target, _ in imported for c in self.top_level.get((target, name), ())]
            found = found or [c for target, written in imported for c in self.static_member(target, written, name)]
            found = found if len(found) == 1 else []
        return list({c.id: c for c in found}.values())

    def imported_files(self, path: str) -> list[tuple[str, str]]:
        """(file, import as written) for every repository file `path` imports, sorted."""
        if path not in self._imported:
            self._imported[path] = sorted({(t, w) for w in self.imports.get(path, ()) for t in self.resolve_import(path, w) if t != path})
        return self._imported[path]

    def static_member(self, path: str, module: str, name: str) -> list[Chunk]:
        """`name` as a member of the class an import names (Java's `import static
        pkg.Util.checkArgument` and `pkg.Util.*`: the method `checkArgument` of `Util`)."""
        member = self.members.get((path, import_owner(module)), {}).get(name)
        return [member] if member is not None else []

    def imports_name(self, path: str, name: str) -> bool:
        """Whether the file imports `name` itself (`var accepts = require('accepts')`,
        `from os.path import join`): a bare call of it is that import, whatever the
        repository defines elsewhere."""
        return any(written == name or written.endswith(("." + name, "/" + name, "::" + name)) for written in self.imports.get(path, ()))

    def modules(self, path: str, receiver: str) -> list[str]:
        """The repository files a receiver names as an imported module (`utils`,
        `pkg.utils`, `from . import utils`)."""
        key = (path, receiver)
        if key not in self._modules:
            files: list[str] = []
            for written in self.imports.get(path, ()):
                if written == receiver or written.endswith("." + receiver) or written.endswith("/" + receiver):
                    files.extend(t for t in self.resolve_import(path, written) if t != path and is_module_of(t, receiver))
            self._modules[key] = list(dict.fromkeys(files))
        return self._modules[key]

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
            if not module:  # the file's own, an imported, or (Java, Go) a same-package class
                found.extend(self.classes_named(cls.path, name, rules))
                continue
            found.extend(c for path in self.modules(cls.path, module) for c in self.visible(path, name) if c.kind is ChunkKind.CLASS)
        return found


def _self_names(chunk: Chunk, rules: ReceiverRules) -> frozenset[str]:
    """The receivers naming the chunk's owner: the language's, and a receiver its
    signature declares (Go)."""
    match = rules.receiver.search(chunk.signature) if rules.receiver else None
    return rules.self_names | {match.group("name")} if match else rules.self_names


RESULT = "()"
"""The receiver of a method called on a call's result (`make().run` is `().run`)."""


def _without_path_prefix(receiver: str, rules: ReceiverRules) -> str:
    """`crate.ErrorImpl` → `ErrorImpl`: a path from the crate's root names the type itself."""
    head, _, rest = receiver.partition(".")
    return rest if rest and head in rules.path_prefixes else receiver


def _defined_at(by_path: dict[str, list[Chunk]], location: str, name: str) -> str | None:
    """The chunk id a definition location names: `""` outside the repository, None when
    no chunk of that name is there (the location is stale or points at an import)."""
    if not location:
        return ""
    path, _, line = location.rpartition(":")
    around = [c for c in by_path.get(path, ()) if c.start_line <= int(line) <= c.end_line]
    named = [c for c in around if c.name == name]
    return min(named, key=lambda c: c.end_line - c.start_line).id if named else None
