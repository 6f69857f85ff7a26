"""The repository's graphs: which file imports which, which chunk calls which, modules.

Built after every file is analysed, from the stored metadata alone, so a rebuild that
reprocessed one file still sees callers across the whole repository.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..core.pages import ROOT_MODULE
from ..core.records import ChunkKind, Document
from ..languages.imports import RepoFiles, rules_for
from ..languages.packages import package_folders
from .call_changes import KnownCalls, chunks_to_resolve
from .call_graph import call_graph
from .calls import ResolveImport

SPLIT_MODULE_OVER = 50
"""With automatic depth, a module of more files than this splits into its subdirectories."""
MAX_AUTO_DEPTH = 4
MODULE_RULE = "packages-1"
"""Names the rule modules and components follow: a stored hierarchy built by another rule
is built again (summarize_phase.py counts it among the phase's inputs)."""


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
    unresolved_calls: dict[str, list[str]] = field(default_factory=dict)
    """Chunk id → its calls as written that mean no repository chunk (only chunks with any)."""
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
    module_roots: Mapping[str, Mapping[str, str]] | None = None,
    namespaces: Mapping[str, list[str]] | None = None,
    parallel: bool = False,
    last: KnownCalls | None = None,
) -> RepoGraph:
    """`files` maps path → language; `imports` holds each file's imports as written;
    `module_roots` the repository's own module names per language
    (`languages.imports.module_roots`: a Go module path or a crate name → its folder);
    `namespaces` what each file declares (C#), which imports name instead of files;
    `parallel`: the calls resolved in forked workers (call_graph.py); `last`: the last
    graph's calls, kept where the change cannot reach them (call_changes.py)."""
    documents = list(documents)
    graph = RepoGraph()
    defined, used = _types_and_words(files, documents)
    repo_files = RepoFiles(files, module_roots, namespaces, defined, used)
    for path in sorted(files):
        resolved, external = resolve_imports(repo_files, path, imports.get(path, []))
        implicit = rules_for(files[path]).implicit
        if implicit is not None:
            resolved = list(dict.fromkeys(resolved + [t for t in implicit(repo_files, path) if t != path]))
        graph.file_imports[path] = resolved
        graph.external_imports[path] = external
    only = chunks_to_resolve(last, documents, graph.file_imports) if last is not None else None
    calls = call_graph(documents, imports, _import_resolver(repo_files), parallel, last, only)
    graph.calls, graph.callers, graph.unresolved_calls = calls.calls, calls.callers, calls.unresolved
    graph.module_of = assign_modules(sorted(files), module_depth, package_folders(files))
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


IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _types_and_words(files: Mapping[str, str], documents: list[Document]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """For the files of languages whose imports leave some uses implicit (C#): the type
    names each defines and the identifiers its code uses."""
    defined: dict[str, set[str]] = defaultdict(set)
    used: dict[str, set[str]] = defaultdict(set)
    for document in documents:
        chunk = document.chunk
        if rules_for(files.get(chunk.path, "")).implicit is None:
            continue
        if chunk.kind is ChunkKind.CLASS:
            defined[chunk.path].add(chunk.name)
        used[chunk.path].update(IDENTIFIER.findall(chunk.content))
    return defined, used


def store_call_graph(documents: Iterable[Document], graph: RepoGraph) -> bool:
    """Write the graph's resolved calls into each document's `callers`, `callees` and
    `unresolvedCalls`, so a tool reading the store's JSONL gets them; whether any changed
    (the store is then saved again)."""
    changed = False
    for document in documents:
        metadata, chunk_id = document.metadata, document.chunk.id
        resolved = (
            graph.callers.get(chunk_id, []),
            graph.calls.get(chunk_id, []),
            graph.unresolved_calls.get(chunk_id, []),
        )
        if resolved != (metadata.callers, metadata.callees, metadata.unresolvedCalls):
            metadata.callers, metadata.callees, metadata.unresolvedCalls = (list(ids) for ids in resolved)
            changed = True
    return changed


def assign_modules(paths: list[str], depth: int | None, packages: set[str] = frozenset()) -> dict[str, str]:
    """Module name per file: its directory at `depth`, or, when depth is None, the package
    its language makes of its folder (`packages`: `src/flask/sansio` is a module of its own,
    languages/packages.py), and elsewhere adaptive.

    A file inside a package's folder tree that no package of its own holds (package data,
    a `translations/` folder) belongs to the nearest package above it. Leading directories
    that hold no file directly (`src/`) do not count as a level. Adaptive depth starts at
    one level and splits any module of more than SPLIT_MODULE_OVER files into its
    subdirectories.
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
    if packages:
        for path in paths:
            package = _enclosing_package(posixpath.dirname(path), packages)
            if package:
                result[path] = package
    return result


def _enclosing_package(folder: str, packages: set[str]) -> str:
    """The nearest of `packages` that is `folder` or holds it, or ""."""
    while folder:
        if folder in packages:
            return folder
        folder = posixpath.dirname(folder)
    return ""


def _import_resolver(files: RepoFiles) -> ResolveImport:
    """(file, import as written) → repository files, by the file's language, remembered."""
    known: dict[tuple[str, str], list[str]] = {}

    def resolve(path: str, name: str) -> list[str]:
        if (path, name) not in known:
            known[(path, name)] = rules_for(files.languages[path]).resolve(files, path, name)
        return known[(path, name)]

    return resolve


def resolve_imports(files: RepoFiles, path: str, imports: list[str]) -> tuple[list[str], list[str]]:
    """The repository files `path`'s imports name, and the external packages it imports,
    by its language's rules (languages/imports.py)."""
    rules = rules_for(files.languages[path])
    resolved: list[str] = []
    external: list[str] = []
    for name in imports:
        targets = [t for t in rules.resolve(files, path, name) if t != path]
        if targets:
            resolved.extend(targets)
        elif not name.startswith("."):
            external.append(name)
    tops = (rules.top_level(name) for name in external)
    return list(dict.fromkeys(resolved)), list(dict.fromkeys(t for t in tops if t))


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
