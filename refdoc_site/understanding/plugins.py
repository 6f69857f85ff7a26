"""A plug-in layer's interface: the functions many of a layer's sibling packages define
under one name (homeassistant's ~1,400 integrations each define `async_setup_entry`).

A plug-in layer is a package whose subpackages are too many for one view, so that the
component hierarchy cut them into groups (components.py). What its packages define is not
where the program starts, one entry point each: the names most of them share are the
interface the rest of the code calls them through, told once, with the definition outside
the layer that calls them where the call graph shows one (`_caller`). The public functions
inside the layer that nothing calls are no entry points of the project.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from enum import IntFlag

from ..core.records import ChunkKind, ComponentKind, Components
from .components import VIEW_BUDGET
from .flows import STEP_KINDS, CallGraph, DefinitionRef, EntryKind, EntryPoint

MIN_IMPLEMENTERS = 5
IMPLEMENTER_SHARE = 0.2
"""A name is the layer's interface when at least this share of its packages (and
`MIN_IMPLEMENTERS`) define a top-level function of it."""
MAX_HOOKS = 4
OWN_RECEIVERS = frozenset({"self", "cls", "this", "super()"})
"""Receivers naming the caller's own object: a call on one is no plug-in's function."""
CALLED_ON = re.compile(r"(.+)(?:\.|::|->)(\w+)")
"""A call as written on a receiver (`component.async_setup`, `Registry::setup`): receiver, name."""


@dataclass
class PluginHook:
    name: str
    layer: str
    """The module that holds the plug-in packages."""
    implementers: int
    """How many of its packages define a top-level function of this name."""
    packages: int
    example: DefinitionRef
    """One of those functions (of the largest package that has it)."""
    caller: DefinitionRef | None = None
    """The definition outside the layer that calls the name, where the call graph shows
    one (plugins._caller)."""


def plugin_layers(components: Components) -> dict[str, dict[str, str]]:
    """Each plug-in layer's module name → {file: the package of the layer it is in}."""
    layers: dict[str, dict[str, str]] = {}
    for node in components.nodes.values():
        if node.kind is ComponentKind.MODULE and any(child.startswith("group:") for child in node.children):
            members = layer_members(components, node.id)
            if len(members) > VIEW_BUDGET:  # more sibling packages than one view shows
                layers[node.name] = {path: components.nodes[m].name for m in members for path in components.nodes[m].files}
    return layers


def layer_members(components: Components, node_id: str) -> list[str]:
    """The modules shown below a component, through its groups (not their own submodules)."""
    found = []
    for child in components.nodes[node_id].children:
        kind = components.nodes[child].kind
        if kind is ComponentKind.GROUP:
            found += layer_members(components, child)
        elif kind is ComponentKind.MODULE:
            found.append(child)
    return found


def plugin_hooks(calls: CallGraph, layers: dict[str, dict[str, str]]) -> list[PluginHook]:
    """The names many packages of a layer define (most implementers first), each with one
    implementation and its caller outside the layer."""
    hooks = []
    public = [  # each layer looks at the same top-level public functions, in key order
        (key, definition.name) for key, definition in sorted(calls.definitions.items())
        if definition.kind is ChunkKind.FUNCTION and not definition.parent and not definition.name.startswith("_")
    ]
    for layer, member_of in sorted(layers.items()):
        packages = len(set(member_of.values()))
        implementations: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
        for key, name in public:
            member = member_of.get(key[0])
            if member:
                implementations[name][member].append(key)
        size = {member: sum(1 for m in member_of.values() if m == member) for member in set(member_of.values())}
        for name, by_member in implementations.items():
            if len(by_member) >= max(MIN_IMPLEMENTERS, IMPLEMENTER_SHARE * packages):
                example = by_member[min(by_member, key=lambda m: (-size[m], m))][0]
                implemented = {key for keys in by_member.values() for key in keys}
                hooks.append((PluginHook(name, layer, len(by_member), packages, calls.ref(example)), implemented))
    hooks.sort(key=lambda found: (-found[0].implementers, found[0].layer, found[0].name))
    for hook, implemented in hooks[:MAX_HOOKS]:
        hook.caller = _caller(calls, hook.name, layers[hook.layer], implemented)
    return [hook for hook, _ in hooks[:MAX_HOOKS]]


