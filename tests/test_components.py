"""Components that are the architecture: modules follow the languages' packages, the
repository's tests, docs and examples are parts beside its code, a view never shows more
than VIEW_BUDGET nodes, and the map's SVG keeps every name as text."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdoc_site.core.pages import component_page
from refdoc_site.core.records import ComponentKind, FileRole
from refdoc_site.core.text import one_line
from refdoc_site.languages import language_for
from refdoc_site.languages.packages import package_folders
from refdoc_site.rendering.component_map import MapNode, View, _Layout, _svg, graphviz, draw_maps, reduced, view_of
from refdoc_site.understanding.components import VIEW_BUDGET, build_components, file_part
from refdoc_site.understanding.graph import assign_modules

SVG = "{http://www.w3.org/2000/svg}"


def modules_of(paths: list[str]) -> dict[str, str]:
    languages = {path: (language_for(path).name if language_for(path) else "text") for path in paths}
    return assign_modules(sorted(paths), None, package_folders(languages))


def test_python_subpackages_and_namespace_subpackages_are_modules_of_their_own():
    modules = modules_of(
        [
            "src/flask/__init__.py", "src/flask/app.py", "src/flask/json/__init__.py", "src/flask/json/tag.py",
            "src/flask/sansio/app.py", "src/flask/sansio/README.md", "src/flask/py.typed",
            "scripts/release.py", "docs/index.rst",
        ]
    )
    assert modules["src/flask/app.py"] == "src/flask"
    assert modules["src/flask/json/tag.py"] == "src/flask/json"
    assert modules["src/flask/sansio/app.py"] == "src/flask/sansio"  # no __init__.py: a namespace subpackage
    assert modules["src/flask/sansio/README.md"] == "src/flask/sansio"  # a package's data stays with it
    assert modules["scripts/release.py"] == "scripts"  # no package above it: the folder rule
    assert modules["docs/index.rst"] == "docs"


def test_go_and_java_packages_are_their_folders_even_when_small():
    modules = modules_of(["cmd/tool/main.go", "internal/store/db.go", "internal/store/db_test.go", "internal/api/api.go", "go.mod"])
    assert modules["internal/store/db.go"] == "internal/store"
    assert modules["internal/api/api.go"] == "internal/api"  # before: one `internal` module of 3 files
    assert modules["go.mod"] == "(root)"


def _components(files: dict[str, list[str]], roles: dict[str, FileRole] | None = None):
    """`files`: path → the paths it imports."""
    modules = modules_of(list(files))
    by_module: dict[str, list[str]] = {}
    for path, module in sorted(modules.items()):
        by_module.setdefault(module, []).append(path)
    parts = {
        path: file_part((roles or {}).get(path, FileRole.SOURCE), language_for(path).name if language_for(path) else "text")
        for path in files
    }
    return build_components(by_module, parts, files)


def test_a_flat_package_shows_its_files_and_the_tests_and_docs_are_parts_beside_it():
    components = _components(
        {
            "lib/application.js": ["lib/router/index.js", "lib/view.js"],
            "lib/router/index.js": ["lib/router/layer.js"],
            "lib/router/layer.js": [],
            "lib/view.js": [],
            "index.js": ["lib/application.js"],
            "test/app.js": ["index.js"],
            "Readme.md": [],
        },
        {"test/app.js": FileRole.TEST},
    )
    root = components.nodes[components.root]
    kinds = {child: components.nodes[child].kind for child in root.children}
    assert "file:lib/application.js" in kinds and "file:index.js" in kinds  # the package opened into its files
    assert {"part:tests", "part:docs"} <= set(kinds)
    assert "file:test/app.js" not in kinds
    assert components.nodes["file:lib/application.js"].depends_on == ["file:lib/router/index.js", "file:lib/view.js"]
    assert components.nodes["file:index.js"].depends_on == ["file:lib/application.js"]


def test_a_plugin_layer_is_grouped_by_the_hubs_it_imports_and_no_view_passes_the_budget():
    files: dict[str, list[str]] = {
        "ha/__init__.py": [], "ha/core.py": [], "ha/components/__init__.py": [],
        "ha/components/sensor/__init__.py": ["ha/core.py"],
        "ha/components/bluetooth/__init__.py": ["ha/core.py"],
    }
    for number in range(300):
        name = f"ha/components/dev{number:03}/__init__.py"
        uses = ["ha/components/sensor/__init__.py", "ha/core.py"]
        if number % 3 == 0:
            uses.append("ha/components/bluetooth/__init__.py")
        files[name] = uses
    components = _components(files)
    assert max(len(node.children) for node in components.nodes.values()) <= VIEW_BUDGET
    layer = components.nodes["module:ha/components"]
    shown = [components.nodes[child] for child in layer.children]
    assert {"module:ha/components/sensor", "module:ha/components/bluetooth"} <= set(layer.children)  # the hubs
    groups = {node.title: node for node in shown if node.kind is ComponentKind.GROUP}
    assert set(groups) == {"→ sensor", "→ bluetooth"}  # each device with the most specific hub it imports
    assert len(groups["→ bluetooth"].files) == 100 and len(groups["→ sensor"].files) == 200
    below = [components.nodes[child] for child in groups["→ sensor"].children]
    assert all(node.kind is ComponentKind.GROUP for node in below) and sum(len(n.files) for n in below) == 200
    every_file = {f for node in below for f in node.files}
    assert len(every_file) == 200  # cut into runs by name, nothing lost or shown twice
    pages = [component_page(node_id) for node_id in components.nodes]
    assert len(pages) == len(set(pages))


def test_the_drawing_leaves_out_imports_other_arrows_imply_and_those_closing_a_cycle():
    edges = [(0, 1), (1, 2), (0, 2), (2, 0)]
    assert reduced(edges) == [(0, 1), (1, 2)]


NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40)


@settings(max_examples=100, deadline=None, database=None)
@given(st.lists(NAMES, min_size=2, max_size=5))
def test_every_label_in_the_svg_is_text(names: list[str]) -> None:
    nodes = tuple(MapNode(f"n{i}", name, name, f"../{name}.md", f"../{name}/", ComponentKind.MODULE, False) for i, name in enumerate(names))
    layout = _Layout(100, 100, {i: (50.0, 20.0 + 30 * i, 40.0, 20.0) for i in range(len(names))}, [(0, 1, [(1, 1), (2, 2), (3, 3), (4, 4)])])
    tree = ElementTree.fromstring(_svg(View(nodes, ((0, 1),)), layout, "<map> & \"x\""))
    svg = tree.find(f"{SVG}svg")
    assert svg is not None and svg.get("aria-label") == '<map> & "x"'
    links = svg.findall(f"{SVG}a")
    assert len(links) == len(names)
    tags = {element.tag.removeprefix(SVG) for element in tree.iter()}
    assert tags <= {"div", "svg", "style", "a", "title", "rect", "text", "path", "polygon"}
    for link, name in zip(links, names):
        assert link.get("href") == one_line(f"../{name}/")
        assert (link.find(f"{SVG}title").text or "") == one_line(name)
        shown = link.find(f"{SVG}text").text or ""
        assert shown == one_line(name)[:35] + "…" if len(one_line(name)) > 36 else shown == one_line(name)


@pytest.mark.skipif(not graphviz(), reason="needs Graphviz's dot (Debian: graphviz)")
def test_dot_lays_out_every_view_of_a_render_in_one_run():
    components = _components({"a/__init__.py": [], "a/x.py": ["a/y.py"], "a/y.py": [], "a/z.py": ["a/x.py"]})
    view = view_of(components, components.root)
    drawn = draw_maps([view, view], "Map")
    assert len(drawn) == 2 and drawn[0] == drawn[1]
    tree = ElementTree.fromstring(drawn[0])
    texts = [t.text for t in tree.iter(f"{SVG}text")]
    assert sorted(texts) == ["__init__.py", "x.py", "y.py", "z.py"]
    assert len(list(tree.iter(f"{SVG}path"))) == 2  # z → x → y
    hrefs = sorted(a.get("href") for a in tree.iter(f"{SVG}a"))
    assert hrefs == ["files/a/__init__.py/", "files/a/x.py/", "files/a/y.py/", "files/a/z.py/"]  # served URLs: raw HTML is not rewritten
    assert sorted(node.url for node in view.nodes)[1] == "files/a/x.py.md"
