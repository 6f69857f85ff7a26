"""Benchmark the component hierarchy on a repository without building its site: how many
modules the old folder rule and the package rule make, how many components and views the
hierarchy has, the most nodes any view shows (the budget is 30), and how long Graphviz
takes to lay out every map.

    python benchmarks/components_bench.py DIR [DIR ...]

Only what the hierarchy needs is computed: discovery, each file's imports (tree-sitter's
imports query, as the index phase runs it), their resolution to files, the file roles by
path. So a repository whose full build takes many minutes (homeassistant: 11,808 files)
is measured in about a minute. See benchmarks/README.md.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from run import _table  # noqa: E402

from refdoc_site.core.config import Config  # noqa: E402
from refdoc_site.core.records import ComponentKind  # noqa: E402
from refdoc_site.indexing.discover import discover  # noqa: E402
from refdoc_site.indexing.tree_sitter_tier import file_interface  # noqa: E402
from refdoc_site.languages.imports import RepoFiles  # noqa: E402
from refdoc_site.languages.packages import package_folders  # noqa: E402
from refdoc_site.rendering.component_map import draw_maps, graphviz, view_of  # noqa: E402
from refdoc_site.understanding.components import VIEW_BUDGET, build_components, file_part  # noqa: E402
from refdoc_site.understanding.graph import assign_modules, resolve_imports  # noqa: E402
from refdoc_site.understanding.roles import role_by_path  # noqa: E402


def measure(repo: Path) -> dict[str, object]:
    started = time.perf_counter()
    files = {source.path: source.language for source in discover(repo, Config()).files}
    imports: dict[str, list[str]] = {}
    repo_files = RepoFiles(files, None)
    for path, language in files.items():
        try:
            text = (repo / path).read_text(encoding="utf-8", errors="replace")
        except OSError:  # gone since discovered: no imports
            continue
        written = file_interface(language, text).imports
        imports[path] = resolve_imports(repo_files, path, written)[0]
    analysed = time.perf_counter()
    folders_rule = assign_modules(sorted(files), None)
    modules_of = assign_modules(sorted(files), None, package_folders(files))
    modules: dict[str, list[str]] = {}
    for path, module in sorted(modules_of.items()):
        modules.setdefault(module, []).append(path)
    parts = {path: file_part(role_by_path(path), language) for path, language in files.items()}
    components = build_components(modules, parts, imports)
    built = time.perf_counter()
    views = [view_of(components, node_id) for node_id, node in components.nodes.items() if len(node.children) > 1]
    drawn = draw_maps(views, "Map") if graphviz() else []
    laid_out = time.perf_counter()
    root = components.nodes[components.root]
    kinds = Counter(node.kind.value for node in components.nodes.values())
    largest = max(components.nodes.values(), key=lambda node: len(node.children))
    root_view = view_of(components, components.root)
    widest = max((n for n in components.nodes.values() if n.kind is ComponentKind.MODULE), key=lambda n: (any(c.startswith("group:") for c in n.children), len(n.files)))
    widest_view = view_of(components, widest.id)
    root_svg = draw_maps([root_view], "Map")[0] if graphviz() else ""
    return {
        "repository": repo.name,
        "files": len(files),
        "modules (folders)": len(set(folders_rule.values())),
        "modules (packages)": len(modules),
        "components": len(components.nodes),
        "groups": kinds.get(ComponentKind.GROUP.value, 0),
        "views": len(views),
        "max nodes/view": len(largest.children),
        "views > budget": sum(1 for node in components.nodes.values() if len(node.children) > VIEW_BUDGET),
        "root nodes": len(root.children),
        "root SVG bytes": len(root_svg.encode()),
        "imports s": round(analysed - started, 1),
        "hierarchy s": round(built - analysed, 2),
        "layout s (all views)": round(laid_out - built, 1) if drawn else "no dot",
        "_root": [node.label for node in root_view.nodes],
        "_widest": (widest.name, [node.label for node in widest_view.nodes]),
    }


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    rows = [measure(Path(arg)) for arg in argv]
    shown = [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]
    headers = list(shown[0])
    print(_table(["figure", *(str(row["repository"]) for row in shown)], [[h, *(str(row[h]) for row in shown)] for h in headers[1:]]))
    for row in rows:
        print(f"{row['repository']}: overview map: {', '.join(row['_root'])}")
        name, labels = row["_widest"]
        print(f"{row['repository']}: the largest module's map ({name}): {', '.join(labels)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
