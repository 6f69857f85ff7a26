"""The overview's four answers, offline: what the system is, its parts, how it works, where
to start.

Each answer is made of what the repository says or the build measured, never of invented
prose: the declared description and the README's first paragraph of prose (badges,
headings and directives skipped), the repository's own design documents quoted briefly;
the components with their own package text; the entry points and their flows
(`flows.py`); the guide documents in reading order, the central abstractions ranked by how
many definitions of the project's own code (tests apart) use them, and one set of counts
that every sentence of the page takes its numbers from. The page's own sentences are
written by the template, in the site's language.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..core.records import ChunkKind, ComponentKind as NodeKind, Components, Document, FileRole, FileSummary, Hierarchy
from ..core.text import first_sentences
from ..languages.orientation import (
    BADGE_OR_MARKUP,
    CONSTRUCTOR_FUNCTION_LANGUAGES,
    DESIGN_DOC_KINDS,
    DOCUMENT_LANGUAGES,
    ERROR_PATH_WORDS,
    FOLDER_PACKAGE_LANGUAGES,
    GUIDE_NAMES,
    INDEX_STEMS,
    NON_CODE_LANGUAGES,
)
from .components import VIEW_BUDGET
from .flows import CallGraph, DefinitionRef, EntryPoint, Flow, declared_scripts, find_entry_points, main_flows, name_words
from .graph import RepoGraph
from .plugins import PluginHook, layer_members, outside_layers, plugin_hooks, plugin_layers

QUOTE_CHARS = 300
DESIGN_QUOTE_CHARS = 220
MAX_ABSTRACTIONS = 10
MAX_GUIDES = 12
MAX_UNITS = 8
LARGEST_MEMBERS = 5
"""A plug-in layer's entry names this many of its largest packages."""
MOSTLY_SHARE = 0.5
"""A language is what a system is "mostly" written in when it has this share of its own code's lines."""
IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+\S+[ \t]+import[ \t]*\([^)]*\)|from[ \t]+\S+[ \t]+import\b.*|import\b.*|.*\brequire\(.*)$", re.MULTILINE
)
"""An import line of a file's top-level code (Python's, a JavaScript `import` or `require`):
naming a class there is no use of it; the rest of the top-level code (`type X = ConfigEntry[D]`) is."""
FRONT_FILES = ("__init__.py", "doc.go", "lib.rs", "mod.rs", "index.js", "index.ts")
"""A package's front file: its docstring is the package's, and what it imports it may re-export."""
NAME_AND_MEMBER = re.compile(r"(?<![.\w$])([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?")
"""A name as code writes it, not after a dot (`t.Tuple` is typing's, not the project's
`Tuple`), with the name after its own dot if one follows ("" if none): a name through a
module (`sessions.Session`) is the project's class where the module is its file."""
MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


class ComponentKind:
    SOURCE = "source"
    DOCS = "docs"
    TESTS = "tests"
    EXAMPLES = "examples"
    OTHER = "other"


COMPONENT_OF_CONTENT = {
    "code": ComponentKind.SOURCE, "config": ComponentKind.OTHER, "docs": ComponentKind.DOCS,
    "test": ComponentKind.TESTS, "fixture": ComponentKind.TESTS, "example": ComponentKind.EXAMPLES,
}
"""A component's kind is that of most of its files (a tie goes to the kind first in `COMPONENT_ORDER`)."""
COMPONENT_ORDER = [ComponentKind.SOURCE, ComponentKind.DOCS, ComponentKind.EXAMPLES, ComponentKind.TESTS, ComponentKind.OTHER]


@dataclass
class Quote:
    """A passage of one of the repository's documents, with the page it is quoted from."""

    path: str
    title: str
    text: str = ""
    kind: str = ""
    """The guide's kind (`languages/orientation.py`'s `GUIDE_NAMES`): `readme`, `quickstart`, …"""


@dataclass
class Unit:
    """One file of a component's own code: for a flat package, the files are its parts."""

    path: str
    lines: int
    quote: str = ""
    """Its docstring's first paragraph, quoted; "" where it has none."""
    names: list[str] = field(default_factory=list)


