"""Benchmark what a cold visit to the site costs: bytes before any interaction, and the
time from typing to the first search result on a throttled link.

    python benchmarks/browser_bench.py [--corpus click=DIR ...] [--runs N] [--keep]

Each corpus (default: click from benchmarks/.cache/corpus-click, as run.py fetches it) is
built with this checkout into a temporary folder and served gzipped (level 9) from
127.0.0.1 under a sub-path, with search_bench.py's server. Debian's Chromium, headless, in
a fresh browser context per visit (nothing cached), measures:

1. the bytes transferred (encoded body and headers, as DevTools counts them; the page's
   workers included) by the home page and by one file page without a diagram, from
   navigation until the network has been idle for IDLE_MS with nobody touching the page;
2. on a link throttled to 10 Mbit/s each way with 40 ms latency (DevTools
   Network.emulateNetworkConditions): the home page is loaded, the search box clicked and
   the query typed right after the load event; the time from the click to the first
   result in the list, and to the list settled (vectors and model in, the re-ranked list
   shown), the bytes of the whole visit, and the bytes of the query: every request made
   from the click on (search data, scripts, model; on a large site, the pieces of
   refdoc-shards.js the query fetched), with how many of them were search data files.
   The time to the first result is the median of the runs and the fastest; on a loaded
   machine both carry the CPU's wait, so the link's own share is printed beside them:
   the requests from the click to the first result, their sequential round trips × 40 ms
   plus their bytes at 10 Mbit/s, which no load changes; and on a site in pieces, the user
   CPU time of the keyword answer in node (tests/js/query_cpu.js), which load changes
   little;
3. the home page on a phone (390×844, that link, the CPU slowed 4× as Lighthouse's mobile
   run does): time to interactive, taken as the later of DOMContentLoaded and the end of
   the last long task (> 50 ms, Chromium's `longtask` entries) before the network idles,
   and when its map was drawn (an SVG laid out at build time is there on arrival; a
   Mermaid diagram once its script ran).

Any request that does not go to 127.0.0.1 fails the run. On a site whose search data is
in pieces (past `shards.min_chunks` chunks), it also prints the recall@10 of the site's
approximate dense search against the exhaustive one over the labelled sets' queries
(ann_recall.py; `--no-recall` skips it). `--work DIR` builds into DIR and keeps it: a
second run reuses the store (an incremental build); `--site NAME=WORK --rewrite-search`
writes WORK's search data again from WORK/store and measures it, with no page rebuilt
(after a change to the search code). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from helpers import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402
from run import DEFAULT_CACHE, _table  # noqa: E402
from search_bench import FIRST_QUERY, SUB_PATH, Server, build_site, gzip_of  # noqa: E402

THROTTLE = {"offline": False, "latency": 40, "downloadThroughput": 10e6 / 8, "uploadThroughput": 10e6 / 8}
"""10 Mbit/s each way, 40 ms round trip added (DevTools' units: bytes per second, ms)."""
PHONE = {"width": 390, "height": 844}
CPU_SLOWDOWN = 4
"""Lighthouse's mobile run slows the CPU 4×."""
QUERY_OVERRIDE = ""
"""--query: the query typed instead of search_bench's for the corpus."""
IDLE_MS = 1500
"""A visit counts as done when no request was in flight for this long."""
TARGETS = {
    "click": {"home_kb": 600, "file_kb": 200, "first_result_ms": 1000},
    "django": {"home_kb": None, "file_kb": 200, "first_result_ms": 1000},
    "homeassistant": {"home_kb": None, "file_kb": None, "first_result_ms": 1500, "query_kb": 1000},
}
"""The issue's targets (KB = 1000 bytes); django's home page has none."""
TIMEOUT_MS = 120_000
MERMAID = HERE.parent / "tests" / "js" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
"""The test suite's Mermaid, shipped with the site when nothing else names one."""
FIRST_RESULT = r"""
(() => {
  window.__lightBench = { click: null, firstResult: null, settled: null, longTaskEnd: 0, mapDrawn: null };
  new PerformanceObserver(list => {
    for (const task of list.getEntries()) window.__lightBench.longTaskEnd = Math.max(window.__lightBench.longTaskEnd, task.startTime + task.duration);
  }).observe({ type: "longtask", buffered: true });
  document.addEventListener("pointerdown", () => { window.__lightBench.click ??= performance.now(); }, true);
  new MutationObserver(() => {
    if (window.__lightBench.firstResult === null && document.querySelector(".md-search-result__item")) {
      window.__lightBench.firstResult = performance.now();
    }
    if (window.__lightBench.mapDrawn === null && document.querySelector(".refdoc-map svg, .mermaid svg")) {
      window.__lightBench.mapDrawn = performance.now();
    }
    if (window.__lightBench.settled === null && document.documentElement.getAttribute("data-refdoc-search") === "settled") {
      window.__lightBench.settled = performance.now();
    }
  }).observe(document, { childList: true, subtree: true, attributes: true });
})();
"""


class Visit:
    """Every request of one browser context, with the bytes DevTools says it transferred."""

    def __init__(self, browser, throttled: bool, phone: bool = False) -> None:
        self.context = browser.new_context(**({"viewport": PHONE, "is_mobile": True, "has_touch": True} if phone else {}))
        self.context.add_init_script(FIRST_RESULT)
        self.page = self.context.new_page()
        self.urls: list[str] = []
        self.in_flight = 0
        self.last_change = time.monotonic()
        self.context.on("request", self._started)
        self.context.on("requestfinished", self._ended)
        self.context.on("requestfailed", self._ended)
        self.finished: list = []
        self.started: dict[str, float] = {}
        self.ended: dict[str, float] = {}
        if throttled:
            session = self.context.new_cdp_session(self.page)
            session.send("Network.enable")
            session.send("Network.emulateNetworkConditions", THROTTLE)
            if phone:
                session.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})

    def _started(self, request) -> None:
        self.urls.append(request.url)
        self.started[request.url] = time.monotonic()
        self.in_flight += 1
        self.last_change = time.monotonic()

    def _ended(self, request) -> None:
        self.finished.append(request)
        self.ended[request.url] = time.monotonic()
        self.in_flight -= 1
        self.last_change = time.monotonic()

    def wait_idle(self) -> None:
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
            if self.in_flight <= 0 and time.monotonic() - self.last_change > IDLE_MS / 1000:
                return
        raise SystemExit(f"browser_bench: the network never went idle ({self.in_flight} requests in flight)")

    def transferred(self) -> int:
        total = 0
        for request in self.finished:
            if request.failure is not None:
                continue
            sizes = request.sizes()
            total += sizes["responseBodySize"] + sizes["responseHeadersSize"]
        return total

    def transferred_since(self, moment: float) -> tuple[int, int]:
        """(bytes, search data files) of the requests started at `moment` or later."""
        total = files = 0
        for request in self.finished:
            if request.failure is not None or self.started.get(request.url, 0) < moment:
                continue
            sizes = request.sizes()
            total += sizes["responseBodySize"] + sizes["responseHeadersSize"]
            files += "/search/refdoc/" in request.url
        return total, files

    def round_trips(self, since: float, until: float) -> tuple[int, int]:
        """(sequential round trips, bytes) of the requests made between the two moments: a
        request that started after another one ended is a round trip after it. What the
        link costs them, whatever the CPU's load: round trips × latency + bytes ÷ rate."""
        spans = []
        for request in self.finished:
            start, end = self.started.get(request.url, 0), self.ended.get(request.url, 0)
            if request.failure is None and since <= start and end <= until:
                sizes = request.sizes()
                spans.append((start, end, sizes["responseBodySize"] + sizes["responseHeadersSize"]))
        depth: list[int] = []
        for start, _, _ in spans:
            depth.append(1 + max((d for (s, e, _), d in zip(spans, depth) if e <= start), default=0))
        return max(depth, default=0), sum(size for _, _, size in spans)

    def foreign(self) -> list[str]:
        return [u for u in self.urls if urlsplit(u).scheme in ("http", "https") and urlsplit(u).hostname != "127.0.0.1"]

    def close(self) -> None:
        self.context.close()


