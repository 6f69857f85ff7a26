"""Where a program starts and what runs next: entry points and the main flow from each.

Entry points, strongest evidence first: the console scripts a manifest declares
(`[project.scripts]`, `console_scripts`, `package.json` `bin`), `main` functions and
`if __name__ == "__main__":` modules, request handlers (a WSGI, ASGI, Node or Go handler's
parameter list, no caller in the project), a public class's `__call__`, what a JavaScript
package's main file exports, then the public API no code of the project calls. Only the
project's own code counts (tests, examples and vendored code are not where it starts).

A flow follows the stored call graph from an entry point, one callee a step, by one rule
(`next_step`): the callee on the success path (an error handler's name is not followed),
public (or registered, below), that does not only prepare what the step hands to another
call (`prep = self.prepare_request(req)` before `self.send(prep)`: `dispatch.prepares`),
that shares the most words with the step's own name, then the one that reaches the most
of the project's definitions, then the first called. A method that does nothing itself
(`raise NotImplementedError`) stands for its overrides in the direct subclasses
(click's `self.invoke(ctx)` runs `Command.invoke`), and a call through a parsed value's
attribute (`args.run(args)`) goes to the functions the file registers under that name
(`set_defaults(run=_build)`, also through a parameter it forwards); both steps are marked. A call the graph left unresolved (`router.handle(...)` on a
local variable) is followed when exactly one other definition of the project has that
name and calls anything, and the name shares a word with the step's (`handle` →
`proto.handle`, never a dictionary's `.get`); such a step is marked. The flow stops at a callee that shares
no word, reaches fewer than `MIN_FLOW_REACH` definitions and is not the only one (that
leads anywhere); a helper called from more than `MAX_STEP_CALLERS` places (an `echo`) is
no step unless its name shares a word. Flows that join at their second step are told once
(`joined`).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from ..core.records import ChunkKind, Document
from ..core.text import first_sentences
from ..languages.orientation import (
    CALLABLE_OBJECT_METHODS,
    CONSTRUCTOR_NAMES,
    ERROR_PATH_WORDS,
    HANDLER_SIGNATURES,
    MAIN_FUNCTION_NAMES,
    MAIN_GUARD,
    MAX_FLOW_STEPS,
    MAX_STEP_CALLERS,
    MIN_FLOW_REACH,
)
from .dispatch import class_bases, prepared_names, prepares, registered_functions
from .scripts import declared_scripts, script_target  # declared_scripts re-exported: the manifests say where flows start
from .graph import RepoGraph

MAX_ENTRY_POINTS = 8
MAX_FLOWS = 3
REACH_CAP = 400
"""Definitions counted at most when measuring what a callee reaches (a large repository's
hub reaches thousands; past this many the order does not change)."""
SCRIPT_MANIFESTS = ("pyproject.toml", "setup.cfg", "package.json", "entry_points.txt")
"""Files whose text declares console scripts (an unpacked wheel's `*.dist-info/entry_points.txt`)."""
DEFINITION_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS, ChunkKind.MODULE)
KEYWORD_ARGUMENT = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*=(?!=)")
"""A keyword argument's name (`run` of `set_defaults(run=_build)`): where a file may register a function."""
STEP_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD)
"""What a flow's step is: a class called is an object made, not a step of the flow."""


class EntryKind(str, Enum):
    """Why a definition is an entry point, strongest evidence first."""

    SCRIPT = "script"
    MAIN = "main"
    HANDLER = "handler"
    CALLABLE = "callable"
    EXPORTED = "exported"
    API = "api"


GUARD_LABEL = "__main__"
ENTRY_TIER = {EntryKind.SCRIPT: 0, EntryKind.MAIN: 1, EntryKind.HANDLER: 2, EntryKind.EXPORTED: 3, EntryKind.CALLABLE: 4, EntryKind.API: 4}
"""Rank of each kind: a public callable object and the public API are one tier, by reach."""


@dataclass
class DefinitionRef:
    """A definition the overview names and links: its first chunk's id, symbol and file."""

    chunk_id: str
    symbol: str
    path: str
    summary: str = ""
    """The first sentence of what it does, as its summary says (quoted, not written)."""
    shown: str = ""
    """How the page names it: its symbol, or for a module's top-level code the file's name."""


@dataclass
class EntryPoint:
    kind: EntryKind
    definition: DefinitionRef
    label: str = ""
    """The console script's name, the handler's protocol (`wsgi`, `node`), or ""."""


