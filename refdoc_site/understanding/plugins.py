"""A plug-in layer's interface: the functions many of a layer's sibling packages define
under one name (homeassistant's ~1,400 integrations each define `async_setup_entry`).

A plug-in layer is a package whose subpackages are too many for one view, so that the
component hierarchy cut them into groups (components.py). What its packages define is not
where the program starts, one entry point each: the names most of them share are the
interface the rest of the code calls them through, told once, with the definition outside
the layer that calls that name where the call graph knows it. The public functions inside
the layer that nothing calls are no entry points of the project.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from ..core.records import ChunkKind, ComponentKind, Components
from .components import VIEW_BUDGET
from .flows import CallGraph, DefinitionRef, EntryKind, EntryPoint, name_words

MIN_IMPLEMENTERS = 5
IMPLEMENTER_SHARE = 0.2
"""A name is the layer's interface when at least this share of its packages (and
`MIN_IMPLEMENTERS`) define a top-level function of it."""
MAX_HOOKS = 4


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
    """A definition outside the layer that calls the name, where the call graph knows one."""


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
    for layer, member_of in sorted(layers.items()):
        packages = len(set(member_of.values()))
        implementations: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
        for key, definition in sorted(calls.definitions.items()):
            member = member_of.get(key[0])
            if member and definition.kind is ChunkKind.FUNCTION and not definition.parent and not definition.name.startswith("_"):
                implementations[definition.name].setdefault(member, key)
        size = {member: sum(1 for m in member_of.values() if m == member) for member in set(member_of.values())}
        for name, by_member in implementations.items():
            if len(by_member) >= max(MIN_IMPLEMENTERS, IMPLEMENTER_SHARE * packages):
                example = by_member[min(by_member, key=lambda m: (-size[m], m))]
                hooks.append(PluginHook(name, layer, len(by_member), packages, calls.ref(example), _caller(calls, name, member_of)))
    hooks.sort(key=lambda h: (-h.implementers, h.layer, h.name))
    return hooks[:MAX_HOOKS]


def _caller(calls: CallGraph, name: str, inside: dict[str, str]) -> DefinitionRef | None:
    """The definition outside the layer whose calls name `name` (`module.name(...)`) and
    whose own name shares most words with it (the first in path order of those)."""
    words = name_words(name)
    found = [
        key for key in sorted(calls.unresolved)
        if key[0] not in inside and key in calls.definitions and any(re.split(r"[.:>]", w)[-1] == name for w in calls.unresolved[key])
    ]
    return calls.ref(min(found, key=lambda key: (-len(words & name_words(key[1])), key))) if found else None


def outside_layers(entries: list[EntryPoint], layers: dict[str, dict[str, str]]) -> list[EntryPoint]:
    """The entry points but the public API of a plug-in layer's packages (its interface is told as hooks)."""
    inside = {path for member_of in layers.values() for path in member_of}
    return [entry for entry in entries if not (entry.kind is EntryKind.API and entry.definition.path in inside)]