def file_page_without_diagram(site: Path) -> str:
    """A file page's path under the site (the first, in name order, with no diagram)."""
    for page in sorted((site / "files").rglob("index.html")):
        if 'class="mermaid"' not in page.read_text(encoding="utf-8"):
            return page.parent.relative_to(site).as_posix() + "/"
    raise SystemExit(f"browser_bench: no file page without a diagram in {site}")


def idle_visit(browser, url: str) -> tuple[int, list[str], list[str]]:
    """(bytes, request URLs, foreign URLs) of a cold visit nobody interacts with."""
    visit = Visit(browser, throttled=False)
    try:
        visit.page.goto(url, wait_until="load")
        visit.wait_idle()
        return visit.transferred(), list(visit.urls), visit.foreign()
    finally:
        visit.close()


def phone_visit(browser, url: str) -> dict:
    """A throttled cold visit on a phone: time to interactive and when the map was drawn (ms)."""
    visit = Visit(browser, throttled=True, phone=True)
    try:
        visit.page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
        visit.wait_idle()
        marks = visit.page.evaluate(
            "() => ({ dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd, ...window.__lightBench })"
        )
        return {"tti_ms": max(marks["dcl"], marks["longTaskEnd"]), "map_ms": marks["mapDrawn"]}
    finally:
        visit.close()


