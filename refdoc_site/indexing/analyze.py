"""Analyze stage: metadata per chunk (imports, exports, calls, async, raising, effects).

Analyzers sit behind the `Analyzer` protocol, in three tiers: a language server
(`lsp.py`), tree-sitter queries (`languages/queries/*-calls.scm` for call sites,
`*-imports.scm` for imports and declared exports) and the regular expressions of
`languages.patterns`, the last resort for rows and files no grammar parses.
`SyntaxAnalyzer` is the offline pair (`tree_sitter_tier.py`, then `regex_tier.py`);
`MergedAnalyzer` puts a language server in front of it with the seed's merge rules.
Callers are not decided here: they come from the whole call graph (`graph.py`) once
every file is analysed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from ..core.records import Chunk, ChunkKind, Metadata, SourceFile
from ..languages import patterns
from ..languages.effects import effects_in
from ..languages.exports import api_name, marked_private
from ..languages.receivers import receiver_rules
from .regex_tier import (
    PROSE_LANGUAGES,
    REGEX,
    calls_in,
    chunk_body,
    imports_used,
    local_name,
    security_reason,
    strip_strings_and_comments,
)
from .tree_sitter_tier import TREE_SITTER, call_sites, file_interface
from .visibility import ExportContext, is_exported

LSP = "lsp"
"""The language server tier's name in `Metadata.sources` (the others: TREE_SITTER, REGEX)."""

UNION_FIELDS = ("imports", "exports", "calls")
"""Merged as the union of every tier that answered, first tier first."""
FIRST_ANSWER_FIELDS = ("isAsync", "throwsException", "securityBoundary", "effects")
"""Taken from the first tier that answered."""


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
    namespaces: list[str] = field(default_factory=list)
    """Namespaces the file declares (C#), which other files' imports name."""

    @classmethod
    def unanswered(cls, chunks: list[Chunk], deferred: bool = False) -> FileAnalysis:
        """What a tier that could not look at the file returns."""
        return cls(metadata={chunk.id: Metadata() for chunk in chunks}, deferred=deferred)


BARE_NAME = re.compile(r"(?:(?<=\.\.\.)|(?<!\.))(?<!\w)[A-Za-z_]\w*")
"""A name a chunk uses on its own, not as a member (`this.methods`, `obj.path`): what can
mean an import. A spread (`...args`) is a use."""


class Analyzer(Protocol):
    name: str
    """Part of the store's fingerprint: a different analyzer reindexes every file."""

    def analyze(self, source: SourceFile, text: str, chunks: list[Chunk]) -> FileAnalysis: ...

    def close(self) -> None:
        """Release what the analyzer holds (language server processes); idempotent."""


class SyntaxAnalyzer:
    """The offline tiers: call sites from tree-sitter queries, regular expressions for the rest.

    A chunk whose lines hold a syntax error, and every chunk of a language without a
    call query, takes its calls from the regular expressions instead.
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
            imports_by_local.setdefault(local_name(name), []).append((position, name))
        sites = call_sites(source.language, text, chunks) if self.tree_sitter else {}
        analysis = FileAnalysis(imports=interface.imports, namespaces=interface.namespaces)
        context = ExportContext(text, chunks)
        for chunk in chunks:
            metadata = self._chunk_metadata(
                chunk, imports_by_local, interface.public, context, interface.imports, reads_calls=chunk.id not in sites
            )
            if "imports" in metadata.sources:
                metadata.sources["imports"] = interface.imports_tier
                metadata.sources["exports"] = interface.exports_tier
            if chunk.id in sites:
                # a call of its own name is recursion, unless the language overloads (`get(a)` in `get(a, b)`)
                own = "" if receiver_rules(chunk.language).overloads else chunk.name
                metadata.calls = [s for s in dict.fromkeys(site.callee for site in sites[chunk.id]) if s != own]
                if own == "":  # the arguments pick among overloads
                    passed: dict[str, dict[tuple[str, ...], None]] = {}
                    for site in sites[chunk.id]:
                        if site.arguments is not None:
                            passed.setdefault(site.callee, {})[site.arguments] = None
                    metadata.arguments = {callee: [list(a) for a in found] for callee, found in passed.items()}
                metadata.sources["calls"] = TREE_SITTER
            analysis.metadata[chunk.id] = metadata
        _list_reexports(chunks, analysis.metadata, interface.public)
        return analysis

    def close(self) -> None:
        pass

    def _chunk_metadata(
        self,
        chunk: Chunk,
        imports_by_local: dict[str, list[tuple[int, str]]],
        public: list[str] | None,
        context: ExportContext,
        file_imports: list[str],
        reads_calls: bool = True,
    ) -> Metadata:
        """The regex tier's metadata of `chunk`; its calls only when `reads_calls` (where
        tree-sitter found the chunk's call sites, they replace these: reading them was 5 %
        of indexing django)."""
        if chunk.kind in (ChunkKind.SECTION, ChunkKind.WINDOW) and chunk.language in PROSE_LANGUAGES:
            return Metadata(sources={"all": REGEX})
        written = chunk_body(chunk)
        body = strip_strings_and_comments(written, chunk.language)
        raises = patterns.RAISES.get(chunk.language, patterns.RAISES["*"])
        throws = bool(raises.search(body))
        words = set(BARE_NAME.findall(body))
        effects = effects_in(body, chunk.language, file_imports)
        if throws:
            effects.append("raising")
        asynchronous = patterns.ASYNC.get(chunk.language, patterns.ASYNC["*"])
        return Metadata(
            imports=imports_used(words, imports_by_local),
            exports=[api_name(chunk.symbol, chunk.language)] if is_exported(chunk, public, context) else [],
            calls=[c for c in calls_in(body, chunk.language) if c != chunk.name] if reads_calls and chunk.kind is not ChunkKind.CLASS else [],
            isAsync=bool(asynchronous.search(chunk.signature)),
            throwsException=throws,
            securityBoundary=security_reason(chunk.content, chunk.language, body if written is chunk.content else None),
            effects=effects,
            sources={name: REGEX for name in (*UNION_FIELDS, *FIRST_ANSWER_FIELDS)},
        )


def _list_reexports(chunks: list[Chunk], metadata: dict[str, Metadata], public: list[str] | None) -> None:
    """Declared public names no chunk of the file defines (`__all__ = ["Client"]` of an
    `__init__.py` importing it, `exports.json = bodyParser.json`) become the exports of the
    file's module chunk, so the file's API lists them; a name only bound to the exported
    object (`res` of `res.send`) is left out, its members stand for it, and so is a name
    the language marks private (`__version__`)."""
    module = next((c for c in chunks if c.kind is ChunkKind.MODULE), None)
    if module is None or not public or "exports" not in metadata[module.id].sources:
        return
    defined = {
        name
        for chunk in chunks
        for name in (chunk.symbol, chunk.symbol.split(".")[0], api_name(chunk.symbol, chunk.language))
    }
    metadata[module.id].exports = [
        name for name in public if name not in defined and not marked_private(name, "", module.language)
    ]


class MergedAnalyzer:
    """Tiers in order of trust, merged by the seed's rules.

    Imports, exports and calls are the union of the tiers that answered; isAsync,
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
            namespaces=list(dict.fromkeys(name for result in results for name in result.namespaces)),
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
        for callee, passed in answer.arguments.items():
            merged.arguments.setdefault(callee, passed)
        if "all" in answer.sources:
            merged.sources.setdefault("all", answer.sources["all"])
    if merged.definitions:
        merged.sources["definitions"] = next(a.sources["definitions"] for a in answers if a.definitions)
    return merged
