"""Benchmark the site's in-browser search: payload size, time to first answer, query latency.

    python benchmarks/search_bench.py [--corpora click,httpx,django] [--cache DIR] [--runs N]

For each corpus (fetched by run.py's helpers into the same cache) the benchmark builds
the site with MkDocs into a temporary folder, serves it from 127.0.0.1 under a sub-path,
and reports:

1. the search payload the page loads, raw and gzipped (level 9), per file and in total,
   projected to 10,000 chunks;
2. in headless Chromium (Debian's /usr/bin/chromium, never a downloaded one): the time
   from navigation start to the first result list after typing a query right after the
   load event, the worker's own data-load time, and the per-query round trip of a second
   worker created in the page with Material's protocol, p50/p95;
3. the same queries through the Python CLI ranking, p50/p95, for comparison.

Every request the page and its workers make is counted; any that does not go to
127.0.0.1 fails the run. See benchmarks/README.md for how to read the tables.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import logging
import os
import posixpath
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from helpers import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402
from run import CORPORA, DEFAULT_CACHE, _table, fetch_all  # noqa: E402

SUB_PATH = "pr-bench"
QUERY_FILES = (
    Path("/work/shared/eval/click.jsonl"),
    HERE / "eval" / "requests.jsonl",
    HERE / "eval" / "koa.jsonl",
)
FIRST_QUERY = {
    "click": "parse command line options",
    "httpx": "send a request with a timeout",
    "django": "validate a form field",
}
"""Typed into the search box right after the load event, per corpus."""
DEFAULT_FIRST_QUERY = "read the configuration"

DATA_DIR = "search/refdoc"
SCRIPTS_DIR = "assets/refdoc"
TARGET_CHUNKS = 10_000
PAYLOAD_TARGET_BYTES = 8_000_000
"""Whole search payload, gzipped, projected to TARGET_CHUNKS chunks (MB = 10^6 bytes)."""
LATENCY_TARGET_MS = 50.0
"""p95 of the in-browser query round trip at TARGET_CHUNKS chunks."""
WARMUP_QUERIES = 10
"""Queries run once, untimed, before the timed pass (JIT and caches warm)."""
FIRST_RESULT_TIMEOUT_MS = 180_000
QUERY_TIMEOUT_MS = 30_000

WATCH_SCRIPT = r"""
(() => {
  const bench = { workers: [], firstKey: null, lastKey: null, firstResultDom: null };
  window.__searchBench = bench;
  const NativeWorker = window.Worker;
  bench.NativeWorker = NativeWorker;
  // Material creates its search worker with `new Worker(url)`; time its messages.
  class TimedWorker extends NativeWorker {
    constructor(url, options) {
      super(url, options);
      const record = { url: String(url), created: performance.now(), setup: null, ready: null,
                       firstQuery: null, firstQueryText: null, firstResult: null, queries: 0,
                       posted: [], answers: [] };
      bench.workers.push(record);
      this.__record = record;
      this.addEventListener("message", (event) => {
        const now = performance.now();
        const type = event.data && event.data.type;
        if (type === 1 && record.ready === null) record.ready = now;
        // The first answer with results (Material also sends the empty query on ready).
        const items = event.data && event.data.data && event.data.data.items;
        if (type === 3 && record.firstResult === null && items && items.length) record.firstResult = now;
        // The worker answers in order: pair each answer with the query it answers.
        // A list re-ranked once the vectors arrive ("settles") answers no new query.
        if (type === 3 && !event.data.data.settles) record.answers.push({ query: record.posted.shift(), at: now, items: items ? items.length : 0 });
      });
    }
    postMessage(message, ...rest) {
      const now = performance.now();
      const record = this.__record;
      const type = message && message.type;
      if (type === 0 && record.setup === null) record.setup = now;
      if (type === 2) {
        record.queries += 1;
        record.posted.push(String(message.data));
        if (record.firstQuery === null && String(message.data || "").trim()) {
          record.firstQuery = now;
          record.firstQueryText = String(message.data);
        }
      }
      return super.postMessage(message, ...rest);
    }
  }
  window.Worker = TimedWorker;
  document.addEventListener("keydown", () => {
    const now = performance.now();
    if (bench.firstKey === null) bench.firstKey = now;
    bench.lastKey = now;
  }, true);
  new MutationObserver(() => {
    if (bench.firstResultDom === null && document.querySelector(".md-search-result__item")) {
      bench.firstResultDom = performance.now();
    }
  }).observe(document, { childList: true, subtree: true });
})();
"""

LATENCY_SCRIPT = r"""
async ({ queries, warmup, timeoutMs }) => {
  const config = JSON.parse(document.getElementById("__config").textContent);
  const url = new URL(config.search, location.href);
  if (!url.searchParams.get("material")) {
    throw new Error("the page's search worker is not refdoc-site's: " + url.href);
  }
  const worker = new window.__searchBench.NativeWorker(url.href);
  let pending = null;
  worker.addEventListener("message", (event) => {
    const data = event.data || {};
    if (pending && data.type === pending.type) {
      const done = pending;
      pending = null;
      clearTimeout(done.timer);
      done.resolve(data);
    }
  });
  worker.addEventListener("error", (event) => {
    if (pending) {
      const done = pending;
      pending = null;
      clearTimeout(done.timer);
      done.reject(new Error("worker error: " + event.message));
    }
  });
  const roundTrip = (message, type) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending = null;
      reject(new Error("no answer of type " + type + " within " + timeoutMs + " ms"));
    }, timeoutMs);
    pending = { type, resolve, reject, timer };
    worker.postMessage(message);
  });
  try {
    const started = performance.now();
    await roundTrip({ type: 0, data: { config: {}, docs: [] } }, 1);
    // The worker loads its data on first use: ask for all of it, keyword and vector side,
    // so that no timed query waits for it or is answered twice.
    await new Promise((resolve) => {
      const settled = (event) => {
        if (event.data && event.data.type === "refdoc-state" && event.data.data === "settled") {
          worker.removeEventListener("message", settled);
          resolve();
        }
      };
      worker.addEventListener("message", settled);
      worker.postMessage({ type: "refdoc-warm" });
    });
    const setupMs = performance.now() - started;
    for (const query of queries.slice(0, warmup)) {
      await roundTrip({ type: 2, data: query }, 3);
    }
    const times = [];
    const totals = [];
    for (const query of queries) {
      const start = performance.now();
      const answer = await roundTrip({ type: 2, data: query }, 3);
      times.push(performance.now() - start);
      totals.push(answer.data ? answer.data.total : -1);
    }
    return { workerUrl: url.href, setupMs, times, totals };
  } finally {
    worker.terminate();
  }
}
"""


# --- queries ----------------------------------------------------------------------------


def load_queries() -> tuple[list[str], dict[str, str], list[str]]:
    """Distinct query texts from the labelled sets in file order, each one's kind, and the files read.

    Only the texts (and the set's `kind` label, to break latency down) are used: the
    relevance labels are not.
    """
    texts: list[str] = []
    kinds: dict[str, str] = {}
    used = []
    for path in QUERY_FILES:
        if not path.is_file():
            print(f"  (query file {path} not found; skipped)")
            continue
        used.append(str(path))
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            text = entry["query"].strip()
            if text and text not in kinds:
                kinds[text] = entry.get("kind") or "-"
                texts.append(text)
    if not texts:
        raise SystemExit("search_bench: no queries found in " + ", ".join(map(str, QUERY_FILES)))
    return texts, kinds, used


# --- gzip and serving -------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def gzipped(path: str, mtime_ns: int) -> bytes:
    """The file gzipped at level 9, as a server would send it (cached per path and mtime)."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=9, mtime=0)


def gzip_of(path: Path) -> bytes:
    return gzipped(str(path), path.stat().st_mtime_ns)


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped (level 9) when the client accepts it, never cached."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not urlsplit(self.path).path.endswith("/"):
                return super().send_head()  # the redirect to the trailing slash
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path) or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        body = gzip_of(Path(path))
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