class Dispatch(str, Enum):
    """How a flow reached a step the call graph does not link to its caller."""

    NAME = "name"
    """A call the graph left unresolved, matched by the callee's name alone."""
    OVERRIDE = "override"
    """The override, in a subclass, of a method that does nothing itself (`raise NotImplementedError`)."""
    REGISTERED = "registered"
    """A function the project registers under the attribute called (`set_defaults(run=_build)`, `args.run(args)`)."""


@dataclass
class FlowStep:
    definition: DefinitionRef
    by_name: bool = False
    """Reached through a call the graph left unresolved, matched by the callee's name alone."""
    dispatch: str = ""
    """How it was reached when the graph does not link it (`Dispatch`'s value), else ""."""


@dataclass
class Flow:
    entry: EntryPoint
    steps: list[FlowStep] = field(default_factory=list)
    """From the entry point's own definition (the first step) on."""


@dataclass
class _Definition:
    key: tuple[str, str]
    kind: ChunkKind
    name: str
    parent: str
    signature: str
    chunk_ids: list[str]
    summary: str
    content: str
    language: str


class CallGraph:
    """The project's own definitions (windows and overloads of one joined) and their calls."""

    def __init__(self, documents: Iterable[Document], graph: RepoGraph, own: set[str]) -> None:
        self.definitions: dict[tuple[str, str], _Definition] = {}
        self.file_imports = graph.file_imports
        self.outside = {path: {m.split(".")[0].split("/")[-1] for m in modules} for path, modules in graph.external_imports.items()}
        """File → the names of the packages it imports from outside the project (`os`, `werkzeug`)."""
        key_of: dict[str, tuple[str, str]] = {}
        lines: dict[tuple[str, str], dict[int, str]] = {}
        for document in documents:
            chunk = document.chunk
            if chunk.path not in own or chunk.kind not in DEFINITION_KINDS:
                continue
            key = (chunk.path, chunk.symbol)
            key_of[chunk.id] = key
            found = self.definitions.get(key)
            if found is None:
                self.definitions[key] = _Definition(
                    key, chunk.kind, chunk.name, chunk.parent, chunk.signature, [chunk.id],
                    document.summary.responsibility, chunk.content, chunk.language,
                )
            else:
                found.chunk_ids.append(chunk.id)
            if chunk.part:  # a long definition's windows overlap: its text again, line by line
                numbered = lines.setdefault(key, {})
                numbered.update((chunk.start_line + i, text) for i, text in enumerate(chunk.content.split("\n")) if chunk.start_line + i not in numbered)
        for key, numbered in lines.items():
            if len(self.definitions[key].chunk_ids) > 1:
                self.definitions[key].content = "\n".join(numbered[n] for n in sorted(numbered))
        self.calls: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        self.callers: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
        self.unresolved: dict[tuple[str, str], list[str]] = defaultdict(list)
        for chunk_id, key in key_of.items():
            for callee in graph.calls.get(chunk_id, []):
                target = key_of.get(callee)
                if target and target != key and target not in self.calls[key]:
                    self.calls[key].append(target)
                    self.callers[target].add(key)
            self.unresolved[key].extend(graph.unresolved_calls.get(chunk_id, []))
        self.by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for key, definition in self.definitions.items():
            if definition.kind in STEP_KINDS:
                self.by_name[definition.name].append(key)
        self._reach: dict[tuple[str, str], int] = {}
        self.bases = class_bases({
            key: (d.language, d.signature) for key, d in self.definitions.items() if d.kind is ChunkKind.CLASS
        })
        self.subclasses: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        for subclass, bases in self.bases.items():
            for base in bases:
                self.subclasses[base].append(subclass)
        self.methods: dict[tuple[tuple[str, str], str], tuple[str, str]] = {}
        """(class, method name) → the method's key."""
        self.owner_class: dict[tuple[str, str], tuple[str, str]] = {}
        for key, definition in self.definitions.items():
            owner = (key[0], _owner(definition)) if definition.kind is ChunkKind.METHOD else None
            if owner in self.definitions and self.definitions[owner].kind is ChunkKind.CLASS:
                self.methods[(owner, definition.name)] = key
                self.owner_class[key] = owner
        self._candidates: dict[tuple[str, str], list[tuple[tuple[str, str], str]]] = {}
        self._registered: dict[tuple[str, str], list[str]] = {}
        self._python_sources: dict[str, list[str]] | None = None
        self._keywords: dict[str, set[str]] = {}

    def reach(self, key: tuple[str, str]) -> int:
        """How many other definitions a definition's calls lead to (at most `REACH_CAP`),
        by the calls a flow follows (`candidates`)."""
        if key not in self._reach:
            seen = {key}
            stack = [key]
            while stack and len(seen) <= REACH_CAP:
                for callee, _ in self.candidates(stack.pop()):
                    if callee not in seen:
                        seen.add(callee)
                        stack.append(callee)
            self._reach[key] = min(len(seen) - 1, REACH_CAP)  # past the cap, equals
        return self._reach[key]

    def overrides(self, key: tuple[str, str]) -> list[tuple[str, str]]:
        """The methods of the same name in the direct subclasses of a method's class."""
        owner = self.owner_class.get(key)
        if owner is None:
            return []
        found = (self.methods.get((subclass, self.definitions[key].name)) for subclass in self.subclasses.get(owner, ()))
        return [k for k in found if k is not None]

    def overridden(self, key: tuple[str, str]) -> list[tuple[str, str]]:
        """The methods a method overrides: of its name in its class's bases, nearest first."""
        definition = self.definitions[key]
        owner = self.owner_class.get(key)
        found, pending, seen = [], list(self.bases.get(owner, ())) if owner else [], set()
        while pending:
            base = pending.pop(0)
            if base in seen:
                continue
            seen.add(base)
            method = self.methods.get((base, definition.name))
            if method is not None:
                found.append(method)
            pending.extend(self.bases.get(base, ()))
        return found

    def candidates(self, key: tuple[str, str]) -> list[tuple[tuple[str, str], str]]:
        """A step's callees that could be its next step, each with how it was reached
        (`Dispatch`'s value; "" for a call the graph links): a method that does nothing
        stands for its overrides, and a call the graph left unresolved is matched by the
        callee's name or by what the file registers under that attribute."""
        if key in self._candidates:
            return self._candidates[key]
        found: list[tuple[tuple[str, str], str]] = []
        for callee in self.calls.get(key, []):
            if self.definitions[callee].kind not in STEP_KINDS:
                continue
            overrides = [] if self.calls.get(callee) else self.overrides(callee)
            found.extend((o, Dispatch.OVERRIDE.value) for o in overrides) if overrides else found.append((callee, ""))
        resolved = {callee for callee, _ in found}
        for written in self.unresolved.get(key, []):
            if re.split(r"[.:>]", written)[0] in self.outside.get(key[0], ()):  # `os.environ.get`: no step of ours
                continue
            name = re.split(r"[.:>]", written)[-1]
            same = [k for k in self.by_name.get(name, []) if k != key and self.calls.get(k)]
            registered = [k for k in self.registered(key[0], written) if k != key and k not in resolved]
            if registered:
                found.extend((k, Dispatch.REGISTERED.value) for k in registered)
                resolved.update(registered)
            elif not name_words(name) & name_words(self.definitions[key].name):  # `.get(` on a dict is no step
                continue
            elif len(same) == 1 and same[0] not in resolved:
                found.append((same[0], Dispatch.NAME.value))
                resolved.add(same[0])
        self._candidates[key] = found
        return found

    def registered(self, path: str, written: str) -> list[tuple[str, str]]:
        """For a call through an attribute of a value (`args.run`), the top-level functions
        of `path` the file registers under that attribute's name (Python)."""
        receiver, _, attribute = written.rpartition(".")
        if not receiver or receiver in ("self", "cls") or not attribute.isidentifier():
            return []
        if (path, attribute) not in self._registered:
            if self._python_sources is None:  # each file's once: a large repository has thousands of such calls
                self._python_sources = defaultdict(list)
                for k, d in self.definitions.items():
                    if d.language == "python" and not d.parent:
                        self._python_sources[k[0]].append(d.content)
                self._keywords = {
                    file: set(KEYWORD_ARGUMENT.findall("\n".join(sources))) for file, sources in self._python_sources.items()
                }
            named = attribute in self._keywords.get(path, ())
            self._registered[(path, attribute)] = registered_functions(self._python_sources[path], attribute) if named else []
        names = self._registered[(path, attribute)]
        return [(path, n) for n in names if (path, n) in self.definitions and self.definitions[(path, n)].kind is ChunkKind.FUNCTION]

    def ref(self, key: tuple[str, str]) -> DefinitionRef:
        definition = self.definitions[key]
        shown = posixpath.basename(key[0]) if definition.kind is ChunkKind.MODULE else key[1]
        return DefinitionRef(definition.chunk_ids[0], key[1], key[0], _first_sentence(definition.summary), shown)


