"""The tree-sitter tier of the analysis: call sites and a file's imports and exports from
the language's queries (`languages/queries/*-calls.scm`, `*-imports.scm`).

Rows a syntax error covers, and languages without a query, fall back to the regex tier
(`regex_tier.py`); `analyze.py` combines the two per chunk.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..core.cpu_budget import CpuBudget
from ..core.records import Chunk, ChunkKind
from ..languages import language_named, parse, parse_seconds, patterns, tree_matches
from ..languages.exports import EXPORT_RULES
from .regex_tier import (
    PROSE_LANGUAGES,
    REGEX,
    declared_public,
    file_imports,
    import_targets,
)

TREE_SITTER = "tree-sitter"
"""This tier's name in `Metadata.sources`."""


@dataclass(frozen=True)
class CallSite:
    """A call in the source: the name as written and where the called name stands."""

    callee: str
    """`self.parse`, `os.path.join`, `Foo`."""
    line: int
    """0-based row of the called name."""
    column: int
    """0-based byte offset of the called name in its row."""
    arguments: tuple[str, ...] | None = None
    """The call's arguments, where its syntax tells: each a literal's kind (`string`,
    `number`, `boolean`, `null`), `=name` for a plain name, else `` (what picks an overload)."""


def call_sites(language: str, text: str, chunks: list[Chunk]) -> dict[str, list[CallSite]]:
    """Call sites per chunk id, from the language's call query, first use first.

    Chunks without a call query or a syntax tree, and those overlapping a syntax error,
    are absent; a call belongs to the innermost chunk around it (a class keeps none of
    its own).
    """
    spec = language_named(language)
    matches = tree_matches(spec, text, "calls") if chunks else None
    if matches is None:
        return {}
    tree = parse(spec, text)
    data = text.encode("utf-8")
    found: list[tuple[int, CallSite]] = []
    ignored: list[tuple[int, int]] = []
    reading_arguments = CpuBudget(parse_seconds(len(data)) / 2)
    for _pattern, captures in matches:
        if "ignore" in captures:
            ignored.extend((n.start_byte, n.end_byte) for n in captures["ignore"])
            continue
        name = captures["name"][0]
        start = min(n.start_byte for n in (name, *captures.get("callee", ())))
        written = data[start : name.end_byte].decode("utf-8", errors="replace")
        callee = as_written(written)
        if callee and (("." in callee) or callee not in patterns.NOT_CALLS):  # `Chain::new` is a call
            constructed = CONSTRUCTED.match(written)
            if constructed and "." not in callee:  # `new Builder(…).add`: a method of the class built
                callee = f"{constructed.group(1)}.{callee}"
            elif _on_a_result(written, callee):
                callee = RESULT_PREFIX + callee
            arguments = _call_arguments(name) if not reading_arguments.passed() else None
            found.append((name.start_byte, CallSite(callee, name.start_point[0], name.start_point[1], arguments)))
    found.sort(key=lambda item: item[0])
    owner = _innermost_chunk_by_row(chunks, text.count("\n") + 1)
    # a chunk whose own rows hold an error reads its calls from the regular expressions;
    # the module's rest is not broken by an error inside one of its definitions
    unparsed = _chunks_owning_rows(owner, _error_rows(tree.root_node))
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
RESULT_PREFIX = "()."
"""Marks a method called on what another call returned (`make().run` is `().run`): its
receiver is no name, so neither `this` nor a local (the resolver reads `()` as such)."""
CONSTRUCTED = re.compile(r"\s*new\s+([A-Za-z_][\w.]*)\s*(?:<[^()]*>)?\s*\((?:[^()]|\([^()]*\))*\)\s*\.\s*\w+\s*$")
"""`new Builder(type, name).addModifiers`: the called name's receiver is a new `Builder`."""
ON_A_RESULT = re.compile(r"[)\]}>]\s*(?:\?\.|\.|::|->)\s*$")


LITERAL_KINDS = (("string", "string"), ("char", "string"), ("number", "number"), ("integer", "number"),
                 ("decimal", "number"), ("real", "number"), ("float", "number"), ("true", "boolean"),
                 ("false", "boolean"), ("boolean", "boolean"), ("null", "null"), ("nullptr", "null"))
"""Node type fragments of literals (across grammars) → the kind of value they are."""


CALL_CHILDREN = 8
MAX_ARGUMENTS = 32
"""A call with more arguments is read as one of unknown arity: error recovery can hang the
rest of a file under one argument list, and reading that list again from each call inside
it grew with the square of the file (unclosed doc fences in JavaScript: 68 s per MB). A
node's parent is found from the root down, so in such a tree even the walk up costs the
siblings' number: past half the parse's CPU budget, the rest of a file's calls are of
unknown arity too (`core.cpu_budget.CpuBudget`)."""


