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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .render import Labels, fill, html_text, yaml_string


@dataclass
class NavNode:
    """A folder of the module tree: its title, its module's page (if it is a module) and
    its subfolders by name."""

    title: str
    page: str | None = None
    children: dict[str, NavNode] = field(default_factory=dict)


def module_tree(modules: list[tuple[str, str]]) -> list[NavNode]:
    """The top-level folders of `(module name, page)` pairs, nested by the name's `/` parts."""
    root = NavNode("")
    for name, page in modules:
        node = root
        for part in name.split("/"):
            node = node.children.setdefault(part, NavNode(part))
        node.page = page
    return [_merged(child) for _, child in sorted(root.children.items())]


def _merged(node: NavNode) -> NavNode:
    """`node` with each chain of page-less single-child folders collapsed into one title."""
    while node.page is None and len(node.children) == 1:
        (child,) = node.children.values()
        node = NavNode(f"{node.title}/{child.title}", child.page, child.children)
    node.children = {name: _merged(child) for name, child in sorted(node.children.items())}
    return node


def module_nav_yaml(modules: list[tuple[str, str]], labels: Labels, indent: int) -> str:
    """The Modules section's entries as `mkdocs.yml` lines, `indent` spaces deep.

    Titles are HTML-escaped (Material prints them as HTML) and, like pages, written as
    double-quoted explicit keys (`? title`): an implicit YAML key may not pass 1,024
    characters.
    """
    lines: list[str] = []
    for node in module_tree(modules):
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