def name_words(name: str) -> set[str]:
    """`full_dispatch_request` → {full, dispatch, request}; `ExecuteC` → {execute, c}."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.split(".")[-1])
    return {word.lower() for word in re.split(r"[\W_]+", spaced) if word}


def next_step(graph: CallGraph, key: tuple[str, str], visited: set[tuple[str, str]]) -> tuple[tuple[str, str], str] | None:
    """The callee a flow goes on to from `key`, by the rule in the module's docstring."""
    step = graph.definitions[key]
    words = name_words(step.name)
    options = [
        (callee, how) for callee, how in graph.candidates(key)
        if callee not in visited and not name_words(graph.definitions[callee].name) & ERROR_PATH_WORDS
        and (len(graph.callers.get(callee, ())) <= MAX_STEP_CALLERS or words & name_words(graph.definitions[callee].name))
    ]
    kept = prepared_names(step.content, step.language)
    order = {callee: -position for position, (callee, _) in enumerate(options)}

    def score(option: tuple[tuple[str, str], str]) -> tuple[int, int, int, int, int]:
        callee, how = option
        name = graph.definitions[callee].name
        public = how == Dispatch.REGISTERED.value or not name.startswith("_")  # registered is public, whatever its name
        shared = len(words & name_words(name))
        written = name if how != Dispatch.OVERRIDE.value else graph.definitions[graph.overridden(callee)[0]].name
        return (public, not prepares(written, kept, step.content), shared, graph.reach(callee), order[callee])

    def leads(option: tuple[tuple[str, str], str]) -> bool:
        _, _, shared, reach, _ = score(option)
        return bool(shared or reach >= MIN_FLOW_REACH or (len(options) == 1 and reach))

    acceptable = [option for option in options if leads(option)]
    return max(acceptable, key=score) if acceptable else None


