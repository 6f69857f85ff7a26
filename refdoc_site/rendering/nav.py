"""The Modules section of the site's navigation, as a tree of folders.

A flat list of every module would sit in the navigation of every page, so each page would
grow with the number of modules and the site with modules × pages. Nested by folder
(`django` › `db` › `models`) and pruned by Material (`navigation.prune`), a page carries
only the top level and the branch it is on: a closed folder is one link, to its first page.

A folder that is a module and holds modules is a section whose first entry is its own
page, so the closed section links to it. (Material's `navigation.indexes` would show that
page as the section's title, but only for pages named `index.md`: module pages would move,
and under a folder that is no module, the first module page would be taken for the
folder's.) A folder that is no module and holds one folder only is merged into it
(`src/main/java`), so that no click opens a folder with nothing else in it.

A folder's entries are bounded too: a page carries every entry of each folder on its
branch, so a module among homeassistant's ~1,400 integrations would carry all of them
(200 KB a page). A folder of more than `NAV_BUDGET` entries shows them in the groups of
the component hierarchy (understanding/components.py), the same groups its map draws:
the modules most others import stay entries of their own, the rest sit in sections named
as on the map (`→ sensor`, `abode … airly`), each again within the budget. A folder the
hierarchy has no groups for (no module, or modules of several parts) is cut into runs by
name. So a page's navigation is bounded by the budget times its depth, whatever the
number of modules.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..core.records import ComponentKind, Components, Hierarchy
from ..understanding.components import VIEW_BUDGET
from .render import Labels, fill, html_text, yaml_string

NAV_BUDGET = VIEW_BUDGET
"""At most this many entries in one folder of the navigation (the maps' budget)."""
RUN_TITLE = "{first} … {last}"
"""A run of entries cut by name, titled as the maps title theirs."""


@dataclass
class NavNode:
    """A folder of the module tree: its title, its module's page (if it is a module) and
    its subfolders by name."""

    title: str
    page: str | None = None
    children: dict[str, NavNode] = field(default_factory=dict)
    name: str = ""
    """The folder's path (the module's name when it is one); "" for a group of entries."""


def module_tree(modules: list[tuple[str, str]], hierarchy: Hierarchy | None = None) -> list[NavNode]:
    """The top-level folders of `(module name, page)` pairs, nested by the name's `/` parts,
    each folder's entries bounded by `NAV_BUDGET` (grouped as `hierarchy`'s components group them)."""
    root = NavNode("")
    for name, page in modules:
        node = root
        for part in name.split("/"):
            node = node.children.setdefault(part, NavNode(part, name=f"{node.name}/{part}" if node.name else part))
        node.page = page
    root.children = {name: _merged(child) for name, child in sorted(root.children.items())}
    _bounded(root, _Hierarchy(hierarchy))
    return list(root.children.values())


def _merged(node: NavNode) -> NavNode:
    """`node` with each chain of page-less single-child folders collapsed into one title."""
    while node.page is None and len(node.children) == 1:
        (child,) = node.children.values()
        node = NavNode(f"{node.title}/{child.title}", child.page, child.children, child.name)
    node.children = {name: _merged(child) for name, child in sorted(node.children.items())}
    return node


def _bounded(node: NavNode, hierarchy: _Hierarchy) -> None:
    """Each folder below and at `node` with at most `NAV_BUDGET` entries (module's text)."""
    for child in node.children.values():
        _bounded(child, hierarchy)
    if len(node.children) <= NAV_BUDGET:
        return
    entries = list(node.children.values())
    holder: dict[str, NavNode] = {}
    for entry in entries:
        for module in _top_modules(entry):
            holder.setdefault(module, entry)
    placed: set[int] = set()
    grouped = _placed(hierarchy.layout(list(holder)), holder, placed) + [entry for entry in entries if id(entry) not in placed]
    node.children = _keyed(_runs(grouped))


Layout = list["str | tuple[str, Layout]"]
"""A component's children as the hierarchy orders them: a module's name, or a group's
title and its members."""


class _Hierarchy:
    """The component hierarchy as the navigation reads it: which components show a
    module among their children (through their groups), and those children. A file shown
    in a module's stead (the overview opens a module of one file) stands for its module."""

    def __init__(self, hierarchy: Hierarchy | None) -> None:
        self.components = hierarchy.components if hierarchy is not None else Components()
        self.module_of = {path: summary.module for path, summary in hierarchy.files.items()} if hierarchy is not None else {}
        self.owners: dict[str, list[str]] = defaultdict(list)
        for id_, node in self.components.nodes.items():
            if node.kind is not ComponentKind.GROUP:
                self._own(id_, node.children)

    def _module(self, id_: str) -> str | None:
        """The module a child of a map stands for, or None (a part, or a group)."""
        child = self.components.nodes.get(id_)
        if child is None or child.kind not in (ComponentKind.MODULE, ComponentKind.FILE):
            return None
        return child.name if child.kind is ComponentKind.MODULE else self.module_of.get(child.name)

    def _own(self, owner: str, ids: list[str]) -> None:
        for id_ in ids:
            child = self.components.nodes.get(id_)
            module = self._module(id_)
            if child is not None and child.kind is ComponentKind.GROUP:
                self._own(owner, child.children)
            elif module is not None:
                self.owners[module].append(owner)

    def layout(self, modules: list[str]) -> Layout:
        """The children of the component most of `modules` are shown under: a module
        folder's own, or (for a folder that is no module) the part or overview they sit in."""
        votes = Counter(owner for module in modules for owner in set(self.owners.get(module, ())))
        if not votes:
            return []
        owner = min(votes, key=lambda id_: (-votes[id_], id_))
        return self._members(self.components.nodes[owner].children)

    def _members(self, ids: list[str]) -> Layout:
        members: Layout = []
        for id_ in ids:
            child = self.components.nodes.get(id_)
            module = self._module(id_)
            if child is not None and child.kind is ComponentKind.GROUP:
                members.append((child.title, self._members(child.children)))
            elif module is not None:
                members.append(module)
        return members


def _placed(layout: Layout, holder: dict[str, NavNode], placed: set[int]) -> list[NavNode]:
    """The entries in `layout`'s order and groups, each once; a group of the files only is
    left out, one of a single entry is that entry."""
    entries: list[NavNode] = []
    for item in layout:
        if isinstance(item, str):
            entry = holder.get(item)
            if entry is not None and id(entry) not in placed:
                placed.add(id(entry))
                entries.append(entry)
            continue
        title, members = item
        inner = _runs(_placed(members, holder, placed))
        if len(inner) == 1:
            entries += inner
        elif inner:
            entries.append(NavNode(title, children=_keyed(inner)))
    return entries


def _runs(entries: list[NavNode]) -> list[NavNode]:
    """`entries`, or runs of them in their order (each a section), at most `NAV_BUDGET`."""
    while len(entries) > NAV_BUDGET:
        size = math.ceil(len(entries) / math.ceil(len(entries) / NAV_BUDGET))  # as few, as even as fit
        runs = [entries[start : start + size] for start in range(0, len(entries), size)]
        entries = [run[0] if len(run) == 1 else NavNode(RUN_TITLE.format(first=run[0].title, last=run[-1].title), children=_keyed(run)) for run in runs]
    return entries


def _keyed(entries: list[NavNode]) -> dict[str, NavNode]:
    """Entries as a folder's children, in their order (a group has no folder name of its own)."""
    return {entry.name or f"\0{number}": entry for number, entry in enumerate(entries)}


def _top_modules(entry: NavNode) -> list[str]:
    """The modules an entry stands for in its folder: itself, or the highest below it."""
    if entry.page is not None:
        return [entry.name]
    return [module for child in entry.children.values() for module in _top_modules(child)]


def module_nav_yaml(modules: list[tuple[str, str]], labels: Labels, indent: int, hierarchy: Hierarchy | None = None) -> str:
    """The Modules section's entries as `mkdocs.yml` lines, `indent` spaces deep.

    Titles are HTML-escaped (Material prints them as HTML) and, like pages, written as
    double-quoted explicit keys (`? title`): an implicit YAML key may not pass 1,024
    characters.
    """
    lines: list[str] = []
    for node in module_tree(modules, hierarchy):
        _node_lines(node, str(labels["module_title"]), indent, lines)
    return "\n".join(lines)


def _node_lines(node: NavNode, page_title: str, indent: int, lines: list[str]) -> None:
    pad = " " * indent
    title = yaml_string(html_text(node.title))
    if not node.children:
        lines += [f"{pad}- ? {title}", f"{pad}  : {yaml_string(node.page)}"]
        return
    lines += [f"{pad}- ? {title}", f"{pad}  :"]
    if node.page is not None:
        own = yaml_string(html_text(fill(page_title, name=node.title)))
        lines += [f"{pad}    - ? {own}", f"{pad}      : {yaml_string(node.page)}"]
    for child in node.children.values():
        _node_lines(child, page_title, indent + 4, lines)