def typed_visit(browser, url: str, query: str) -> dict:
    """A throttled cold visit with `query` typed right after the load event."""
    visit = Visit(browser, throttled=True)
    try:
        visit.page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
        clicked = time.monotonic()  # requests from here on are the query's
        visit.page.click(".md-search__input")
        visit.page.keyboard.type(query)
        visit.page.wait_for_selector(".md-search-result__item", timeout=TIMEOUT_MS)
        shown = time.monotonic()
        marks = visit.page.evaluate("() => window.__lightBench")
        settled = None
        if visit.page.evaluate("() => document.documentElement.hasAttribute('data-refdoc-search')"):
            # The lazy worker marks its progress (a site built before it has no such mark).
            visit.page.wait_for_selector("html[data-refdoc-search=settled]", timeout=TIMEOUT_MS, state="attached")
            settled = visit.page.evaluate("() => window.__lightBench.settled") - marks["click"]
        visit.wait_idle()
        query_bytes, query_files = visit.transferred_since(clicked)
        trips, first_bytes = visit.round_trips(clicked, shown)
        return {
            "first_result_ms": marks["firstResult"] - marks["click"],
            "first_trips": trips,
            "first_bytes": first_bytes,
            "first_link_ms": trips * THROTTLE["latency"] + first_bytes / THROTTLE["downloadThroughput"] * 1000,
            "settled_ms": settled,
            "bytes": visit.transferred(),
            "query_bytes": query_bytes,
            "query_files": query_files,
            "foreign": visit.foreign(),
        }
    finally:
        visit.close()


def bench(name: str, site: Path, origin: str, browser, runs: int) -> dict:
    base = f"{origin}/{SUB_PATH}/"
    for path in site.rglob("*"):  # compressed ahead, as a static host serves them: no
        if path.is_file():  # compression time in any visit
            gzip_of(path)
    file_page = file_page_without_diagram(site)
    home = [idle_visit(browser, base) for _ in range(runs)]
    files = [idle_visit(browser, base + file_page) for _ in range(runs)]
    query = QUERY_OVERRIDE or FIRST_QUERY.get(name.split("-")[0], "read the configuration")
    typed = [typed_visit(browser, base, query) for _ in range(runs)]
    phone = [phone_visit(browser, base) for _ in range(runs)]
    drawn = [p["map_ms"] for p in phone if p["map_ms"] is not None]
    foreign = [u for visit in home + files for u in visit[2]] + [u for t in typed for u in t["foreign"]]
    return {
        "file_page": file_page,
        "query": query,
        "home_bytes": statistics.median(v[0] for v in home),
        "home_requests": len(home[0][1]),
        "file_bytes": statistics.median(v[0] for v in files),
        "file_requests": len(files[0][1]),
        "first_result_ms": statistics.median(t["first_result_ms"] for t in typed),
        "first_result_min_ms": min(t["first_result_ms"] for t in typed),
        "first_trips": statistics.median(t["first_trips"] for t in typed),
        "first_bytes": statistics.median(t["first_bytes"] for t in typed),
        "first_link_ms": statistics.median(t["first_link_ms"] for t in typed),
        "load": os.getloadavg()[0],
        "settled_ms": statistics.median(t["settled_ms"] for t in typed) if all(t["settled_ms"] for t in typed) else None,
        "typed_bytes": statistics.median(t["bytes"] for t in typed),
        "query_bytes": statistics.median(t["query_bytes"] for t in typed),
        "query_files": statistics.median(t["query_files"] for t in typed),
        "tti_ms": statistics.median(p["tti_ms"] for p in phone),
        "map_ms": statistics.median(drawn) if len(drawn) == len(phone) else None,
        "foreign": foreign,
        "keyword_cpu": keyword_cpu(site, query),
    }


