"""The component hierarchy: the repository's own code as packages and files, what it keeps
beside it (tests, examples, docs, vendored and generated files) as parts, and, wherever one
view would show more than `VIEW_BUDGET` nodes, groups computed from the import graph.

Each component's map shows its children and the imports between them, so every view stays
readable: the overview shows the top of the code (a single top package opened, so that a
flat package shows its files), a package its subpackages and files, a group its members.

A view too large is cut by its dependency structure, as CodeWiki decomposes its graph: the
siblings most others import (homeassistant's `sensor`, `bluetooth`) stay nodes of their
own, and each other sibling joins the group of the most specific of them it imports (the
one fewest siblings use: a Bluetooth device's integration goes with `bluetooth`, not with
`sensor`); what imports none of them is cut into runs by name. A group still too large is
cut again below it.
"""

from __future__ import annotations

import math
import posixpath
from collections import Counter, defaultdict
from collections.abc import Mapping

from ..core.pages import ROOT_MODULE
from ..core.records import Component, ComponentKind, Components, FileRole
from ..languages import language_named
from ..languages.packages import implicit_import

VIEW_BUDGET = 30
"""At most this many nodes in one map (the issue's ~30: more cannot be read on a phone)."""
OPEN_BELOW = 8
"""The overview opens its largest component while it shows fewer nodes than this."""
HUB_SHARE = 3
"""At most a third of a cut view's nodes are hubs, so the groups have room."""
CODE = "code"
PROSE_OVER_CODE = 3
PART_ORDER = ("tests", "examples", "docs", "config", "vendored", "generated")
"""What a repository keeps beside its code, in the overview's order."""
ROLE_PARTS = {
    FileRole.TEST: "tests",
    FileRole.FIXTURE: "tests",
    FileRole.EXAMPLE: "examples",
    FileRole.VENDORED: "vendored",
    FileRole.GENERATED: "generated",
}
CATEGORY_PARTS = {"code": CODE, "docs": "docs", "config": "config"}
SYSTEM_ID = "system"


def module_id(name: str) -> str:
    return f"module:{name}"


def file_id(path: str) -> str:
    return f"file:{path}"


def part_id(part: str) -> str:
    return f"part:{part}"


def group_id(owner: str, sequence: str) -> str:
    """`group:1.2:module:a/b`: the sequence first, so that any owner id can follow."""
    return f"group:{sequence}:{owner}"


def file_part(role: FileRole, language: str) -> str:
    """Which part a file belongs to: `code` for the project's own code, else a PART_ORDER name."""
    if role in ROLE_PARTS:
        return ROLE_PARTS[role]
    return CATEGORY_PARTS.get(_category(language), CODE)


def build_components(
    modules: Mapping[str, list[str]],
    file_parts: Mapping[str, str],
    file_imports: Mapping[str, list[str]],
) -> Components:
    """The hierarchy over `modules` (name → its files), each file's part (`file_part`) and
    the files each file imports."""
    return _Builder(modules, file_parts, file_imports).build()


