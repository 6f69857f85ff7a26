"""Chunk stage: a source file becomes functions, methods, classes, sections or windows.

Files with a tree-sitter grammar are split at the definitions their query file marks;
what is left at the top level becomes one module chunk. Markdown is split at headings.
Everything else, any chunk over the token size and any file too costly to parse fall
back to token windows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.config import ChunkSettings
from ..core.records import Chunk, ChunkKind, SourceFile
from ..core.tokens import count_tokens, windows
from ..languages import LanguageSpec, language_named, parse, tree_matches
from ..languages.doc_comments import normalize as normalize_doc_comment
from ..languages.patterns import LICENSE_HEADER
from .text_chunks import chunk_document, window_chunks

MODULE_SYMBOL = "(module)"
MIN_MODULE_TOKENS = 12
"""Top-level leftovers smaller than this (a lone import) make no module chunk."""
SIGNATURE_LIMIT = 400

FUNCTION_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD)


def chunk_file(source: SourceFile, text: str, settings: ChunkSettings) -> list[Chunk]:
    """All chunks of one file, in source order, with unique ids."""
    spec = language_named(source.language)
    lines = source_lines(text)
    matches = tree_matches(spec, text, "definitions")
    if matches is not None:
        chunks = _chunk_with_grammar(source, spec, parse(spec, text), matches, text, lines, settings)
    elif spec.category == "docs":
        chunks = chunk_document(source, spec, lines, settings)
    else:
        chunks = window_chunks(source, lines, settings, spec)
    return _with_unique_ids(chunks)


def source_lines(text: str) -> list[str]:
    """A file's lines as tree-sitter, editors and the repository host number them: broken
    at "\n" only (`str.splitlines` also breaks at a lone "\r", a form feed or U+2028,
    which would shift every line number after one), without a CRLF's "\r"."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines[-1] == "" else lines


# --- tree-sitter (documents and windows: text_chunks.py) -------------------------------


@dataclass
class _Definition:
    node: object  # tree_sitter.Node
    is_class: bool
    is_scope: bool
    name: str
    body: object | None
    span_node: object
    symbol: str = ""
    kind: ChunkKind = ChunkKind.FUNCTION
    parent: str = ""
    is_namespace: bool = False
    """A scope that only names (a Rust inline `mod`): a function inside stays a function."""
    implements: str = ""
    """The trait a scope implements (Rust's `impl Display for Error`), and so its methods."""


def _chunk_with_grammar(
    source: SourceFile, spec: LanguageSpec, tree, matches: list, text: str, lines: list[str], settings: ChunkSettings
) -> list[Chunk]:
    data = text.encode("utf-8")
    definitions = _definitions(matches, data, spec)
    kept = _qualify(definitions, spec)

    members_by_parent: dict[str, list[tuple[int, int]]] = {}
    for member in kept:  # grouped once: a scan per class grows with classes × definitions
        if member.parent:
            span = (member.span_node.start_point[0], member.span_node.end_point[0])
            members_by_parent.setdefault(member.parent, []).append(span)

    chunks: list[Chunk] = []
    covered: list[tuple[int, int]] = []
    for definition in kept:
        start = definition.span_node.start_point[0]
        end = definition.span_node.end_point[0]
        if definition.kind is ChunkKind.CLASS:
            content = _elide(lines, start, end, members_by_parent.get(definition.symbol, []))
        else:
            content = "\n".join(lines[start : end + 1])
        # Every definition's lines leave the module chunk: a method of a Rust `impl` or a
        # scope has no class around it that covers them.
        above = _comments_above(definition.span_node, spec)
        covered.append((above[0].start_point[0] if above else start, end))
        chunk = Chunk(
            id="",
            path=source.path,
            language=spec.name,
            kind=definition.kind,
            name=definition.name.rsplit(".", 1)[-1],
            symbol=definition.symbol,
            signature=_signature(definition, spec, data),
            start_line=start + 1,
            end_line=end + 1,
            content=content,
            docstring=_docstring(definition, spec, data),
            parent=definition.parent,
        )
        chunks.extend(_split_if_oversized(chunk, lines, settings, spec))

    module_chunk = _module_chunk(source, spec, tree.root_node, data, lines, covered)
    if module_chunk is not None:
        chunks.extend(_split_if_oversized(module_chunk, lines, settings, spec))
    chunks.sort(key=lambda c: (c.start_line, c.part, -c.end_line))
    return chunks


