"""Summarize stage: one structured record per chunk.

Summarizers sit behind the `Summarizer` protocol. The offline default is extractive and
deterministic: it reads docstrings, comments, the signature, identifiers split into words
and the effects the analysis detected, and writes short prose, never a copy of the code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from ..core.records import Chunk, ChunkKind, ChunkSummary, Document, Hierarchy, Metadata
from ..core.text import MAX_PROSE, MIN_PROSE, clip, first_sentences, split_identifier
from ..languages import language_named
from ..languages.patterns import LICENSE_HEADER

EFFECT_PHRASES = {
    "file": "reads or writes files",
    "network": "talks over the network",
    "database": "queries or changes a database",
    "subprocess": "runs other programs",
    "global state": "changes global state",
    "raising": "raises errors",
}

VERB_PHRASES = {
    "is": "Tells whether it is",
    "has": "Tells whether it has",
    "can": "Tells whether it can",
    "should": "Tells whether it should",
    "to": "Converts to",
    "from": "Builds from",
    "new": "Creates a new",
    "init": "Initialises",
    "initialize": "Initialises",
    "iter": "Iterates over",
}
"""Name prefixes that read better as a phrase than as a verb in the third person."""

CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor", "new", "New", "init"})

VERBS = frozenset(
    """get set add remove delete create make build parse read write load save open close
    find search check validate convert format render run start stop handle process update
    init initialize compute resolve register send receive fetch emit call apply merge split
    join count list show print echo prompt ensure normalize encode decode wrap iter collect
    clear reset copy move sort filter map reduce select match invoke dispatch execute visit
    walk scan split strip test is has can should to from new use generate extract describe
 look transform translate serialize deserialize dump export import connect
    download upload refresh sync flush wait notify log raise throw accept reject allow deny
    enable disable toggle install configure prepare finish complete cancel retry""".split()
)


class Summarizer(Protocol):
    """What writes the summaries at every level: each chunk in the index phase, then the
    file → module → system prose of the summarize phase. The build picks one at its start
    (the extractive one, or the LLM's), and the phases call it the same way.

    Every level starts from offline text (`summarize` in the index workers; the hierarchy
    as `understanding.hierarchy` extracts it), which a summarizer may then rewrite.
    """

    name: str
    """Part of the index fingerprint: another summarizer reindexes every file."""
    revises: bool
    """Whether `revise` may change chunk summaries after the index workers ran; the
    documents are then embedded once it has, not in the workers."""

    def summarize(self, chunk: Chunk, metadata: Metadata) -> ChunkSummary:
        """A chunk's summary, in an index worker (possibly a forked process)."""
        ...

    def revise(self, documents: Sequence[Document]) -> list[Document]:
        """Rewrite the summaries of the documents where this summarizer has better text;
        returns the documents it changed."""
        ...

    def hierarchy_inputs(self, documents: Sequence[Document]) -> tuple[str, ...]:
        """What the hierarchy's text depends on besides the indexed files, for reuse."""
        ...

    def summarize_hierarchy(self, hierarchy: Hierarchy, documents: Sequence[Document]) -> Hierarchy:
        """The hierarchy with this summarizer's file, module and system prose."""
        ...

    def mark(self) -> int:
        """A mark of the texts left offline so far, for `left_offline_since`."""
        ...

    def left_offline_since(self, mark: int) -> bool:
        """Whether some text since `mark` kept its offline version where this summarizer (or
        the doc writer sharing its model) meant to write it: the work is then not final."""
        ...


class ExtractiveSummarizer:
    """The offline default: prose assembled from what the code says about itself, final
    where it is written."""

    name = "extractive"
    revises = False

    def revise(self, documents: Sequence[Document]) -> list[Document]:
        return []

    def hierarchy_inputs(self, documents: Sequence[Document]) -> tuple[str, ...]:
        return ()

    def summarize_hierarchy(self, hierarchy: Hierarchy, documents: Sequence[Document]) -> Hierarchy:
        return hierarchy

    def mark(self) -> int:
        return 0

    def left_offline_since(self, mark: int) -> bool:
        return False

    def summarize(self, chunk: Chunk, metadata: Metadata) -> ChunkSummary:
        return ChunkSummary(
            responsibility=responsibility(chunk),
            inputOutput=input_output(chunk),
            sideEffects=side_effects(metadata),
            mainDependencies=dependencies(metadata),
            notes=notes(chunk, metadata),
            source=self.name,
        )


def responsibility(chunk: Chunk) -> str:
    if chunk.kind is ChunkKind.WINDOW and language_named(chunk.language).category == "config":
        return _settings_outline(chunk)
    if chunk.kind is ChunkKind.SECTION or chunk.kind is ChunkKind.WINDOW:
        lead = first_sentences(_prose_of(chunk.content), MAX_PROSE)
        label = "Documentation" if chunk.kind is ChunkKind.SECTION else "Text"
        return lead or f"{label} section {chunk.symbol}."
    parts = []
    doc = first_sentences(chunk.docstring, MAX_PROSE)
    if doc:
        parts.append(doc)
    else:
        parts.append(_named_purpose(chunk))
    text = " ".join(parts)
    if len(text) < MIN_PROSE:
        extra = _context(chunk)
        if extra:
            text = f"{text} {extra}"
    return clip(text, MAX_PROSE)


def input_output(chunk: Chunk) -> str:
    if chunk.kind in (ChunkKind.SECTION, ChunkKind.WINDOW):
        return f"Lines {chunk.start_line}–{chunk.end_line} of {chunk.path}."
    if chunk.kind is ChunkKind.MODULE:
        return f"Module-level code of {chunk.path}."
    if chunk.kind is ChunkKind.CLASS:
        return clip(f"Type {chunk.name}; {chunk.signature}.", MAX_PROSE)
    params = [p for p in split_parameters(chunk.signature, chunk.name) if p.split(":")[0].strip() not in RECEIVERS]
    returns = return_type(chunk.signature, chunk.name)
    takes = "Takes " + ", ".join(params) if params else "Takes no arguments"
    documented = _documented_return(chunk.docstring)
    if returns:
        gives = f"returns {returns}"
    elif documented:
        gives = f"returns {documented}"
    else:
        gives = ""
    text = f"{takes}; {gives}." if gives else f"{takes}."
    return clip(text, MAX_PROSE)


def side_effects(metadata: Metadata) -> str:
    phrases = [EFFECT_PHRASES[e] for e in metadata.effects if e in EFFECT_PHRASES]
    if not phrases:
        return "None detected."
    return clip(_sentence(_join_words(phrases)), MAX_PROSE)


def dependencies(metadata: Metadata) -> str:
    names = list(dict.fromkeys(metadata.imports[:4] + [c for c in metadata.calls if not c.startswith(("self.", "this."))][:6]))
    if not names:
        return "None beyond the language itself."
    return clip("Uses " + ", ".join(names) + ".", MAX_PROSE)


def notes(chunk: Chunk, metadata: Metadata) -> str:
    items = []
    if metadata.isAsync:
        items.append("asynchronous")
    if metadata.throwsException:
        items.append("can raise or return errors")
    if metadata.securityBoundary:
        items.append(f"security boundary: {metadata.securityBoundary}")
    if chunk.part:
        items.append(f"part {chunk.part} of a longer {chunk.kind.value}")
    if metadata.exports:
        items.append("public")
    lines = chunk.end_line - chunk.start_line + 1
    items.append(f"{lines} line{'s' if lines != 1 else ''}")
    return clip(_sentence("; ".join(items)), MAX_PROSE)


# --- helpers ------------------------------------------------------------------------------

RECEIVERS = frozenset({"self", "cls", "this", "&self", "&mut self", "mut self"})
MODIFIERS = frozenset(
    """public private protected internal static final abstract virtual override async sealed
    extern inline const constexpr unsafe synchronized native default export def fn func function
    pub new readonly""".split()
)


def _parameter_list(signature: str, name: str) -> tuple[int, int]:
    """Start and end index of the parameter list that follows `name` (or the first one)."""
    start = _paren_after(signature, name) if name else -1
    if start < 0:
        start = signature.find("(")
    if start < 0:
        return -1, -1
    depth = 0
    for index in range(start, len(signature)):
        char = signature[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return start, index
    return start, len(signature)


def _paren_after(signature: str, name: str) -> int:
    """Index of the `(` that opens the parameters written after `name`, or -1."""
    at = signature.find(name)
    while at >= 0:
        index = at + len(name)
        if index < len(signature) and signature[index] == "<":
            depth = 0
            while index < len(signature):
                depth += {"<": 1, ">": -1}.get(signature[index], 0)
                index += 1
                if depth == 0:
                    break
        while index < len(signature) and signature[index] == " ":
            index += 1
        if index < len(signature) and signature[index] == "(":
            return index
        at = signature.find(name, at + 1)
    return -1


def split_parameters(signature: str, name: str = "") -> list[str]:
    """Top-level parameters of the list after `name`, whitespace folded."""
    start, end = _parameter_list(signature, name)
    if start < 0:
        return []
    params, current, depth = [], "", 0
    for char in signature[start + 1 : end]:
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        if char == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += char
    params.append(current)
    return [" ".join(p.split()) for p in params if p.strip() and p.strip() not in ("*", "/")]


def return_type(signature: str, name: str = "") -> str:
    """What a signature says it returns: `-> X`, `): X`, Go's trailing types, or a C-style prefix."""
    start, end = _parameter_list(signature, name)
    if start < 0:
        return ""
    after = signature[end + 1 :].strip()
    after = re.sub(r"^(?:->|:)\s*", "", after)
    after = re.split(r"\s+(?:throws|where|const|override|noexcept)\b", after)[0].strip().rstrip(";{=").strip()
    if after:
        return after
    before = signature[:start].strip()
    words = before[: before.rfind(name)].split() if name and name in before else before.split()[:-1]
    kept = [w for w in words if w not in MODIFIERS and not w.startswith("@")]
    if kept and kept[-1] != "void" and not any("(" in w or ")" in w for w in kept):
        return " ".join(kept)
    return ""


def third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _documented_return(docstring: str) -> str:
    match = re.search(r"(?im)^[ \t]*(?::returns?:|@returns?|returns?:)\s*(.+)$", docstring)
    if match:
        return clip(match.group(1).strip().rstrip("."), 80)
    match = re.search(r"(?i)\breturns?\s+(an?\s+[^.]{3,60}|the\s+[^.]{3,60})", docstring)
    return match.group(1).strip() if match else ""


def _named_purpose(chunk: Chunk) -> str:
    words = split_identifier(chunk.name)
    if chunk.kind is ChunkKind.MODULE:
        return f"Top-level code of {chunk.path}."
    if chunk.kind is ChunkKind.CLASS:
        return f"Type {chunk.name}."
    if not words:
        return f"Function {chunk.name}."
    if chunk.parent and chunk.name in CONSTRUCTORS | {chunk.parent.rsplit(".", 1)[-1]}:
        return f"Constructor of {chunk.parent}: creates and initialises an instance."
    if words[0] in VERBS:
        verb = words[0]
        phrase = " ".join(words[1:])
        verb = VERB_PHRASES.get(verb) or third_person(verb).capitalize()
        if not phrase:
            params = [p for p in split_parameters(chunk.signature, chunk.name) if p.split(":")[0].strip() not in RECEIVERS]
            phrase = " ".join(split_identifier(re.split(r"[\s:=]", params[0].strip("*&. "))[0])) if params else ""
        return _sentence(f"{verb} {phrase}".strip())
    owner = f" of {chunk.parent}" if chunk.parent else ""
    return _sentence(f"Handles {' '.join(words)}{owner}")


def _context(chunk: Chunk) -> str:
    if chunk.kind is ChunkKind.CLASS:
        members = re.findall(r"^[ \t]*(?:async\s+)?(?:def|fn|func|function)\s+(\w+)", chunk.content, re.MULTILINE)
        public = [m for m in members if not m.startswith("_")][:6]
        if public:
            return f"Members: {', '.join(public)}."
        return ""
    comment = _first_comment(chunk)
    return _sentence(comment) if comment else ""


def _first_comment(chunk: Chunk) -> str:
    """The first comment inside the chunk that reads as prose (not a marker or a rule line,
    nor a line of a licence block)."""
    in_licence = False
    for line in chunk.content.splitlines()[1:]:
        match = re.match(r"\s*(?:#|//)\s?(.*)", line)
        if not match:
            in_licence = False
            continue
        text = match.group(1).strip()
        in_licence = in_licence or bool(LICENSE_HEADER.search(text))
        if in_licence or len(text) < 12:
            continue
        letters = sum(char.isalpha() or char == " " for char in text)
        if letters >= 0.6 * len(text) and not text.startswith(("noqa", "type:", "pragma", "eslint", "TODO", "FIXME")):
            return " ".join(text.split())
    return ""


CONFIG_ENTRY = re.compile(r"^(?:\[([^\]\n]+)\]|([A-Za-z_][\w.-]*)\s*[:=]|([A-Z]{2,})\s)", re.MULTILINE)
"""A top-level entry of a settings file: a `[section]`, a `key:` / `key =` (also a Makefile
target), or a Dockerfile instruction."""


def _settings_outline(chunk: Chunk) -> str:
    """What a settings file sets, by its top-level entries (not its text read as prose)."""
    entries = list(dict.fromkeys(next(g for g in m.groups() if g) for m in CONFIG_ENTRY.finditer(chunk.content)))
    name = chunk.path.rsplit("/", 1)[-1]
    if not entries:
        return f"Settings in {name}."
    shown = ", ".join(entries[:8]) + (", …" if len(entries) > 8 else "")
    return clip(f"Settings in {name}: {shown}.", MAX_PROSE)


def _prose_of(markdown: str) -> str:
    """The prose lines of a Markdown text: no headings, tables, images, code or HTML blocks
    (a block that opens with a tag runs to the next blank line, as in CommonMark)."""
    lines: list[str] = []
    fence = ""
    in_html = False
    for line in markdown.splitlines():
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if not stripped:
            in_html = False
            continue
        if stripped.startswith("<"):
            in_html = True
        if in_html or stripped.startswith(("#", "|", "![", "[![")):
            continue
        if SETEXT_RULE.match(stripped):
            if lines:
                lines.pop()  # the line above was a heading
            continue
        lines.append(stripped.lstrip("> ") if stripped.startswith(">") else line)
    return " ".join(lines)


SETEXT_RULE = re.compile(r"^(?:={3,}|-{3,})$")


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _join_words(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
