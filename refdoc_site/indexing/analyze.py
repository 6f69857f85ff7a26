"""Analyze stage: metadata per chunk (imports, exports, callees, async, raising, effects).

Analyzers sit behind the `Analyzer` protocol, in three tiers: a language server
(`lsp.py`), tree-sitter queries (`languages/queries/*-calls.scm` for call sites,
`*-imports.scm` for imports and declared exports) and the regular expressions of
`languages.patterns`, the last resort for rows and files no grammar parses.
`SyntaxAnalyzer` is the offline pair (tree-sitter, then regex); `MergedAnalyzer` puts a
language server in front of it with the seed's merge rules. Callers are not decided
here: they come from the whole call graph (`graph.py`) once every file is analysed.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Protocol

from ..core.records import Chunk, ChunkKind, Metadata, SourceFile
from ..languages import analysis_query, language_named, parse, patterns

LSP = "lsp"
TREE_SITTER = "tree-sitter"
REGEX = "regex"
"""Tier names, as recorded per field in `Metadata.sources`."""

UNION_FIELDS = ("imports", "exports", "callees")
"""Merged as the union of every tier that answered, first tier first."""
FIRST_ANSWER_FIELDS = ("isAsync", "throwsException", "securityBoundary", "effects")
"""Taken from the first tier that answered."""
PROSE_LANGUAGES = ("markdown", "text", "restructuredtext")


@dataclass
class FileAnalysis:
    """What an analyzer learnt about one file."""

    imports: list[str] = field(default_factory=list)
    """Import targets as written (`os.path`, `./util`, `fmt`)."""
    metadata: dict[str, Metadata] = field(default_factory=dict)
    """Per chunk id, for every chunk; a field the analyzer could not answer is left out
    of that chunk's `sources`."""
    deferred: bool = False
    """The analyzer would have looked at the file with more time: a later build asks again."""

    @classmethod
    def unanswered(cls, chunks: list[Chunk], deferred: bool = False) -> FileAnalysis:
        """What a tier that could not look at the file returns."""
        return cls(metadata={chunk.id: Metadata() for chunk in chunks}, deferred=deferred)


class Analyzer(Protocol):
    name: str
    """Part of the store's fingerprint: a different analyzer reindexes every file."""

    def analyze(self, source: SourceFile, text: str, chunks: list[Chunk]) -> FileAnalysis: ...

    def close(self) -> None:
        """Release what the analyzer holds (language server processes); idempotent."""


@dataclass(frozen=True)
class CallSite:
    """A call in the source: the name as written and where the called name stands."""

    callee: str
    """`self.parse`, `os.path.join`, `Foo`."""
    line: int
    """0-based row of the called name."""
    column: int
    """0-based byte offset of the called name in its row."""