def _definitions(matches: list, data: bytes, spec: LanguageSpec) -> list[_Definition]:
    found: dict[int, _Definition] = {}
    for _pattern, captures in matches:
        node_list = (
            captures.get("definition.function")
            or captures.get("definition.class")
            or captures.get("scope")
            or captures.get("scope.namespace")
        )
        if not node_list:
            continue
        node = node_list[0]
        name = _captured_name(captures, data)
        if not name:
            continue
        receiver = captures.get("receiver")
        if receiver:
            name = f"{_text(receiver[0], data)}.{name}"
        span = node
        while span.parent is not None and span.parent.type in spec.wrapper_types and _alone_in_parent(span):
            span = span.parent
        body = captures.get("body")
        key = node.id
        if key in found:
            continue
        found[key] = _Definition(
            node=node,
            is_class="definition.class" in captures,
            is_scope="scope" in captures or "scope.namespace" in captures,
            is_namespace="scope.namespace" in captures,
            implements=_text(captures["implements"][0], data) if "implements" in captures else "",
            name=spec.qualify(name),
            body=body[0] if body else None,
            span_node=span,
        )
    return sorted(found.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))


def _alone_in_parent(node) -> bool:
    """Whether a wrapper holds this definition only: a grouped `type ( A …; B … )` is
    two definitions, neither of which spans the group."""
    return sum(1 for sibling in node.parent.named_children if sibling.type == node.type) == 1


def _captured_name(captures: dict, data: bytes) -> str:
    if "name" in captures:  # several pieces (C#'s `operator` and its symbol) read as one name
        return " ".join(" ".join(_text(node, data) for node in captures["name"]).split())
    if "name.object" in captures and "name.property" in captures:
        return f"{_text(captures['name.object'][0], data)}.{_text(captures['name.property'][0], data)}"
    return ""


def _qualify(definitions: list[_Definition], spec: LanguageSpec) -> list[_Definition]:
    """Give each definition its qualified name; drop those nested in a function."""
    by_id = {d.node.id: d for d in definitions}
    kept: list[_Definition] = []
    for definition in definitions:
        scopes: list[_Definition] = []
        inside_function = False
        ancestor = definition.node.parent
        while ancestor is not None:
            enclosing = by_id.get(ancestor.id)
            if enclosing is not None:
                if not (enclosing.is_class or enclosing.is_scope):
                    inside_function = True
                    break
                scopes.append(enclosing)
            ancestor = ancestor.parent
        if inside_function:
            continue
        prefix = ".".join(s.name for s in reversed(scopes))
        definition.parent = prefix
        if scopes and scopes[0].implements and not definition.is_class:
            definition.implements = scopes[0].implements
        definition.symbol = f"{prefix}.{definition.name}" if prefix else definition.name
        if definition.is_class:
            definition.kind = ChunkKind.CLASS
        elif (prefix and not all(s.is_namespace for s in scopes)) or "." in definition.name:
            definition.kind = ChunkKind.METHOD
        else:
            definition.kind = ChunkKind.FUNCTION
        if not definition.is_scope:
            kept.append(definition)
    return kept


def _text(node, data: bytes) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _signature(definition: _Definition, spec: LanguageSpec, data: bytes) -> str:
    node = definition.node
    end = definition.body.start_byte if definition.body is not None else node.end_byte
    if definition.span_node.type in spec.signature_wrappers:
        node = definition.span_node
    if definition.body is not None and definition.body.start_byte <= node.start_byte:
        end = node.end_byte
    comment = next((c for c in node.children if c.type in spec.comment_types and c.start_byte < end), None)
    if comment is not None:
        end = comment.start_byte
    text = data[node.start_byte : end].decode("utf-8", errors="replace")
    text = " ".join(text.split()).rstrip("{:=; ").rstrip()
    if text.endswith("=>"):
        text = text[:-2].rstrip()
    if definition.implements and not definition.is_scope:
        text = f"impl {' '.join(definition.implements.split())} for {definition.parent}: {text}"
    if len(text) > SIGNATURE_LIMIT:
        text = text[: SIGNATURE_LIMIT - 1].rstrip() + "…"
    return text


