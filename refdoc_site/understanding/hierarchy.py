"""Hierarchical summaries: chunk → file → module → system, each from the level below.

Offline these are extractive: what the code says about itself (a file's docstring, a
package's declared description, a README's first paragraph), else the main definitions by
name with what the main one's summary says, plus the public API and the dependencies the
graph found. Never a bag of name fragments: where nothing is said, nothing is made up.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict

from ..core.records import (
    ChunkKind,
    Document,
    FileRole,
    FileSummary,
    Hierarchy,
    ModuleSummary,
    SystemSummary,
)
from ..core.store import FileEntry
from ..core.text import clip, first_sentences
from ..languages.exports import API_KIND_ORDER, EXPORT_RULES
from .components import build_components, file_part
from .crate_api import CrateApi, crate_api
from .evidence.manifests import Declaration
from .graph import RepoGraph

FILE_PROSE = 200
MODULE_PROSE = 200
SYSTEM_PROSE = 300
API_SHOWN = 5
DEFINITIONS_NAMED = 3
DESCRIPTION_ASSIGNMENT = re.compile(r"""^__description__\s*=\s*(['"])(.+?)\1""", re.MULTILINE)
"""A Python package's `__description__ = "…"`, read where its module docstring is missing."""
PACKAGE_DOC_FILES = frozenset({"__init__.py", "index.ts", "index.js", "mod.rs", "lib.rs", "doc.go", "readme.md"})
"""Files whose role speaks for their whole folder (lower-case names)."""
README = re.compile(r"(?i)^readme(?:\.\w+)?$")


def build_hierarchy(
    files: dict[str, FileEntry],
    documents: list[Document],
    graph: RepoGraph,
    declared: Declaration = Declaration(),
    roles: dict[str, FileRole] | None = None,
) -> Hierarchy:
    """The summaries of every file and module; `declared` is what the package's metadata
    says it is. The system's summary comes from the project's own files only (`roles`; all
    files when not given), as do the modules' public APIs."""
    roles = roles or {}
    by_path: dict[str, list[Document]] = defaultdict(list)
    for document in documents:
        by_path[document.chunk.path].append(document)
    crate = crate_api({path: entry.language for path, entry in files.items()}, documents)
    file_summaries = {
        path: summarize_file(entry, by_path.get(path, []), graph, roles.get(path, FileRole.SOURCE), crate)
        for path, entry in files.items()
    }
    modules: dict[str, list[str]] = defaultdict(list)
    for path in sorted(files):
        modules[graph.module_of.get(path, "")].append(path)
    used_by: dict[str, list[str]] = defaultdict(list)
    for module, deps in graph.module_deps.items():
        for dep in deps:
            used_by[dep].append(module)
    module_summaries = {
        name: summarize_module(
            name,
            paths,
            file_summaries,
            graph.module_deps.get(name, []),
            sorted(used_by.get(name, [])),
            declared.description if _same_name(name, declared.name) else "",
        )
        for name, paths in modules.items()
    }
    own = {path: entry for path, entry in files.items() if file_summaries[path].file_role is FileRole.SOURCE}
    own_modules = {name: module for name, module in module_summaries.items() if any(p in own for p in module.files)}
    system = summarize_system(own, own_modules, graph, declared.description or _readme_lead(by_path))
    parts = {path: file_part(summary.file_role, summary.language) for path, summary in file_summaries.items()}
    components = build_components(modules, parts, graph.file_imports)
    return Hierarchy(system=system, modules=module_summaries, files=file_summaries, components=components)


def summarize_file(
    entry: FileEntry,
    documents: list[Document],
    graph: RepoGraph,
    file_role: FileRole = FileRole.SOURCE,
    crate: CrateApi | None = None,
) -> FileSummary:
    chunks = [d.chunk for d in documents]
    module_chunk = next((c for c in chunks if c.kind is ChunkKind.MODULE), None)
    reachable = [d for d in documents if crate is None or crate.reachable(d)]
    public = public_api(entry.language, reachable)
    role = first_sentences(module_chunk.docstring, 160) if module_chunk and module_chunk.docstring else ""
    declared = DESCRIPTION_ASSIGNMENT.search(module_chunk.content) if module_chunk and not role else None
    if declared:
        role = first_sentences(declared.group(2), 160)
    if not role:
        role = _role_from_chunks(entry, documents)
    imports = graph.file_imports.get(entry.path, [])
    external = graph.external_imports.get(entry.path, [])
    parts = [role]
    if public:
        parts.append("API: " + ", ".join(public[:API_SHOWN]) + ("…" if len(public) > API_SHOWN else "") + ".")
    deps = [p.rsplit("/", 1)[-1] for p in imports[:3]] + external[:3]
    if deps:
        parts.append("Uses " + ", ".join(deps) + ".")
    return FileSummary(
        path=entry.path,
        module=graph.module_of.get(entry.path, ""),
        language=entry.language,
        text=clip(" ".join(parts), FILE_PROSE),
        role=role,
        public_api=public,
        imports=imports,
        external_imports=external,
        lines=entry.lines,
        chunk_ids=[c.id for c in chunks],
        has_docs=any(c.docstring for c in chunks),
        file_role=file_role,
    )


def public_api(language: str, documents: list[Document]) -> list[str]:
    """What a user of the file calls, as they write it: the exported definitions (classes,
    then functions, then members assigned to an exported object, as `API_KIND_ORDER` says),
    then the names the file only re-exports. A method inside a class is reached through
    its class and is no entry of its own; nor are private helpers and dunders, which the
    analysis does not export. A language without an export rule lists every top-level
    definition whose name has no leading underscore."""
    classes = {d.chunk.symbol for d in documents if d.chunk.kind is ChunkKind.CLASS}
    definitions = [
        d for d in documents
        if d.chunk.kind.value in API_KIND_ORDER and d.chunk.part <= 1 and d.chunk.parent not in classes
    ]
    if language not in EXPORT_RULES:
        return [d.chunk.symbol for d in definitions if not d.chunk.parent and not d.chunk.name.startswith("_")]
    ordered = sorted(definitions, key=lambda d: API_KIND_ORDER.index(d.chunk.kind.value))
    reexported = [name for d in documents if d.chunk.kind is ChunkKind.MODULE for name in d.metadata.exports]
    return list(dict.fromkeys([name for d in ordered for name in d.metadata.exports] + reexported))


MAIN_KINDS = (ChunkKind.CLASS, ChunkKind.FUNCTION, ChunkKind.METHOD)
"""Kinds a file's role may name: a method only when it is assigned outside any class (`res.send`)."""


def _role_from_chunks(entry: FileEntry, documents: list[Document]) -> str:
    """A file without a docstring: its main definitions by name, with the first sentence of
    what the main one does; a file of sections, its first section's lead."""
    if all(d.chunk.kind is ChunkKind.SECTION for d in documents):  # a document: its lead, else its title
        ordered = sorted(documents, key=lambda d: (d.chunk.start_line, d.chunk.part))
        preamble = ordered[0] if ordered and ordered[0].chunk.symbol == posixpath.basename(ordered[0].chunk.path) else None
        if preamble is not None and not preamble.summary.responsibility and len(ordered) > 1:
            ordered = ordered[1:]  # text before the first title that says nothing: labels, `.. currentmodule::`
        lead = ordered[0].summary.responsibility if ordered else ""
        return first_sentences(lead or (ordered[0].chunk.signature if ordered else ""), 160)
    classes = {d.chunk.symbol for d in documents if d.chunk.kind is ChunkKind.CLASS}
    exported = [  # the file's API first: express's response.js is its res.* members
        d for d in documents
        if d.metadata.exports and d.chunk.kind in MAIN_KINDS and d.chunk.parent not in classes and d.chunk.part <= 1
    ]
    definitions = exported or [
        d for d in documents if d.chunk.kind in (ChunkKind.FUNCTION, ChunkKind.CLASS) and not d.chunk.parent and d.chunk.part <= 1
    ]
    if not definitions:
        return next((first_sentences(d.summary.responsibility, 160) for d in documents if d.summary.responsibility), "")
    ranked = sorted(
        definitions,
        key=lambda d: (d.chunk.name.startswith("_"), MAIN_KINDS.index(d.chunk.kind), -(d.chunk.end_line - d.chunk.start_line)),
    )
    distinct = list(dict.fromkeys(d.chunk.symbol if exported else d.chunk.name for d in ranked))  # overloads once
    names = distinct[:DEFINITIONS_NAMED]
    more = len(distinct) - len(names)
    named = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 and not more else ", ".join(names)
    named += f" and {more} more" if more else ""
    lead = first_sentences(ranked[0].summary.responsibility, 120)
    return clip(f"Defines {named}: {lead}" if lead else f"Defines {named}.", 160)


def summarize_module(
    name: str,
    paths: list[str],
    files: dict[str, FileSummary],
    depends_on: list[str],
    used_by: list[str],
    description: str = "",
) -> ModuleSummary:
    """The package's own word on itself (its `__init__` docstring, else the description
    its metadata declares), else what its largest files do."""
    summaries = [files[p] for p in paths]
    lines = sum(s.lines for s in summaries)
    package_doc = next(
        (s.role for s in summaries if s.path.rsplit("/", 1)[-1].lower() in PACKAGE_DOC_FILES and s.role),
        "",
    )
    largest = sorted(summaries, key=lambda s: -s.lines)[:2]
    responsibilities = description or package_doc or " ".join(first_sentences(s.role, 90) for s in largest if s.role)
    # the name is the link or heading the text stands under: not said again
    text = responsibilities or f"{len(paths)} file{'s' if len(paths) != 1 else ''}, {lines} lines."
    if depends_on:
        text += " Uses " + ", ".join(depends_on[:4]) + "."
    return ModuleSummary(
        name=name,
        text=clip(text, MODULE_PROSE),
        files=paths,
        public_api=list(dict.fromkeys(api for s in summaries if s.file_role is FileRole.SOURCE for api in s.public_api)),
        depends_on=depends_on,
        used_by=used_by,
        lines=lines,
    )


def summarize_system(
    files: dict[str, FileEntry], modules: dict[str, ModuleSummary], graph: RepoGraph, description: str = ""
) -> SystemSummary:
    """What the system says it is (`description`: declared, or its README's lead), then its
    shape: size, languages, layers; the largest module's text stands in for a description."""
    languages: dict[str, int] = defaultdict(int)
    for entry in files.values():
        languages[entry.language] += 1
    layers = layer_modules({m: deps for m, deps in graph.module_deps.items() if m in modules})
    code_languages = [lang for lang, _ in sorted(languages.items(), key=lambda kv: -kv[1]) if lang not in ("markdown", "text", "config", "restructuredtext")]
    lead = first_sentences(description, 160).rstrip(" .") if description.strip() else ""
    parts = [f"{lead}."] if lead else []
    parts.append(
        f"{len(files)} files in {len(modules)} module{'s' if len(modules) != 1 else ''}"
        + (f", mostly {', '.join(code_languages[:3])}" if code_languages else "")
        + "."
    )
    if len(layers) > 1:
        parts.append(f"Entry layer: {', '.join(layers[0][:4])}.")
        parts.append(f"Foundation: {', '.join(layers[-1][:4])}.")
        if len(layers) > 2:
            middle = [m for layer in layers[1:-1] for m in layer]
            parts.append(f"In between: {', '.join(middle[:4])}.")
    elif layers and len(layers[0]) > 1:  # one module depends on nothing, said of itself
        parts.append(f"Modules without dependencies on each other: {', '.join(layers[0][:5])}.")
    biggest = sorted(modules.values(), key=lambda m: -m.lines)[:1]
    if biggest and not lead:
        parts.append(f"Largest: {biggest[0].name}: {biggest[0].text}")
    if graph.cycles:
        parts.append(f"{len(graph.cycles)} dependency cycle(s) between modules.")
    return SystemSummary(
        text=clip(" ".join(parts), SYSTEM_PROSE),
        layers=layers,
        cycles=graph.cycles,
        languages=dict(sorted(languages.items())),
    )


def layer_modules(deps: dict[str, list[str]]) -> list[list[str]]:
    """Modules grouped by height: entry points (nothing uses them) first, foundations last.

    The height of a module is the longest dependency path below it, cycles counted once.
    """
    height: dict[str, int] = {}
    visiting: set[str] = set()

    def measure(module: str) -> int:
        if module in height:
            return height[module]
        if module in visiting:
            return 0
        visiting.add(module)
        below = [measure(dep) + 1 for dep in deps.get(module, []) if dep in deps]
        visiting.discard(module)
        height[module] = max(below, default=0)
        return height[module]

    for module in sorted(deps):
        measure(module)
    if not height:
        return []
    top = max(height.values())
    return [sorted(m for m, h in height.items() if h == level) for level in range(top, -1, -1) if any(h == level for h in height.values())]


def _same_name(module: str, package: str) -> bool:
    """Whether a module is the declared package (`my-pkg` ships `my_pkg`, `src/my_pkg`)."""
    def normal(name: str) -> str:
        return re.sub(r"[-_.]+", "_", name).lower()

    return bool(package) and normal(module.rsplit("/", 1)[-1]) == normal(package.rsplit("/", 1)[-1])


def _readme_lead(by_path: dict[str, list[Document]]) -> str:
    """The first paragraph of the top-level README, as its first section summarised it."""
    for path in sorted(by_path, key=lambda p: p.count("/")):
        if "/" not in path and README.match(posixpath.basename(path)):
            return next((d.summary.responsibility for d in by_path[path] if d.summary.responsibility), "")
    return ""