class SyntaxAnalyzer:
    """The offline tiers: call sites from tree-sitter queries, regular expressions for the rest.

    A chunk whose lines hold a syntax error, and every chunk of a language without a
    call query, takes its callees from the regular expressions instead.
    """

    parallel = True
    """Holds no process or connection: files may be analysed in worker processes."""

    def __init__(self, tree_sitter: bool = True) -> None:
        self.tree_sitter = tree_sitter
        self.name = "syntax" if tree_sitter else REGEX

    def analyze(self, source: SourceFile, text: str, chunks: list[Chunk]) -> FileAnalysis:
        interface = file_interface(source.language, text, self.tree_sitter)
        imports_by_local: dict[str, list[tuple[int, str]]] = {}
        for position, name in enumerate(interface.imports):
            imports_by_local.setdefault(_local_name(name), []).append((position, name))
        sites = call_sites(source.language, text, chunks) if self.tree_sitter else {}
        analysis = FileAnalysis(imports=interface.imports)
        for chunk in chunks:
            metadata = self._chunk_metadata(chunk, imports_by_local, interface.public)
            if "imports" in metadata.sources:
                metadata.sources["imports"] = interface.imports_tier
                metadata.sources["exports"] = interface.exports_tier
            if chunk.id in sites:
                metadata.callees = [s for s in dict.fromkeys(site.callee for site in sites[chunk.id]) if s != chunk.name]
                metadata.sources["callees"] = TREE_SITTER
            analysis.metadata[chunk.id] = metadata
        return analysis

    def close(self) -> None:
        pass

    def _chunk_metadata(
        self, chunk: Chunk, imports_by_local: dict[str, list[tuple[int, str]]], public: set[str] | None
    ) -> Metadata:
        if chunk.kind in (ChunkKind.SECTION, ChunkKind.WINDOW) and chunk.language in PROSE_LANGUAGES:
            return Metadata(sources={"all": REGEX})
        body = strip_strings_and_comments(_body(chunk), chunk.language)
        raises = patterns.RAISES.get(chunk.language, patterns.RAISES["*"])
        throws = bool(raises.search(body))
        words = set(re.findall(r"[A-Za-z_]\w*", body))
        effects = [
            name
            for name, pattern in patterns.EFFECTS.items()
            if any(piece in body for piece in patterns.EFFECT_GATES[name]) and pattern.search(body)
        ]
        if throws:
            effects.append("raising")
        asynchronous = patterns.ASYNC.get(chunk.language, patterns.ASYNC["*"])
        return Metadata(
            imports=_imports_used(words, imports_by_local),
            exports=[chunk.symbol] if _is_exported(chunk, public) else [],
            callees=[c for c in calls_in(body) if c != chunk.name] if chunk.kind is not ChunkKind.CLASS else [],
            isAsync=bool(asynchronous.search(chunk.signature)),
            throwsException=throws,
            securityBoundary=security_reason(chunk.content, chunk.language),
            effects=effects,
            sources={name: REGEX for name in (*UNION_FIELDS, *FIRST_ANSWER_FIELDS)},
        )


class MergedAnalyzer:
    """Tiers in order of trust, merged by the seed's rules.

    Imports, exports and callees are the union of the tiers that answered; isAsync,
    throwsException, securityBoundary and effects come from the first tier that
    answered; definitions found by any tier are kept. `Metadata.sources` names the
    tiers behind each field (`lsp+tree-sitter` for a union both contributed to).
    """

    def __init__(self, tiers: list[Analyzer]) -> None:
        self.tiers = tiers
        self.name = "+".join(tier.name for tier in tiers)

    def analyze(self, source: SourceFile, text: str, chunks: list[Chunk]) -> FileAnalysis:
        results = [tier.analyze(source, text, chunks) for tier in self.tiers]
        merged = FileAnalysis(
            imports=list(dict.fromkeys(name for result in results for name in result.imports)),
            deferred=any(result.deferred for result in results),
        )
        for chunk in chunks:
            answers = [result.metadata[chunk.id] for result in results if chunk.id in result.metadata]
            merged.metadata[chunk.id] = merge_metadata(answers)
        return merged

    def close(self) -> None:
        for tier in self.tiers:
            tier.close()


def merge_metadata(answers: list[Metadata]) -> Metadata:
    """One chunk's metadata from its tiers' answers, most trusted first."""
    merged = Metadata()
    for name in UNION_FIELDS:
        answered = [a for a in answers if name in a.sources]
        setattr(merged, name, list(dict.fromkeys(item for a in answered for item in getattr(a, name))))
        tiers = dict.fromkeys(tier for a in answered for tier in a.sources[name].split("+"))
        if tiers:
            merged.sources[name] = "+".join(tiers)
    for name in FIRST_ANSWER_FIELDS:
        first = next((a for a in answers if name in a.sources), None)
        if first is not None:
            setattr(merged, name, getattr(first, name))
            merged.sources[name] = first.sources[name]
    for answer in answers:
        for callee, locations in answer.definitions.items():
            merged.definitions.setdefault(callee, locations)
        if "all" in answer.sources:
            merged.sources.setdefault("all", answer.sources["all"])
    if merged.definitions:
        merged.sources["definitions"] = next(a.sources["definitions"] for a in answers if a.definitions)
    return merged