class Server:
    def __init__(self, root: Path) -> None:
        handler = functools.partial(GzipHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}"


# --- build ------------------------------------------------------------------------------


def build_site(repo: Path, work: Path):
    """Index, summarize, render and publish `repo` into work/served/SUB_PATH."""
    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace, build

    workspace = Workspace.create(repo, Config(), work / "store", work / "served" / SUB_PATH)
    report = build(workspace, site=True)
    return workspace, report


# --- 1. payload -------------------------------------------------------------------------


def site_config(site: Path) -> dict:
    html = (site / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<script id="__config" type="application/json">(.*?)</script>', html, re.S)
    if not match:
        raise SystemExit(f"search_bench: no Material __config in {site / 'index.html'}")
    return json.loads(match.group(1))


def payload_rows(site: Path) -> tuple[list[dict], dict]:
    """One row per file the search loads: label, site-relative path, bytes, per-chunk or fixed.

    Files named but absent are rows with `missing`; the model's rows when the site has no
    model (config.json's `model` is null) are rows with `absent` (why), shown, not counted.
    """
    config = json.loads((site / DATA_DIR / "config.json").read_text(encoding="utf-8"))
    model = config.get("model") or None
    material = site_config(site)

    def data(name: str) -> str:
        return posixpath.normpath(posixpath.join(DATA_DIR, name))

    no_model = None if model else "(not built: no model)"
    specs: list[tuple[str, str | None, bool]] = [
        ("Lunr index", data("index.json"), True),
        ("chunk table", data("chunks.json"), True),
        ("config + stop words", data("config.json"), False),
        ("vectors", data(config["vectors"]) if model and config.get("vectors") else None, True),
        ("model", data(model["file"]) if model and model.get("file") else None, False),
        ("vocab", data(model["vocab"]) if model and model.get("vocab") else None, False),
        ("refdoc worker", f"{SCRIPTS_DIR}/search-worker.js", False),
        ("refdoc ranking", f"{SCRIPTS_DIR}/refdoc-search.js", False),
        ("refdoc embedder", f"{SCRIPTS_DIR}/refdoc-embed.js" if model else None, False),
        ("Material worker (lunr.js)", posixpath.normpath(material["search"]), False),
        ("Material search_index.json", "search/search_index.json", False),
    ]
    rows = []
    for label, relative, per_chunk in specs:
        row = {"label": label, "path": relative, "per_chunk": per_chunk}
        if relative is None:
            row["absent"] = ("(not loaded: no model)" if label == "refdoc embedder" else no_model) or "(not named in config.json)"
        elif not (site / relative).is_file():
            row["missing"] = True
        else:
            file = site / relative
            row["raw"] = file.stat().st_size
            row["gz"] = len(gzip_of(file))
        rows.append(row)
    return rows, config


def payload_summary(rows: list[dict], chunks: int) -> dict:
    counted = [r for r in rows if "raw" in r]
    data_raw = sum(r["raw"] for r in counted if r["per_chunk"])
    data_gz = sum(r["gz"] for r in counted if r["per_chunk"])
    fixed_raw = sum(r["raw"] for r in counted if not r["per_chunk"])
    fixed_gz = sum(r["gz"] for r in counted if not r["per_chunk"])
    per_chunk_gz = data_gz / chunks if chunks else 0.0
    projected_gz = fixed_gz + per_chunk_gz * TARGET_CHUNKS
    per_chunk_raw = data_raw / chunks if chunks else 0.0
    return {
        "total_raw": data_raw + fixed_raw,
        "total_gz": data_gz + fixed_gz,
        "data_raw": data_raw,
        "data_gz": data_gz,
        "fixed_raw": fixed_raw,
        "fixed_gz": fixed_gz,
        "per_chunk_raw": per_chunk_raw,
        "per_chunk_gz": per_chunk_gz,
        "projected_raw": fixed_raw + per_chunk_raw * TARGET_CHUNKS,
        "projected_gz": projected_gz,
        "pass": bool(chunks) and projected_gz < PAYLOAD_TARGET_BYTES
        and not any(r.get("missing") for r in rows),
    }


# --- 2. the browser ---------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


class RequestLog:
    """Every request of a browser context (pages and their workers), with its timing."""

    def __init__(self, context) -> None:
        self.requests: list = []
        self.finished: list = []
        self.failed: list = []
        context.on("request", lambda request: self.requests.append(request))
        context.on("requestfinished", lambda request: self.finished.append(request))
        context.on("requestfailed", lambda request: self.failed.append(request))

    def urls(self) -> list[str]:
        return [r.url for r in self.requests]

    def foreign(self) -> list[str]:
        return [u for u in self.urls() if not _is_local(u)]


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.scheme in ("http", "https") and parts.hostname == "127.0.0.1"


def first_query(browser, url: str, query: str, data_paths: list[str]):
    """Cold load in a fresh context; type `query` right after the load event.

    Returns the page's marks, and the context, page and request log, still open.
    """
    context = browser.new_context()
    log = RequestLog(context)
    try:
        context.add_init_script(WATCH_SCRIPT)
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url, wait_until="load")
        page.click(".md-search__input")
        page.keyboard.type(query)
        try:
            page.wait_for_selector(".md-search-result__item", timeout=FIRST_RESULT_TIMEOUT_MS)
            # The first list may answer a prefix typed before the worker was ready; wait
            # for the answer to the whole query too.
            page.wait_for_function(
                "q => window.__searchBench.workers.some(w => w.answers.some(a => a.query === q))",
                arg=query,
                timeout=FIRST_RESULT_TIMEOUT_MS,
            )
        except Exception as error:
            raise SystemExit(f"search_bench: no search result in the page for {query!r}: {error}; console: {errors[-5:]}")
        marks = page.evaluate(
            """() => {
              const b = window.__searchBench;
              const nav = performance.getEntriesByType("navigation")[0];
              return {
                timeOrigin: performance.timeOrigin,
                domContentLoaded: nav.domContentLoadedEventEnd,
                load: nav.loadEventEnd,
                firstKey: b.firstKey,
                lastKey: b.lastKey,
                firstResultDom: b.firstResultDom,
                workers: b.workers.map(w => Object.fromEntries(Object.entries(w))),
                items: document.querySelectorAll(".md-search-result__item").length,
              };
            }"""
        )
        marks["fetches"] = _fetch_timings(log, marks["timeOrigin"], data_paths)
        marks["query"] = query
        return marks, context, page, log
    except BaseException:
        context.close()
        raise


