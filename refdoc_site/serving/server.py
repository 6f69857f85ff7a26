"""The HTTP server of `refdoc-site serve`: the standard library's `HTTPServer` with a thread a
connection, as many as `slots.py` allows (one more is answered 503 at once), each given
`REQUEST_DEADLINE_SECONDS` to send its whole request however slowly it trickles in; HTTP/1.0,
so a streamed answer ends when its connection closes.

It answers, and nothing else:

- `GET` a file of the built site (static.py); an HTML page carries the header
  `Server-Timing: refdoc-serve;desc="EPOCH"`, which the page reads without a request: a site
  served statically has no such header, so it never probes the endpoint;
- `GET ask/health`: `{"mode", "maxQuestionChars", "epoch"}`, the Ask panel's probe;
- `POST ask` with `{"question", "history"}`: the answer as newline-delimited JSON events,
  `{"type": "text", "text"}` pieces as they are produced, then `{"type": "answer", "answer"}`
  (the sources with their site links, the citations and what was flagged), or `{"type":
  "error", "message"}`;
- `GET ask/changes?since=EPOCH`: waits (up to 25 s) until a rebuild changed the site, then
  `{"epoch"}`, so an open page reloads itself.

A request whose `Host` is not one the server answers for (a page elsewhere resolving its own
name to this machine: DNS rebinding) or whose `Origin` is another site's is refused (421,
403). On loopback it answers for loopback names and addresses; listening elsewhere, for an IP
address too (a rebinding page has a name, not our address) and the names `--allow-host`
gave. An ask must be `application/json`, so another site's page cannot send one without a
preflight this server never grants.
"""

from __future__ import annotations

import io
import ipaddress
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, urlsplit

from .limits import AskRequest, RateLimiter, Refused, ask_request, body_length, since_epoch
from .slots import ConnectionSlots, Slot
from .static import content_type, site_file

log = logging.getLogger("refdoc_site")

ASK_PATH = "/ask"
HEALTH_PATH = "/ask/health"
CHANGES_PATH = "/ask/changes"
SERVED_METRIC = "refdoc-serve"
CHANGES_WAIT_SECONDS = 25.0
SOCKET_TIMEOUT_SECONDS = 60.0
"""A client that reads nothing of its answer for this long is dropped (its thread freed)."""
REQUEST_DEADLINE_SECONDS = 10.0
"""A connection whose request (line, headers, body) has not all arrived this long after it was
accepted is closed: a client sending a byte now and then (slowloris) holds a slot no longer."""
BUSY = json.dumps({"error": "the server is busy; try again in a moment"}).encode("utf-8")
BUSY_RESPONSE = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 2\r\n"
    b"Cache-Control: no-store\r\nConnection: close\r\nContent-Length: " + str(len(BUSY)).encode() + b"\r\n\r\n" + BUSY
)
HOST_HEADER = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^\[\]:]+)(?::[0-9]{1,5})?")
DRAIN_LIMIT = 1024 * 1024
"""A refused body up to this size is read and dropped, so the client reads the refusal."""


class Answering(Protocol):
    """What `POST ask` calls: the question answered, its text passed to `on_text` in pieces;
    returns the answer as JSON data. May raise `Refused` before the first piece."""

    mode: str
    max_question_chars: int

    def __call__(self, request: AskRequest, on_text: Callable[[str], None]) -> dict: ...

    def reload(self) -> None:
        """A rebuild changed the store: answer from the new one."""


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    address = ip_address(host)
    return address is not None and address.is_loopback