def call_sites(language: str, text: str, chunks: list[Chunk]) -> dict[str, list[CallSite]]:
    """Call sites per chunk id, from the language's call query, first use first.

    Chunks without a call query or a syntax tree, and those overlapping a syntax error,
    are absent; a call belongs to the innermost chunk around it (a class keeps none of
    its own).
    """
    spec = language_named(language)
    query = analysis_query(spec, "calls")
    if query is None or not chunks:
        return {}
    from tree_sitter import QueryCursor

    tree = parse(spec, text)
    if tree is None:
        return {}
    data = text.encode("utf-8")
    found: list[tuple[int, CallSite]] = []
    ignored: list[tuple[int, int]] = []
    for _pattern, captures in QueryCursor(query).matches(tree.root_node):
        if "ignore" in captures:
            ignored.extend((n.start_byte, n.end_byte) for n in captures["ignore"])
            continue
        name = captures["name"][0]
        start = min(n.start_byte for n in (name, *captures.get("callee", ())))
        callee = as_written(data[start : name.end_byte].decode("utf-8", errors="replace"))
        if callee and callee.rsplit(".", 1)[-1] not in patterns.NOT_CALLS:
            found.append((name.start_byte, CallSite(callee, name.start_point[0], name.start_point[1])))
    found.sort(key=lambda item: item[0])
    owner = _innermost_chunk_by_row(chunks, text.count("\n") + 1)
    broken = _error_rows(tree.root_node)
    unparsed = _chunks_over_rows(chunks, broken)
    sites: dict[str, list[CallSite]] = {
        c.id: [] for c in chunks if c.id not in unparsed and c.kind is not ChunkKind.CLASS and c.language not in PROSE_LANGUAGES
    }
    ignored.sort()
    for offset, site in found:
        if _inside(ignored, offset):
            continue
        chunk = owner[site.line] if site.line < len(owner) else None
        if chunk is not None and chunk.id in sites:
            sites[chunk.id].append(site)
    return sites


DOTTED_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def as_written(expression: str) -> str:
    """A called expression as a dotted name (`a?.b` → `a.b`, `ns::f` → `ns.f`).

    Only the trailing dotted part of an expression is kept: `make().run` → `run`.
    """
    name = re.sub(r"\s+", "", expression).replace("?.", ".").replace("::", ".").replace("->", ".")
    # the runs of names, read once: a search anchored at the end restarts at every name of a long chain
    runs = list(DOTTED_NAME.finditer(name))
    return runs[-1].group(0) if runs and runs[-1].end() == len(name) else ""


def _innermost_chunk_by_row(chunks: list[Chunk], rows: int) -> list[Chunk | None]:
    """For each 0-based row, the chunk with the smallest span around it (of equal spans,
    the last one listed).

    Chunks are taken smallest first and each claims only the rows still unowned, found
    through `next_free` (row → first unowned row at or after it, paths halved as they are
    walked): every row is claimed once, so the windows of a large module chunk, which
    all span the whole module, cost their number and not their number × the file's rows.
    """
    owner: list[Chunk | None] = [None] * rows
    next_free = list(range(rows + 1))

    def first_free(row: int) -> int:
        while next_free[row] != row:
            next_free[row] = next_free[next_free[row]]
            row = next_free[row]
        return row

    for chunk in reversed(sorted(chunks, key=lambda c: c.start_line - c.end_line)):
        end = min(chunk.end_line, rows)
        row = first_free(min(max(chunk.start_line - 1, 0), rows))
        while row < end:
            owner[row] = chunk
            next_free[row] = row + 1
            row = first_free(row + 1)
    return owner


def _chunks_over_rows(chunks: list[Chunk], rows: set[int]) -> set[str]:
    """Ids of the chunks whose lines hold any of the 0-based rows (a bisection per chunk,
    so a file full of syntax errors costs chunks × log rows)."""
    ordered = sorted(rows)
    found = set()
    for chunk in chunks:
        index = bisect.bisect_left(ordered, chunk.start_line - 1)
        if index < len(ordered) and ordered[index] <= chunk.end_line - 1:
            found.add(chunk.id)
    return found


def _error_rows(root) -> set[int]:
    """Rows covered by a syntax error or a missing node."""
    rows: set[int] = set()
    if not root.has_error:
        return rows
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            rows.update(range(node.start_point[0], node.end_point[0] + 1))
        elif node.has_error:
            stack.extend(node.children)
    return rows


def _inside(ranges: list[tuple[int, int]], offset: int) -> bool:
    index = bisect.bisect_right(ranges, (offset, float("inf"))) - 1
    return index >= 0 and ranges[index][0] <= offset < ranges[index][1]


