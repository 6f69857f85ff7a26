"""Typed records passed between the pipeline stages.

discover → SourceFile → chunk → Chunk → analyze → Metadata → summarize → ChunkSummary
→ store → Document; hierarchy → FileSummary / ModuleSummary / SystemSummary.

Every record converts to and from JSON through `serial.py` (one conversion for all of
them, driven by the fields' types), so the store and the renderer never need to know how a
stage produced it.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from .serial import CODEC, OMIT_DEFAULT, SORTED_KEYS, Codec, json_name


class ChunkKind(str, Enum):
    """What a chunk stands for in its file."""

    FUNCTION = "function"
    METHOD = "method"
    CLASS = "class"
    MODULE = "module"
    """The top-level statements of a file that belong to no function or class."""
    SECTION = "section"
    """A heading-delimited part of a Markdown document."""
    WINDOW = "window"
    """A token window of a file that no grammar splits."""
    PAGE = "page"
    """A section of a rendered page (overview, module page, decision log, plan): made for the
    site's search index at render time, never stored."""


class SkipReason(str, Enum):
    """Why discovery left a file out; counted and reported."""

    IGNORED = "ignored"
    BINARY = "binary"
    OVERSIZED = "oversized"
    MINIFIED = "minified"
    GENERATED = "generated"
    UNSUPPORTED = "unsupported type"
    SYMLINK_OUTSIDE = "symlink outside the repository"
    SYMLINK = "symlink"
    """A link inside the repository: never read; a file it points to is indexed under its own path."""
    SPECIAL = "special file"
    """A FIFO, socket or device: never opened (opening a FIFO waits for a writer)."""
    UNREADABLE = "unreadable"
    SECRET = "secret"
    """Named like a file of credentials (`.env`, `id_rsa`, `*.pem`): never read."""
    BUILT_SITE = "built site"
    """A site refdoc-site built, in the repository (a CI job's `_publish/site`): skipped as a
    folder, and each file of it git tracks listed with it."""
    OWN_CONFIG = "refdoc-site configuration"
    """The repository's `refdoc.yml`: the build's settings, not code the site explains (a
    plan's request written there would otherwise be the first source the plan finds)."""


class FileRole(str, Enum):
    """Whose code a file is: the project's own, or what it keeps beside it. Only `SOURCE`
    files feed the decision log, the refactoring plan, the public API and the system
    summary; the others still get their file pages (`understanding/roles.py` decides)."""

    SOURCE = "source"
    TEST = "test"
    FIXTURE = "fixture"
    """Data a test reads: sample repositories, inputs, snapshots."""
    EXAMPLE = "example"
    VENDORED = "vendored"
    """A copy of another project's code."""
    GENERATED = "generated"
    """A code generator's output (marked so, or named like one)."""


@dataclass(frozen=True)
class SourceFile:
    """A file that discovery accepted for indexing."""

    path: str
    """Path relative to the repository root, with forward slashes."""
    language: str
    """Language name from the language table (`python`, `markdown`, `text`, …)."""
    size: int
    """Size in bytes."""
    sha256: str
    """Content hash; an unchanged hash means the file is not processed again."""
    decode_errors: bool = False
    """True when the bytes were not valid UTF-8 and were read with replacement."""


@dataclass(frozen=True)
class SkippedFile:
    """A file that discovery left out, with the reason."""

    path: str
    reason: SkipReason
    detail: str = ""


@dataclass
class Chunk:
    """One function, method, class, module remainder, document section or token window."""

    id: str
    """Stable identifier: `path#symbol` plus a part suffix for windows."""
    path: str
    language: str
    kind: ChunkKind
    name: str
    """The short name (`method`)."""
    symbol: str
    """The qualified name (`Class.method`, `Outer.Inner.method`, `res.send`)."""
    signature: str
    start_line: int
    """1-based, inclusive."""
    end_line: int
    """1-based, inclusive."""
    content: str
    """The source of the chunk; for a class, its body with member bodies elided."""
    docstring: str = ""
    """Docstring or the comment block written above the definition."""
    parent: str = ""
    """Qualified name of the enclosing class, if any."""
    part: int = 0
    """Window index when an oversized node or a file was split; 0 when whole."""
    tokens: int = 0
    """Token count of `content`."""