def _verdict(value: float, target: float | None) -> str:
    if target is None:
        return "-"
    return f"< {target:g}: {'PASS' if value < target else 'FAIL'}"


def print_result(name: str, result: dict) -> None:
    target = TARGETS.get(name, {})
    settled = f"{result['settled_ms']:.0f}" if result["settled_ms"] is not None else "-"
    rows = [
        ["home page, idle", f"{result['home_bytes'] / 1000:.0f} KB ({result['home_requests']} requests)", _verdict(result["home_bytes"] / 1000, target.get("home_kb"))],
        [f"{result['file_page']}, idle", f"{result['file_bytes'] / 1000:.0f} KB ({result['file_requests']} requests)", _verdict(result["file_bytes"] / 1000, target.get("file_kb"))],
        [
            f"typing {result['query']!r} → first result (median; fastest)",
            f"{result['first_result_ms']:.0f} ms; {result['first_result_min_ms']:.0f} ms",
            _verdict(result["first_result_ms"], target.get("first_result_ms")),
        ],
        [
            "  of which the link: round trips × 40 ms + bytes at 10 Mbit/s",
            f"{result['first_link_ms']:.0f} ms ({result['first_trips']:.0f} round trips, {result['first_bytes'] / 1000:.0f} KB)",
            _verdict(result["first_link_ms"], target.get("first_result_ms")),
        ],
        *(
            [["  and its CPU (node, user time: pieces parsed, index made, ranked)", f"{sum(cpu.values()):.0f} ms ({cpu['parse_ms']:.0f} + {cpu['index_ms']:.0f} + {cpu['rank_ms']:.0f})", "-"]]
            if (cpu := result.get("keyword_cpu"))
            else []
        ),
        ["typing → list settled (vectors in)", f"{settled} ms", "-"],
        ["bytes of the typed visit", f"{result['typed_bytes'] / 1000:.0f} KB", "-"],
        [
            "bytes of the query (from the click on)",
            f"{result['query_bytes'] / 1000:.0f} KB ({result['query_files']:.0f} search data files)",
            _verdict(result["query_bytes"] / 1000, target.get("query_kb")),
        ],
        ["home page on a phone: time to interactive", f"{result['tti_ms']:.0f} ms", "-"],
        ["home page on a phone: map drawn", f"{result['map_ms']:.0f} ms" if result["map_ms"] is not None else "no map", "-"],
    ]
    print(f"\n{name} (gzipped, cold; typing at 10 Mbit/s, 40 ms; load average {result['load']:.1f} on {os.cpu_count()} cores)")
    print(_table(["measure", "value", "target"], rows, right_from=1))


