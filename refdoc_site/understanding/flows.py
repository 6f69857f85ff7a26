"""Where a program starts and what runs next: entry points and the main flow from each.

Entry points, strongest evidence first: the console scripts a manifest declares
(`[project.scripts]`, `console_scripts`, `package.json` `bin`), `main` functions and
`if __name__ == "__main__":` modules, request handlers (a WSGI, ASGI, Node or Go handler's
parameter list, no caller in the project), a public class's `__call__`, what a JavaScript
package's main file exports, then the public API no code of the project calls. Only the
project's own code counts (tests, examples and vendored code are not where it starts).

A flow follows the stored call graph from an entry point, one callee a step, by one rule
(`next_step`): the callee on the success path (an error handler's name is not followed)
that shares the most words with the step's own name, then the one that reaches the most
of the project's definitions. A call the graph left unresolved (`router.handle(...)` on a
local variable) is followed when exactly one other definition of the project has that
name and calls anything, and the name shares a word with the step's (`handle` →
`proto.handle`, never a dictionary's `.get`); such a step is marked. The flow stops at a callee that shares
no word, reaches fewer than `MIN_FLOW_REACH` definitions and is not the only one (that
leads anywhere); a helper called from more than `MAX_STEP_CALLERS` places (an `echo`) is
no step unless its name shares a word.
"""

from __future__ import annotations

import configparser
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
from .evidence.manifests import read_json_object, read_toml
from .graph import RepoGraph

MAX_ENTRY_POINTS = 8
MAX_FLOWS = 3
REACH_CAP = 400
"""Definitions counted at most when measuring what a callee reaches (a large repository's
hub reaches thousands; past this many the order does not change)."""
SCRIPT_MANIFESTS = ("pyproject.toml", "setup.cfg", "package.json", "entry_points.txt")
"""Files whose text declares console scripts (an unpacked wheel's `*.dist-info/entry_points.txt`)."""
DEFINITION_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS, ChunkKind.MODULE)
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


@dataclass
class FlowStep:
    definition: DefinitionRef
    by_name: bool = False
    """Reached through a call the graph left unresolved, matched by the callee's name alone."""


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
        key_of: dict[str, tuple[str, str]] = {}
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
                found.content += "\n" + chunk.content
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

    def reach(self, key: tuple[str, str]) -> int:
        """How many other definitions a definition's calls lead to (at most `REACH_CAP`)."""
        if key not in self._reach:
            seen = {key}
            stack = [key]
            while stack and len(seen) <= REACH_CAP:
                for callee in self.calls.get(stack.pop(), []):
                    if callee not in seen:
                        seen.add(callee)
                        stack.append(callee)
            self._reach[key] = len(seen) - 1
        return self._reach[key]

    def candidates(self, key: tuple[str, str]) -> list[tuple[tuple[str, str], bool]]:
        """A step's callees that could be its next step, with whether matched by name alone."""
        found = [(callee, False) for callee in self.calls.get(key, []) if self.definitions[callee].kind in STEP_KINDS]
        resolved = {callee for callee, _ in found}
        for written in self.unresolved.get(key, []):
            name = re.split(r"[.:>]", written)[-1]
            same = [k for k in self.by_name.get(name, []) if k != key and self.calls.get(k)]
            if not name_words(name) & name_words(self.definitions[key].name):  # `.get(` on a dict is no step
                continue
            if len(same) == 1 and same[0] not in resolved:
                found.append((same[0], True))
                resolved.add(same[0])
        return found

    def ref(self, key: tuple[str, str]) -> DefinitionRef:
        definition = self.definitions[key]
        shown = posixpath.basename(key[0]) if definition.kind is ChunkKind.MODULE else key[1]
        return DefinitionRef(definition.chunk_ids[0], key[1], key[0], _first_sentence(definition.summary), shown)


def name_words(name: str) -> set[str]:
    """`full_dispatch_request` → {full, dispatch, request}; `ExecuteC` → {execute, c}."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.split(".")[-1])
    return {word.lower() for word in re.split(r"[\W_]+", spaced) if word}


def next_step(graph: CallGraph, key: tuple[str, str], visited: set[tuple[str, str]]) -> tuple[tuple[str, str], bool] | None:
    """The callee a flow goes on to from `key`, by the rule in the module's docstring."""
    words = name_words(graph.definitions[key].name)
    options = [
        (callee, by_name) for callee, by_name in graph.candidates(key)
        if callee not in visited and not name_words(graph.definitions[callee].name) & ERROR_PATH_WORDS
        and (len(graph.callers.get(callee, ())) <= MAX_STEP_CALLERS or words & name_words(graph.definitions[callee].name))
    ]
    if not options:
        return None

    def score(option: tuple[tuple[str, str], bool]) -> tuple[int, int, int, str]:
        callee = option[0]
        public = not graph.definitions[callee].name.startswith("_")
        shared = len(words & name_words(graph.definitions[callee].name))
        return (public, shared, graph.reach(callee), callee[1])

    best = max(options, key=score)
    _, shared, reach, _ = score(best)
    if shared or reach >= MIN_FLOW_REACH or (len(options) == 1 and reach):
        return best
    return None