@dataclass
class FileInterface:
    """What a file takes from others and declares public, and which tier read each."""

    imports: list[str]
    """Import targets in the order written, without duplicates."""
    public: set[str] | None
    """Names the file declares public (`__all__`, `export`), None when it declares none."""
    imports_tier: str = REGEX
    exports_tier: str = REGEX


def file_interface(language: str, text: str, tree_sitter: bool = True) -> FileInterface:
    """Imports and declared exports: from the language's imports query where its grammar
    parses the file, with regular expressions on the rows a syntax error covers, for
    languages without a query and for files too costly to parse."""
    spec = language_named(language)
    query = analysis_query(spec, "imports") if tree_sitter else None
    tree = parse(spec, text) if query is not None else None
    if tree is None:
        return FileInterface(file_imports(language, text), _declared_public(language, text))
    from tree_sitter import QueryCursor

    found: list[tuple[int, list[str]]] = []
    exports: list[tuple[int, str]] = []
    declared = EXPORT_RULES.get(language) == "export"
    for _pattern, captures in QueryCursor(query).matches(tree.root_node):
        if "import" in captures:
            module = _node_text(captures["import"][0]).strip("<>")
            joiner = "" if module.endswith(".") else spec.member_separator
            members = [f"{module}{joiner}{_node_text(member)}" for member in captures.get("member", ())]
            found.append((captures["import"][0].start_point[0], [module, *members]))
        exports.extend((n.start_byte, _node_text(n)) for n in captures.get("export", ()))
        declared = declared or "declares" in captures
    broken = _error_rows(tree.root_node)
    line_starts = [0, *(newline.end() for newline in re.finditer("\n", text))] if broken else []
    for pattern in patterns.IMPORTS.get(language, ()) if broken else ():
        for match in pattern.finditer(text):
            row = bisect.bisect_right(line_starts, match.start()) - 1
            if row in broken:
                found.append((row, _import_targets(language, match)))
    found.sort(key=lambda item: item[0])
    imports = list(dict.fromkeys(t for _, targets in found for t in targets if t and not t.startswith("__future__")))
    public = {name for _, name in exports} if declared else None
    return FileInterface(imports, public, TREE_SITTER, TREE_SITTER)


def _node_text(node) -> str:
    return node.text.decode("utf-8", errors="replace")


def file_imports(language: str, text: str) -> list[str]:
    """Import targets in the order written, without duplicates, by regular expressions."""
    found: list[str] = []
    for pattern in patterns.IMPORTS.get(language, ()):
        for match in pattern.finditer(text):
            found.extend(_import_targets(language, match))
    return list(dict.fromkeys(t for t in found if t and not t.startswith("__future__")))


def _import_targets(language: str, match: re.Match[str]) -> list[str]:
    if language == "python":
        if match.re.pattern.lstrip("^\\s*").startswith("from"):
            module, names = match.group(1), match.group(2)
            members = [n.split(" as ")[0].strip() for n in names.replace("\n", " ").split(",")]
            joiner = "" if module.endswith(".") else "."
            return [module] + [f"{module}{joiner}{m}" for m in members if m and m != "*"]
        return [part.split(" as ")[0].strip() for part in match.group(1).split(",")]
    return [match.group(1)]


STRING_OR_COMMENT = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    r"|`(?:\\.|[^`\\])*(?:`|\Z)|/\*[\s\S]*?(?:\*/|\Z)"
)
"""String literals and block comments. One left open runs to the end of the text, as it
would for a compiler, so that a text of unclosed `/*` is not rescanned from each one
(which took time growing with the square of its length)."""


def strip_strings_and_comments(text: str, language: str) -> str:
    """Code with string literals emptied and comments removed, so prose is not read as calls.

    Quotes stay (emptied), so patterns that look for a string argument still see one.
    """
    prefixes = language_named(language).line_comment
    if prefixes:
        text = re.sub(r"(?m)(?:^|\s)(?:" + "|".join(re.escape(p) for p in prefixes) + r").*$", "", text)
    return STRING_OR_COMMENT.sub(lambda m: m.group(0)[0] * 2 if m.group(0)[0] in "\"'`" else " ", text)


