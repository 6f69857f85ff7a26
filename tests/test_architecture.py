"""The layout is the architecture: subpackages import only downward, no module grows past
500 lines, and an import inside a function says why it is there.

Every module of `refdoc_site` is parsed with `ast` (nothing is imported), so a violation is
reported with its file and line even when the import would fail. ARCHITECTURE.md explains
the layers; this table is the one place their order is declared.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from refdoc_site.understanding.graph import strongly_connected

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "refdoc_site"

LAYERS: tuple[tuple[str, str], ...] = (
    ("languages", "language knowledge as data and grammar access; knows nothing of a build"),
    ("core", "records, configuration, store, text and page-address helpers every phase shares"),
    ("providers", "clients of external APIs (OpenAI, Azure), configured from core alone"),
    ("llm", "the LLM session (budget, cache, costs) over a provider"),
    ("indexing", "phase 1: discover, chunk, analyze and summarize each file"),
    ("understanding", "phase 2: graph, hierarchy, decisions and milestones over the index"),
    ("search", "ranking, the Lunr index, API vectors, evaluation and the browser's search"),
    ("writing", "the pages the doc model writes, grounded in what search finds"),
    ("asking", "questions answered from a built store, cited and grounded like the written pages"),
    ("rendering", "phase 3: Markdown pages, mkdocs.yml, the MkDocs build and publishing"),
    ("pipeline", "runs the phases in order over one workspace"),
    ("serving", "`refdoc-site serve`: the built site over HTTP, rebuilt on change, with the Ask endpoint"),
    ("cli", "the command line over the pipeline"),
)
"""Lowest first: a module may import its own layer and those listed before it, never after."""

PLACED = {"refdoc_site": "core", "refdoc_site.__main__": "cli", "refdoc_site.launch": "cli"}
"""Modules outside a subpackage, by layer: the package root holds only `__version__`."""

MAX_LINES = 500
JUSTIFIED = re.compile(r"#\s*(?:optional|lazy):\s*\S")
"""An import inside a function carries `# optional: why` (a dependency that must stay
unimported unless used) or `# lazy: why` (a measured cost, or a load only one path needs),
on its line or on the comment or import lines just above it."""

PENDING: dict[tuple[str, str], str] = {}
"""Known violations another part of this change removes; the integrator empties this."""


@dataclass(frozen=True)
class Violation:
    rule: str
    """`upward`, `size`, `lazy` or `unplaced`."""
    path: str
    """Relative to the package's parent folder: `refdoc_site/llm/summaries.py`."""
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


@dataclass(frozen=True)
class ModuleSource:
    name: str
    """Dotted: `refdoc_site.llm.summaries`."""
    path: str
    tree: ast.Module
    lines: list[str]

    @property
    def package(self) -> list[str]:
        """The package relative imports start from."""
        parts = self.name.split(".")
        return parts if self.path.endswith("__init__.py") else parts[:-1]


def read_package(package_dir: Path) -> list[ModuleSource]:
    modules = []
    for path in sorted(package_dir.rglob("*.py")):
        relative = path.relative_to(package_dir.parent)
        name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        text = path.read_text(encoding="utf-8")
        modules.append(ModuleSource(name, relative.as_posix(), ast.parse(text, str(path)), text.splitlines()))
    return modules


def layer_of(name: str, root: str, layers: dict[str, int]) -> str | None:
    """The layer of a dotted module name inside the package, or None when it has none."""
    if name in PLACED:
        return PLACED[name] if root == "refdoc_site" else None
    parts = name.split(".")
    if parts[0] != root or len(parts) < 2:
        return None
    return parts[1] if parts[1] in layers else None