def _docstring(definition: _Definition, spec: LanguageSpec, data: bytes) -> str:
    if spec.docstring == "python":
        return _python_docstring(definition.body, data)
    return _comment_above(definition.span_node, spec, data)


def _python_docstring(block, data: bytes) -> str:
    if block is None or block.named_child_count == 0:
        return ""
    first = block.named_children[0]
    if first.type != "expression_statement" or first.named_child_count == 0:
        return ""
    literal = first.named_children[0]
    if literal.type != "string":
        return ""
    return clean_docstring(_text(literal, data))


def clean_docstring(literal: str) -> str:
    """A string literal's text without its prefix, quotes and common indentation."""
    body = re.sub(r"^[rRbBuUfF]*('''|\"\"\"|'|\")", "", literal)
    body = re.sub(r"('''|\"\"\"|'|\")$", "", body)
    lines = body.expandtabs().splitlines()
    if not lines:
        return ""
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents) if indents else 0
    cleaned = [lines[0].strip()] + [line[margin:].rstrip() for line in lines[1:]]
    return "\n".join(cleaned).strip()


ATTRIBUTE_TYPES = ("attribute_item", "decorator")
"""Sibling nodes that may stand between a definition and its comment (Rust `#[…]`,
TypeScript member decorators): skipped for the docstring, covered with the definition."""


def _comment_above(node, spec: LanguageSpec, data: bytes) -> str:
    comments = [c for c in _comments_above(node, spec) if c.type in spec.comment_types]
    return doc_comment(comments, spec, data)


def doc_comment(comments: list, spec: LanguageSpec, data: bytes) -> str:
    """Comment nodes as one doc comment in the plain form (`languages/doc_comments.py`).

    A Rust `///` node holds its line's newline: joined as they are, every line would be
    a paragraph of its own."""
    joined = "\n".join(_text(c, data).removesuffix("\n").removesuffix("\r") for c in comments)
    return normalize_doc_comment(strip_comment_markers(joined), spec.doc_format)


DOC_BLOCK_GAP = 2
"""Blank lines allowed between a `/** … */` block and the definition it documents: JSDoc
style often leaves one (koa, express)."""


def _comments_above(node, spec: LanguageSpec) -> list:
    """The comment (and attribute) nodes written directly above a node, first one first.

    The nearest may stand a few blank lines away when it is a `/** … */` doc block."""
    comments = []
    expected_row = node.start_point[0]
    sibling = node.prev_sibling
    while sibling is not None and (
        sibling.type in spec.comment_types or sibling.type in ATTRIBUTE_TYPES
    ):
        # A Rust `///` comment node ends at column 0 of the next row: that row is not its.
        last_row = sibling.end_point[0] - (
            sibling.end_point[1] == 0 and sibling.end_point[0] > sibling.start_point[0]
        )
        gap = expected_row - 1 - last_row
        doc_block = (
            not comments
            and gap <= DOC_BLOCK_GAP
            and sibling.start_point[0] > 0  # a file's header block documents the file
            and (sibling.text or b"").startswith(b"/**")
        )
        if gap > 0 and not doc_block:
            break
        comments.append(sibling)
        expected_row = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return comments[::-1]


COMMENT_MARKER_RE = re.compile(r"^\s*(?:/\*[*!]?|\*/|\*(?!/)|//[/!]?|#+|--) ?")
"""A comment line's marker and the one space after it; a tab after it is the text's own
indentation (GoDoc's code blocks are `//\t` lines)."""


def strip_comment_markers(text: str) -> str:
    lines = []
    for line in text.splitlines():
        line = COMMENT_MARKER_RE.sub("", line).rstrip()
        # a closing `*/` taken off in code: `\s*\*/\s*$` re-read a run of blanks from each of its positions
        lines.append(line[:-2].rstrip() if line.endswith("*/") else line)
    return "\n".join(lines).strip()


