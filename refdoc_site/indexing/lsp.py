"""The language-server tier: definitions of call sites through multilspy.

Its servers run in a `ServerPool` (server_pool.py), the process manager. `LspAnalyzer`
opens each file in its server, asks for the definition of every call site the tree-sitter
query found (or those of its `ask` policy), and records where each
callee is defined (`path:line`) so that the call graph links the right chunk. Where the
server's hover tells (TypeScript: `(): Promise<…>`), it also answers isAsync; jedi's
hover and document symbols say `def later(x)` for an `async def`, so Python's isAsync
stays with the fallback, and no server says whether a function raises, so
throwsException always does. All servers together take at most the build's time budget.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePath

from ..core.config import ChunkSettings, Config
from ..core.reading import read_text
from ..core.records import Chunk, ChunkKind, Document, Metadata, SourceFile
from ..core.redact import Redactor
from ..languages.servers import SERVERS, ServerSpec, server_for
from .analyze import LSP, Analyzer, FileAnalysis, MergedAnalyzer, SyntaxAnalyzer
from .chunk import chunk_file
from .server_pool import OutOfTime, RunningServer, ServerFailed, ServerPool
from .tree_sitter_tier import CallSite, call_sites

log = logging.getLogger("refdoc_site")


class LspAnalyzer:
    """The language-server tier: calls with their definitions, and isAsync where told."""

    name = LSP

    def __init__(
        self,
        repo: Path,
        servers: tuple[ServerSpec, ...] = SERVERS,
        install: bool = True,
        budget_seconds: float = 0,
        ask: str = "all",
        definition_names: Mapping[str, int] | Callable[[], Mapping[str, int]] | None = None,
    ) -> None:
        self.repo = repo.resolve()
        self.servers = servers
        self.pool = ServerPool(self.repo, servers, install)
        self.ask = ask
        """Which call sites the server is asked about (`ASK_POLICIES`)."""
        self.name = LSP if ask == "all" else f"{LSP}-{ask}"
        self.definition_names = definition_names
        """How many functions, methods and classes of the repository bear each name, or
        how to count them when a policy first needs them (the index phase gives it:
        `share_repository`)."""
        self.budget_seconds = budget_seconds
        """Wall-clock seconds the servers may take over the whole build (`lsp_budget`); 0: no limit."""
        self.spent_seconds = 0.0
        self.answered_files = 0
        self.over_budget = False
        self._file_started = 0.0

    def analyze(self, source: SourceFile, text: str, chunks: list[Chunk]) -> FileAnalysis:
        spec = server_for(source.language, self.servers)
        if spec is None or self.over_budget:
            return FileAnalysis.unanswered(chunks, deferred=spec is not None)
        sites = self._sites_to_ask(call_sites(source.language, text, chunks))
        if not any(sites.values()) and not (sites and spec.async_hover):
            return FileAnalysis.unanswered(chunks)
        self._file_started = time.perf_counter()
        try:
            return self._answer(spec, source.path, text, chunks, sites)
        finally:
            self.spent_seconds += time.perf_counter() - self._file_started

    def _answer(
        self, spec: ServerSpec, path: str, text: str, chunks: list[Chunk], sites: dict[str, list[CallSite]]
    ) -> FileAnalysis:
        running = self.pool.server(spec)
        remaining = self._remaining_seconds()
        if running is None or remaining <= 0:
            return self._unanswered(chunks, remaining)
        lines = text.splitlines()
        try:
            answers = self.pool.request(running, lambda: self._ask(running, path, lines, chunks, sites), remaining)
        except OutOfTime:
            return self._unanswered(chunks, 0)
        except ServerFailed:
            return FileAnalysis.unanswered(chunks)
        self.answered_files += 1
        return self._analysis(path, chunks, sites, *answers)

    def _sites_to_ask(self, sites: dict[str, list[CallSite]]) -> dict[str, list[CallSite]]:
        """The call sites whose called name has at least the policy's number of candidate
        definitions in the repository."""
        fewest = ASK_POLICIES[self.ask]
        if not fewest:
            return sites
        if self.definition_names is None:
            raise ValueError(f"lsp_ask: {self.ask} needs the repository's definition names; index through the pipeline")
        if callable(self.definition_names):
            self.definition_names = self.definition_names()
        names = self.definition_names
        return {
            chunk_id: [site for site in chunk_sites if names.get(site.callee.rsplit(".", 1)[-1], 0) >= fewest]
            for chunk_id, chunk_sites in sites.items()
        }

    def _remaining_seconds(self) -> float:
        if not self.budget_seconds:
            return float("inf")
        return self.budget_seconds - self.spent_seconds - (time.perf_counter() - self._file_started)

    def _unanswered(self, chunks: list[Chunk], remaining: float) -> FileAnalysis:
        """No answer for this file; when the budget ran out, none for any later file
        either, and each of them is deferred to the next build."""
        if remaining <= 0 and not self.over_budget:
            self.over_budget = True
            line = (f"language servers used their lsp_budget of {self.budget_seconds:g} s after "
                    f"{self.answered_files} files; the remaining files use tree-sitter and regex, "
                    "and the next build asks again")
            self.pool.notices.append(line)
            log.warning(line)
        return FileAnalysis.unanswered(chunks, deferred=self.over_budget)

    def close(self) -> None:
        self.pool.close()

    async def _ask(
        self, running: RunningServer, path: str, lines: list[str], chunks: list[Chunk], sites: dict[str, list[CallSite]]
    ) -> tuple[dict[tuple[int, int], list[str]], dict[str, bool]]:
        server = running.server
        positions = list(dict.fromkeys((s.line, s.column) for chunk_sites in sites.values() for s in chunk_sites))
        with server.open_file(path):
            found = await asyncio.gather(
                *(server.request_definition(path, line, _utf16_column(lines, line, column)) for line, column in positions),
                return_exceptions=True,
            )
            asynchronous = await self._async_flags(running, path, chunks) if running.spec.async_hover else {}
        definitions = {
            position: [self._location(item) for item in answer]
            for position, answer in zip(positions, found)
            if isinstance(answer, list) and answer
        }
        return definitions, asynchronous

    async def _async_flags(self, running: RunningServer, path: str, chunks: list[Chunk]) -> dict[str, bool]:
        """isAsync per function chunk, from the hover text at its name (via document symbols)."""
        server = running.server
        symbols, _tree = await server.request_document_symbols(path)
        functions = [c for c in chunks if c.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD) and c.part <= 1]
        where: dict[str, tuple[int, int]] = {}
        for symbol in symbols:
            start = (symbol.get("selectionRange") or symbol.get("location", {}).get("range", {})).get("start")
            if not start:
                continue
            for chunk in functions:
                if chunk.name == symbol.get("name") and chunk.start_line <= start["line"] + 1 <= chunk.end_line:
                    where.setdefault(chunk.id, (start["line"], start["character"]))
        hovers = await asyncio.gather(
            *(server.request_hover(path, line, column) for line, column in where.values()), return_exceptions=True
        )
        pattern = re.compile(running.spec.async_hover, re.MULTILINE)
        return {
            chunk_id: bool(pattern.search(_hover_text(hover)))
            for chunk_id, hover in zip(where, hovers)
            if isinstance(hover, dict)
        }

    def _location(self, item: dict) -> str:
        """`path:line` of a definition inside the repository, `""` outside it."""
        absolute = item.get("absolutePath") or ""
        try:
            relative = PurePath(absolute).relative_to(self.repo).as_posix()
        except ValueError:
            return ""
        return f"{relative}:{item['range']['start']['line'] + 1}"

    def _analysis(
        self,
        path: str,
        chunks: list[Chunk],
        sites: dict[str, list[CallSite]],
        definitions: dict[tuple[int, int], list[str]],
        asynchronous: dict[str, bool],
    ) -> FileAnalysis:
        analysis = FileAnalysis.unanswered(chunks)
        for chunk in chunks:
            if chunk.id not in sites:
                continue
            metadata = Metadata(sources={"calls": LSP, "definitions": LSP})
            for site in sites[chunk.id]:
                locations = definitions.get((site.line, site.column))
                if locations is None:
                    continue
                known = metadata.definitions.setdefault(site.callee, [])
                known.extend(location for location in locations if location not in known)
            metadata.calls = list(metadata.definitions)
            if chunk.id in asynchronous:
                metadata.isAsync = asynchronous[chunk.id]
                metadata.sources["isAsync"] = LSP
            analysis.metadata[chunk.id] = metadata
        return analysis


ASK_POLICIES = {"all": 0, "linkable": 1, "ambiguous": 2}
"""Per policy, how many definitions of its name in the repository a call site needs for
the server to be asked about it. `linkable`: calls that could link to a chunk at all
(not builtins or libraries); `ambiguous`: calls that name matching cannot settle alone."""


def share_repository(
    analyzer: Analyzer, repo: Path, sources: Iterable[SourceFile], changed: Iterable[SourceFile],
    stored: Mapping[str, list[Document]], settings: ChunkSettings, redactor: Redactor,
) -> None:
    """Tell the language-server tiers of `analyzer` how to count the repository's
    definitions when their `lsp_ask` policy first needs them: from the stored documents of
    the index phase's unchanged files and by chunking its `changed` ones (no discovery of
    its own). The changed files are chunked again when their job runs: chunking costs
    milliseconds where a server costs seconds per file."""
    sources, changed = list(sources), list(changed)
    changed_paths = {source.path for source in changed}

    def count() -> Counter[str]:
        chunks = [d.chunk for s in sources if s.path not in changed_paths for d in stored.get(s.path, ())]
        for source in changed:
            try:
                chunks += chunk_file(source, read_text(repo, source.path, redactor).text, settings)
            except Exception:  # a file the index will skip and count is no candidate either
                continue
        return definition_names(chunks)

    for tier in getattr(analyzer, "tiers", [analyzer]):
        if isinstance(tier, LspAnalyzer) and tier.definition_names is None:
            tier.definition_names = count


def definition_names(chunks: Iterable[Chunk]) -> Counter[str]:
    """How many functions, methods and classes among `chunks` bear each name."""
    return Counter(c.name for c in chunks if c.kind in DEFINITION_KINDS and c.part <= 1)


DEFINITION_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS)


def _utf16_column(lines: list[str], row: int, byte_column: int) -> int:
    """LSP counts columns in UTF-16 code units; tree-sitter in bytes."""
    line = lines[row] if row < len(lines) else ""
    if line.isascii():
        return byte_column
    prefix = line.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore")
    return len(prefix.encode("utf-16-le")) // 2


def _hover_text(hover: dict) -> str:
    contents = hover.get("contents")
    if isinstance(contents, dict):
        return str(contents.get("value", ""))
    if isinstance(contents, list):
        return "\n".join(c.get("value", "") if isinstance(c, dict) else str(c) for c in contents)
    return str(contents or "")


def analyzer_for(mode: str, repo: Path, config: Config | None = None) -> Analyzer:
    """The analyzer of a `lsp` setting: `off`, `on` (servers, then syntax) or `only`.

    The servers take at most `config.lsp_budget` seconds of the build; with `on` they are
    asked about the call sites of `config.lsp_ask`, with `only` about all.
    """
    config = config or Config()
    if mode == "on":
        lsp = LspAnalyzer(repo, budget_seconds=config.lsp_budget, ask=config.lsp_ask)
        return MergedAnalyzer([lsp, SyntaxAnalyzer()])
    if mode == "only":
        return LspAnalyzer(repo, budget_seconds=config.lsp_budget)
    return SyntaxAnalyzer()
