"""The language-server tier: definitions of call sites through multilspy.

`ServerPool` is the process manager: it starts each server of `languages.servers` the
first time a file of its language arrives, reuses it for every later file, holds every
request to the server's time limits and always stops it (on `close()`, at exit, and at
once when it fails). A server that is missing, fails to start, hangs or crashes costs at
most its time limit; it is then noticed in one log line and its files are left to the
next tiers.

`LspAnalyzer` opens each file in its server, asks for the definition of every call site
the tree-sitter query found (or those of its `ask` policy), and records where each
callee is defined (`path:line`) so that the call graph links the right chunk. Where the
server's hover tells (TypeScript: `(): Promise<…>`), it also answers isAsync; jedi's
hover and document symbols say `def later(x)` for an `async def`, so Python's isAsync
stays with the fallback, and no server says whether a function raises, so
throwsException always does. All servers together take at most the build's time budget.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from ..core.config import Config
from ..core.reading import read_text
from ..core.records import Chunk, ChunkKind, Metadata, SourceFile
from ..core.redact import Redactor
from ..languages.servers import SERVERS, ServerSpec, find_binary, server_for
from .analyze import LSP, Analyzer, FileAnalysis, MergedAnalyzer, SyntaxAnalyzer
from .chunk import chunk_file
from .discover import discover
from .tree_sitter_tier import CallSite, call_sites

log = logging.getLogger("refdoc_site")

POLL_SECONDS = 0.05
STOP_SECONDS = 5.0
"""How long a healthy server gets to shut down before it is killed."""


class ServerFailed(Exception):
    """A language server did not start, did not answer in time, or exited."""


class OutOfTime(ServerFailed):
    """A language server did not answer within the time it was given."""


@dataclass
class _Running:
    spec: ServerSpec
    server: Any  # multilspy.LanguageServer
    context: Any  # its start_server() context manager, entered
    pid: int | None = None


@dataclass
class ServerPool:
    """Starts, reuses, time-limits and stops the language servers of one repository."""

    repo: Path
    servers: tuple[ServerSpec, ...] = SERVERS
    install: bool = True
    """Install npm-distributed servers into the cache folder when they are missing."""
    notices: list[str] = field(default_factory=list)
    """The one line said about each server that could not be used."""
    _running: dict[str, _Running] = field(default_factory=dict)
    _unavailable: set[str] = field(default_factory=set)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None

    def server(self, spec: ServerSpec) -> _Running | None:
        """The running server of a spec, started on first use; None when it cannot run."""
        if spec.name in self._unavailable:
            return None
        if spec.name in self._running:
            return self._running[spec.name]
        binary = find_binary(spec, self.install)
        if binary is None:
            self._give_up(spec, "not found", quiet=spec.optional)
            return None
        running = self._create(spec, binary)
        if running is None:
            return None
        try:
            self._await(running, self._start(running), spec.start_seconds, "start")
        except ServerFailed as error:
            self._fail(running, str(error))
            return None
        self._running[spec.name] = running
        return running

    def request(self, running: _Running, work: Callable[[], Awaitable[Any]], seconds: float | None = None) -> Any:
        """Run one file's requests on the server within its time limit, or within
        `seconds` when that is shorter; running out of those alone leaves the server up."""
        limit = running.spec.request_seconds if seconds is None else min(seconds, running.spec.request_seconds)
        try:
            return self._await(running, work(), limit, "answer")
        except OutOfTime:
            if limit < running.spec.request_seconds:
                raise
            self._fail(running, f"did not answer within {limit:g} s")
            raise
        except ServerFailed as error:
            self._fail(running, str(error))
            raise

    def close(self) -> None:
        """Stop every server (shutdown, then kill whatever is left) and the event loop."""
        for running in list(self._running.values()):
            self._stop(running, graceful=True)
        self._running.clear()
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=STOP_SECONDS)
            self._loop = self._thread = None

    # --- internals -------------------------------------------------------------------

    def _create(self, spec: ServerSpec, binary: str) -> _Running | None:
        # optional: multilspy is loaded only with language servers on (lsp: on|only)
        from multilspy.language_server import LanguageServer
        from multilspy.multilspy_config import MultilspyConfig

        config = MultilspyConfig.from_dict({"code_language": spec.multilspy_language, "server_binary": binary})
        try:
            server = LanguageServer.create(config, _quiet_logger(), str(self.repo))
        except Exception as error:  # an adapter that refuses its environment
            self._give_up(spec, f"could not be set up ({type(error).__name__}: {error})")
            return None
        for method in ("workspace/configuration", "client/registerCapability", "window/workDoneProgress/create"):
            server.server.on_request(method, _empty_answer)
        return _Running(spec, server, server.start_server())

    async def _start(self, running: _Running) -> None:
        task = asyncio.ensure_future(running.context.__aenter__())
        while running.server.server.process is None and not task.done():
            await asyncio.sleep(POLL_SECONDS / 5)
        if running.server.server.process is not None:
            running.pid = running.server.server.process.pid
        await task

    def _await(self, running: _Running, work: Awaitable[Any], seconds: float, doing: str) -> Any:
        future = asyncio.run_coroutine_threadsafe(self._guarded(running, work, seconds, doing), self._event_loop())
        return future.result()

    async def _guarded(self, running: _Running, work: Awaitable[Any], seconds: float, doing: str) -> Any:
        """`work`, unless the server exits or the time limit passes first."""
        task = asyncio.ensure_future(work)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not task.done():
            process = running.server.server.process
            if process is not None and process.returncode is not None:
                task.cancel()
                raise ServerFailed(f"exited with code {process.returncode} during {doing}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                task.cancel()
                raise OutOfTime(f"did not {doing} within {seconds:g} s")
            await asyncio.wait({task}, timeout=min(POLL_SECONDS, remaining))
        try:
            return task.result()
        except Exception as error:
            raise ServerFailed(f"failed during {doing}: {type(error).__name__}: {error}") from error

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="refdoc-lsp", daemon=True)
            self._thread.start()
            atexit.register(self.close)
        return self._loop

    def _fail(self, running: _Running, reason: str) -> None:
        self._running.pop(running.spec.name, None)
        self._stop(running, graceful=False)
        self._give_up(running.spec, reason)

    def _give_up(self, spec: ServerSpec, reason: str, quiet: bool = False) -> None:
        self._unavailable.add(spec.name)
        line = f"language server {spec.name} {reason}; {', '.join(spec.languages)} files use the next tier"
        self.notices.append(line)
        log.log(logging.INFO if quiet else logging.WARNING, line)

    def _stop(self, running: _Running, graceful: bool) -> None:
        async def stop() -> None:
            if graceful:
                try:
                    await asyncio.wait_for(running.context.__aexit__(None, None, None), STOP_SECONDS)
                except BaseException:  # a server that will not stop is killed below
                    pass
            _kill_tree(running.pid)
            try:
                await asyncio.wait_for(running.server.server.stop(), STOP_SECONDS)
            except BaseException:
                pass

        if self._loop is None:
            _kill_tree(running.pid)
            return
        future = asyncio.run_coroutine_threadsafe(stop(), self._loop)
        try:
            future.result(timeout=3 * STOP_SECONDS)
        except Exception:
            _kill_tree(running.pid)


def _kill_tree(pid: int | None) -> None:
    if pid is None:
        return
    import psutil  # optional: multilspy's dependency, needed only once a language server ran

    try:
        process = psutil.Process(pid)
        children = process.children(recursive=True)
    except psutil.Error:
        return
    for member in (*children, process):
        try:
            member.kill()
        except psutil.Error:
            pass


async def _empty_answer(params: Any) -> Any:
    items = params.get("items") if isinstance(params, dict) else None
    return [None] * len(items) if isinstance(items, list) else None


def _quiet_logger():
    """multilspy's own logger prints a JSON line per step at INFO; this one keeps them
    at debug level under refdoc_site.indexing.lsp."""
    from multilspy.multilspy_logger import MultilspyLogger  # optional: only with language servers on

    class QuietLogger(MultilspyLogger):
        def __init__(self) -> None:
            self.logger = logging.getLogger("refdoc_site.indexing.lsp")

        def log(self, debug_message: str, level: int, sanitized_error_message: str = "") -> None:
            self.logger.debug("multilspy: %s", debug_message)

    return QuietLogger()


class LspAnalyzer:
    """The language-server tier: callees with their definitions, and isAsync where told."""

    name = LSP

    def __init__(
        self,
        repo: Path,
        servers: tuple[ServerSpec, ...] = SERVERS,
        install: bool = True,
        budget_seconds: float = 0,
        ask: str = "all",
        definition_names: Mapping[str, int] | None = None,
        config: Config | None = None,
    ) -> None:
        self.repo = repo.resolve()
        self.servers = servers
        self.pool = ServerPool(self.repo, servers, install)
        self.ask = ask
        """Which call sites the server is asked about (`ASK_POLICIES`)."""
        self.name = LSP if ask == "all" else f"{LSP}-{ask}"
        self.definition_names = definition_names
        """How many functions, methods and classes of the repository bear each name; found
        by chunking the repository on first use when a policy needs it and none is given."""
        self.config = config or Config()
        """The build's settings: which files count, for `definition_names`."""
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
            self.definition_names = repository_definition_names(self.repo, self.config)
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
        self, running: _Running, path: str, lines: list[str], chunks: list[Chunk], sites: dict[str, list[CallSite]]
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

    async def _async_flags(self, running: _Running, path: str, chunks: list[Chunk]) -> dict[str, bool]:
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
            metadata = Metadata(sources={"callees": LSP, "definitions": LSP})
            for site in sites[chunk.id]:
                locations = definitions.get((site.line, site.column))
                if locations is None:
                    continue
                known = metadata.definitions.setdefault(site.callee, [])
                known.extend(location for location in locations if location not in known)
            metadata.callees = list(metadata.definitions)
            if chunk.id in asynchronous:
                metadata.isAsync = asynchronous[chunk.id]
                metadata.sources["isAsync"] = LSP
            analysis.metadata[chunk.id] = metadata
        return analysis


ASK_POLICIES = {"all": 0, "linkable": 1, "ambiguous": 2}
"""Per policy, how many definitions of its name in the repository a call site needs for
the server to be asked about it. `linkable`: calls that could link to a chunk at all
(not builtins or libraries); `ambiguous`: calls that name matching cannot settle alone."""


def repository_definition_names(repo: Path, config: Config | None = None) -> Counter[str]:
    """How many functions, methods and classes of the repository bear each name."""
    config = config or Config()
    redactor = Redactor.from_config(config)
    names: Counter[str] = Counter()
    for source in discover(repo, config).files:
        try:
            chunks = chunk_file(source, read_text(repo, source.path, redactor).text, config.chunk_settings())
        except Exception:  # a file the index will skip and count is no candidate either
            continue
        names.update(c.name for c in chunks if c.kind in DEFINITION_KINDS and c.part <= 1)
    return names


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
        lsp = LspAnalyzer(repo, budget_seconds=config.lsp_budget, ask=config.lsp_ask, config=config)
        return MergedAnalyzer([lsp, SyntaxAnalyzer()])
    if mode == "only":
        return LspAnalyzer(repo, budget_seconds=config.lsp_budget, config=config)
    return SyntaxAnalyzer()