def imported_modules(module: ModuleSource) -> list[tuple[ast.stmt, str]]:
    """Every import of the module with the dotted name it imports from."""
    found = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            found.extend((node, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.package[: len(module.package) - node.level + 1]
                found.append((node, ".".join([*base, *([node.module] if node.module else [])])))
            else:
                found.append((node, node.module or ""))
    return found


def layer_edges(modules: list[ModuleSource], order: tuple[str, ...]) -> tuple[list[Violation], dict[str, set[str]]]:
    """Imports against the order, modules in no layer, and the graph between layers."""
    rank = {name: position for position, name in enumerate(order)}
    root = modules[0].name.split(".")[0]
    violations, graph = [], {name: set() for name in order}
    for module in modules:
        own = layer_of(module.name, root, rank)
        if own is None:
            violations.append(Violation("unplaced", module.path, "in no declared layer; add its subpackage to LAYERS"))
            continue
        for node, target in imported_modules(module):
            other = layer_of(target, root, rank)
            if other is None or other == own:
                continue
            graph[own].add(other)
            if rank[other] > rank[own]:
                violations.append(Violation(
                    "upward", module.path,
                    f"line {node.lineno}: `{module.lines[node.lineno - 1].strip()}`: {own} imports {other}, a layer above it",
                ))
    return violations, graph


def oversized(modules: list[ModuleSource], limit: int = MAX_LINES) -> list[Violation]:
    return [
        Violation("size", module.path, f"{len(module.lines)} lines, more than {limit}; split it along a seam")
        for module in modules
        if len(module.lines) > limit
    ]


def unjustified_imports(modules: list[ModuleSource]) -> list[Violation]:
    """Imports below the module's top level (a top-level `if` or `try` counts as top) without
    an `optional:` or `lazy:` comment."""
    violations = []
    for module in modules:
        top = {id(node) for statement in module.tree.body for node in ast.walk(statement)
               if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        for node in ast.walk(module.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top and not _justified(module.lines, node.lineno):
                violations.append(Violation(
                    "lazy", module.path,
                    f"line {node.lineno}: `{module.lines[node.lineno - 1].strip()}` inside a function: move it to "
                    "the top, or say why on its line (`# optional: …` or `# lazy: …`)",
                ))
    return violations


def _justified(lines: list[str], lineno: int) -> bool:
    """The import's line, or the run of import and comment lines just above it, says why."""
    row = lineno - 1
    if JUSTIFIED.search(lines[row]):
        return True
    row -= 1
    while row >= 0 and lines[row].lstrip().startswith(("#", "import ", "from ")):
        if JUSTIFIED.search(lines[row]):
            return True
        row -= 1
    return False


def all_violations(package_dir: Path, order: tuple[str, ...]) -> tuple[list[Violation], list[list[str]]]:
    modules = read_package(package_dir)
    layered, graph = layer_edges(modules, order)
    groups = strongly_connected({layer: sorted(imported) for layer, imported in graph.items()})
    return [*layered, *oversized(modules), *unjustified_imports(modules)], groups


def _outstanding(violations: list[Violation]) -> list[str]:
    return [str(v) for v in violations if (v.rule, v.path) not in PENDING]


ORDER = tuple(name for name, _ in LAYERS)


def test_subpackages_import_only_downward_without_cycles() -> None:
    violations, groups = all_violations(PACKAGE_DIR, ORDER)
    layered = [v for v in violations if v.rule in ("upward", "unplaced")]
    assert not groups, f"import cycles between subpackages: {groups}"
    assert not _outstanding(layered), "\n".join(_outstanding(layered))


def test_no_module_over_500_lines() -> None:
    violations, _ = all_violations(PACKAGE_DIR, ORDER)
    outstanding = _outstanding([v for v in violations if v.rule == "size"])
    assert not outstanding, "\n".join(outstanding)


def test_imports_inside_functions_say_why() -> None:
    violations, _ = all_violations(PACKAGE_DIR, ORDER)
    outstanding = _outstanding([v for v in violations if v.rule == "lazy"])
    assert not outstanding, "\n".join(outstanding)


def test_every_pending_allowance_is_still_needed() -> None:
    """An allowance whose violation is gone must leave PENDING with it."""
    violations, _ = all_violations(PACKAGE_DIR, ORDER)
    found = {(v.rule, v.path) for v in violations}
    assert not [key for key in PENDING if key not in found], "remove these from PENDING: fixed"


def test_the_checks_catch_what_they_forbid(tmp_path: Path) -> None:
    """A small package with an upward import, a cycle, a long module and a bare lazy import."""
    package = tmp_path / "demo"
    sources = {
        "__init__.py": "",
        "low/__init__.py": "",
        "low/base.py": "from ..high.top import thing\n",
        "high/__init__.py": "",
        "high/top.py": "from ..low import base\n\n\ndef thing():\n    import json\n    return json\n",
        "high/fine.py": "def load():\n    # lazy: only one path needs it\n    import json\n    import csv\n    return json, csv\n",
        "low/long.py": "x = 1\n" * (MAX_LINES + 1),
        "stray/__init__.py": "",
    }
    for name, text in sources.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    violations, groups = all_violations(package, ("low", "high"))
    found = {(v.rule, v.path) for v in violations}
    assert ("upward", "demo/low/base.py") in found
    assert ("size", "demo/low/long.py") in found
    assert ("lazy", "demo/high/top.py") in found and ("lazy", "demo/high/fine.py") not in found
    assert ("unplaced", "demo/stray/__init__.py") in found
    assert ("upward", "demo/high/top.py") not in found
    assert groups == [["high", "low"]]