def _elide(lines: list[str], start: int, end: int, members: list[tuple[int, int]]) -> str:
    """A class's source with each member reduced to its first line and an ellipsis."""
    hidden: set[int] = set()
    for member_start, member_end in members:
        hidden.update(range(member_start + 1, member_end + 1))
    out: list[str] = []
    for index in range(start, end + 1):
        if index in hidden:
            if out and out[-1].strip() != "...":
                indent = len(lines[index]) - len(lines[index].lstrip())
                out.append(" " * indent + "...")
            continue
        out.append(lines[index])
    return "\n".join(out)


def _module_chunk(
    source: SourceFile,
    spec: LanguageSpec,
    root,
    data: bytes,
    lines: list[str],
    covered: list[tuple[int, int]],
) -> Chunk | None:
    covered_rows: set[int] = set()
    for start, end in covered:
        covered_rows.update(range(start, end + 1))
    rows = [i for i, line in enumerate(lines) if i not in covered_rows and line.strip()]
    if not rows:
        return None
    content = "\n".join(lines[i] for i in rows)
    if count_tokens(content) < MIN_MODULE_TOKENS:
        return None
    if spec.docstring == "python":
        docstring = _python_docstring(root, data)
    else:
        docstring = _file_comment(root, spec, data, set(rows))
    return Chunk(
        id="",
        path=source.path,
        language=spec.name,
        kind=ChunkKind.MODULE,
        name=MODULE_SYMBOL,
        symbol=MODULE_SYMBOL,
        signature=source.path,
        start_line=rows[0] + 1,
        end_line=rows[-1] + 1,
        content=content,
        docstring=docstring,
    )


def _file_comment(root, spec: LanguageSpec, data: bytes, rows: set[int]) -> str:
    """The first block of comments heading a file that is not licence boilerplate (a Go
    package comment usually follows the licence; a block of `//` lines is one comment)."""
    blocks: list[list] = []
    for node in root.named_children:
        if node.type not in spec.comment_types:
            break
        if node.start_point[0] not in rows:
            continue
        if blocks and node.start_point[0] <= blocks[-1][-1].end_point[0] + 1:
            blocks[-1].append(node)
        else:
            blocks.append([node])
    for block in blocks:
        text = doc_comment(block, spec, data)
        if text and not LICENSE_HEADER.search(text):
            return text
    return ""


def _split_if_oversized(
    chunk: Chunk, lines: list[str], settings: ChunkSettings, spec: LanguageSpec
) -> list[Chunk]:
    size, overlap = settings.for_language(spec)
    chunk.tokens = count_tokens(chunk.content)
    if chunk.tokens <= size:
        return [chunk]
    content_lines = chunk.content.split("\n")
    if chunk.kind is ChunkKind.MODULE or chunk.kind is ChunkKind.CLASS:
        # Elided content does not map line for line onto the file: window the text.
        line_numbers = None
    else:
        line_numbers = list(range(chunk.start_line, chunk.start_line + len(content_lines)))
    parts = []
    for number, (first, last) in enumerate(windows(content_lines, size, overlap), start=1):
        text = "\n".join(content_lines[first : last + 1])
        start_line = line_numbers[first] if line_numbers else chunk.start_line
        end_line = line_numbers[last] if line_numbers else chunk.end_line
        parts.append(
            Chunk(
                **{
                    **chunk.__dict__,
                    "content": text,
                    "start_line": start_line,
                    "end_line": end_line,
                    "part": number,
                    "tokens": count_tokens(text),
                }
            )
        )
    return parts


def _with_unique_ids(chunks: list[Chunk]) -> list[Chunk]:
    seen: set[str] = set()
    for chunk in chunks:
        base = f"{chunk.path}#{chunk.symbol}" + (f"~{chunk.part}" if chunk.part else "")
        candidate = base
        if candidate in seen:
            candidate = f"{base}@{chunk.start_line}"
        seen.add(candidate)
        chunk.id = candidate
        if not chunk.tokens:
            chunk.tokens = count_tokens(chunk.content)
    return chunks