@dataclass
class Part:
    """One of the overview's parts: a module as "Its parts" lists it (not the map's
    `core.records.Component`, which the component hierarchy is made of)."""

    name: str
    kind: str
    """`source` (the project's own code), `docs`, `examples`, `tests` or `other` (vendored, generated, fixtures)."""
    files: int
    lines: int
    quote: str = ""
    """The package's own word on itself (its docstring), quoted; "" where it says nothing."""
    names: list[str] = field(default_factory=list)
    """Its main public names, for a component that says nothing of itself."""
    units: list[Unit] = field(default_factory=list)
    """Its largest code files (own code only), when it has more than one."""


@dataclass
class TopPart:
    """One node of the component hierarchy's top view (the overview's map), as "Its parts"
    lists it when the repository has more modules than one view shows (`VIEW_BUDGET`)."""

    id: str
    """The component's id (`core.pages.component_page` gives its page)."""
    title: str
    kind: str
    """`core.records.ComponentKind`'s value: `module`, `file`, `group` or `part`."""
    files: int
    quote: str = ""
    """Its package's own word on itself (a module's), quoted; "" where it says nothing."""
    members: int = 0
    """For a plug-in layer (a package whose sibling subpackages the hierarchy cut into
    groups): how many subpackages it holds; else 0."""
    largest: list[str] = field(default_factory=list)
    """Those subpackages' names, the largest few first."""


@dataclass
class Abstraction:
    definition: DefinitionRef
    uses: int
    """Definitions of the project's own code, outside its own body, that name it."""
    files: int = 0
    """The files those definitions are in: what ranks it (use across the code, not within one file)."""


@dataclass
class Counts:
    """The numbers every sentence of the overview takes: they add up to each other."""

    files: int = 0
    """Every indexed file."""
    modules: int = 0
    by_role: dict[str, int] = field(default_factory=dict)
    """Indexed files per kind of content (`code` first, then `docs`, `config`, `test`… by count): adds up to `files`."""
    languages: dict[str, int] = field(default_factory=dict)
    """Indexed files per language: adds up to `files`."""
    code_lines: dict[str, int] = field(default_factory=dict)
    """Lines of the project's own code per language (no documents, tests or configuration)."""
    main_languages: list[str] = field(default_factory=list)
    """The one language with most of those lines, when it has `MOSTLY_SHARE`; else the first two."""
    mostly: bool = False
    """Whether `main_languages[0]` really has most of the own code's lines."""


@dataclass
class Orientation:
    description: str = ""
    """What the package's metadata declares it is."""
    readme: Quote | None = None
    """The README's first paragraph of prose."""
    design: list[Quote] = field(default_factory=list)
    narrative: str = ""
    """The system's summary as the LLM wrote it (grounded by the summarizer); "" offline."""
    components: list[Part] = field(default_factory=list)
    top_parts: list[TopPart] = field(default_factory=list)
    """The hierarchy's top view, when `components` has more of its own code than one view
    shows: what "Its parts" lists instead of every module; else empty."""
    entry_points: list[EntryPoint] = field(default_factory=list)
    plugin_hooks: list[PluginHook] = field(default_factory=list)
    """The interface of a plug-in layer's packages (plugins.py), told once for them all."""
    flows: list[Flow] = field(default_factory=list)
    guides: list[Quote] = field(default_factory=list)
    abstractions: list[Abstraction] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)


def build_orientation(
    documents: list[Document],
    hierarchy: Hierarchy,
    graph: RepoGraph,
    description: str = "",
    manifests: dict[str, str] | None = None,
    package: str = "",
) -> Orientation:
    """The four answers from the stored records; `manifests` are the texts (by path) of the
    files that declare console scripts and main files (`flows.SCRIPT_MANIFESTS`); `package`
the name they declare."""
    files = hierarchy.files
    code = {path for path, f in files.items() if _content_kind(f) == "code"}
    by_path: dict[str, list[Document]] = defaultdict(list)
    for document in documents:
        by_path[document.chunk.path].append(document)
    calls = CallGraph(documents, graph, code)
    abstractions = central_abstractions(calls, code)
    scripts, mains = declared_scripts(manifests or {})
    entries = find_entry_points(calls, scripts, mains, [(a.definition.path, a.definition.symbol) for a in abstractions[:3]], package)
    layers = plugin_layers(hierarchy.components)
    shown, flows = main_flows(calls, outside_layers(entries, layers))
    guides = guide_documents(files, by_path)
    readme = next((g for g in guides if g.kind == "readme" and "/" not in g.path), None)
    parts = components(hierarchy, by_path)
    own = [part for part in parts if part.kind == ComponentKind.SOURCE]
    return Orientation(
        description=" ".join(description.split()),
        readme=readme if readme and readme.text else None,
        design=[g for g in guides if g.kind in DESIGN_DOC_KINDS and g.text],
        components=parts,
        top_parts=top_parts(hierarchy.components, parts, by_path) if len(own) > VIEW_BUDGET else [],
        entry_points=shown,
        plugin_hooks=plugin_hooks(calls, layers) if layers else [],
        flows=flows,
        guides=guides,
        abstractions=abstractions,
        counts=count(hierarchy),
    )


