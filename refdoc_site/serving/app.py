"""`refdoc-site serve` put together: the site built (or reused), served, and rebuilt when the
repository changes; the Ask endpoint answers from the store the last build left."""

from __future__ import annotations

import argparse
import logging
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..core.errors import RefdocError
from ..core.processes import Terminated
from ..core.workspace import PUBLISHED_NAME, Workspace
from ..llm import LlmSession
from ..pipeline import build
from .limits import DEFAULT_BURST, DEFAULT_PER_MINUTE, RateLimiter
from .server import Answering, SiteServer, ip_address, is_loopback
from .watch import Watcher

log = logging.getLogger("refdoc_site")

HOST_NAME = re.compile(r"(?i)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")


@dataclass(frozen=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    allow_remote: bool = False
    """A host other than loopback is refused without it."""
    watch: bool = True
    build_first: bool = True
    """Build (incrementally) before serving; without, the site must have been built."""
    per_minute: float = DEFAULT_PER_MINUTE
    burst: int = DEFAULT_BURST
    allowed_names: tuple[str, ...] = ()
    """Host names requests may name the server by, beside its addresses (`--allow-host`)."""

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> ServeOptions:
        """The options `add_serve_arguments` parsed; a port or rate out of range is a one-line error."""
        if not 0 <= args.port <= 65535:
            raise RefdocError(f"--port {args.port}: not a port; pass 0 to 65535 (0: any free port)")
        if args.rate <= 0:
            raise RefdocError(f"--rate {args.rate:g}: must be more than 0 questions a minute")
        names = [name.strip() for given in args.allow_host for name in given.split(",") if name.strip()]
        for name in names:
            if ip_address(name) is None and not HOST_NAME.fullmatch(name):
                raise RefdocError(f"--allow-host {name!r}: not a host name or IP address; give the name the server is reached as, without port or scheme")
        if ip_address(args.host) is None and not is_loopback(args.host):
            names.append(args.host)  # a name to listen on is one to be reached as
        return cls(
            args.host, args.port, args.allow_remote, not args.no_watch, not args.no_build, args.rate,
            allowed_names=tuple(dict.fromkeys(names)),
        )


def add_serve_arguments(sub: argparse.ArgumentParser) -> None:
    """`refdoc-site serve`'s own options."""
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    sub.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0: any free port)")
    sub.add_argument("--allow-remote", action="store_true", help="allow a --host other than loopback: anyone who reaches it can ask")
    sub.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="a host name the server may be reached as (repeat, or a comma list); others get 421, so no page elsewhere can rebind its own name to this machine",
    )
    sub.add_argument("--no-build", action="store_true", help="serve the site as last built; do not build first")
    sub.add_argument("--no-watch", action="store_true", help="do not rebuild when the repository changes")
    sub.add_argument(
        "--rate", type=float, default=DEFAULT_PER_MINUTE, metavar="PER_MINUTE",
        help=f"questions a client may ask a minute (default {DEFAULT_PER_MINUTE:g}, after a burst of {DEFAULT_BURST})",
    )


def check_host(options: ServeOptions) -> str | None:
    """None on loopback; else the warning to print (refused without `allow_remote`)."""
    if is_loopback(options.host):
        return None
    if not options.allow_remote:
        raise RefdocError(
            f"--host {options.host}: not a loopback address; the Ask endpoint would answer anyone who "
            "reaches this machine: add --allow-remote to mean it (or keep the default 127.0.0.1)"
        )
    names = ", ".join(options.allowed_names)
    reached = f"an IP address or as {names}" if names else "an IP address (--allow-host NAME adds a name)"
    return (
        f"serve: warning: listening on {options.host}: anyone on a network that reaches this machine can read "
        f"the site and ask questions (spending the configured LLM's budget); it answers requests that name it by {reached}, "
        "so a web page elsewhere that points its own name at this machine gets 421"
    )


class Served:
    """The running server, its watcher, and the rebuild that ties them."""

    def __init__(
        self, workspace: Workspace, llm: LlmSession | None, answering: Answering, options: ServeOptions,
        say: Callable[[str], None] = print,
    ) -> None:
        self.workspace = workspace
        self.llm = llm
        self.answering = answering
        self.say = say
        try:  # the port first: a busy one is said before a build is spent
            self.server = SiteServer(
                options.host, options.port, workspace.out_dir, answering, RateLimiter(options.per_minute, options.burst), options.allowed_names,
            )
        except OSError as error:
            raise RefdocError(f"--port {options.port}: cannot listen on {options.host} ({error.strerror}); choose another port") from None
        try:
            if options.build_first:
                self._build()
            if not (workspace.out_dir / "index.html").is_file():
                raise RefdocError(f"{workspace.out_dir}: no site built there; run `refdoc-site build`, or serve without --no-build")
        except BaseException:
            self.server.close()
            raise
        self.watcher = None
        if options.watch:
            ignored = [workspace.store_dir, workspace.out_dir]
            self.watcher = Watcher(workspace.repo, ignored, self.rebuild)
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host = self.server.server_address[0]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.server.port}/"

    def banner(self) -> str:
        answers = "the LLM answers" if self.llm is not None else "answers are put together from the search results (no LLM configured)"
        return f"serve: {self.url} ({answers}; Ctrl-C stops)"

    def rebuild(self) -> bool:
        """Build again (incrementally); when the site changed, the answers come from the new
        store and open pages reload. Returns whether it changed."""
        with self._lock:
            before = self._published()
            try:
                self._build()
            except RefdocError as error:
                self.say(f"serve: rebuild failed: {error}")
                return False
            if self._published() == before:
                return False
            self.answering.reload()
            self.server.site_changed()
            self.say("serve: site rebuilt; open pages reload")
            return True

    def run(self, warning: str | None = None) -> None:
        """Say where it serves (and `warning`, on stderr), serve until interrupted (Ctrl-C,
        SIGTERM as `Terminated`), then stop watching, close and say so."""
        if warning:
            print(warning, file=sys.stderr, flush=True)
        self.say(self.banner())
        if self.watcher is not None:
            self.watcher.start()
        try:
            self.server.serve_forever(poll_interval=0.2)
        except (KeyboardInterrupt, Terminated):
            self.say("serve: stopped")
        finally:
            self.close()

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
        self.server.close()

    def _build(self) -> None:
        report = build(self.workspace, llm=self.llm)
        index = report.index
        self.say(f"serve: built: {index.files} files ({index.reprocessed} processed), {report.pages} pages")

    def _published(self) -> str:
        return self.workspace.record(PUBLISHED_NAME).inputs()