def follow(graph: CallGraph, entry: EntryPoint) -> Flow:
    key = (entry.definition.path, entry.definition.symbol)
    steps = [FlowStep(entry.definition)]
    visited = {key}
    while len(steps) < MAX_FLOW_STEPS:
        found = next_step(graph, key, visited)
        if found is None:
            break
        key, by_name = found
        visited.add(key)
        steps.append(FlowStep(graph.ref(key), by_name))
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
        add(_script_target(graph, target), EntryKind.SCRIPT, name)
    for key, definition in sorted(graph.definitions.items()):
        if definition.kind is ChunkKind.FUNCTION and not definition.parent and definition.name in MAIN_FUNCTION_NAMES:
            add(key, EntryKind.MAIN)
        elif definition.kind is ChunkKind.MODULE and MAIN_GUARD.search(definition.content):
            add(key, EntryKind.MAIN, GUARD_LABEL)
    uncalled = [  # a module's top-level code calling it (`module.exports = f`, a `__main__` block) does not count
        key for key in sorted(graph.definitions)
        if all(graph.definitions[caller].kind is ChunkKind.MODULE for caller in graph.callers.get(key, ()))
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
    kept = [flow for _, flow in shown if len(flow.steps) > 1][:MAX_FLOWS]
    return [entry for entry, _ in shown][:MAX_ENTRY_POINTS], kept


def declared_scripts(texts: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Console scripts (name → `module:function`, or a file for `bin`) and JavaScript main
    files the manifests among `texts` (path → text) declare; unreadable ones declare nothing."""
    scripts: dict[str, str] = {}
    mains: list[str] = []
    for path, text in sorted(texts.items(), key=lambda item: item[0].count("/")):
        name, base = posixpath.basename(path), posixpath.dirname(path)
        try:
            if name == "pyproject.toml":
                project = read_toml(text).get("project", {})
                scripts.update({k: v for k, v in (project.get("scripts") or {}).items() if isinstance(v, str)})
            elif name in ("setup.cfg", "entry_points.txt"):
                parser = configparser.ConfigParser(interpolation=None, strict=False)
                parser.read_string(text)
                section, key = ("options.entry_points", "console_scripts") if name == "setup.cfg" else ("console_scripts", "")
                if key and parser.has_option(section, key):
                    lines = [line.partition("=") for line in parser.get(section, key).splitlines() if "=" in line]
                    scripts.update({n.strip(): t.strip() for n, _, t in lines})
                elif not key and parser.has_section(section):
                    scripts.update(dict(parser.items(section)))
            elif name == "package.json":
                data = read_json_object(text)
                if not data:
                    continue
                bin_field = data.get("bin")
                if isinstance(bin_field, str):
                    bin_field = {str(data.get("name", "")): bin_field}
                for script, file in (bin_field or {}).items() if isinstance(bin_field, dict) else ():
                    if isinstance(file, str):
                        scripts[script] = _join(base, file)
                main = data.get("main") if isinstance(data.get("main"), str) else "index.js"
                mains.append(_join(base, main if main.endswith((".js", ".mjs", ".cjs", ".ts")) else main + ".js"))
        except (ValueError, configparser.Error, AttributeError):  # a manifest that does not parse declares nothing
            continue
    return scripts, mains


def _join(base: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(base, path)).lstrip("./") if path else ""


def _script_target(graph: CallGraph, target: str) -> tuple[str, str] | None:
    """`flask.cli:main` → the definition `main` in `…/flask/cli.py`; a file → its module chunk."""
    module, _, attribute = target.partition(":")
    attribute = attribute.split("[")[0].strip()
    if not attribute:
        keys = [key for key in graph.definitions if key[0] == module.strip() and graph.definitions[key].kind is ChunkKind.MODULE]
        return keys[0] if keys else None
    stem = module.strip().replace(".", "/")
    for key in sorted(graph.definitions, key=lambda k: len(k[0])):
        path, symbol = key
        file_stem = path.rsplit(".", 1)[0].removesuffix("/__init__")
        if symbol == attribute and (file_stem == stem or file_stem.endswith("/" + stem)):
            return key
    return None


def _owner(definition: _Definition) -> str:
    """The class a method belongs to: its parent, or (a Go method, declared outside its type) its symbol's prefix."""
    return definition.parent or definition.key[1].rpartition(".")[0]


def _public(name: str) -> bool:
    return bool(name) and not name.startswith("_")


def _first_sentence(text: str) -> str:
    return first_sentences(text, 140) if text else ""