def _fetch_timings(log: RequestLog, time_origin: float, data_paths: list[str]) -> dict[str, dict]:
    """Start and end (ms after navigation start) of each request for one of `data_paths`."""
    out: dict[str, dict] = {}
    for request in log.finished:
        path = urlsplit(request.url).path
        match = next((p for p in data_paths if path.endswith("/" + p)), None)
        if match is None or match in out:
            continue
        timing = request.timing
        start = timing["startTime"] - time_origin
        end = start + timing["responseEnd"] if timing.get("responseEnd", -1) >= 0 else None
        out[match] = {"start": start, "end": end}
    return out


def query_latency(page, queries: list[str]) -> dict:
    result = page.evaluate(
        LATENCY_SCRIPT, {"queries": queries, "warmup": WARMUP_QUERIES, "timeoutMs": QUERY_TIMEOUT_MS}
    )
    return result


# --- 3. the Python CLI ranking -----------------------------------------------------------


def python_latency(workspace, queries: list[str]) -> dict:
    from refdoc_site import cli
    from refdoc_site.search.ranking import SearchIndex

    state = workspace.store.load()
    started = time.perf_counter()
    index = SearchIndex.build(state.documents)
    build_s = time.perf_counter() - started
    query_embedder = getattr(cli, "_query_embedder", None)  # what `refdoc-site query` uses
    embedder = query_embedder(state) if query_embedder else None
    for text in queries[:WARMUP_QUERIES]:
        index.search(text, 10, "fused", embedder)
    times, totals = [], []
    for text in queries:
        start = time.perf_counter()
        hits = index.search(text, 10, "fused", embedder)
        times.append((time.perf_counter() - start) * 1000)
        totals.append(len(hits))
    return {
        "build_s": build_s,
        "times": times,
        "totals": totals,
        "dense": embedder is not None and index.has_vectors,
        "chunks": len(index.documents),
    }


