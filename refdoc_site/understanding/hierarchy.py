"""Hierarchical summaries: chunk → file → module → system, each from the level below.

Offline these are extractive: what the code says about itself (a file's docstring, a
package's declared description, a README's first paragraph), else the main definitions by
name with what the main one's summary says, plus the public API and the dependencies the
graph found. Never a bag of name fragments: where nothing is said, nothing is made up.
The sentences written here ("Defines …", "Uses …", the system's size and layers) are in
the site's language, from the `summary_phrases` of its table (`templates/labels/`).
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
from ..core.resources import DEFAULT_LANGUAGE, page_labels
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
    language: str = DEFAULT_LANGUAGE,
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
        path: summarize_file(entry, by_path.get(path, []), graph, roles.get(path, FileRole.SOURCE), crate, language)
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
            language,
        )
        for name, paths in modules.items()
    }
    own = {path: entry for path, entry in files.items() if file_summaries[path].file_role is FileRole.SOURCE}
    own_modules = {name: module for name, module in module_summaries.items() if any(p in own for p in module.files)}
    system = summarize_system(
        own, own_modules, graph, declared.description or _readme_lead(by_path), language, (len(files), len(module_summaries))
    )
    parts = {path: file_part(summary.file_role, summary.language) for path, summary in file_summaries.items()}
    components = build_components(modules, parts, graph.file_imports)
    return Hierarchy(system=system, modules=module_summaries, files=file_summaries, components=components)


def summarize_file(
    entry: FileEntry,
    documents: list[Document],
    graph: RepoGraph,
    file_role: FileRole = FileRole.SOURCE,
    crate: CrateApi | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> FileSummary:
    said = phrases(language)
    chunks = [d.chunk for d in documents]
    module_chunk = next((c for c in chunks if c.kind is ChunkKind.MODULE), None)
    reachable = [d for d in documents if crate is None or crate.reachable(d)]
    public = public_api(entry.language, reachable)
    role = first_sentences(module_chunk.docstring, 160) if module_chunk and module_chunk.docstring else ""
    declared = DESCRIPTION_ASSIGNMENT.search(module_chunk.content) if module_chunk and not role else None
    if declared:
        role = first_sentences(declared.group(2), 160)
    if not role:
        role = _role_from_chunks(entry, documents, said)
    imports = graph.file_imports.get(entry.path, [])
    external = graph.external_imports.get(entry.path, [])
    parts = [role]
    if public:
        parts.append(said["api"].format(names=said["separator"].join(public[:API_SHOWN]) + ("…" if len(public) > API_SHOWN else "")))
    deps = [p.rsplit("/", 1)[-1] for p in imports[:3]] + external[:3]
    if deps:
        parts.append(said["uses"].format(names=said["separator"].join(deps)))
    return FileSummary(
        path=entry.path,
        module=graph.module_of.get(entry.path, ""),
        language=entry.language,
        text=clip(_sentences(parts, said), FILE_PROSE),
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


def phrases(language: str) -> dict:
    """The fixed phrases of the offline summaries in the site's language."""
    labels = page_labels(language)
    return labels["summary_phrases"]


def _sentences(parts: list[str], said: dict) -> str:
    """Sentences one after another: after the language's own full stop its own gap (none in
    Japanese), after a quoted sentence of another language a space."""
    out = ""
    for part in parts:
        out += (said["sentence_gap"] if out.endswith(said["system_end"]) else " ") + part if out else part
    return out


def _count(forms: dict[str, str], n: int, **values: object) -> str:
    return forms["one" if n == 1 else "other"].format(n=n, **values)


def _role_from_chunks(entry: FileEntry, documents: list[Document], said: dict) -> str:
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
    joined = said["separator"].join
    named = said["and_last"].format(names=joined(names[:-1]), last=names[-1]) if len(names) > 1 and not more else joined(names)
    named = said["and_more"].format(names=named, n=more) if more else named
    lead = first_sentences(ranked[0].summary.responsibility, 120)
    return clip(said["defines"].format(names=named, lead=lead) if lead else said["defines_only"].format(names=named), 160)


def summarize_module(
    name: str,
    paths: list[str],
    files: dict[str, FileSummary],
    depends_on: list[str],
    used_by: list[str],
    description: str = "",
    language: str = DEFAULT_LANGUAGE,
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
    said = phrases(language)
    size = said["module_size"].format(files=_count(said["module_files"], len(paths)), lines=_count(said["module_lines"], lines))
    text = responsibilities or size
    if depends_on:
        text = _sentences([text, said["uses"].format(names=said["separator"].join(depends_on[:4]))], said)
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
    files: dict[str, FileEntry],
    modules: dict[str, ModuleSummary],
    graph: RepoGraph,
    description: str = "",
    language: str = DEFAULT_LANGUAGE,
    indexed: tuple[int, int] | None = None,
) -> SystemSummary:
    """What the system says it is (`description`: declared, or its README's lead), then its
    shape: size, languages, layers; the largest module's text stands in for a description.
    The shape is the project's own files (`files`, `modules`); the size said is `indexed`
    (every indexed file and module, as the overview counts them) when given."""
    said = phrases(language)
    listed = said["separator"].join
    languages: dict[str, int] = defaultdict(int)
    for entry in files.values():
        languages[entry.language] += 1
    layers = layer_modules({m: deps for m, deps in graph.module_deps.items() if m in modules})
    code_languages = [lang for lang, _ in sorted(languages.items(), key=lambda kv: -kv[1]) if lang not in ("markdown", "text", "config", "restructuredtext")]
    lead = first_sentences(description, 160).rstrip(" .") if description.strip() else ""
    parts = [lead + said["system_end"]] if lead else []
    file_count, module_count = indexed or (len(files), len(modules))
    parts.append(
        _count(said["system_size"], file_count, modules=_count(said["system_modules"], module_count))
        + (said["system_mostly"].format(languages=listed(code_languages[:3])) if code_languages else "")
        + said["system_end"]
    )
    if len(layers) > 1:
        parts.append(said["entry_layer"].format(names=listed(layers[0][:4])))
        parts.append(said["foundation"].format(names=listed(layers[-1][:4])))
        if len(layers) > 2:
            middle = [m for layer in layers[1:-1] for m in layer]
            parts.append(said["in_between"].format(names=listed(middle[:4])))
    elif layers and len(layers[0]) > 1:  # one module depends on nothing, said of itself
        parts.append(said["independent"].format(names=listed(layers[0][:5])))
    biggest = sorted(modules.values(), key=lambda m: -m.lines)[:1]
    if biggest and not lead:
        parts.append(said["largest"].format(name=biggest[0].name, text=biggest[0].text))
    if graph.cycles:
        parts.append(_count(said["cycles"], len(graph.cycles)))
    return SystemSummary(
        text=clip(_sentences(parts, said), SYSTEM_PROSE),
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