def calls_in(body: str) -> list[str]:
    """Names called in a body, as written (`self.parse`, `os.path.join`), first use first."""
    names = []
    for match in patterns.CALLED_NAME.finditer(body):
        if not patterns.CALL_OPENING.match(body, match.end()):
            continue
        name = re.sub(r"\s+", "", match.group(0)).replace("::", ".").replace("->", ".")
        if name.rsplit(".", 1)[-1] in patterns.NOT_CALLS:
            continue
        names.append(name)
    return list(dict.fromkeys(names))


def security_reason(text: str, language: str = "text") -> str:
    """Why code sits on a security boundary (`subprocess (`subprocess.run`)`), or "".

    The whole chunk counts, its decorators and definition line included; strings and
    comments are read only by the reasons that look inside them (SQL text).
    """
    code = strip_strings_and_comments(text, language)
    lowered = {False: code.lower(), True: text.lower()}
    for reason, pattern in patterns.SECURITY:
        reads_strings = reason in patterns.SECURITY_READS_STRINGS
        if not any(piece in lowered[reads_strings] for piece in patterns.SECURITY_GATES[reason]):
            continue
        match = pattern.search(text if reads_strings else code)
        if match:
            return f"{reason} (`{match.group(0).strip()[:40]}`)"
    return ""


def _imports_used(words: set[str], imports_by_local: dict[str, list[tuple[int, str]]]) -> list[str]:
    """The file's imports whose local name a chunk uses, in import order: looked up from
    the chunk's words, so a file with many imports and many chunks costs their sum."""
    used = [pair for word in words & imports_by_local.keys() for pair in imports_by_local[word]]
    return [name for _, name in sorted(used)]


def _body(chunk: Chunk) -> str:
    """The chunk's text below its first line, so a definition is not read as a call."""
    if chunk.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD) and chunk.part <= 1:
        first, _, rest = chunk.content.partition("\n")
        return rest if rest else _after_paren(first)
    return chunk.content


def _after_paren(line: str) -> str:
    depth = 0
    for index, char in enumerate(line):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return line[index + 1 :]
    return line


def _local_name(imported: str) -> str:
    return re.split(r"[./:\\]", imported.rstrip("/"))[-1].removesuffix(".h")


EXPORT_RULES = {
    "python": "underscore",
    "go": "capitalized",
    "rust": "pub",
    "java": "public",
    "csharp": "public",
    "javascript": "export",
    "typescript": "export",
    "tsx": "export",
    "c": "not static",
    "cpp": "not static",
}
"""How each language marks a definition as public."""


def _declared_public(language: str, text: str) -> set[str] | None:
    """Names a file declares public explicitly (`__all__`, `module.exports`), or None."""
    if language == "python":
        match = re.search(r"^__all__\s*=\s*[\[(]([^\])]*)[\])]", text, re.MULTILINE)
        return set(re.findall(r"['\"](\w+)['\"]", match.group(1))) if match else None
    if EXPORT_RULES.get(language) == "export":
        names = set(re.findall(r"^[ \t]*export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum|abstract\s+class)\s+(\w+)", text, re.MULTILINE))
        for block in re.findall(r"^[ \t]*export\s*\{([^}]*)\}", text, re.MULTILINE):
            names.update(part.split(" as ")[-1].strip() for part in block.split(","))
        names.update(re.findall(r"\b(?:module\.)?exports\.(\w+)\s*=", text))
        match = re.search(r"module\.exports\s*=\s*(\w+)", text)
        if match:
            names.add(match.group(1))
        return names
    return None


def _is_exported(chunk: Chunk, public: set[str] | None) -> bool:
    if chunk.kind in (ChunkKind.MODULE, ChunkKind.SECTION, ChunkKind.WINDOW):
        return False
    rule = EXPORT_RULES.get(chunk.language)
    top = chunk.symbol.split(".")[0]
    if rule == "underscore":
        if public is not None:
            return top in public and not chunk.name.startswith("_")
        return not any(part.startswith("_") and not part.startswith("__") for part in chunk.symbol.split("."))
    if rule == "export":
        return bool(public) and (top in public or chunk.symbol in public)
    if rule == "capitalized":
        return chunk.name[:1].isupper()
    if rule == "pub":
        return chunk.signature.startswith("pub") or " pub " in chunk.signature
    if rule == "public":
        return bool(re.search(r"\bpublic\b", chunk.signature))
    if rule == "not static":
        return not chunk.signature.startswith("static")
    return False
