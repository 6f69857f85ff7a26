"""Language knowledge as data: which files are which language, and how to chunk them.

Adding a language is adding a `LanguageSpec` row here and, when a tree-sitter grammar
wheel exists for it, a query file `queries/<name>.scm` next to this module. The query
marks definitions with captures:

- `@definition.function`, `@definition.class`: a node that becomes one chunk;
- `@scope`: a node that only lends its `@name` to the qualified names inside it
  (a Rust `impl` block); `@scope.namespace` one whose functions stay functions (a Rust
  inline `mod`);
- `@name` (or `@name.object` + `@name.property`, joined with a dot): the name as written;
- `@receiver`: a Go method's receiver type, prefixed to the method's name;
- `@body`: where the signature ends.

Optional query files serve the analysis: `queries/<name>-calls.scm` marks call sites
(see `queries/python-calls.scm`), `queries/<name>-imports.scm` imports and exports (see
`queries/python-imports.scm`); languages without one fall back to regular expressions.
How its imports name repository files, and the manifest naming the repository's own
module (go.mod, Cargo.toml), is a row of `IMPORT_RULES` in imports.py.
"""

from __future__ import annotations

import importlib
import re
import time
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath

from tree_sitter import Language, Parser, Query, QueryCursor

from .c_family import HEADER_SUFFIX, first_branches, header_language, without_annotation_macros

QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True)
class LanguageSpec:
    """How one language is recognised and chunked."""

    name: str
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()
    grammar: tuple[str, str] | None = None
    """(module, function) of the tree-sitter grammar wheel returning the language."""
    category: str = "code"
    """`code`, `docs` (Markdown and text, split at headings) or `config`."""
    docstring: str = "comment"
    """`python`: the first string statement of a body; `comment`: comments written above."""
    comment_types: tuple[str, ...] = ("comment",)
    """tree-sitter node types that hold comments."""
    doc_format: str = ""
    """How its doc comments are written (`rustdoc`, `godoc`, `javadoc`, `xmldoc`,
    `doxygen`: `doc_comments.FORMATS`); "" for plain text."""
    wrapper_types: tuple[str, ...] = ()
    """Parent node types that belong to a definition's span (decorators, `export`) when
    they hold that definition only."""
    signature_wrappers: tuple[str, ...] = ()
    """Wrapper types whose text begins the signature (Go's `type` keyword)."""
    name_rewrites: tuple[tuple[str, str], ...] = ()
    """Regex substitutions that turn a name as written into the qualified-name form."""
    line_comment: tuple[str, ...] = ()
    """Line comment prefixes, for comment stripping and the regex tier."""
    member_separator: str = "."
    """Joins an imported name to its module (`.models` + `User` → `.models.User`)."""
    chunk_size: int | None = None
    """Per-language default token window size; None means the configured size."""
    chunk_overlap: int | None = None
    queries: tuple[str, ...] = ()
    """Query file stems, concatenated; default: the language's name."""
    _rewrite_patterns: tuple[tuple[re.Pattern[str], str], ...] = field(
        default=(), init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        compiled = tuple((re.compile(p), r) for p, r in self.name_rewrites)
        object.__setattr__(self, "_rewrite_patterns", compiled)

    def qualify(self, written: str) -> str:
        """The name as written (`X.prototype.m`, `Foo::bar`) in qualified form (`X.m`)."""
        for pattern, replacement in self._rewrite_patterns:
            written = pattern.sub(replacement, written)
        return written

    @property
    def query_paths(self) -> list[Path]:
        return [QUERY_DIR / f"{stem}.scm" for stem in (self.queries or (self.name,))]

    def analysis_query_paths(self, kind: str) -> list[Path]:
        """The `<stem>-<kind>.scm` query files (`calls`, `imports`) that exist for this
        language's query stems."""
        paths = [QUERY_DIR / f"{stem}-{kind}.scm" for stem in (self.queries or (self.name,))]
        return [path for path in paths if path.exists()]


C_COMMENTS = ("//",)
SCRIPT_COMMENTS = ("#",)

LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        "python",
        extensions=(".py", ".pyi"),
        grammar=("tree_sitter_python", "language"),
        docstring="python",
        wrapper_types=("decorated_definition",),
        line_comment=SCRIPT_COMMENTS,
    ),
    LanguageSpec(
        "javascript",
        extensions=(".js", ".mjs", ".cjs", ".jsx"),
        grammar=("tree_sitter_javascript", "language"),
        queries=("ecmascript", "javascript"),
        wrapper_types=("export_statement", "lexical_declaration", "variable_declaration"),
        name_rewrites=((r"\.prototype\.", "."), (r"^this\.", "")),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec(
        "typescript",
        extensions=(".ts", ".mts", ".cts"),
        grammar=("tree_sitter_typescript", "language_typescript"),
        queries=("ecmascript", "typescript"),
        wrapper_types=("export_statement", "lexical_declaration", "variable_declaration"),
        name_rewrites=((r"\.prototype\.", "."), (r"^this\.", "")),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec(
        "tsx",
        extensions=(".tsx",),
        grammar=("tree_sitter_typescript", "language_tsx"),
        queries=("ecmascript", "typescript"),
        wrapper_types=("export_statement", "lexical_declaration", "variable_declaration"),
        name_rewrites=((r"\.prototype\.", "."), (r"^this\.", "")),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec(
        "go",
        extensions=(".go",),
        doc_format="godoc",
        grammar=("tree_sitter_go", "language"),
        wrapper_types=("type_declaration",),
        signature_wrappers=("type_declaration",),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec(
        "rust",
        extensions=(".rs",),
        doc_format="rustdoc",
        grammar=("tree_sitter_rust", "language"),
        comment_types=("line_comment", "block_comment"),
        name_rewrites=((r"::", "."),),
        line_comment=C_COMMENTS,
        member_separator="::",
    ),
    LanguageSpec(
        "java",
        extensions=(".java",),
        doc_format="javadoc",
        grammar=("tree_sitter_java", "language"),
        comment_types=("line_comment", "block_comment"),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec(
        "csharp",
        extensions=(".cs",),
        doc_format="xmldoc",
        grammar=("tree_sitter_c_sharp", "language"),
        comment_types=("comment",),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec(
        "c",
        extensions=(".c", ".h"),
        doc_format="doxygen",
        grammar=("tree_sitter_c", "language"),
        comment_types=("comment",),
        wrapper_types=("type_definition", "declaration", "field_declaration"),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec(
        "cpp",
        extensions=(".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp"),
        doc_format="doxygen",
        grammar=("tree_sitter_cpp", "language"),
        comment_types=("comment",),
        wrapper_types=(
            "template_declaration",
            "type_definition",
            "declaration",
            "field_declaration",
            "linkage_specification",
        ),
        # `::ns::f` → `ns::f`; `Foo<T>::bar` → `Foo::bar` (not `operator<`); `::` → `.`
        name_rewrites=(
            (r"^::", ""),
            (r"(?<!operator)<[^<>]*>", ""),
            (r"(?<!operator)<[^<>]*>", ""),
            (r"::", "."),
        ),
        line_comment=C_COMMENTS,
    ),
    LanguageSpec("markdown", extensions=(".md", ".markdown", ".mdx"), category="docs"),
    LanguageSpec("restructuredtext", extensions=(".rst",), category="docs"),
    LanguageSpec("text", extensions=(".txt",), filenames=("README", "LICENSE"), category="docs"),
    LanguageSpec("ruby", extensions=(".rb",), line_comment=SCRIPT_COMMENTS),
    LanguageSpec("php", extensions=(".php",), line_comment=C_COMMENTS),
    LanguageSpec("kotlin", extensions=(".kt", ".kts"), line_comment=C_COMMENTS),
    LanguageSpec("swift", extensions=(".swift",), line_comment=C_COMMENTS),
    LanguageSpec("scala", extensions=(".scala",), line_comment=C_COMMENTS),
    LanguageSpec("lua", extensions=(".lua",), line_comment=("--",)),
    LanguageSpec("shell", extensions=(".sh", ".bash", ".zsh"), line_comment=SCRIPT_COMMENTS),
    LanguageSpec("sql", extensions=(".sql",), line_comment=("--",)),
    LanguageSpec("tree-sitter query", extensions=(".scm",), line_comment=(";",)),
    LanguageSpec("css", extensions=(".css", ".scss", ".less")),
    LanguageSpec("html", extensions=(".html", ".htm", ".vue", ".svelte")),
    LanguageSpec(
        "config",
        extensions=(".toml", ".yml", ".yaml", ".ini", ".cfg"),
        filenames=("Dockerfile", "Makefile", "go.mod", "Gemfile", "Procfile"),
        category="config",
        line_comment=SCRIPT_COMMENTS,
    ),
)

GENERATED_NAMES = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "Cargo.lock",
        "Pipfile.lock",
        "composer.lock",
        "go.sum",
        "uv.lock",
    }
)
"""Files written by tools, not people: skipped as generated."""

_BY_NAME = {spec.name: spec for spec in LANGUAGES}
_BY_EXTENSION = {ext: spec for spec in LANGUAGES for ext in spec.extensions}
_BY_FILENAME = {name: spec for spec in LANGUAGES for name in spec.filenames}

PLAIN_TEXT = _BY_NAME["text"]


def language_named(name: str) -> LanguageSpec:
    return _BY_NAME[name]


def language_for(path: str, text: str | None = None) -> LanguageSpec | None:
    """The language of a repository path, or None when no row claims it; with the file's
    text, a `.h` showing C++ constructs is C++ (`c_family.header_language`)."""
    pure = PurePosixPath(path)
    spec = _BY_FILENAME.get(pure.name) or _BY_EXTENSION.get(pure.suffix.lower())
    if text is not None and spec is not None and spec.name == "c" and pure.suffix.lower() == HEADER_SUFFIX:
        return _BY_NAME[header_language(text) or "c"]
    return spec


@cache
def grammar(spec: LanguageSpec):  # -> tree_sitter.Language | None
    """The tree-sitter language of a spec, or None when its grammar wheel is missing."""
    if spec.grammar is None:
        return None
    module_name, function_name = spec.grammar
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return Language(getattr(module, function_name)())


@cache
def definition_query(spec: LanguageSpec):  # -> tree_sitter.Query | None
    language = grammar(spec)
    paths = spec.query_paths
    if language is None or not all(path.exists() for path in paths):
        return None
    return Query(language, "\n".join(path.read_text(encoding="utf-8") for path in paths))


@cache
def analysis_query(spec: LanguageSpec, kind: str):  # -> tree_sitter.Query | None
    """The language's `calls` or `imports` query, or None without a grammar or a file."""
    language = grammar(spec)
    paths = spec.analysis_query_paths(kind)
    if language is None or not paths:
        return None
    return Query(language, "\n".join(path.read_text(encoding="utf-8") for path in paths))


PARSE_READ_FACTOR = 16
"""Bytes tree-sitter may read per byte of a file. It reads about 1–2.3 (every file of the
Python, C, C++, JavaScript and TypeScript installed here); an unterminated comment or
string makes its error recovery re-read the rest of the file from each position, which
grows with the square of the size (a 2 MB script: minutes)."""
PARSE_READ_ALLOWANCE = 1 << 20
PARSE_SLICE = 1 << 16
PARSE_CPU_SECONDS = 0.5
PARSE_CPU_SECONDS_PER_MB = 1.0
"""The last line of defence behind the read budget: CPU seconds a parse may take, for a
text made to make the parser's error recovery work without re-reading (the read budget
does not see that). An honest file parses at about 0.1–0.3 s per MB here (twice that in
CPU time at a load of 16, the cores' caches shared); CPU time, not wall time, so a loaded
machine refuses no honest file. With the chunking after it, a refused 1 MB file costs
about 2 s."""
PARSE_REFUSED = "too costly to parse: chunked in windows, analysed by regular expressions"
"""Why a file with a grammar has no syntax tree (`parse_refusal`); counted in `stats`."""


def parse_seconds(size: int) -> float:
    """CPU seconds a parse of `size` bytes may take."""
    return PARSE_CPU_SECONDS + PARSE_CPU_SECONDS_PER_MB * size / 1e6


@lru_cache(maxsize=2)
def parse(spec: LanguageSpec, text: str):  # -> tree_sitter.Tree | None
    """The syntax tree of a file's text, or None when parsing it would take more than
    linear work; the chunker and the analyzer share the last ones.

    The parser reads the text through a callback that counts the bytes it hands out, so
    the bound is the same on every machine; without a tree, a file is chunked in windows
    and analysed by the regular expressions. A progress callback stops a first pass that
    runs over half its CPU time (`parse_seconds`). A tree parsed through a callback holds no
    text (and `Node.text` crashes on it), so a second pass from the bytes, reusing every
    node of the first, gives the tree its text."""
    data = text.encode("utf-8")
    budget = PARSE_READ_FACTOR * len(data) + PARSE_READ_ALLOWANCE
    deadline = time.thread_time() + parse_seconds(len(data)) / 2  # the second pass costs about what the first did
    spent = 0

    def read(offset: int, _point) -> bytes:
        nonlocal spent
        if spent > budget:
            return b""  # the parser takes it for the end of the text and soon stops
        piece = data[offset : offset + PARSE_SLICE]
        spent += len(piece)
        return piece

    def over_time(_offset: int, _has_error: bool) -> bool:
        return time.thread_time() > deadline  # True halts the parse

    parser = Parser(grammar(spec))
    try:
        textless = parser.parse(read, progress_callback=over_time)
    except ValueError:  # "Parsing failed": halted by `over_time`
        return None
    if spent > budget:
        return None
    tree = parser.parse(data, old_tree=textless)
    if tree.root_node.has_error and spec.name in C_FAMILY:
        # an `#if` inside an expression breaks the rest of the file: its first branches alone may parse
        other = without_annotation_macros(first_branches(text)).encode("utf-8")
        try:  # through a callback, as the first pass: a bytestring parse takes no progress callback
            textless = parser.parse(lambda offset, _point: other[offset : offset + PARSE_SLICE], progress_callback=over_time)
        except ValueError:  # out of CPU time: the first tree stands
            return tree
        alternative = parser.parse(other, old_tree=textless)
        if _error_count(alternative.root_node) < _error_count(tree.root_node):
            return alternative
    return tree


C_FAMILY = ("c", "cpp")


def _error_count(root) -> int:
    """Error and missing nodes of a tree (a cheap measure of how much of it parsed)."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        elif node.has_error:
            stack.extend(node.children)
    return count


QUERY_MAX_START_DEPTH = 50_000
"""Deepest node a query match may start at. Past 65,535 levels (a 262 KB chain of
`key=key=…` in JavaScript nests that deep) tree-sitter's query cursor goes quadratic:
one imports query took 2.3 s of CPU at 280 KB and 41 s of wall time at 300 KB, against
0.03 s at 250 KB. No definition, call or import of honest code starts that deep.
(A progress callback on the query, like the parse's, crashed the interpreter here.)"""


def tree_matches(spec: LanguageSpec, text: str, kind: str) -> list | None:
    """The matches of the language's `kind` query ("definitions", "calls" or "imports")
    over the file's syntax tree, or None without a query or a tree (`parse`)."""
    query = definition_query(spec) if kind == "definitions" else analysis_query(spec, kind)
    tree = parse(spec, text) if query is not None else None
    if tree is None:
        return None
    cursor = QueryCursor(query)
    cursor.set_max_start_depth(QUERY_MAX_START_DEPTH)
    return cursor.matches(tree.root_node)


def parse_refusal(spec: LanguageSpec, text: str) -> str:
    """`PARSE_REFUSED` when the file's language has a grammar but its text got no tree
    (over a budget of `parse`); "" otherwise. Asks the cache of `parse`, which the
    chunker filled: no second parse."""
    if definition_query(spec) is None:
        return ""
    return PARSE_REFUSED if parse(spec, text) is None else ""