@dataclass
class Metadata:
    """Relationships and risk flags of a chunk (the seed's metadata record)."""

    imports: list[str] = field(default_factory=list)
    """Modules or paths imported by the chunk's file and used by the chunk."""
    exports: list[str] = field(default_factory=list)
    """Names this chunk makes public."""
    callers: list[str] = field(default_factory=list)
    """Chunk ids (`path#Qualified.name`) that call this chunk. Like `callees` and
    `unresolvedCalls`, filled in by the summarize phase from the call graph of the whole
    repository, so empty in a store only indexed."""
    callees: list[str] = field(default_factory=list)
    """Chunk ids this chunk calls, resolved from `calls` (understanding/calls.py)."""
    unresolvedCalls: list[str] = field(default_factory=list)
    """The `calls` that resolved to no chunk of the repository (built-ins, libraries,
    receivers of unknown type), as written."""
    calls: list[str] = field(default_factory=list)
    """Calls as written (`self.parse`, `os.path.join`), by the analysis tiers: what the
    resolver reads. Kept because a rebuild resolves every file's calls again (a new
    definition elsewhere can change what an unchanged file's call means)."""
    isAsync: bool = False
    throwsException: bool = False
    securityBoundary: str = ""
    """Empty, or the reason this chunk sits on a security boundary."""
    effects: list[str] = field(default_factory=list)
    """Detected side effects: file, network, database, subprocess, global state, raising."""
    definitions: dict[str, list[str]] = field(default_factory=dict)
    """Callee as written → where a language server says it is defined: `path:line` in
    the repository (1-based), or `""` when outside it (standard library, dependencies).
    The call graph prefers these to matching names."""
    arguments: dict[str, list[list[str]]] = field(default_factory=dict, metadata={OMIT_DEFAULT: True})
    """Call as written → its call sites' arguments, in languages whose methods overload
    (Java, C#, C++): one list a site, each argument a literal's kind (`string`, `number`,
    `boolean`, `null`), `=name` for a plain name, or `` — what picks `get(Type)` from
    `get(TypeMirror)` and `emit(String, Object...)` from `emit(CodeBlock, boolean)`."""
    sources: dict[str, str] = field(default_factory=dict)
    """Which analysis tiers produced each field (`lsp`, `tree-sitter`, `regex`; joined
    with `+` for a union several tiers contributed to)."""


@dataclass
class Phrase:
    """One sentence of a summary field, as its facts."""

    key: str
    """Its entry in the label table's `phrases` (`calls`, `returns_value`, `effects`, …)."""
    items: list[str] = field(default_factory=list, metadata={OMIT_DEFAULT: True})
    """The names it lists, as the code writes them; for `effects` and `notes`, keys of the
    table's `effect_names` and `note_names`."""
    subject: str = field(default="", metadata={OMIT_DEFAULT: True})
    """The one thing it names besides: a returned expression, a file, a security boundary."""


@dataclass
class ChunkSummary:
    """The structured summary of a chunk (the seed's summary record)."""

    responsibility: str
    inputOutput: str
    sideEffects: str
    mainDependencies: str
    notes: str
    source: str = "extractive"
    """Who wrote it: `extractive` offline, or the model's name."""
    phrases: dict[str, list[Phrase]] = field(default_factory=dict, metadata={OMIT_DEFAULT: True})
    """The fields the offline summarizer phrased, by field name, as facts (core/phrases.py):
    a page in another language phrases them again."""


VECTOR_DECIMALS = 5
"""Stored vectors are rounded: plenty for cosine ranking, and a shorter index.jsonl."""


def vector(values: Sequence[float]) -> array:
    """A chunk vector as it is held in memory: float32, 4 bytes a dimension (a 128-dimension
    vector is 0.6 KB; as the list of floats JSON reads, 4.2 KB). The rounded values stored
    come back exactly: float32 keeps 7 digits of the 5 stored."""
    return array("f", values)


def vector_rows(vectors: Sequence[Sequence[float]]):
    """The vectors as one writable float32 matrix, a row each (numpy): joined as bytes when
    every one is a `vector()`, ten times faster than numpy reading them one by one."""
    import numpy as np  # lazy: see _stored_vector

    if all(isinstance(v, array) and v.typecode == "f" for v in vectors):
        return np.frombuffer(bytearray().join(vectors), dtype=np.float32).reshape(len(vectors), -1)
    return np.asarray(vectors, dtype=np.float32)