class _Builder:
    def __init__(self, modules: Mapping[str, list[str]], parts: Mapping[str, str], imports: Mapping[str, list[str]]) -> None:
        self.modules = modules
        self.parts = parts
        self.imports = imports
        self.nodes: dict[str, Component] = {}
        self.module_part = {name: _module_part(files, parts, name == ROOT_MODULE) for name, files in modules.items()}

    def build(self) -> Components:
        by_part: dict[str, list[str]] = defaultdict(list)
        loose: dict[str, list[str]] = defaultdict(list)
        for name in sorted(self.modules):
            by_part[self.module_part[name]].append(name)
            for path in self.modules[name]:  # express's Readme.md beside its index.js
                part = self.parts.get(path, CODE)
                if part != CODE and part != self.module_part[name]:
                    loose[part].append(path)
        present = [part for part in PART_ORDER if by_part.get(part) or loose.get(part)]
        code = self._opened(self._module_tree(by_part.get(CODE, []), CODE), VIEW_BUDGET - len(present))
        code = self._cut(code, SYSTEM_ID, VIEW_BUDGET - len(present))
        part_nodes = []
        for part in present:
            component = Component(part_id(part), ComponentKind.PART, part, name=part)
            self.nodes[component.id] = component
            children = self._module_tree(by_part.get(part, []), part) + [self._file(path) for path in sorted(loose.get(part, []))]
            component.children = self._cut(children, component.id, VIEW_BUDGET)
            component.files = sorted(f for child in children for f in self.nodes[child].files)
            self._link(component.children)
            part_nodes.append(component.id)
        self._link(code)
        root = Component(SYSTEM_ID, ComponentKind.SYSTEM, "", children=code + part_nodes)
        root.files = sorted(f for child in root.children for f in self.nodes[child].files)
        self.nodes[root.id] = root
        return Components(root=root.id, nodes=dict(sorted(self.nodes.items())))

    def _module_tree(self, names: list[str], part: str) -> list[str]:
        """The components of `names` nested by path (`a/b` under `a`); the top ones' ids."""
        known = set(names)
        parent: dict[str, str] = {}
        for name in names:
            above = posixpath.dirname(name) if name != ROOT_MODULE else ""
            while above and above not in known:
                above = posixpath.dirname(above)
            if above:
                parent[name] = above
        below: dict[str, list[str]] = defaultdict(list)
        for name, owner in parent.items():
            below[owner].append(name)
        for name in sorted(names, key=lambda n: -n.count("/")):  # the deepest first: children exist
            self._module_component(name, part, parent.get(name, ""), below.get(name, []))
        return [module_id(name) for name in names if name not in parent]

    def _module_component(self, name: str, part: str, parent: str, submodules: list[str]) -> None:
        own = [path for path in self.modules[name] if self.parts.get(path) == part]
        title = name if not parent else posixpath.relpath(name, parent)
        component = Component(module_id(name), ComponentKind.MODULE, title, name=name)
        self.nodes[component.id] = component
        file_nodes = [self._file(path) for path in own]
        subs = [module_id(sub) for sub in sorted(submodules)]
        children = subs + file_nodes
        if len(children) > VIEW_BUDGET and subs and len(file_nodes) > 1:  # its own files become one node
            files_group = self._group(component.id, "0", f"{posixpath.basename(name) or name}/*", file_nodes)
            children = [files_group, *subs]
        component.children = self._cut(children, component.id, VIEW_BUDGET)
        component.files = sorted(own + [f for sub in subs for f in self.nodes[sub].files])
        self._link(component.children)

    def _file(self, path: str) -> str:
        node = Component(file_id(path), ComponentKind.FILE, posixpath.basename(path), name=path, files=[path])
        self.nodes[node.id] = node
        return node.id

    def _opened(self, nodes: list[str], budget: int) -> list[str]:
        """The overview's code nodes: while fewer than OPEN_BELOW, the component that holds
        most of the code (flask's `src/flask`, express's `lib`) is replaced by its children,
        as long as the view stays within `budget`; a component of one child always is."""
        nodes = list(nodes)
        while True:
            openable = [n for n in nodes if self.nodes[n].kind is ComponentKind.MODULE and self.nodes[n].children]
            if len(nodes) > 1:  # a plugin layer cut into groups stays one node beside the others
                openable = [n for n in openable if not any(c.startswith("group:") for c in self.nodes[n].children)]
            single = [n for n in openable if len(self.nodes[n].children) == 1]
            target = single[0] if single else max(openable, key=lambda n: len(self.nodes[n].files), default=None)
            if target is None:
                return nodes
            children = self.nodes[target].children
            code = sum(len(self.nodes[n].files) for n in nodes)
            most = len(self.nodes[target].files) * 2 > code
            if not single and (not most or len(nodes) >= OPEN_BELOW or len(nodes) - 1 + len(children) > budget):
                return nodes
            at = nodes.index(target)
            parent = self.nodes[target]
            if single and parent.name != ROOT_MODULE:  # the only child stands for its parent: named with it
                child = self.nodes[children[0]]
                child.title = posixpath.join(parent.title, child.title)
            nodes[at : at + 1] = children

    def _cut(self, nodes: list[str], owner: str, budget: int, sequence: str = "") -> list[str]:
        """`nodes`, or groups of them, at most `budget` (see the module's text)."""
        if len(nodes) <= budget:
            return nodes
        uses = self._sibling_uses(nodes)
        used_by = Counter(target for targets in uses.values() for target in targets)
        hubs = [n for n, count in sorted(used_by.items(), key=lambda kv: (-kv[1], kv[0])) if count >= 2][: budget // HUB_SHARE]
        hub_set = set(hubs)
        members: dict[str, list[str]] = defaultdict(list)
        rest = []
        for node in nodes:
            if node in hub_set:
                continue
            used_hubs = [hub for hub in hubs if hub in uses[node]]
            if used_hubs:
                members[min(used_hubs, key=lambda hub: (used_by[hub], hub))].append(node)
            else:
                rest.append(node)
        groups = sorted((m for m in members.items() if len(m[1]) > 1), key=lambda kv: -len(kv[1]))
        rest += [node for hub, group in members.items() if len(group) == 1 for node in group]
        while groups and len(hubs) + len(groups) + (1 if rest else 0) > budget:
            rest += groups.pop()[1]  # the smallest group goes back to the rest
        result: list[str] = list(hubs)
        index = 0
        for hub, group in groups:
            index += 1
            result.append(self._group(owner, _seq(sequence, index), f"→ {self.nodes[hub].title}", group))
        runs = max(1, min(budget - len(result), math.ceil(len(rest) / VIEW_BUDGET)))  # as few, as full as fit
        if len(rest) <= runs:
            return result + sorted(rest, key=self._sort_key)
        size = math.ceil(len(rest) / runs)
        ordered = sorted(rest, key=self._sort_key)
        for start in range(0, len(ordered), size):
            run = ordered[start : start + size]
            index += 1
            title = self.nodes[run[0]].title if len(run) == 1 else f"{self.nodes[run[0]].title} … {self.nodes[run[-1]].title}"
            result.append(run[0] if len(run) == 1 else self._group(owner, _seq(sequence, index), title, run))
        return result

    def _group(self, owner: str, sequence: str, title: str, members: list[str]) -> str:
        group = Component(group_id(owner, sequence), ComponentKind.GROUP, title, name=self.nodes[owner].name if owner in self.nodes else "")
        self.nodes[group.id] = group
        group.children = self._cut(sorted(members, key=self._sort_key), owner, VIEW_BUDGET, sequence)
        group.files = sorted(f for member in members for f in self.nodes[member].files)
        self._link(group.children)
        return group.id

    def _sibling_uses(self, nodes: list[str]) -> dict[str, set[str]]:
        """Each node → the other nodes its files import."""
        holder = {path: node for node in nodes for path in self.nodes[node].files}
        uses: dict[str, set[str]] = {}
        for node in nodes:
            targets = {
                holder.get(target)
                for path in self.nodes[node].files
                for target in self.imports.get(path, ())
                if not implicit_import(path, target)
            }
            uses[node] = {t for t in targets if t is not None and t != node}
        return uses

    def _link(self, nodes: list[str]) -> None:
        """Each node's `depends_on`: the nodes beside it its files import (a node shown in
        two views, as the overview's opened package is, keeps both views' siblings)."""
        for node, targets in self._sibling_uses(nodes).items():
            component = self.nodes[node]
            component.depends_on = sorted(set(component.depends_on) | targets)

    def _sort_key(self, node: str) -> tuple[str, str]:
        return (self.nodes[node].title.lower(), node)


def _seq(prefix: str, index: int) -> str:
    return f"{prefix}.{index}" if prefix else str(index)


def _module_part(files: list[str], parts: Mapping[str, str], top: bool = False) -> str:
    """A module with code of the project's own is code (a Go package's tests stay with it)
    unless its prose and configuration outnumber that code PROSE_OVER_CODE times (flask's
    `docs/` with its `conf.py`), but for the repository's top, whose code is its entry
    (express's `index.js` beside its README, history and licence); else its files' most
    common part."""
    counts = Counter(parts.get(path, CODE) for path in files)
    prose = counts.get("docs", 0) + counts.get("config", 0)
    if counts.get(CODE) and (top or counts[CODE] * PROSE_OVER_CODE > prose):
        return CODE
    counts.pop(CODE, None)
    return min(counts, key=lambda part: (-counts[part], PART_ORDER.index(part) if part in PART_ORDER else len(PART_ORDER)), default=CODE)


def _category(language: str) -> str:
    try:
        return language_named(language).category
    except KeyError:  # a language of an older index: its files count as code
        return "code"
