"""The language servers' process manager for the language-server tier (lsp.py).

`ServerPool` starts each server of `languages.servers` the first time a file of its
language arrives, reuses it for every later file, holds every request to the server's
time limits and always stops it (on `close()`, at exit, and at once when it fails). A
server that is missing, fails to start, hangs or crashes costs at most its time limit; it
is then noticed in one log line and its files are left to the next tiers.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..languages.servers import SERVERS, ServerSpec, find_binary

log = logging.getLogger("refdoc_site")

POLL_SECONDS = 0.05
STOP_SECONDS = 5.0
"""How long a healthy server gets to shut down before it is killed."""


class ServerFailed(Exception):
    """A language server did not start, did not answer in time, or exited."""


class OutOfTime(ServerFailed):
    """A language server did not answer within the time it was given."""


@dataclass
class RunningServer:
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
    _running: dict[str, RunningServer] = field(default_factory=dict)
    _unavailable: set[str] = field(default_factory=set)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None

    def server(self, spec: ServerSpec) -> RunningServer | None:
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

    def request(self, running: RunningServer, work: Callable[[], Awaitable[Any]], seconds: float | None = None) -> Any:
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

    def _create(self, spec: ServerSpec, binary: str) -> RunningServer | None:
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
        return RunningServer(spec, server, server.start_server())

    async def _start(self, running: RunningServer) -> None:
        task = asyncio.ensure_future(running.context.__aenter__())
        while running.server.server.process is None and not task.done():
            await asyncio.sleep(POLL_SECONDS / 5)
        if running.server.server.process is not None:
            running.pid = running.server.server.process.pid
        await task

    def _await(self, running: RunningServer, work: Awaitable[Any], seconds: float, doing: str) -> Any:
        future = asyncio.run_coroutine_threadsafe(self._guarded(running, work, seconds, doing), self._event_loop())
        return future.result()

    async def _guarded(self, running: RunningServer, work: Awaitable[Any], seconds: float, doing: str) -> Any:
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

    def _fail(self, running: RunningServer, reason: str) -> None:
        self._running.pop(running.spec.name, None)
        self._stop(running, graceful=False)
        self._give_up(running.spec, reason)

    def _give_up(self, spec: ServerSpec, reason: str, quiet: bool = False) -> None:
        self._unavailable.add(spec.name)
        line = f"language server {spec.name} {reason}; {', '.join(spec.languages)} files use the next tier"
        self.notices.append(line)
        log.log(logging.INFO if quiet else logging.WARNING, line)

    def _stop(self, running: RunningServer, graceful: bool) -> None:
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
    # optional: only with language servers on
    from multilspy.multilspy_logger import MultilspyLogger

    class QuietLogger(MultilspyLogger):
        def __init__(self) -> None:
            self.logger = logging.getLogger("refdoc_site.indexing.lsp")

        def log(self, debug_message: str, level: int, sanitized_error_message: str = "") -> None:
            self.logger.debug("multilspy: %s", debug_message)

    return QuietLogger()