def count(hierarchy: Hierarchy) -> Counts:
    files = hierarchy.files.values()
    roles = Counter(_content_kind(f) for f in files)
    roles = Counter({kind: roles[kind] for kind in sorted(roles, key=lambda k: (k != "code", -roles[k], k))})
    languages = Counter(f.language for f in files)
    lines: Counter[str] = Counter()
    for f in files:
        if _content_kind(f) == "code":
            lines[f.language] += f.lines
    ranked = [language for language, _ in sorted(lines.items(), key=lambda kv: (-kv[1], kv[0]))]
    total = sum(lines.values())
    mostly = bool(ranked) and lines[ranked[0]] >= MOSTLY_SHARE * total
    return Counts(
        files=len(hierarchy.files),
        modules=len(hierarchy.modules),
        by_role=dict(roles),
        languages=dict(sorted(languages.items(), key=lambda kv: (-kv[1], kv[0]))),
        code_lines={language: lines[language] for language in ranked},
        main_languages=ranked[:1] if mostly else ranked[:2],
        mostly=mostly,
    )


def _content_kind(summary: FileSummary) -> str:
    """`code`, `docs`, `config`, or the file's role when it is not the project's own."""
    if summary.file_role is not FileRole.SOURCE:
        return summary.file_role.value
    if summary.language in DOCUMENT_LANGUAGES:
        return "docs"
    return "config" if summary.language in NON_CODE_LANGUAGES else "code"


def components(hierarchy: Hierarchy, by_path: dict[str, list[Document]]) -> list[Part]:
    """Every module with its kind and its own word on itself; the project's code first."""
    found = []
    for name, module in hierarchy.modules.items():
        summaries = [hierarchy.files[p] for p in module.files if p in hierarchy.files]
        kinds = Counter(COMPONENT_OF_CONTENT.get(_content_kind(s), ComponentKind.OTHER) for s in summaries)
        kind = max(COMPONENT_ORDER, key=lambda k: (kinds[k], -COMPONENT_ORDER.index(k)))
        component = Part(name, kind, len(summaries), module.lines, _package_docstring(summaries, by_path), module.public_api[:3])
        if kind == ComponentKind.SOURCE:
            code_files = sorted((s for s in summaries if _content_kind(s) == "code"), key=lambda s: (-s.lines, s.path))
            if len(code_files) > 1:
                component.units = [Unit(s.path, s.lines, _docstring_lead(by_path.get(s.path, [])), s.public_api[:3]) for s in code_files[:MAX_UNITS]]
        found.append(component)
    return sorted(found, key=lambda c: (COMPONENT_ORDER.index(c.kind), -c.lines if c.kind == ComponentKind.SOURCE else 0, c.name))


def top_parts(hierarchy: Components, parts: list[Part], by_path: dict[str, list[Document]]) -> list[TopPart]:
    """The hierarchy's top view (at most `VIEW_BUDGET` nodes, components.py), each with its
    package's word on itself; a package whose subpackages were cut into groups (a plug-in
    layer of many siblings) named once, with how many it holds and its largest few."""
    if hierarchy.root not in hierarchy.nodes:
        return []
    quotes = {part.name: part.quote for part in parts}
    found = []
    for node_id in hierarchy.nodes[hierarchy.root].children[:VIEW_BUDGET]:
        node = hierarchy.nodes[node_id]
        members = layer_members(hierarchy, node_id) if any(c.startswith("group:") for c in node.children) else []
        members = members if len(members) > VIEW_BUDGET else []  # a package's own files grouped make no layer
        largest = sorted(members, key=lambda m: (-len(hierarchy.nodes[m].files), m))[:LARGEST_MEMBERS]
        quote = quotes.get(node.name, "") if node.kind is NodeKind.MODULE else ""
        if node.kind is NodeKind.FILE:
            quote = _docstring_lead(by_path.get(node.name, []))
        found.append(TopPart(node_id, node.title, node.kind.value, len(node.files), quote, len(members), [hierarchy.nodes[m].name for m in largest]))
    return found