class Evidence(IntFlag):
    """What the call graph shows of a definition calling a plug-in interface's functions
    besides a call of the name on a value it could not link (`component.async_setup_entry(...)`,
    `getattr(module, "async_setup_entry")`). Compared as numbers: each outweighs those below
    it together."""

    DECLARED = 1
    """A call the graph links reaches the interface's declaration: a method of the name
    outside the layer that calls nothing, of another class (homeassistant's
    `ComponentProtocol.async_unload_entry`, a `Protocol`'s). It weighs less than NAMED: code
    that handles one plug-in is typed so too (homeassistant's `_resetup_platform`, which
    reloads one)."""
    NAMED = 2
    """It names the function as a string too, as code that checks whether a plug-in defines
    it does (`hasattr(component, "async_setup")`) or reports what it returned."""
    LINKED = 4
    """Its calls the graph links reach more than half the implementations."""


def _caller(calls: CallGraph, name: str, inside: dict[str, str], implemented: set[tuple[str, str]]) -> DefinitionRef | None:
    """The definition outside the layer with the strongest evidence (`Evidence`) of calling
    the interface's functions; None when two have the same, or none calls them: the words a
    caller's name shares with the function's are no evidence (`EntityComponent.async_setup_platform`
    calls a method of its platforms, no plug-in's `async_setup`)."""
    reached: dict[tuple[str, str], int] = defaultdict(int)
    for implementation in implemented:
        for caller in calls.callers.get(implementation, ()):
            reached[caller] += caller[0] not in inside
    evidence = {key: Evidence.LINKED for key, n in reached.items() if 2 * n > len(implemented)}
    for declaration in calls.by_name.get(name, ()):
        if declaration[0] in inside or calls.definitions[declaration].kind is not ChunkKind.METHOD:
            continue
        if calls.calls.get(declaration) or calls.unresolved.get(declaration):  # it does something: no declaration
            continue
        for caller in calls.callers.get(declaration, ()):
            if caller[0] not in inside and calls.owner_class.get(caller) != calls.owner_class.get(declaration):
                evidence[caller] = evidence.get(caller, Evidence(0)) | Evidence.DECLARED
    quoted = re.compile(rf"[\"']{re.escape(name)}[\"']")
    looked_up = re.compile(rf"\bgetattr\(\s*[\w.]+\s*,\s*[\"']{re.escape(name)}[\"']")
    for key, definition in calls.definitions.items():
        if key[0] in inside or definition.kind not in STEP_KINDS:
            continue
        named = name in definition.content and quoted.search(definition.content) is not None
        calls_it = any(_calls_on_a_value(calls, key, written, name) for written in calls.unresolved.get(key, ()))
        if key in evidence or calls_it or (named and looked_up.search(definition.content)):
            evidence[key] = evidence.get(key, Evidence(0)) | (Evidence.NAMED if named else Evidence(0))
    if not evidence:
        return None
    strongest = max(evidence.values())
    [caller, *others] = [key for key, found in evidence.items() if found == strongest]
    return None if others else calls.ref(caller)


def _calls_on_a_value(calls: CallGraph, key: tuple[str, str], written: str, name: str) -> bool:
    """Whether a call as written (`component.async_setup`) is of `name` on a value: not on
    the definition's own object (`self.async_setup`) nor on a package from outside (`os.name`)."""
    match = CALLED_ON.fullmatch(written)
    if match is None or match.group(2) != name or match.group(1) in OWN_RECEIVERS:
        return False
    return re.split(r"[.:>\[(]", match.group(1))[0] not in calls.outside.get(key[0], ())


def outside_layers(entries: list[EntryPoint], layers: dict[str, dict[str, str]]) -> list[EntryPoint]:
    """The entry points but the public API of a plug-in layer's packages (its interface is told as hooks)."""
    inside = {path for member_of in layers.values() for path in member_of}
    return [entry for entry in entries if not (entry.kind is EntryKind.API and entry.definition.path in inside)]
