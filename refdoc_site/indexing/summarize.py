"""Summarize stage: one structured record per chunk.

Summarizers sit behind the `Summarizer` protocol. The offline default is extractive and
deterministic: it reads docstrings, comments, the signature, identifiers split into words
and the effects the analysis detected, and writes short prose, never a copy of the code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from ..core.phrases import phrase_text
from ..core.records import Chunk, ChunkKind, ChunkSummary, Document, Hierarchy, Metadata, Phrase
from ..core.text import MAX_PROSE, first_sentences
from ..languages import language_named
from ..languages.receivers import receiver_rules
from .code_facts import code_sentences, effects_phrase, notable_calls
from .doc_blocks import plain_text, read_section


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
        said = {
            "responsibility": _responsibility(chunk, metadata),
            "inputOutput": _input_output(chunk),
            "sideEffects": [p for p in [effects_phrase(metadata)] if p],
            "mainDependencies": _dependencies(chunk, metadata),
            "notes": _notes(metadata),
        }
        phrased = {name: value for name, value in said.items() if isinstance(value, list) and value}
        texts = {name: _text(value) for name, value in said.items()}
        return ChunkSummary(**texts, source=self.name, phrases=phrased)


Said = str | list[Phrase]
"""A field as the summarizer found it: text quoted from the code, or sentences it phrases."""


def _text(said: Said) -> str:
    """A field's stored (English) text."""
    return said if isinstance(said, str) else phrase_text(said) if said else ""


def responsibility(chunk: Chunk, metadata: Metadata) -> str:
    """The docstring's first sentence (or the comment block above the definition); else what
    the code shows it does; else nothing (a sentence made of the name would read as
    information and be none)."""
    return _text(_responsibility(chunk, metadata))


def _responsibility(chunk: Chunk, metadata: Metadata) -> Said:
    if chunk.kind is ChunkKind.WINDOW and language_named(chunk.language).category == "config":
        return _settings_outline(chunk)
    if chunk.kind is ChunkKind.SECTION and chunk.language == "restructuredtext":
        return first_sentences(plain_text(read_section(chunk.content, chunk.language)), MAX_PROSE)
    if chunk.kind is ChunkKind.SECTION or chunk.kind is ChunkKind.WINDOW:
        return first_sentences(_prose_of(chunk.content), MAX_PROSE)
    doc = first_sentences(DOC_TAG_LINE.sub("", chunk.docstring), MAX_PROSE)
    if doc:
        return doc
    if chunk.kind is ChunkKind.MODULE:
        return ""
    if chunk.kind is ChunkKind.CLASS:
        return _class_outline(chunk)
    # Not a comment inside the body: it says what one line does (`# Add a Vary header`),
    # which read as the whole definition's purpose is wrong.
    return code_sentences(chunk, metadata)


DOC_TAG_LINE = re.compile(r"^[ \t]*@\w+.*$", re.MULTILINE)
"""A JSDoc/Javadoc tag line (`@private`, `@param …`): markup for tools, not the summary."""


def _input_output(chunk: Chunk) -> list[Phrase]:
    """What the docstring says a function takes and returns; empty without that, since
    the parameters and return type as written are on the page in the signature."""
    if chunk.kind not in (ChunkKind.FUNCTION, ChunkKind.METHOD):
        return []
    params = [f"{name} ({first_sentences(text, 50).rstrip('.')})" for name, text in documented_parameters(chunk.docstring)[:4]]
    returns = _documented_return(chunk.docstring)
    if params:
        return [Phrase("takes_returns", params, returns) if returns else Phrase("takes", params)]
    return [Phrase("returns_documented", subject=returns)] if returns else []