def _package_docstring(summaries: list[FileSummary], by_path: dict[str, list[Document]]) -> str:
    """The docstring of the package's front file (`__init__.py`, `doc.go`, `lib.rs`…), else of its largest code file."""
    front = [s for s in summaries if posixpath.basename(s.path).lower() in FRONT_FILES]
    largest = sorted((s for s in summaries if _content_kind(s) == "code"), key=lambda s: -s.lines)[:1]
    for summary in front + largest:
        quoted = _docstring_lead(by_path.get(summary.path, []))
        if quoted:
            return quoted
    return ""


def _docstring_lead(documents: list[Document]) -> str:
    """A file's docstring's first paragraph of prose (an RST title over it, `requests.utils` / `~~~~`, is none)."""
    module = next((d.chunk for d in documents if d.chunk.kind is ChunkKind.MODULE and d.chunk.docstring), None)
    return lead_paragraph(module.docstring, 160, min_words=2) if module is not None else ""


def central_abstractions(calls: CallGraph, code: set[str]) -> list[Abstraction]:
    """The classes (and JavaScript constructor functions) of the project's own code, ranked by
    how many of its other definitions name them (calls, annotations, subclasses alike) where
    the name resolves to them: in their own file, or in a file that imports theirs (directly
    or through a package's front file that does, `from flask import Flask`); a name that
    only matches, in a file that imports another `API`, is not theirs. A base class is
    used where its subclasses are defined, through every level (an integration's
    `CoordinatorEntity, SensorEntity` subclass is an `Entity`), not by what uses those
    subclasses (a mixin does not become what its class is)."""
    candidates: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, definition in calls.definitions.items():
        constructor = (
            definition.kind is ChunkKind.FUNCTION and not definition.parent and definition.name[:1].isupper()
            and definition.language in CONSTRUCTOR_FUNCTION_LANGUAGES
        )
        if (definition.kind is ChunkKind.CLASS or constructor) and not definition.name.startswith("_"):
            if not name_words(definition.name) & ERROR_PATH_WORDS:
                candidates[definition.name].append(key)
    visible = _Visible(calls.file_imports, {key[0]: d.language for key, d in calls.definitions.items()})
    users: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for key, definition in calls.definitions.items():
        if key[0] not in code:
            continue
        text = IMPORT_STATEMENT.sub("", definition.content) if definition.kind is ChunkKind.MODULE else definition.content
        written = NAME_AND_MEMBER.findall(text)  # each name, with what follows its dot (`sessions.Session`)
        names = {name for name, _ in written} & candidates.keys()
        qualified = {(qualifier, name) for qualifier, name in written if name in candidates}
        if not names and not qualified:
            continue
        seen = visible(key[0])
        named = [(target, True) for name in names for target in candidates[name]]
        named += [(target, qualifier in _qualifiers(target[0])) for qualifier, name in qualified for target in candidates[name]]
        for target, resolves in named:
            inside = target[0] == key[0] and (key[1] == target[1] or key[1].startswith(target[1] + "."))
            if resolves and target[0] in seen and not inside and target != key:
                users[target].add(key)
    subclasses: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for subclass, bases in calls.bases.items():
        for base in bases:
            if base[0] in visible(subclass[0]):
                subclasses[base].append(subclass)
    ranked = []
    for keys in candidates.values():
        for key in keys:
            using = (users.get(key, set()) | _descendants(subclasses, key)) - {key}
            if using:
                ranked.append(Abstraction(calls.ref(key), len(using), len({path for path, _ in using})))
    ranked.sort(key=lambda a: (-a.files, -a.uses, a.definition.symbol, a.definition.path))
    named = {}
    for abstraction in ranked:  # two classes of one name read as one: the more used is shown
        named.setdefault(abstraction.definition.symbol.rsplit(".", 1)[-1], abstraction)
    return list(named.values())[:MAX_ABSTRACTIONS]