def _stored_vector(values: Sequence[float]) -> list[float]:
    """The vector as index.jsonl stores it: rounded, the same list whether `values` is the
    float32 array loaded or the float64 list a phase made."""
    import numpy as np  # lazy: numpy costs every import of the records 0.1 s; only a store save needs it here

    return np.round(np.asarray(values, dtype=np.float64), VECTOR_DECIMALS).tolist()


VECTOR_CODEC = {CODEC: Codec(_stored_vector, vector)}


@dataclass
class Document:
    """One line of `.refdoc/index.jsonl`."""

    chunk: Chunk
    summary: ChunkSummary
    metadata: Metadata
    embedding: Sequence[float] = field(metadata=VECTOR_CODEC)
    """The static model's vector (`vector()`, float32) when loaded; empty when it has none."""
    indexedAt: str
    file_sha256: str = field(default="", metadata=json_name("fileSha256"))
    """Hash of the file the chunk came from; decides what a rebuild reprocesses."""
    model_words: list[str] = field(default_factory=list, metadata={**json_name("modelWords"), OMIT_DEFAULT: True})
    """Words the static model puts nearest the chunk's vector that its text does not
    contain (`search/model_words.py`): indexed with it, so a query in other words finds it."""


@dataclass
class FileSummary:
    """About 200 characters on a file: role, public API, dependencies."""

    path: str
    module: str
    language: str
    text: str
    role: str
    public_api: list[str]
    imports: list[str]
    """Repository files this file imports (resolved), in order of first use."""
    external_imports: list[str]
    """Imported names that resolve to no file of the repository."""
    lines: int
    chunk_ids: list[str]
    has_docs: bool
    """Whether the file or any of its chunks carries a docstring or doc comment."""
    file_role: FileRole = field(default=FileRole.SOURCE, metadata={OMIT_DEFAULT: True})


@dataclass
class ModuleSummary:
    """About 200 characters on a module: boundary, responsibilities, modules used."""

    name: str
    text: str
    files: list[str]
    public_api: list[str]
    depends_on: list[str]
    used_by: list[str]
    lines: int


@dataclass
class SystemSummary:
    """About 300 characters on the whole repository: layers and domain boundaries."""

    text: str
    layers: list[list[str]]
    """Modules grouped from entry points (first) down to foundations (last)."""
    cycles: list[list[str]]
    """Dependency cycles between modules."""
    languages: dict[str, int]
    """Files per language."""


class ComponentKind(str, Enum):
    """What a node of the component hierarchy stands for, and so which page it links to."""

    SYSTEM = "system"
    """The whole repository: the overview's map."""
    PART = "part"
    """What the repository keeps beside its code: its tests, examples, documentation, vendored
    or generated files, each one node."""
    GROUP = "group"
    """Components gathered so that a view stays small: the files of a package too large to
    show one by one, or siblings grouped by what they depend on."""
    MODULE = "module"
    FILE = "file"


@dataclass
class Component:
    """A node of the component hierarchy (`understanding/components.py`): its map shows its
    children and the imports between them."""

    id: str
    kind: ComponentKind
    title: str
    """The label its parent's map shows."""
    name: str = ""
    """The module's name or the file's path; a part's role; a group's parent module."""
    children: list[str] = field(default_factory=list)
    """Ids of the components its map shows, in order."""
    files: list[str] = field(default_factory=list)
    """Every file below it."""
    depends_on: list[str] = field(default_factory=list)
    """Ids of the components beside it in its parent's map that its files import."""


@dataclass
class Components:
    """The component hierarchy, from `root` (the overview's map) down to files."""

    root: str = ""
    nodes: dict[str, Component] = field(default_factory=dict, metadata={SORTED_KEYS: True})


@dataclass
class Hierarchy:
    """Chunk → file → module → system summaries, saved as `summaries/hierarchy.json`, with
    the component hierarchy the maps draw."""

    system: SystemSummary
    modules: dict[str, ModuleSummary] = field(metadata={SORTED_KEYS: True})
    files: dict[str, FileSummary] = field(metadata={SORTED_KEYS: True})
    components: Components = field(default_factory=Components)

