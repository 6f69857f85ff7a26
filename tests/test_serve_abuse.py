"""`refdoc-site serve` under load and bad input, over real HTTP on loopback: malformed bodies
and `since` values answered 400, a lone surrogate answered, a request that trickles in
closed at its deadline, connections beyond the bound refused 503 at once with the threads
bounded, held waits for a rebuild never starving the pages, and the Host check kept off
loopback (the names given, and IP addresses)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from helpers import running
from test_serve import ask, request, served_shop, shop, shop_copy  # noqa: F401 (shop: the fixture)

from refdoc_site.cli import _parser, main
from refdoc_site.serving.app import ServeOptions, check_host
from refdoc_site.serving.slots import EVICT_AFTER_SECONDS, MAX_CONNECTIONS, MAX_WAITERS, ConnectionSlots
from refdoc_site.serving.server import SiteServer


def port_of(url: str) -> int:
    return int(re.search(r":(\d+)/", url).group(1))


def connect(url: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port_of(url)), timeout=30)


def reply_of(connection: socket.socket, seconds: float = 10.0) -> bytes:
    """What the server sent until it closed (or `seconds` passed)."""
    connection.settimeout(seconds)
    data = b""
    try:
        while chunk := connection.recv(65536):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def closed_by_server(connection: socket.socket, seconds: float) -> bool:
    """Whether the server closed `connection` (rather than `seconds` passing in silence)."""
    connection.settimeout(seconds)
    try:
        return connection.recv(65536) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_malformed_bodies_and_since_values_get_400_and_a_lone_surrogate_an_answer(shop) -> None:
    url = shop.url
    status, _, data = request(url, "POST", "/ask", b"[" * 30_000)  # RecursionError in json
    assert status == 400 and "not JSON" in json.loads(data)["error"]
    status, _, data = request(url, "POST", "/ask", b'{"question": "x", "history": ' + b"[" * 30_000 + b"]" * 30_000 + b"}")
    assert status == 400
    for since in ("%C2%B2", "1" * 5000, "-1", "1e3", ""):
        status, _, data = request(url, path=f"/ask/changes?since={since}")
        assert status == 400 and "since=EPOCH" in json.loads(data)["error"], since
    body = b'{"question": "how is a user deleted? \\ud800", "history": [{"question": "\\udfff", "answer": "a\\ud83d"}]}'
    status, _, data = request(url, "POST", "/ask", body)
    events = [json.loads(line) for line in data.decode().splitlines()]
    assert status == 200 and events[-1]["type"] == "answer", events[-1]


def test_a_request_that_trickles_in_is_closed_at_its_deadline(shop, monkeypatch) -> None:
    """Slowloris: a header line every 0.2 s never lets the socket's idle timeout fire; the
    deadline for the whole request does."""
    monkeypatch.setattr(shop.server, "request_deadline", 1.0)
    connection = connect(shop.url)
    started = time.monotonic()
    closed_after = None
    try:
        connection.sendall(b"GET / HTTP/1.0\r\n")
        for number in range(40):  # 8 s at most
            time.sleep(0.2)
            try:
                connection.sendall(b"X-Slow-%d: a\r\n" % number)
            except OSError:
                closed_after = time.monotonic() - started
                break
            connection.settimeout(0.01)
            try:
                if connection.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                pass
    finally:
        connection.close()
    assert closed_after is not None and closed_after < 4.0, closed_after
    assert request(shop.url, path="/")[0] == 200


def test_connections_beyond_the_bound_get_503_at_once_and_threads_stay_bounded(shop, monkeypatch) -> None:
    monkeypatch.setattr(shop.server, "slots", ConnectionSlots(connections=8, waiters=2))
    monkeypatch.setattr(shop.server, "request_deadline", 2.0)
    before = threading.active_count()
    with ExitStack() as stack:
        idle = [stack.enter_context(connect(shop.url)) for _ in range(20)]  # send nothing
        time.sleep(0.5)
        grown = threading.active_count() - before
        status, headers, data = request(shop.url, path="/")
        refused = [reply_of(connection, 1.0) for connection in idle[8:]]
        assert grown <= 8, f"{grown} threads for 20 idle connections"
        assert status == 503 and headers["Retry-After"] and "busy" in json.loads(data)["error"]
        assert all(reply.startswith(b"HTTP/1.0 503 ") for reply in refused), refused
        deadline = time.monotonic() + 6
        while request(shop.url, path="/")[0] != 200:  # the idle ones are closed at their deadline
            assert time.monotonic() < deadline, "pages were not served again after the deadline"
            time.sleep(0.2)


def test_held_waits_for_a_rebuild_never_starve_the_pages(tmp_path: Path) -> None:
    """MAX_WAITERS pages waiting on ask/changes and more trickling requests than waiters:
    the next wait is told to come back, pages and questions are still answered."""
    with running(served_shop(shop_copy(tmp_path))) as url, ExitStack() as stack:
        waits = [stack.enter_context(connect(url)) for _ in range(MAX_WAITERS)]
        for connection in waits:
            connection.sendall(b"GET /ask/changes?since=1 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        slow = [stack.enter_context(connect(url)) for _ in range(MAX_CONNECTIONS // 2)]
        for connection in slow:
            connection.sendall(b"GET / HTTP/1.0\r\n")
        time.sleep(0.5)
        status, headers, _ = request(url, path="/ask/changes?since=1")
        assert status == 503 and headers["Retry-After"] == "5"
        assert [request(url, path="/")[0] for _ in range(10)] == [200] * 10
        assert ask(url, "how is a user deleted?")[0] == 200


def test_off_loopback_only_addresses_and_the_names_given_are_answered(tmp_path: Path) -> None:
    """DNS rebinding: a page elsewhere points its own name at this machine, so its requests
    name it as Host; off loopback only an IP address or a name the operator gave passes."""
    site = tmp_path / "site"
    site.mkdir()
    server = SiteServer("127.0.0.1", 0, site, answering=None, allowed_names=["docs.lan"])
    try:
        server.loopback_only = False  # the rule of a server listening on 0.0.0.0, tried on loopback
        for host in ("docs.lan:8000", "DOCS.LAN", "192.168.1.5:8000", "[fe80::1]:8000", "127.0.0.1:8000", "localhost"):
            assert server.host_allowed(host), host
        for host in ("rebind.attacker.example:8000", "docs.lan.", "evil.example@docs.lan", "0.0.0.0:8000", "[::]:80", "[::1", "[::1]evil.example",
                     "docs.lan:80:80", "", None):
            assert not server.host_allowed(host), host
        server.loopback_only = True
        assert server.host_allowed("docs.lan") and not server.host_allowed("192.168.1.5")
    finally:
        server.server_close()


def test_a_name_given_with_allow_host_is_answered_on_loopback_too(shop, monkeypatch) -> None:
    port = port_of(shop.url)
    assert request(shop.url, path="/", headers={"Host": f"docs.lan:{port}"})[0] == 421
    monkeypatch.setattr(shop.server, "allowed_names", frozenset({"docs.lan"}))
    assert request(shop.url, path="/", headers={"Host": f"docs.lan:{port}"})[0] == 200
    body = json.dumps({"question": "delete user"}).encode()
    headers = {"Host": f"docs.lan:{port}", "Origin": f"http://docs.lan:{port}"}
    assert request(shop.url, "POST", "/ask", body, headers)[0] == 200


def test_allow_host_is_checked_and_the_warning_says_how_the_server_must_be_named(tmp_path: Path, capsys) -> None:
    repo = shop_copy(tmp_path)
    assert main(["serve", str(repo), "--host", "0.0.0.0", "--allow-remote", "--allow-host", "https://docs.lan/", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--allow-host 'https://docs.lan/'" in err
    warning = check_host(ServeOptions(host="0.0.0.0", allow_remote=True, allowed_names=("docs.lan",)))
    assert "docs.lan" in warning and "IP address" in warning
    assert "--allow-host" in check_host(ServeOptions(host="0.0.0.0", allow_remote=True))


def test_one_address_off_loopback_cannot_take_every_slot_and_a_wait_frees_its_own() -> None:
    slots = ConnectionSlots(connections=4, waiters=1, per_client=2)
    sockets = [socket.socketpair()[0] for _ in range(10)]
    remote = [slots.take("192.0.2.7", sockets[0]), slots.take("192.0.2.7", sockets[1])]
    assert None not in remote and slots.take("192.0.2.7", sockets[2]) is None
    local = [slots.take("127.0.0.1", sockets[3]), slots.take("127.0.0.1", sockets[4])]  # loopback's are not counted per client
    assert None not in local and slots.take("198.51.100.1", sockets[5]) is None  # all 4 taken, none slow enough to give way
    assert remote[0].to_waiter() and remote[0].to_waiter()  # a wait no longer counts as a connection
    assert not remote[1].to_waiter()  # the one waiter's slot is taken: it keeps its connection
    again = slots.take("192.0.2.7", sockets[6])
    assert again is not None and slots.take("192.0.2.7", sockets[7]) is None
    for slot in (*remote, *local, again):
        slot.release()
        slot.release()  # once only
    assert [slots.take("192.0.2.7", sockets[8 + n % 2]) is not None for n in range(3)] == [True, True, False]


def test_slow_requests_give_way_to_a_page_when_every_slot_is_taken(shop, monkeypatch) -> None:
    """Every slot held by a request trickling in (its deadline far off): a new page cuts the
    slowest one instead of getting 503; the others are left alone."""
    monkeypatch.setattr(shop.server, "slots", ConnectionSlots(connections=4, waiters=2))
    monkeypatch.setattr(shop.server, "request_deadline", 60.0)
    with ExitStack() as stack:
        slow = [stack.enter_context(connect(shop.url)) for _ in range(4)]
        for connection in slow:
            connection.sendall(b"GET / HTTP/1.0\r\n")
        time.sleep(EVICT_AFTER_SECONDS + 0.3)
        assert [request(shop.url, path="/")[0] for _ in range(3)] == [200, 200, 200]
        cut = [closed_by_server(connection, 0.5) for connection in slow]
        assert 1 <= cut.count(True) < len(slow), cut


def test_allow_host_takes_names_repeated_or_listed_and_the_name_listened_on() -> None:
    args = _parser().parse_args(["serve", ".", "--host", "docs.internal", "--allow-remote", "--allow-host", "docs.lan, build-box", "--allow-host", "10.0.0.5"])
    assert ServeOptions.from_arguments(args).allowed_names == ("docs.lan", "build-box", "10.0.0.5", "docs.internal")
    assert ServeOptions.from_arguments(_parser().parse_args(["serve", ".", "--host", "0.0.0.0"])).allowed_names == ()