def ip_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`host` as an IP address (an IPv6 one with or without its brackets), or None."""
    try:
        return ipaddress.ip_address(host[1:-1] if host.startswith("[") and host.endswith("]") else host)
    except ValueError:
        return None


def host_name(host_header: str) -> str:
    """A `Host` header without its port: `a.example:8000` → `a.example`, `[::1]:80` → `[::1]`;
    "" when it is not a name or bracketed address with an optional port."""
    found = HOST_HEADER.fullmatch(host_header)
    return found[1] if found else ""


class SiteServer(HTTPServer):
    request_queue_size = 128
    """Connections waiting to be accepted (the standard library's 5 resets a page's burst)."""
    request_deadline = REQUEST_DEADLINE_SECONDS

    def __init__(
        self, host: str, port: int, site_dir: Path, answering: Answering, limiter: RateLimiter | None = None,
        allowed_names: Iterable[str] = (), slots: ConnectionSlots | None = None,
    ) -> None:
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host.strip("[]"), port), Handler)
        self.site_dir = site_dir
        self.answering = answering
        self.limiter = limiter or RateLimiter()
        self.slots = slots or ConnectionSlots()
        self.loopback_only = is_loopback(host)
        self.allowed_names = frozenset(name.lower() for name in allowed_names)
        """Host names (without port) answered for beside loopback's and, off loopback, IP addresses."""
        self.epoch = 1
        self.closing = False
        self._changed = threading.Condition()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def site_changed(self) -> None:
        """A rebuild changed the site: open pages are told to reload."""
        with self._changed:
            self.epoch += 1
            self._changed.notify_all()

    def wait_for_change(self, since: int, timeout: float, slot: Slot) -> int:
        """The epoch once it is no longer `since` (or after `timeout`); the connection waits in
        a waiter's slot, so that waits never leave pages unserved."""
        if not slot.to_waiter():
            raise Refused(503, "too many pages are waiting for a rebuild", {"Retry-After": "5"})
        with self._changed:
            self._changed.wait_for(lambda: self.epoch != since or self.closing, timeout)
            return self.epoch

    def process_request(self, request: socket.socket, client_address) -> None:
        """A thread for the connection when a slot is free; else 503 at once, from here."""
        slot = self.slots.take(client_address[0], request)
        if slot is None:
            self._turn_away(request)
            return
        try:
            threading.Thread(target=self._serve, args=(request, client_address, slot), daemon=True).start()
        except RuntimeError:  # the system gives no more threads
            slot.release()
            self._turn_away(request)

    def _serve(self, request: socket.socket, client_address, slot: Slot) -> None:
        try:
            Handler(request, client_address, self, slot)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            slot.release()
            self.shutdown_request(request)

    def _turn_away(self, request: socket.socket) -> None:
        """The busy answer, written without waiting (it fits an empty socket buffer); what the
        client sent already is read first, so that closing does not reset the answer away."""
        try:
            request.setblocking(False)
            try:
                request.recv(64 * 1024)
            except OSError:
                pass
            request.sendall(BUSY_RESPONSE)
        except OSError:
            pass
        self.shutdown_request(request)

    def close(self) -> None:
        """Stop accepting; pages waiting for a rebuild are answered at once."""
        with self._changed:
            self.closing = True
            self._changed.notify_all()
        self.server_close()

    def handle_error(self, request, client_address) -> None:
        """A page closed before its answer ended drops the connection: not an error."""
        log.info("serve: a connection from %s ended early", client_address[0])

    def host_allowed(self, host_header: str | None) -> bool:
        """Whether a request naming `host_header` is one for this server: a loopback name or
        address, a name the operator gave, or (off loopback) an IP address that is not
        0.0.0.0 or `::`; never a name a web page elsewhere could point at this machine."""
        if not host_header:
            return False
        name = host_name(host_header)
        if is_loopback(name) or name.lower() in self.allowed_names:
            return True
        address = None if self.loopback_only else ip_address(name)
        return address is not None and not address.is_unspecified


class RequestReader(socket.SocketIO):
    """A connection's bytes, all read by `deadline` (monotonic seconds) however slowly they
    come: each read waits only for the time left."""

    def __init__(self, connection: socket.socket, deadline: float) -> None:
        super().__init__(connection, "rb")
        self.deadline = deadline

    def readinto(self, buffer) -> int | None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self._sock.settimeout(min(left, SOCKET_TIMEOUT_SECONDS))
        return super().readinto(buffer)