def _call_arguments(name) -> tuple[str, ...] | None:
    """The arguments of the call whose called name is `name` (its nearest enclosing node
    with an `arguments` field, a few levels up: `a.b.c(…)`), each as a kind."""
    node = name.parent
    for _ in range(4):
        if node is None:
            return None
        # a call node has a few children; looking a field up among an error node's thousands
        # costs their number, from each call inside it
        arguments = node.child_by_field_name("arguments") if node.child_count <= CALL_CHILDREN else None
        if arguments is not None and arguments.named_child_count > MAX_ARGUMENTS:
            return None
        if arguments is not None:
            return tuple(_argument_kind(child) for child in arguments.named_children if "comment" not in child.type)
        node = node.parent
    return None


def _argument_kind(node) -> str:
    if node.type == "argument" and node.named_child_count == 1:  # C#'s wrapper
        node = node.named_children[0]
    kind = node.type
    if kind == "identifier":
        return "=" + (node.text or b"").decode("utf-8", errors="replace")
    return _literal_kind(kind)


@lru_cache(maxsize=None)
def _literal_kind(node_type: str) -> str:
    """The kind of value a node type of `LITERAL_KINDS` is, or "" (read once per type)."""
    return next((kind for fragment, kind in LITERAL_KINDS if fragment in node_type and "literal" in node_type or node_type == fragment), "")


def _on_a_result(written: str, callee: str) -> bool:
    """Whether the called name follows a call's (or an index's, a literal's) result."""
    if "." in callee:
        return False
    last = callee.rsplit(".", 1)[-1]
    head = written.rstrip()[: -len(last)] if written.rstrip().endswith(last) else ""
    return bool(ON_A_RESULT.search(head))


BLANKS = re.compile(r"\s+")


def as_written(expression: str) -> str:
    """A called expression as a dotted name (`a?.b` → `a.b`, `ns::f` → `ns.f`).

    Only the trailing dotted part of an expression is kept: `make().run` → `run`.
    """
    if DOTTED_NAME.fullmatch(expression):  # most are one already (`self.parse`)
        return expression
    name = BLANKS.sub("", expression).replace("?.", ".").replace("::", ".").replace("->", ".")
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


def _chunks_owning_rows(owner: list[Chunk | None], rows: set[int]) -> set[str]:
    """Ids of the chunks that are the innermost around any of the 0-based rows (one
    look-up a row: a file full of syntax errors costs its rows)."""
    return {chunk.id for row in rows if row < len(owner) and (chunk := owner[row]) is not None}


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
    public: list[str] | None
    """Names the file declares public (`__all__`, `export`) in the order written, None when
    it declares none."""
    imports_tier: str = REGEX
    exports_tier: str = REGEX
    namespaces: list[str] = field(default_factory=list)
    """Namespaces the file declares (C#'s `namespace MediatR.Pipeline;`), which the
    imports of other files name instead of a file."""


def file_interface(language: str, text: str, tree_sitter: bool = True) -> FileInterface:
    """Imports and declared exports: from the language's imports query where its grammar
    parses the file, with regular expressions on the rows a syntax error covers, for
    languages without a query and for files too costly to parse."""
    spec = language_named(language)
    matches = tree_matches(spec, text, "imports") if tree_sitter else None
    if matches is None:
        return FileInterface(file_imports(language, text), declared_public(language, text))
    tree = parse(spec, text)
    found: list[tuple[int, list[str]]] = []
    exports: list[tuple[int, str]] = []
    namespaces: list[str] = []
    declared = EXPORT_RULES.get(language) == "export"
    for _pattern, captures in matches:
        if "import" in captures:
            module = _node_text(captures["import"][0]).strip("<>")
            joiner = "" if module.endswith(".") else spec.member_separator
            members = [f"{module}{joiner}{_node_text(member)}" for member in captures.get("member", ())]
            found.append((captures["import"][0].start_point[0], [module, *members]))
        exports.extend((n.start_byte, _node_text(n)) for n in captures.get("export", ()))
        namespaces.extend(" ".join(_node_text(n).split()) for n in captures.get("namespace", ()))
        declared = declared or "declares" in captures
    broken = _error_rows(tree.root_node)
    line_starts = [0, *(newline.end() for newline in re.finditer("\n", text))] if broken else []
    for pattern in patterns.IMPORTS.get(language, ()) if broken else ():
        for match in pattern.finditer(text):
            row = bisect.bisect_right(line_starts, match.start()) - 1
            if row in broken:
                found.append((row, import_targets(language, match)))
    found.sort(key=lambda item: item[0])
    imports = list(dict.fromkeys(t for _, targets in found for t in targets if t and not t.startswith("__future__")))
    exports.sort()
    public = list(dict.fromkeys(name for _, name in exports)) if declared else None
    return FileInterface(imports, public, TREE_SITTER, TREE_SITTER, list(dict.fromkeys(namespaces)))


def _node_text(node) -> str:
    return node.text.decode("utf-8", errors="replace")
