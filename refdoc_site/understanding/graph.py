"""The repository's graphs: which file imports which, which chunk calls which, modules.

Built after every file is analysed, from the stored metadata alone, so a rebuild that
reprocessed one file still sees callers across the whole repository.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..core.pages import ROOT_MODULE
from ..core.records import ChunkKind, Document

SPLIT_MODULE_OVER = 50
"""With automatic depth, a module of more files than this splits into its subdirectories."""
MAX_AUTO_DEPTH = 4

JS_LIKE = ("javascript", "typescript", "tsx")
JS_SUFFIXES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js")
TS_SOURCES_OF = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
"""The TypeScript sources an emitted extension in an import stands for."""


@dataclass
class RepoGraph:
    """Resolved relationships between files, chunks and modules."""

    file_imports: dict[str, list[str]] = field(default_factory=dict)
    """Repository files each file imports."""
    external_imports: dict[str, list[str]] = field(default_factory=dict)
    """Imports of each file that resolve to no repository file."""
    calls: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → chunk ids it calls."""
    callers: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → chunk ids that call it."""
    module_of: dict[str, str] = field(default_factory=dict)
    """File path → module name."""
    module_deps: dict[str, list[str]] = field(default_factory=dict)
    """Module → modules it imports from."""
    cycles: list[list[str]] = field(default_factory=list)
    """Strongly connected groups of modules (two or more)."""


def build_graph(
    files: dict[str, str],
    imports: dict[str, list[str]],
    documents: Iterable[Document],
    module_depth: int | None = None,
    go_modules: dict[str, str] | None = None,
    rust_crates: dict[str, str] | None = None,
) -> RepoGraph:
    """`files` maps path → language; `imports` holds each file's imports as written;
    `go_modules` maps a Go module path to the folder of its go.mod (`go_module_roots`),
    `rust_crates` a crate name to its source folder (`rust_crate_roots`)."""
    documents = list(documents)
    graph = RepoGraph()
    resolver = _ImportResolver(files, go_modules or {}, rust_crates or {})
    for path in sorted(files):
        resolved, external = resolver.resolve(path, imports.get(path, []))
        graph.file_imports[path] = resolved
        graph.external_imports[path] = external
    graph.calls, graph.callers = _call_graph(documents, graph.file_imports)
    graph.module_of = assign_modules(sorted(files), module_depth)
    deps: dict[str, set[str]] = defaultdict(set)
    for path, targets in graph.file_imports.items():
        source_module = graph.module_of[path]
        for target in targets:
            target_module = graph.module_of.get(target)
            if target_module and target_module != source_module:
                deps[source_module].add(target_module)
    graph.module_deps = {m: sorted(deps.get(m, ())) for m in sorted(set(graph.module_of.values()))}
    graph.cycles = strongly_connected(graph.module_deps)
    return graph


def assign_modules(paths: list[str], depth: int | None) -> dict[str, str]:
    """Module name per file: its directory at `depth`, or adaptive when depth is None.

    Leading directories that hold no file directly (`src/`) do not count as a level.
    Adaptive depth starts at one level and splits any module of more than
    SPLIT_MODULE_OVER files into its subdirectories.
    """
    directories_with_files = {posixpath.dirname(p) for p in paths}

    def skip_containers(parts: list[str]) -> int:
        start = 0
        while start < len(parts) - 1 and "/".join(parts[: start + 1]) not in directories_with_files:
            start += 1
        return start

    def module_at(path: str, levels: int) -> str:
        parts = path.split("/")[:-1]
        if not parts:
            return ROOT_MODULE
        start = skip_containers(parts)
        return "/".join(parts[: start + levels])

    def deeper(path: str, module: str) -> str:
        """The next directory below `module` on the path, past directories holding no
        file of their own (`src/main/java/com/example`); the module itself for its files."""
        parts = path.split("/")[:-1]
        level = len(module.split("/"))
        if len(parts) <= level:
            return module
        end = level + 1
        while end < len(parts) and "/".join(parts[:end]) not in directories_with_files:
            end += 1
        return "/".join(parts[:end])

    if depth is not None:
        return {path: module_at(path, depth) for path in paths}
    result = {path: module_at(path, 1) for path in paths}
    for _ in range(MAX_AUTO_DEPTH - 1):
        sizes: dict[str, int] = defaultdict(int)
        for module in result.values():
            sizes[module] += 1
        changed = False
        for path, module in result.items():
            if sizes[module] > SPLIT_MODULE_OVER and module != ROOT_MODULE:
                below = deeper(path, module)
                if below != module:
                    result[path] = below
                    changed = True
        if not changed:
            break
    return result


class _ImportResolver:
    """Maps an import as written to repository files, per language family."""

    def __init__(self, files: dict[str, str], go_modules: dict[str, str] | None = None, rust_crates: dict[str, str] | None = None) -> None:
        self.files = files
        self.go_modules = sorted((go_modules or {}).items(), key=lambda item: -len(item[0]))
        self.rust_crates = rust_crates or {}
        self.paths = set(files)
        self.python_modules: dict[str, list[str]] = defaultdict(list)
        self.by_suffix: dict[str, list[str]] = defaultdict(list)
        self.directories: dict[str, list[str]] = defaultdict(list)
        for path, language in files.items():
            self.directories[posixpath.dirname(path)].append(path)
            parts = path.split("/")
            for start in range(len(parts)):
                self.by_suffix["/".join(parts[start:])].append(path)
            if language == "python":
                dotted = path[: -len(".py")] if path.endswith(".py") else path.rsplit(".", 1)[0]
                dotted = dotted.removesuffix("/__init__").replace("/", ".")
                pieces = dotted.split(".")
                for start in range(len(pieces)):
                    self.python_modules[".".join(pieces[start:])].append(path)

    def resolve(self, path: str, imports: list[str]) -> tuple[list[str], list[str]]:
        language = self.files[path]
        resolved: list[str] = []
        external: list[str] = []
        for name in imports:
            targets = self._targets(path, language, name)
            targets = [t for t in targets if t != path]
            if targets:
                resolved.extend(targets)
            elif not name.startswith("."):
                external.append(name)
        return list(dict.fromkeys(resolved)), _top_level_external(language, external)

    def _targets(self, path: str, language: str, name: str) -> list[str]:
        if language == "python":
            return self._python(path, name)
        if language in JS_LIKE:
            if not name.startswith("."):
                return []
            base = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
            found = next(([base + s] for s in JS_SUFFIXES if base + s in self.paths), [])
            stem, extension = posixpath.splitext(base)
            if not found and extension in TS_SOURCES_OF:
                # TypeScript written for ES modules imports `./x.js`, the file its `./x.ts` becomes.
                found = next(([stem + s] for s in TS_SOURCES_OF[extension] if stem + s in self.paths), [])
            return found
        if language in ("c", "cpp"):
            local = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
            if local in self.paths:
                return [local]
            return self._unique(self.by_suffix.get(name, []))
        if language == "java":
            return self._unique(self.by_suffix.get(name.replace(".", "/") + ".java", []))
        if language == "go":
            return self._go(name)
        if language == "rust":
            return self._rust(path, name)
        return []

    def _python(self, path: str, name: str) -> list[str]:
        if name.startswith("."):
            dots = len(name) - len(name.lstrip("."))
            package = posixpath.dirname(path).split("/") if posixpath.dirname(path) else []
            package = package[: len(package) - (dots - 1)] if dots > 1 else package
            rest = name[dots:]
            candidate = "/".join(package + ([rest.replace(".", "/")] if rest else []))
            for suffix in (".py", "/__init__.py"):
                if candidate + suffix in self.paths:
                    return [candidate + suffix]
            return []
        pieces = name.split(".")
        while pieces:
            matches = self.python_modules.get(".".join(pieces), [])
            if len(matches) == 1:
                return matches
            if len(matches) > 1:
                return [min(matches, key=len)]
            pieces = pieces[:-1]
        return []

    def _go(self, name: str) -> list[str]:
        for module, folder in self.go_modules:
            if name == module or name.startswith(module + "/"):
                directory = posixpath.join(folder, name[len(module) :].lstrip("/")).strip("/")
                return self._go_package(directory)
        parts = name.split("/")
        for start in range(len(parts)):
            members = self._go_package("/".join(parts[start:]))
            if members:
                return members
        return []

    def _go_package(self, directory: str) -> list[str]:
        """A package stands for its first non-test file (one edge per imported package)."""
        members = [p for p in self.directories.get(directory, []) if p.endswith(".go") and not p.endswith("_test.go")]
        return sorted(members)[:1]

    def _rust(self, path: str, name: str) -> list[str]:
        pieces = [p for p in name.split("::") if p not in ("crate", "self", "super")]
        root = path.split("/src/")[0] + "/src" if "/src/" in path else "src"
        if pieces and pieces[0] in self.rust_crates:
            # `use mycrate::x` from the crate's tests, examples or benches.
            root = self.rust_crates[pieces[0]]
            found = self._rust_module(root, path, pieces[1:])
            return found or next(([f"{root}/{n}"] for n in ("lib.rs", "main.rs") if f"{root}/{n}" in self.paths), [])
        return self._rust_module(root, path, pieces)

    def _rust_module(self, root: str, path: str, pieces: list[str]) -> list[str]:
        while pieces:
            stem = "/".join(pieces)
            for candidate in (f"{root}/{stem}.rs", f"{root}/{stem}/mod.rs", f"{posixpath.dirname(path)}/{stem}.rs"):
                if candidate in self.paths:
                    return [candidate]
            pieces = pieces[:-1]
        return []

    @staticmethod
    def _unique(matches: list[str]) -> list[str]:
        return matches if len(matches) == 1 else []


GO_MODULE_LINE = re.compile(r"^module\s+(\S+)", re.MULTILINE)


def go_module_roots(go_mod_texts: dict[str, str]) -> dict[str, str]:
    """Go module path → the folder holding its go.mod, from go.mod texts keyed by path."""
    roots = {}
    for path, text in go_mod_texts.items():
        match = GO_MODULE_LINE.search(text)
        if match:
            roots[match.group(1).strip('"')] = posixpath.dirname(path)
    return roots


CARGO_PACKAGE_NAME = re.compile(r"^\[package\][^\[]*?^name\s*=\s*[\"']([^\"']+)[\"']", re.MULTILINE | re.DOTALL)


def rust_crate_roots(cargo_texts: dict[str, str]) -> dict[str, str]:
    """Crate name (as `use` spells it) → its `src` folder, from Cargo.toml texts keyed by path."""
    roots = {}
    for path, text in cargo_texts.items():
        match = CARGO_PACKAGE_NAME.search(text)
        if match:
            roots[match.group(1).replace("-", "_")] = posixpath.join(posixpath.dirname(path), "src")
    return roots


def _top_level_external(language: str, names: list[str]) -> list[str]:
    if language in JS_LIKE:
        tops = ["/".join(n.split("/")[:2]) if n.startswith("@") else n.split("/")[0] for n in names]
    elif language in ("go", "c", "cpp"):
        tops = names
    else:
        tops = [re.split(r"[.:]", n)[0] for n in names]
    return list(dict.fromkeys(t for t in tops if t))


def _call_graph(
    documents: list[Document], file_imports: dict[str, list[str]]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Resolve callees to chunks.

    A language server's definition comes first: the chunk around the line it names, when
    that chunk bears the called name (a definition outside the repository means no edge).
    Otherwise names are matched: same class, same file, imported files, then unique.
    """
    by_name: dict[str, list[Document]] = defaultdict(list)
    by_path: dict[str, list[Document]] = defaultdict(list)
    for document in documents:
        chunk = document.chunk
        if chunk.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS) and chunk.part <= 1:
            by_name[chunk.name].append(document)
            by_path[chunk.path].append(document)
    calls: dict[str, list[str]] = {}
    callers: dict[str, list[str]] = defaultdict(list)
    for document in documents:
        chunk = document.chunk
        imported = set(file_imports.get(chunk.path, ()))
        targets: list[str] = []
        for callee in document.metadata.callees:
            short = callee.rsplit(".", 1)[-1]
            locations = document.metadata.definitions.get(callee)
            if locations:
                defined = [_defined_at(by_path, location, short) for location in locations]
                if all(target is not None for target in defined):
                    targets.extend(t for t in defined if t and t != chunk.id)
                    continue
            candidates = [d for d in by_name.get(short, []) if d.chunk.id != chunk.id]
            if not candidates:
                continue
            qualifier = callee.rsplit(".", 1)[0] if "." in callee else ""
            same_class = [d for d in candidates if qualifier in ("self", "this", "cls") and d.chunk.parent == chunk.parent and d.chunk.path == chunk.path]
            same_file = [d for d in candidates if d.chunk.path == chunk.path]
            from_imports = [d for d in candidates if d.chunk.path in imported]
            for group in (same_class, same_file, from_imports, candidates):
                if len(group) == 1 or (group and group is not candidates and len(group) <= 3):
                    targets.extend(d.chunk.id for d in group)
                    break
        calls[chunk.id] = list(dict.fromkeys(targets))
        for target in calls[chunk.id]:
            callers[target].append(chunk.id)
    return calls, {k: list(dict.fromkeys(v)) for k, v in callers.items()}


def _defined_at(by_path: dict[str, list[Document]], location: str, name: str) -> str | None:
    """The chunk id a definition location names: `""` outside the repository, None when
    no chunk of that name is there (the location is stale or points at an import)."""
    if not location:
        return ""
    path, _, line = location.rpartition(":")
    around = [d.chunk for d in by_path.get(path, ()) if d.chunk.start_line <= int(line) <= d.chunk.end_line]
    named = [c for c in around if c.name == name]
    return min(named, key=lambda c: c.end_line - c.start_line).id if named else None


def strongly_connected(edges: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively; returns groups of two or more nodes, sorted."""
    index_of: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index_of:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index_of[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, neighbours = work[-1]
            advanced = False
            for neighbour in neighbours:
                if neighbour not in index_of:
                    index_of[neighbour] = low[neighbour] = counter
                    counter += 1
                    stack.append(neighbour)
                    on_stack.add(neighbour)
                    work.append((neighbour, iter(edges.get(neighbour, ()))))
                    advanced = True
                    break
                if neighbour in on_stack:
                    low[node] = min(low[node], index_of[neighbour])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index_of[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)
