"""Benchmark `refdoc-site serve` on real code: start, rebuild after a change, and answers.

    python benchmarks/serve_bench.py [--corpus click] [--changes 3] [--questions 20]

The corpus (fetched as benchmarks/run.py does, into benchmarks/.cache/) is copied into a
temporary folder and served on a free loopback port, offline (extractive answers), as
`refdoc-site serve` serves it (the same `Served`, in this process). Measured, wall time:

- **start**: from nothing to serving (the full build), then again on the built store
  (the no-change rebuild a second `serve` runs first);
- **change → page**: a function appended to one file, until its file page, fetched every
  50 ms, shows it (watcher quiet time, incremental build, publish swap); and until
  `ask/changes` reports the new epoch (what makes an open page reload);
- **ask**: each of the first N labelled queries of the corpus's set (`benchmarks/eval/`)
  posted to `POST ask`, read as it streams: time to the first text piece and to the end,
  median and 90th percentile; and the share of answers whose streamed pieces were more than
  one (the answer streamed, rather than sent whole).
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from run import CORPORA, DEFAULT_CACHE, _table, fetch_all

from refdoc_site.core.config import Config
from refdoc_site.core.pages import file_page, page_url
from refdoc_site.core.workspace import Workspace
from refdoc_site.serving.answering import LibraryAnswering
from refdoc_site.serving.app import Served, ServeOptions

CHANGED_FILE = {"click": "click/utils.py", "httpx": "httpx/_utils.py"}
MARKER = '\n\ndef _serve_bench_marker_{n}(value: int) -> int:\n    """Return the value doubled (added by the serve benchmark)."""\n    return value * 2\n'


def serving(repo: Path) -> tuple[Served, float]:
    """A server for `repo` (its build included) and the seconds it took to be ready."""
    started = time.perf_counter()
    workspace = Workspace.create(repo, Config())
    options = ServeOptions(port=0, watch=True, per_minute=10_000, burst=10_000)
    served = Served(workspace, None, LibraryAnswering(workspace, None), options, say=lambda line: None)
    return served, time.perf_counter() - started


def get(port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def ask(port: int, question: str) -> tuple[float, float, int]:
    """(seconds to the first text piece, seconds to the end, pieces) of one streamed answer."""
    body = json.dumps({"question": question, "history": []}).encode()
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("POST", "/ask", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    if response.status != 200:
        raise SystemExit(f"benchmark: POST ask answered {response.status}: {response.read()!r}")
    first, pieces = None, 0
    for line in response:
        event = json.loads(line)
        if event["type"] == "text":
            pieces += 1
            first = first if first is not None else time.perf_counter() - started
        elif event["type"] == "error":
            raise SystemExit(f"benchmark: the answer failed: {event['message']}")
    connection.close()
    total = time.perf_counter() - started
    return (first if first is not None else total), total, pieces


def measure_change(served: Served, repo: Path, changed: str, n: int) -> tuple[float, float]:
    """Seconds from appending a function to `changed` until its page shows it, and until
    `ask/changes` reports a new epoch."""
    port = served.server.port
    page = "/" + page_url(file_page(changed))
    epoch = served.server.epoch
    name = f"_serve_bench_marker_{n}"
    started = time.perf_counter()
    with (repo / changed).open("a", encoding="utf-8") as source:
        source.write(MARKER.format(n=n))
    holder: dict[str, float] = {}

    def wait_for_epoch() -> None:
        get(port, f"/ask/changes?since={epoch}")
        holder["epoch"] = time.perf_counter() - started

    waiter = threading.Thread(target=wait_for_epoch)
    waiter.start()
    while True:
        status, body = get(port, page)
        if status == 200 and name.encode() in body:
            break
        if time.perf_counter() - started > 300:
            raise SystemExit(f"benchmark: {page} never showed {name}")
        time.sleep(0.05)
    shown = time.perf_counter() - started
    waiter.join(120)
    return shown, holder.get("epoch", float("nan"))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="click", choices=sorted(CHANGED_FILE))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--changes", type=int, default=3, help="changes to time (default 3)")
    parser.add_argument("--questions", type=int, default=20, help="labelled queries to ask (default 20)")
    args = parser.parse_args()
    info = fetch_all([args.corpus], args.cache)[args.corpus]
    queries = [json.loads(line)["query"] for line in (HERE / "eval" / f"{args.corpus}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = queries[: args.questions]
    rows = []
    with tempfile.TemporaryDirectory() as temporary:
        repo = Path(temporary) / args.corpus
        shutil.copytree(args.cache / f"corpus-{CORPORA[args.corpus].name}", repo)
        served, cold = serving(repo)
        served.server.close()
        served, warm = serving(repo)
        rows.append(["start, empty store (full build)", f"{cold:.2f} s", "1"])
        rows.append(["start, built store (no-change rebuild)", f"{warm:.2f} s", "1"])
        thread = threading.Thread(target=served.run, daemon=True)
        thread.start()
        try:
            port = served.server.port
            changes = [measure_change(served, repo, CHANGED_FILE[args.corpus], n) for n in range(args.changes)]
            answers = [ask(port, query) for query in queries]
        finally:
            served.server.shutdown()
            thread.join(30)
    shown = [c[0] for c in changes]
    told = [c[1] for c in changes]
    rows.append(["change → file page shows it (median)", f"{statistics.median(shown):.2f} s", str(len(shown))])
    rows.append(["change → ask/changes new epoch (median)", f"{statistics.median(told):.2f} s", str(len(told))])
    firsts = [a[0] for a in answers]
    totals = [a[1] for a in answers]
    rows.append(["ask: first text piece (median / p90)", f"{statistics.median(firsts) * 1000:.0f} / {percentile(firsts, 0.9) * 1000:.0f} ms", str(len(answers))])
    rows.append(["ask: whole answer (median / p90)", f"{statistics.median(totals) * 1000:.0f} / {percentile(totals, 0.9) * 1000:.0f} ms", str(len(answers))])
    streamed = sum(1 for a in answers if a[2] > 1)
    rows.append(["ask: answers streamed in more than one piece", f"{streamed}/{len(answers)}", str(len(answers))])
    print()
    print(f"== refdoc-site serve on {info['name']} {info['version']} (extractive answers, loopback)")
    print(_table(["measure", "value", "runs"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