DOCUMENTED_PARAMETER = (
    re.compile(r"^[ \t]*:param(?:\s+[\w\[\], .|]+?)?\s+\*{0,2}(\w+):[ \t]*(\S.*(?:\n[ \t]+(?![:@])\S.*)*)$", re.MULTILINE),  # reST, with continuation lines
    re.compile(r"^[ \t]*@param[ \t]+(?:\{[^}\n]*\}[ \t]+)?\[?(\w+)\S*[ \t]+(?:-[ \t]+)?(\S.*)$", re.MULTILINE),  # JSDoc
)
GOOGLE_ARGS = re.compile(r"^[ \t]*(?:Args|Arguments|Parameters):[ \t]*\n((?:[ \t]+\S.*\n?)+)", re.MULTILINE)
GOOGLE_ARG = re.compile(r"^[ \t]*\*{0,2}(\w+)(?:\s*\([^)]*\))?:[ \t]*(\S.*)$", re.MULTILINE)


def documented_parameters(docstring: str) -> list[tuple[str, str]]:
    """(name, description) of each parameter a reST, JSDoc or Google-style docstring describes."""
    found = [(m.group(1), " ".join(m.group(2).split())) for pattern in DOCUMENTED_PARAMETER for m in pattern.finditer(docstring)]
    for block in GOOGLE_ARGS.finditer(docstring):
        found.extend((m.group(1), m.group(2).strip()) for m in GOOGLE_ARG.finditer(block.group(1)))
    return list(dict((name, text) for name, text in found).items())


def _dependencies(chunk: Chunk, metadata: Metadata) -> list[Phrase]:
    calls = [c for c in notable_calls(chunk, metadata) if not c.startswith(("self.", "this."))]
    names = list(dict.fromkeys(metadata.imports[:4] + calls[:6]))
    return [Phrase("uses", names)] if names else []


def _notes(metadata: Metadata) -> list[Phrase]:
    """Facts worth a flag; the line count, the part and the export status the page shows
    elsewhere."""
    flags = [name for name, on in (("asynchronous", metadata.isAsync), ("errors", metadata.throwsException), ("security", bool(metadata.securityBoundary))) if on]
    return [Phrase("notes", flags, metadata.securityBoundary)] if flags else []


# --- helpers ------------------------------------------------------------------------------

def _documented_return(docstring: str) -> str:
    """What a `:returns:`, `@returns` or `Returns:` field says; the prose's "returns …" is in
    the responsibility already."""
    match = re.search(r"(?im)^[ \t]*(?::returns?:|@returns?|returns?:)\s*(.+)$", docstring)
    if not match:
        return ""
    typed = re.match(r"\{[^}]*\}\s*(.*)", match.group(1).strip())  # JSDoc `{Type} text`: a type alone is in the signature's place
    text = typed.group(1) if typed else match.group(1)
    return first_sentences(text, 80).rstrip(".")


MEMBER = re.compile(r"^[ \t]*(?:async\s+)?(?:def|fn|func|function)\s+(\w+)", re.MULTILINE)


def _class_outline(chunk: Chunk) -> list[Phrase]:
    """What an undocumented class extends and offers, from its declaration and members."""
    pattern = receiver_rules(chunk.language).bases
    match = pattern.search(chunk.signature) if pattern else None
    written = match.group(1) if match else ""
    bases = [b.strip() for b in written.split(",") if b.strip() and "=" not in b and b.strip() not in ("object", "")]
    public = [m for m in MEMBER.findall(chunk.content) if not m.startswith("_")][:6]
    return [Phrase(key, names) for key, names in (("extends", bases), ("offers", public)) if names]


CONFIG_ENTRY = re.compile(r"^(?:\[([^\]\n]+)\]|([A-Za-z_][\w.-]*)\s*[:=]|([A-Z]{2,})\s)", re.MULTILINE)
"""A top-level entry of a settings file: a `[section]`, a `key:` / `key =` (also a Makefile
target), or a Dockerfile instruction."""


def _settings_outline(chunk: Chunk) -> list[Phrase]:
    """What a settings file sets, by its top-level entries (not its text read as prose)."""
    entries = list(dict.fromkeys(next(g for g in m.groups() if g) for m in CONFIG_ENTRY.finditer(chunk.content)))
    name = chunk.path.rsplit("/", 1)[-1]
    if not entries:
        return [Phrase("settings", subject=name)]
    return [Phrase("settings_entries", entries[:8] + (["…"] if len(entries) > 8 else []), name)]


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