def keyword_cpu(site: Path, query: str) -> dict | None:
    """User CPU ms of a large site's keyword answer in node (tests/js/query_cpu.js), or
    None without node or on a site in one piece."""
    import json
    import subprocess

    script = HERE.parent / "tests" / "js" / "query_cpu.js"
    if not sharded(site) or not shutil.which("node") or not (script.parent / "node_modules" / "lunr").is_dir():
        return None
    done = subprocess.run(["node", str(script), str(site / "search" / "refdoc"), query, "3"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def sharded(site: Path) -> bool:
    """Whether the site's search data is in pieces (site_shards.py)."""
    import json

    return bool(json.loads((site / "search" / "refdoc" / "config.json").read_text(encoding="utf-8")).get("shards"))


def rewrite_search_data(work: Path) -> None:
    """The search data of WORK/served/SUB_PATH written again from the chunks of WORK/store
    (the index's documents: prose sections a build adds from rendered pages are left out)."""
    from refdoc_site.core.store import Store
    from refdoc_site.search.embed import matching_embedder
    from refdoc_site.search.site_search import DATA_DIR, write_search_data

    started = time.perf_counter()
    state = Store(work / "store").load()
    embedder = matching_embedder(state)
    site = work / "served" / SUB_PATH
    shutil.rmtree(site / DATA_DIR, ignore_errors=True)
    written = write_search_data(state.documents, site, embedder.directory if embedder else None)
    print(f"search data written again: {len(written)} files, {sum(written.values()) / 1e6:.1f} MB in {time.perf_counter() - started:.0f}s", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", default=[], metavar="NAME=DIR", help="a corpus folder (default: click in benchmarks/.cache)")
    parser.add_argument("--runs", type=int, default=3, help="cold visits per measure; the median is shown (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep each corpus's store and site")
    parser.add_argument("--work", type=Path, help="build into WORK/NAME and keep it (a second run rebuilds incrementally)")
    parser.add_argument("--site", action="append", default=[], metavar="NAME=WORK", help="measure a site built already into WORK (by --work): no build")
    parser.add_argument("--dense-recall-only", action="store_true", help="recall of the dense side alone (the fused one runs Lunr in Python: long on 100k chunks)")
    parser.add_argument("--query", default="", help="the query typed (default: search_bench's FIRST_QUERY for the corpus)")
    parser.add_argument("--no-recall", action="store_true", help="skip the approximate vectors' recall on a site in pieces")
    parser.add_argument(
        "--rewrite-search", action="store_true", help="with --site: first write the site's search data and scripts again from WORK/store (after a change to the search code; no page is rebuilt)"
    )
    args = parser.parse_args(argv)
    global QUERY_OVERRIDE
    QUERY_OVERRIDE = args.query
    built = {name: Path(folder) for name, folder in (item.split("=", 1) for item in args.site)}
    corpora = dict(item.split("=", 1) for item in args.corpus) or ({} if built else {"click": str(DEFAULT_CACHE / "corpus-click")})
    corpora.update(dict.fromkeys(built, ""))
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"browser_bench: needs Debian's chromium at {CHROMIUM} (scripts/test.sh installs it)")
    if MERMAID.is_file():
        os.environ.setdefault("REFDOC_MERMAID_JS", str(MERMAID))

    from playwright.sync_api import sync_playwright

    foreign: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            for name, folder in corpora.items():
                if name in built:
                    work = built[name]
                    if args.rewrite_search:
                        rewrite_search_data(work)
                else:
                    work = args.work / name if args.work else Path(tempfile.mkdtemp(prefix=f"browser-bench-{name}-"))
                    started = time.perf_counter()
                    build_site(Path(folder).resolve(), work)
                    print(f"{name}: built in {time.perf_counter() - started:.1f}s ({work})", flush=True)
                with Server(work / "served") as server:
                    result = bench(name, work / "served" / SUB_PATH, server.origin, browser, args.runs)
                print_result(name, result)
                if not args.no_recall and sharded(work / "served" / SUB_PATH):
                    from ann_recall import labelled_queries, print_rows, recall
                    from refdoc_site.search.ranking import settings

                    site = settings()["shards"]
                    grid = [(site["chunks_per_cluster"], 0, site["rerank"])]  # probe 0: the site's rule
                    print_rows(name, recall(work / "store", grid, labelled_queries(), fused=not args.dense_recall_only))
                foreign += result["foreign"]
                if not args.keep and not args.work and name not in built:
                    shutil.rmtree(work, ignore_errors=True)
        finally:
            browser.close()
    if foreign:
        print(f"FAIL: {len(foreign)} requests left 127.0.0.1: {foreign[:3]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
