"""Benchmark `refdoc-site serve` under abuse: pages served while slow requests and waits
for a rebuild hold connections, and what one hostile question or body costs.

    python benchmarks/serve_abuse.py [--slow 400] [--waits 40] [--seconds 15] [--reconnect]

The golden fixture (tests/fixtures/golden_repo) is built into a temporary folder and served
on a free loopback port, offline, by the same `Served` as `refdoc-site serve`, in this
process (so its threads are counted here). Everything stays on 127.0.0.1 and every loop
ends by itself after `--seconds`.

- **quiet**: pages fetched one after another for 3 s: how many, latency median and p90;
- **abused**: `--slow` connections send `GET / HTTP/1.0` and then a header line every
  second (slowloris; with `--reconnect` one closed by the server opens again), and
  `--waits` pages wait on `ask/changes`; meanwhile pages are fetched as in quiet, for
  `--seconds`: how many were served (200), refused (503), failed; the threads alive
  (most seen, and after the abuse ended);
- **hostile requests**: the seconds one question made of a 1000-letter token takes
  (Lunr's typo matching), and the status a body nested 30,000 deep and a `since` of
  5,000 digits get.

Run it against another checkout of refdoc-site with `PYTHONPATH=/that/checkout`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))

from refdoc_site.core.config import Config
from refdoc_site.core.workspace import Workspace
from refdoc_site.serving.answering import LibraryAnswering
from refdoc_site.serving.app import Served, ServeOptions

FIXTURE = HERE.parent / "tests" / "fixtures" / "golden_repo"
QUIET_SECONDS = 3.0
OURS: set[threading.Thread] = set()
"""The benchmark's own threads; every other one is the server's."""


def server_threads() -> int:
    return sum(1 for thread in threading.enumerate() if thread not in OURS)


def fetch(port: int, method: str = "GET", path: str = "/", body: bytes | None = None) -> tuple[int | str, float]:
    """(status or the error's name, seconds) of one request."""
    started = time.perf_counter()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body, headers)
        status = connection.getresponse().status
        connection.close()
    except (OSError, http.client.HTTPException) as error:
        status = type(error).__name__
    return status, time.perf_counter() - started


def pages_for(port: int, seconds: float) -> dict:
    """Pages fetched one after another for `seconds`: counts by status and latencies."""
    statuses: dict[str, int] = {}
    latencies = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        status, took = fetch(port)
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if status == 200:
            latencies.append(took)
        else:
            time.sleep(0.05)
    latencies.sort()
    return {
        "statuses": statuses,
        "median_ms": 1000 * statistics.median(latencies) if latencies else None,
        "p90_ms": 1000 * latencies[int(0.9 * (len(latencies) - 1))] if latencies else None,
    }


def slowloris(port: int, until: float, reconnect: bool, opened: list[int]) -> None:
    """One slow client: the request line, then a header line a second, until `until`."""
    connection = None
    while time.monotonic() < until:
        if connection is None:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=5)
                connection.sendall(b"GET / HTTP/1.0\r\n")
                opened[0] += 1
            except OSError:
                connection = None
                time.sleep(0.5)
                continue
        time.sleep(1.0)
        try:
            connection.sendall(b"X-Slow: a\r\n")
        except OSError:
            connection.close()
            connection = None
            if not reconnect:
                return
    if connection is not None:
        connection.close()


def held_wait(port: int, until: float) -> None:
    """One page waiting for a rebuild (ask/changes), again whenever it is answered."""
    while time.monotonic() < until:
        status, _ = fetch(port, path="/ask/changes?since=1")
        if status != 200:
            time.sleep(1.0)


def abused(port: int, slow: int, waits: int, seconds: float, reconnect: bool) -> dict:
    until = time.monotonic() + seconds
    opened = [0]
    clients = [threading.Thread(target=slowloris, args=(port, until, reconnect, opened), daemon=True) for _ in range(slow)]
    clients += [threading.Thread(target=held_wait, args=(port, until), daemon=True) for _ in range(waits)]
    most = [0]

    def count_threads() -> None:
        while time.monotonic() < until:
            most[0] = max(most[0], server_threads())
            time.sleep(0.1)

    counter = threading.Thread(target=count_threads, daemon=True)
    OURS.update(clients + [counter])
    for client in clients:
        client.start()
    time.sleep(1.0)
    counter.start()
    result = pages_for(port, max(0.0, until - time.monotonic()))
    for client in clients:
        client.join(70)
    counter.join(5)
    result["server_threads_most"] = most[0]
    result["slow_connections_opened"] = opened[0]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=400, help="slow (slowloris) connections (default 400)")
    parser.add_argument("--waits", type=int, default=40, help="pages waiting on ask/changes (default 40)")
    parser.add_argument("--seconds", type=float, default=15.0, help="how long the abuse lasts (default 15)")
    parser.add_argument("--reconnect", action="store_true", help="a slow client closed by the server opens again")
    args = parser.parse_args()
    if not 0 <= args.slow <= 2000 or not 0 <= args.waits <= 500 or not 1 <= args.seconds <= 120:
        parser.error("--slow 0..2000, --waits 0..500, --seconds 1..120")
    with tempfile.TemporaryDirectory() as work:
        repo = Path(work) / "shop"
        shutil.copytree(FIXTURE, repo)
        workspace = Workspace.create(repo, Config())
        options = ServeOptions(port=0, watch=False, per_minute=10_000, burst=10_000)
        served = Served(workspace, None, LibraryAnswering(workspace, None), options, say=lambda line: None)
        runner = threading.Thread(target=served.run, daemon=True)
        OURS.update({threading.current_thread(), runner})
        runner.start()
        port = served.server.port
        try:
            threads_before = server_threads()
            quiet = pages_for(port, QUIET_SECONDS)
            load = abused(port, args.slow, args.waits, args.seconds, args.reconnect)
            time.sleep(1.0)
            threads_after = server_threads()
            long_token, took = fetch(port, "POST", "/ask", json.dumps({"question": "aB" * 500}).encode())
            deep, _ = fetch(port, "POST", "/ask", b"[" * 30_000)
            since, _ = fetch(port, path="/ask/changes?since=" + "1" * 5000)
        finally:
            served.server.shutdown()
            runner.join(10)
    print(f"serve under abuse: {args.slow} slow connections{' (reconnecting)' if args.reconnect else ''}, "
          f"{args.waits} waits, {args.seconds:g} s; 2 shared cores, loaded by other sessions\n")
    rows = [
        ("quiet: pages served", f"{sum(quiet['statuses'].values())} ({quiet['statuses']})"),
        ("quiet: latency median / p90", f"{quiet['median_ms']:.1f} / {quiet['p90_ms']:.1f} ms"),
        ("abused: pages answered", f"{sum(load['statuses'].values())} ({load['statuses']})"),
        ("abused: latency median / p90 of 200s", "-" if load["median_ms"] is None else f"{load['median_ms']:.1f} / {load['p90_ms']:.1f} ms"),
        ("slow connections opened", str(load["slow_connections_opened"])),
        ("server threads: before / most during / after", f"{threads_before} / {load['server_threads_most']} / {threads_after}"),
        ("question of a 1000-letter token", f"{long_token} in {took:.2f} s"),
        ("body nested 30,000 deep", str(deep)),
        ("since of 5,000 digits", str(since)),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