def follow(graph: CallGraph, entry: EntryPoint) -> Flow:
    key = (entry.definition.path, entry.definition.symbol)
    steps = [FlowStep(entry.definition)]
    visited = {key}
    while len(steps) < MAX_FLOW_STEPS:
        found = next_step(graph, key, visited)
        if found is None:
            break
        key, how = found
        visited.add(key)
        steps.append(FlowStep(graph.ref(key), how == Dispatch.NAME.value, how))
    return Flow(entry, steps)


def find_entry_points(
    graph: CallGraph,
    scripts: dict[str, str],
    js_mains: list[str],
    abstractions: list[tuple[str, str]],
    package: str = "",
) -> list[EntryPoint]:
    """Every entry point, strongest evidence first, each definition once (`scripts`: name →
    `module:function` or a file; `js_mains`: a package's main files; `abstractions`: the
    central classes, whose public methods the project never calls are its API). Those in
    the folder of the `package` the manifests declare come first: the product, not the
    scripts kept beside it (a benchmark's `main`)."""
    found: dict[tuple[str, str], EntryPoint] = {}

    def add(key: tuple[str, str] | None, kind: EntryKind, label: str = "") -> None:
        if key is not None and key in graph.definitions and key not in found:
            found[key] = EntryPoint(kind, graph.ref(key), label)

    for name, target in sorted(scripts.items()):
        add(script_target(graph.definitions, target), EntryKind.SCRIPT, name)
    for key, definition in sorted(graph.definitions.items()):
        if definition.kind is ChunkKind.FUNCTION and not definition.parent and definition.name in MAIN_FUNCTION_NAMES:
            add(key, EntryKind.MAIN)
        elif definition.kind is ChunkKind.MODULE and MAIN_GUARD.search(definition.content):
            add(key, EntryKind.MAIN, GUARD_LABEL)
    uncalled = [  # a module's top-level code calling it (`module.exports = f`, a `__main__` block) does not count;
        # an override is called where the method it overrides is
        key for key in sorted(graph.definitions)
        if all(
            graph.definitions[caller].kind is ChunkKind.MODULE
            for called in (key, *(graph.overridden(key) if graph.definitions[key].kind is ChunkKind.METHOD else ()))
            for caller in graph.callers.get(called, ())
        )
    ]
    for key in uncalled:
        definition = graph.definitions[key]
        if definition.kind in STEP_KINDS:
            protocol = next((p for p, pattern in HANDLER_SIGNATURES.items() if pattern.search(definition.signature)), "")
            if protocol:
                add(key, EntryKind.HANDLER, protocol)
    for key in uncalled:
        definition = graph.definitions[key]
        if definition.kind is ChunkKind.METHOD and definition.name in CALLABLE_OBJECT_METHODS and _public(_owner(definition)):
            add(key, EntryKind.CALLABLE)
    defining = {key[0] for key, d in graph.definitions.items() if d.kind is not ChunkKind.MODULE}
    main_files = {m for m in js_mains if m in defining}
    main_files |= {t for m in js_mains if m not in defining for t in graph.file_imports.get(m, [])}
    for key in uncalled:
        definition = graph.definitions[key]
        if key[0] in main_files and definition.kind in STEP_KINDS + (ChunkKind.CLASS,) and not definition.parent:
            add(key, EntryKind.EXPORTED)
            if definition.kind is ChunkKind.CLASS:
                abstractions = [key, *abstractions]
    central = {symbol for _, symbol in abstractions}
    for key in uncalled:
        definition = graph.definitions[key]
        public_function = definition.kind is ChunkKind.FUNCTION and not definition.parent and _public(definition.name)
        public_method = (
            definition.kind is ChunkKind.METHOD and _owner(definition) in central and _public(definition.name)
            and definition.name not in CONSTRUCTOR_NAMES
        )
        if public_function or public_method:
            add(key, EntryKind.API)
    def rank(entry: EntryPoint) -> tuple[bool, int, int, str]:
        outside = not in_package(entry.definition.path, package)
        return (outside, ENTRY_TIER[entry.kind], -graph.reach((entry.definition.path, entry.definition.symbol)), entry.definition.symbol)

    return sorted(found.values(), key=rank)