# --- the run ----------------------------------------------------------------------------


def bench_corpus(name: str, repo: Path, browser, queries: list[str], runs: int, keep: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"refdoc-search-bench-{name}-"))
    result: dict = {"name": name}
    try:
        started = time.perf_counter()
        workspace, report = build_site(repo, work)
        result["build_seconds"] = dict(report.seconds)
        result["build_s"] = time.perf_counter() - started
        site = workspace.out_dir
        if json.loads((site / DATA_DIR / "config.json").read_text(encoding="utf-8")).get("shards"):
            raise SystemExit(
                f"search_bench: {name}'s search data is in pieces (past shards.min_chunks in settings.json), "
                "which this benchmark of the one-index payload does not read; measure it with browser_bench.py"
            )
        chunks_table = json.loads((site / DATA_DIR / "chunks.json").read_text(encoding="utf-8"))
        chunks = len(chunks_table)
        del chunks_table
        rows, config = payload_rows(site)
        result.update(chunks=chunks, payload=rows, model=config.get("model"), summary=payload_summary(rows, chunks))
        print(f"  built in {result['build_s']:.1f}s ({chunks} chunks); serving and measuring ...", flush=True)

        data_paths = [r["path"] for r in rows if r.get("path") and "raw" in r]
        query = FIRST_QUERY.get(name, DEFAULT_FIRST_QUERY)
        with Server(work / "served") as server:
            url = f"{server.origin}/{SUB_PATH}/"
            result["url"] = url
            loads = []
            latency = None
            requests = 0
            foreign_urls: list[str] = []
            for run in range(runs):
                marks, context, page, log = first_query(browser, url, query, data_paths)
                try:
                    if run == runs - 1:
                        latency = query_latency(page, queries)
                finally:
                    context.close()
                marks["requests"] = len(log.requests)
                marks["foreign"] = log.foreign()
                requests += marks["requests"]
                foreign_urls += marks["foreign"]
                loads.append(marks)
        result.update(first_query=query, loads=loads, latency=latency)
        result["requests"] = requests
        result["foreign"] = foreign_urls
        print("  measuring the Python CLI ranking ...", flush=True)
        result["python"] = python_latency(workspace, queries)
    finally:
        gzipped.cache_clear()
        if keep:
            print(f"  kept store and site in {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return result


def _kb(value: int | float) -> str:
    return f"{value / 1000:,.1f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def _refdoc_worker(marks: dict) -> dict | None:
    return next((w for w in marks["workers"] if "material=" in w["url"]), None)


def load_breakdown(marks: dict) -> dict:
    """Milestones of one cold load, in ms after navigation start, and the durations between."""
    worker = _refdoc_worker(marks) or {}
    data = [f for path, f in marks["fetches"].items() if path.startswith(DATA_DIR + "/")]
    data_start = min((f["start"] for f in data), default=None)
    data_end = max((f["end"] for f in data if f["end"] is not None), default=None)
    ready, first_key, shown = worker.get("ready"), marks["firstKey"], marks["firstResultDom"]
    full = next((a["at"] for a in worker.get("answers", []) if a["query"] == marks["query"]), None)

    def between(a: float | None, b: float | None) -> float | None:
        return b - a if a is not None and b is not None else None

    return {
        "load": marks["load"],
        "worker_created": worker.get("created"),
        "setup": worker.get("setup"),
        "data_start": data_start,
        "data_end": data_end,
        "ready": ready,
        "first_key": first_key,
        "last_key": marks["lastKey"],
        "first_query_posted": worker.get("firstQuery"),
        "first_query_text": worker.get("firstQueryText"),
        "first_result_message": worker.get("firstResult"),
        "first_result": shown,
        "full_answer": full,
        "worker_load": between(data_start, ready),
        "data_fetch": between(data_start, data_end),
        "key_to_result": between(first_key, shown),
        "last_key_to_full": between(marks["lastKey"], full),
    }


def print_corpus(info: dict, result: dict, queries: list[str], kinds: dict[str, str]) -> None:
    chunks = result["chunks"]
    print()
    print(f"== {info['name']} {info['version']}  ({info['wheel']}, sha256 {info['sha256']})")
    seconds = result["build_seconds"]
    print(
        f"chunks {chunks}  build {result['build_s']:.1f}s ("
        + ", ".join(f"{k} {v:.1f}s" for k, v in seconds.items())
        + f")  served at {result['url']}"
    )
    model = result["model"]
    if model:
        print(f"model: {json.dumps(model, ensure_ascii=False)}")
    else:
        print("model: none in config.json (no embedding model yet): sparse-only search, no vectors/model/vocab")

    # 1. payload
    fetched = set()
    for marks in result["loads"]:
        fetched.update(marks["fetches"])
    rows = []
    for row in result["payload"]:
        if row.get("absent"):
            rows.append([row["label"], row["absent"], "-", "-", "-", "-"])
            continue
        if row.get("missing"):
            rows.append([row["label"], row["path"], "MISSING", "-", "-", "-"])
            continue
        rows.append([
            row["label"],
            row["path"],
            _kb(row["raw"]),
            _kb(row["gz"]),
            "per chunk" if row["per_chunk"] else "fixed",
            "yes" if row["path"] in fetched else "no",
        ])
    summary = result["summary"]
    rows.append(["total", "", _kb(summary["total_raw"]), _kb(summary["total_gz"]), "", ""])
    print()
    print("search payload (KB = 1000 bytes; gzip level 9)")
    print(_table(["file", "site path", "raw KB", "gzip KB", "scales", "fetched"], rows, right_from=2))
    print(
        f"per chunk: {summary['per_chunk_raw']:.0f} B raw, {summary['per_chunk_gz']:.0f} B gzipped; fixed part "
        f"{_kb(summary['fixed_gz'])} KB gzipped"
    )
    verdict = "PASS" if summary["pass"] else "FAIL"
    print(
        f"projected to {TARGET_CHUNKS:,} chunks: {summary['projected_raw'] / 1e6:.2f} MB raw, "
        f"{summary['projected_gz'] / 1e6:.2f} MB gzipped "
        f"(target < {PAYLOAD_TARGET_BYTES / 1e6:.0f} MB gzipped: {verdict})"
    )

    # 2a. time to first answer
    print()
    print(f"time to first answer: cold load in a fresh browser context, then typing {result['first_query']!r}")
    columns = [
        ("load event", "load"),
        ("refdoc worker created", "worker_created"),
        ("setup message posted", "setup"),
        ("first data fetch starts", "data_start"),
        ("last data fetch ends", "data_end"),
        ("worker ready (type 1)", "ready"),
        ("first key typed", "first_key"),
        ("last key typed", "last_key"),
        ("query posted (first non-empty)", "first_query_posted"),
        ("answer with results (type 3)", "first_result_message"),
        ("FIRST RESULT SHOWN", "first_result"),
        ("answer to the whole query (type 3)", "full_answer"),
        ("= worker data load: fetch + parse (ms)", "worker_load"),
        ("  of which data fetches (ms)", "data_fetch"),
        ("= first key to result shown (ms)", "key_to_result"),
        ("= last key to whole-query answer (ms)", "last_key_to_full"),
    ]
    breakdowns = [load_breakdown(m) for m in result["loads"]]
    rows = []
    for label, key in columns:
        values = [b[key] for b in breakdowns]
        present = [v for v in values if v is not None]
        rows.append([label, *(_ms(v) for v in values), _ms(statistics.median(present) if present else None)])
    headers = ["ms after navigation start", *(f"run {i + 1}" for i in range(len(breakdowns))), "median"]
    print(_table(headers, rows))
    posted = {b["first_query_text"] for b in breakdowns}
    print(
        "rows starting with '=' are durations; first non-empty query the worker was sent: "
        + ", ".join(repr(p) for p in sorted(posted, key=str))
    )
    last = result["loads"][-1]
    fetch_rows = []
    for path, timing in sorted(last["fetches"].items(), key=lambda item: item[1]["start"]):
        end = timing["end"]
        fetch_rows.append([path, _ms(timing["start"]), _ms(end), _ms(end - timing["start"] if end is not None else None)])
    print(f"search fetches of run {len(result['loads'])} (ms after navigation start):")
    print(_table(["file", "start", "end", "duration"], fetch_rows))

    # 2b. in-browser latency
    latency = result["latency"]
    times = latency["times"]
    answered = sum(1 for t in latency["totals"] if t > 0)
    p50, p95 = percentile(times, 50), percentile(times, 95)
    python = result["python"]
    py_times = python["times"]
    print()
    print(
        f"query latency: {len(times)} queries (after {min(WARMUP_QUERIES, len(queries))} untimed warm-up), "
        f"mode fused ({'sparse + dense' if model else 'sparse only: no model'})"
    )
    rows = [
        [
            "browser worker round trip",
            _ms(p50), _ms(p95), _ms(max(times)), _ms(statistics.fmean(times)),
            f"{answered}/{len(times)}", f"setup {latency['setupMs']:,.0f} ms",
        ],
        [
            "Python CLI SearchIndex.search",
            _ms(percentile(py_times, 50)), _ms(percentile(py_times, 95)), _ms(max(py_times)),
            _ms(statistics.fmean(py_times)),
            f"{sum(1 for t in python['totals'] if t > 0)}/{len(py_times)}",
            f"build {python['build_s']:,.1f} s" + (", dense" if python["dense"] else ", sparse only"),
        ],
    ]
    print(_table(["ranking", "p50 ms", "p95 ms", "max ms", "mean ms", "with hits", "index"], rows))
    by_kind: dict[str, list[int]] = {}
    for position, text in enumerate(queries):
        by_kind.setdefault(kinds.get(text, "-"), []).append(position)
    rows = []
    for kind, positions in by_kind.items():
        browser_times = [times[i] for i in positions]
        python_times = [py_times[i] for i in positions]
        words = statistics.fmean(len(queries[i].split()) for i in positions)
        rows.append([
            kind, str(len(positions)), f"{words:.1f}",
            _ms(percentile(browser_times, 50)), _ms(percentile(browser_times, 95)),
            _ms(percentile(python_times, 50)), _ms(percentile(python_times, 95)),
        ])
    print("by query kind (label from the query files):")
    print(_table(["kind", "queries", "words", "browser p50", "browser p95", "python p50", "python p95"], rows))
    slowest = sorted(range(len(queries)), key=lambda i: -times[i])[:3]
    print("slowest in the browser: " + "; ".join(f"{times[i]:.0f} ms {queries[i][:60]!r}" for i in slowest))
    scale = "at or above" if chunks >= TARGET_CHUNKS else "below"
    verdict = "PASS" if p95 < LATENCY_TARGET_MS else "FAIL"
    note = "" if chunks >= TARGET_CHUNKS else " (not conclusive for the target's scale)"
    print(
        f"browser p95 {p95:.1f} ms at {chunks:,} chunks, {scale} {TARGET_CHUNKS:,} "
        f"(target < {LATENCY_TARGET_MS:.0f} ms at {TARGET_CHUNKS:,} chunks: {verdict}){note}"
    )
    foreign = result["foreign"]
    print(
        f"requests: {result['requests']} over {len(result['loads'])} page loads, "
        f"{len(foreign)} not to 127.0.0.1" + (f": {foreign[:5]}" if foreign else "")
    )


def print_summary(entries: list[tuple[dict, dict]]) -> None:
    headers = [
        "corpus", "chunks", "payload gz MB", "at 10k gz MB", "<8MB", "first answer ms",
        "worker load ms", "browser p50", "browser p95", "<50ms", "python p50", "python p95",
        "requests", "foreign",
    ]
    rows = []
    for info, result in entries:
        summary = result["summary"]
        breakdowns = [load_breakdown(m) for m in result["loads"]]
        firsts = [b["first_result"] for b in breakdowns if b["first_result"] is not None]
        worker = [b["worker_load"] for b in breakdowns if b["worker_load"] is not None]
        times = result["latency"]["times"]
        py = result["python"]["times"]
        p95 = percentile(times, 95)
        rows.append([
            f"{info['name']} {info['version']}",
            f"{result['chunks']:,}",
            f"{summary['total_gz'] / 1e6:.2f}",
            f"{summary['projected_gz'] / 1e6:.2f}",
            "PASS" if summary["pass"] else "FAIL",
            _ms(statistics.median(firsts) if firsts else None),
            _ms(statistics.median(worker) if worker else None),
            _ms(percentile(times, 50)),
            _ms(p95),
            ("PASS" if p95 < LATENCY_TARGET_MS else "FAIL") + ("" if result["chunks"] >= TARGET_CHUNKS else "*"),
            _ms(percentile(py, 50)),
            _ms(percentile(py, 95)),
            str(result["requests"]),
            str(len(result["foreign"])),
        ])
    print()
    print("== summary (first answer and worker load: median over runs; p50/p95 in ms)")
    print(_table(headers, rows))
    if any(r["chunks"] < TARGET_CHUNKS for _, r in entries):
        print(f"* measured below {TARGET_CHUNKS:,} chunks: the latency target is only conclusive at that scale")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default="click,httpx,django", help="comma-separated: " + ",".join(CORPORA))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="download cache (default: benchmarks/.cache)")
    parser.add_argument("--runs", type=int, default=3, help="cold page loads per corpus for the time to first answer (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep each corpus's temporary store and site")
    parser.add_argument("--json", type=Path, help="also write the raw results to this file")
    args = parser.parse_args(argv)

    names = [n.strip() for n in args.corpora.split(",") if n.strip()]
    unknown = [n for n in names if n not in CORPORA]
    if unknown:
        parser.error(f"unknown corpora {', '.join(unknown)}; known are {', '.join(CORPORA)}")
    if args.runs < 1:
        parser.error("--runs: at least 1")
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"search_bench: needs Debian's chromium at {CHROMIUM} (scripts/test.sh installs it)")

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("mkdocs").setLevel(logging.ERROR)

    queries, kinds, used = load_queries()
    cache = args.cache.resolve()
    infos = fetch_all(names, cache)
    print(f"{len(queries)} queries from {', '.join(used)}")

    from playwright.sync_api import sync_playwright

    entries = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        print(f"chromium {browser.version} ({CHROMIUM}), headless")
        try:
            for name in names:
                print(f"\nbenchmarking {name} ...", flush=True)
                started = time.perf_counter()
                result = bench_corpus(name, cache / f"corpus-{name}", browser, queries, args.runs, args.keep)
                print(f"  done in {time.perf_counter() - started:.1f}s", flush=True)
                print_corpus(infos[name], result, queries, kinds)
                entries.append((infos[name], result))
        finally:
            browser.close()
    print_summary(entries)
    if args.json:
        args.json.write_text(
            json.dumps([{"corpus": i, "result": r} for i, r in entries], indent=2, default=str) + "\n",
            encoding="utf-8",
        )
    foreign = sum(len(r["foreign"]) for _, r in entries)
    requests = sum(r["requests"] for _, r in entries)
    print(f"\nrequests from the browser: {requests}, of which not to 127.0.0.1: {foreign}")
    if foreign:
        print("FAIL: requests left localhost", file=sys.stderr)
        return 1
    assert requests > 0, "no request was seen: the request log is broken"
    return 0


if __name__ == "__main__":
    sys.exit(main())