class Handler(BaseHTTPRequestHandler):
    server: SiteServer
    server_version = "refdoc-site"
    sys_version = ""
    timeout = SOCKET_TIMEOUT_SECONDS

    def __init__(self, request: socket.socket, client_address, server: SiteServer, slot: Slot) -> None:
        self.slot = slot
        super().__init__(request, client_address, server)

    def setup(self) -> None:
        super().setup()
        self.rfile.close()
        self.rfile = io.BufferedReader(RequestReader(self.connection, time.monotonic() + self.server.request_deadline))

    def log_message(self, format: str, *args) -> None:
        log.info("serve: " + format, *args)

    def do_HEAD(self) -> None:
        self._request_read()
        self._get(send_body=False)

    def do_GET(self) -> None:
        self._request_read()
        self._get(send_body=True)

    def do_POST(self) -> None:
        body_read = False
        try:
            self._check_caller()
            if urlsplit(self.path).path != ASK_PATH:
                raise Refused(404, "only POST ask is answered")
            self.server.limiter.take(self.client_address[0])
            length = body_length(self.headers.get("Content-Length"))
            if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
                raise Refused(415, "send the question as application/json")
            body, body_read = self.rfile.read(length), True
            self._request_read()
            request = ask_request(body, self.server.answering.max_question_chars)
        except Refused as refused:
            if not body_read:
                self._drain()
            self._request_read()
            self._refuse(refused)
            return
        self._stream_answer(request)

    # --- GET ---------------------------------------------------------------------------

    def _get(self, send_body: bool) -> None:
        split = urlsplit(self.path)
        try:
            self._check_caller()
            if split.path == HEALTH_PATH:
                answering = self.server.answering
                health = {"mode": answering.mode, "maxQuestionChars": answering.max_question_chars, "epoch": self.server.epoch}
                self._send_json(200, health, send_body)
            elif split.path == CHANGES_PATH:
                since = since_epoch(parse_qs(split.query).get("since", [""])[0])
                epoch = self.server.wait_for_change(since, CHANGES_WAIT_SECONDS, self.slot)
                self._send_json(200, {"epoch": epoch}, send_body)
            elif split.path.startswith(ASK_PATH + "/") or split.path == ASK_PATH:
                raise Refused(404, "not an endpoint: ask/health, POST ask, ask/changes")
            else:
                self._send_file(split.path, split.query, send_body)
        except Refused as refused:
            self._refuse(refused, send_body)

    def _send_file(self, path: str, query: str, send_body: bool) -> None:
        found = site_file(self.server.site_dir, path)
        if found is not None and found.redirect:
            self.send_response(301)
            self.send_header("Location", found.redirect + (f"?{query}" if query else ""))
            self.send_header("Content-Length", "0")
            self._common_headers()
            self.end_headers()
            return
        status = 200
        if found is None:
            status, found = 404, site_file(self.server.site_dir, "/404.html")
        try:
            stat = found.path.stat() if found is not None and found.path is not None else None
            # A page is always sent whole: its Server-Timing mark must come with it.
            html = stat is not None and content_type(found.path).startswith("text/html")
            tag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"' if stat and not html else ""
            if status == 200 and tag and self.headers.get("If-None-Match") == tag:
                self.send_response(304)
                self.send_header("ETag", tag)
                self._common_headers()
                self.end_headers()
                return
            data = found.path.read_bytes() if stat else b""
        except OSError:  # a rebuild swapped the folder while it was read
            data = b""
        if not data:
            self._refuse(Refused(404, "not found"), send_body)
            return
        kind = content_type(found.path)
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        if status == 200 and tag:
            self.send_header("ETag", tag)
        if kind.startswith("text/html"):
            self.send_header("Server-Timing", f'{SERVED_METRIC};desc="{self.server.epoch}"')
        self._common_headers()
        self.end_headers()
        if send_body:
            self.wfile.write(data)

    # --- POST ask --------------------------------------------------------------------------

    def _stream_answer(self, request: AskRequest) -> None:
        started = False

        def event(data: dict) -> None:
            nonlocal started
            if not started:
                started = True
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
                self.send_header("Connection", "close")
                self._common_headers(cache="no-store")
                self.end_headers()
            self.wfile.write(json.dumps(data, ensure_ascii=False).encode("utf-8") + b"\n")

        try:
            answer = self.server.answering(request, lambda piece: event({"type": "text", "text": piece}))
            event({"type": "answer", "answer": answer})
        except Refused as refused:
            if started:
                event({"type": "error", "message": refused.message})
            else:
                self._refuse(refused)
        except OSError:  # the page went away mid-answer
            log.info("serve: an answer was cut: its page went away")
        except Exception as error:  # the answer failed: said in one line, with no detail of the machine
            log.warning("serve: an answer failed (%s)", type(error).__name__)
            try:
                event({"type": "error", "message": "the answer failed; the server's output says more"})
            except OSError:
                pass

    # --- shared ------------------------------------------------------------------------------

    def _request_read(self) -> None:
        """The request is in: the answer may take its time (the deadline was for the request),
        and the connection no longer gives way to a new one."""
        self.connection.settimeout(SOCKET_TIMEOUT_SECONDS)
        self.slot.request_read()

    def _check_caller(self) -> None:
        if not self.server.host_allowed(self.headers.get("Host")):
            raise Refused(421, "this server does not answer for that host name; its operator can allow one with --allow-host")
        origin = self.headers.get("Origin")
        if origin and origin != "null" and urlsplit(origin).netloc != (self.headers.get("Host") or ""):
            raise Refused(403, "requests from another site are refused")

    def _drain(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return
        if 0 < length <= DRAIN_LIMIT:
            self.rfile.read(length)

    def _refuse(self, refused: Refused, send_body: bool = True) -> None:
        self.close_connection = True
        self._send_json(refused.status, {"error": refused.message}, send_body, refused.headers)

    def _send_json(self, status: int, data: dict, send_body: bool = True, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self._common_headers(cache="no-store")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _common_headers(self, cache: str = "no-cache") -> None:
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