def in_package(path: str, package: str) -> bool:
    """Whether a file lies in a folder named as the declared package (`refdoc-site` ships `refdoc_site/`)."""
    def normal(name: str) -> str:
        return re.sub(r"[-_.]+", "_", name).lower()

    return bool(package) and normal(package.rsplit("/", 1)[-1]) in {normal(part) for part in path.split("/")[:-1]}


def main_flows(graph: CallGraph, entries: list[EntryPoint]) -> tuple[list[EntryPoint], list[Flow]]:
    """The entry points shown and the flows of the first ones that lead anywhere. An entry
    point is left out when the flow of one of the same or a stronger kind passes through it
    (`wsgi_app`, which `__call__` calls), and a `__main__` block when it calls one shown."""
    flows = [follow(graph, entry) for entry in entries]
    passed: dict[tuple[str, str], int] = {}
    for flow in flows:
        for step in flow.steps[1:]:
            key = (step.definition.path, step.definition.symbol)
            passed[key] = min(passed.get(key, 99), ENTRY_TIER[flow.entry.kind])
    shown = [
        (entry, flow) for entry, flow in zip(entries, flows)
        if passed.get((entry.definition.path, entry.definition.symbol), 99) > ENTRY_TIER[entry.kind]
    ]
    starts = {(entry.definition.path, entry.definition.symbol) for entry, _ in shown}
    shown = [
        (entry, flow) for entry, flow in shown
        if entry.label != GUARD_LABEL or not set(graph.calls.get((entry.definition.path, entry.definition.symbol), ())) & starts
    ]
    return [entry for entry, _ in shown][:MAX_ENTRY_POINTS], joined([flow for _, flow in shown if len(flow.steps) > 1])[:MAX_FLOWS]


def joined(flows: list[Flow]) -> list[Flow]:
    """The flows told once each: where several entry points of one kind hand on to the
    same second step (requests' `get`, `post` and `put` all call `request`), the flow is
    told once from that step; a flow whose second step another flow told already joins
    it, and is left out."""
    def at(step: FlowStep) -> tuple[str, str]:
        return (step.definition.path, step.definition.symbol)

    sharing: dict[tuple[tuple[str, str], EntryKind], int] = defaultdict(int)
    for flow in flows:
        sharing[(at(flow.steps[1]), flow.entry.kind)] += 1
    told: list[Flow] = []
    seen: set[tuple[str, str]] = set()
    for flow in flows:
        second = at(flow.steps[1])
        if second in seen:
            continue
        if sharing[(second, flow.entry.kind)] > 1 and len(flow.steps) > 2:
            flow = Flow(EntryPoint(flow.entry.kind, flow.steps[1].definition), [FlowStep(flow.steps[1].definition), *flow.steps[2:]])
        told.append(flow)
        seen.update(at(step) for step in flow.steps)
    return told


def _owner(definition: _Definition) -> str:
    """The class a method belongs to: its parent, or (a Go method, declared outside its type) its symbol's prefix."""
    return definition.parent or definition.key[1].rpartition(".")[0]


def _public(name: str) -> bool:
    return bool(name) and not name.startswith("_")


def _first_sentence(text: str) -> str:
    return first_sentences(text, 140) if text else ""