class _Visible:
    """The files whose definitions a file's names can mean: its own, those it imports, and
    what a package's front file it imports imports in turn (a re-export); where the
    package is the folder (`FOLDER_PACKAGE_LANGUAGES`), its folder's files of its language."""

    def __init__(self, imports: dict[str, list[str]], languages: dict[str, str]) -> None:
        self.imports = imports
        self.languages = languages
        self.folders: dict[tuple[str, str], set[str]] = defaultdict(set)
        for path, language in languages.items():
            if language in FOLDER_PACKAGE_LANGUAGES:
                self.folders[(posixpath.dirname(path), language)].add(path)
        self.found: dict[str, set[str]] = {}

    def __call__(self, path: str) -> set[str]:
        if path not in self.found:
            direct = self.imports.get(path, [])
            seen = {path, *direct, *self.folders.get((posixpath.dirname(path), self.languages.get(path, "")), ())}
            for target in direct:
                if posixpath.basename(target).lower() in FRONT_FILES:
                    seen.update(self.imports.get(target, ()))
            self.found[path] = seen
        return self.found[path]


def _qualifiers(path: str) -> set[str]:
    """What an imported module of the file is called where code names its class through it:
    the file's stem (`sessions.Session`), its folder's name for a front file (`click.Command`)."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    return {stem, posixpath.basename(posixpath.dirname(path))} - {""}


def _descendants(subclasses: dict[tuple[str, str], list[tuple[str, str]]], key: tuple[str, str]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    pending = list(subclasses.get(key, ()))
    while pending:
        subclass = pending.pop()
        if subclass not in found and subclass != key:
            found.add(subclass)
            pending.extend(subclasses.get(subclass, ()))
    return found


def guide_documents(files: dict[str, FileSummary], by_path: dict[str, list[Document]]) -> list[Quote]:
    """The repository's own guides, in reading order: README, how to start, concepts and
    design, contributing last; each with its title and first paragraph of prose."""
    found = []
    order = [kind for kind, _ in GUIDE_NAMES]
    for path, summary in files.items():
        if summary.file_role is not FileRole.SOURCE or summary.language not in DOCUMENT_LANGUAGES:
            continue
        kind = guide_kind(path)
        sections = sorted((d for d in by_path.get(path, []) if d.chunk.kind is ChunkKind.SECTION), key=lambda d: (d.chunk.start_line, d.chunk.part))
        if not kind or not sections:
            continue
        limit = QUOTE_CHARS if kind == "readme" else DESIGN_QUOTE_CHARS
        lead = lead_paragraph("\n\n".join(d.chunk.content for d in sections[:6]), limit)
        title = sections[0].chunk.name.strip()  # text before the first heading is named by the file
        if title == posixpath.basename(path) and not lead:  # a page that only includes another
            continue
        found.append(Quote(path, title, lead, kind))
    found.sort(key=lambda q: (order.index(q.kind), q.path.count("/"), q.path))
    return found[:MAX_GUIDES]


def guide_kind(path: str) -> str:
    """A document's guide kind by its stem, or by its folder's name for a folder's front page."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    folder = posixpath.basename(posixpath.dirname(path))
    names = [stem] + ([folder] if stem.lower() in INDEX_STEMS and folder else [])
    for name in names:
        for kind, pattern in GUIDE_NAMES:
            if pattern.match(name) and not (kind == "readme" and "/" in path and name == stem and folder):
                return kind
    return ""


def lead_paragraph(text: str, limit: int, min_words: int = 6) -> str:
    """The first paragraph of prose in a document's text: no badge, heading, directive,
    HTML, table or code; links kept as their text; at least `min_words` words (a README's
    lone tagline line is no paragraph, a docstring's short sentence is)."""
    in_fence = False
    for paragraph in re.split(r"\n\s*\n", text):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        if not lines:
            continue
        if lines[0].lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence if lines[-1].strip() in ("```", "~~~") and len(lines) == 1 else in_fence
            continue
        if in_fence or lines[0].startswith(("    ", "\t")) or any(BADGE_OR_MARKUP.match(line) for line in lines[:1]):
            continue
        prose = " ".join(line.strip() for line in lines if not BADGE_OR_MARKUP.match(line))
        prose = MARKDOWN_LINK.sub(r"\1", prose)
        if len(prose.split()) >= min_words and not prose.endswith("::"):
            return first_sentences(prose, limit)
    return ""
