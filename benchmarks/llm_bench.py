"""Benchmark the LLM path on real code against the local OpenAI API test server.

    python benchmarks/llm_bench.py [--corpus httpx] [--latency SECONDS] [--concurrency N]

The corpus (fetched as benchmarks/run.py does, into benchmarks/.cache/) is copied into a
temporary folder, and the server of the tests (tests/openai_server.py: deterministic
replies, real HTTP, the real `openai` client) answers. Against one store, in order:

- a dry run: what a full build would send, estimated, with nothing sent;
- a full build; a no-change rebuild; a one-file change (a function added at the end of
  one file) rebuilt;
- `refdoc-site plan` for one request (query expansion, then the plan from the top 20
  chunks), and the same plan again.

For each run: the HTTP requests the server received, by phase (chunk/file/module/system,
the decisions and milestones pages the doc model writes, a plan's expansion and plan),
the answers the cache gave, the tokens the server reported, and the wall time of the
index, summarize and render phases (no MkDocs build: it never talks to the LLM). With
`--latency`, the server waits that long before every answer, like a remote model would,
and the wall times show what the concurrency limit buys.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests"), str(HERE)]

from openai_server import OpenAIServer
from run import CORPORA, DEFAULT_CACHE, _table, fetch_all

from refdoc_site.core.config import Config, LlmConfig
from refdoc_site.llm import open_session
from refdoc_site.pipeline import Workspace, index, plan, render, summarize

PHASES = ("chunk", "file", "module", "system", "decisions", "milestones", "expand", "plans")
PLAN_REQUEST = "add a rate limit to the client"
CHANGED_FILE = {"httpx": "httpx/_utils.py", "click": "click/utils.py"}
ADDED = '\n\ndef _benchmark_marker(value: int) -> int:\n    """Return the value doubled (added by the LLM benchmark)."""\n    return value * 2\n'


def run_once(
    repo: Path, store: Path, server: OpenAIServer, args: argparse.Namespace, dry_run: bool = False, request: str = ""
) -> list[str]:
    server.reset()
    if args.latency:
        server.inject("sleep", seconds=args.latency, times=None)
    config = Config(llm=LlmConfig(concurrency=args.concurrency))
    workspace = Workspace.create(repo, config, store, store / "site")
    session, notice = open_session(config, store, dry_run=dry_run)
    if session is None:
        raise SystemExit(f"llm_bench: no session ({notice})")
    started = time.perf_counter()
    if request:
        plan(workspace, request, session)
    else:
        index(workspace, llm=session)
        summarize(workspace, session)
        if not dry_run:
            render(workspace)
    seconds = time.perf_counter() - started
    session.close()
    report = session.report
    total = report.total
    if dry_run:
        by_phase = {name: report.phases[name].requests for name in PHASES if name in report.phases}
    else:
        by_phase = {name: len(server.chat_requests(name)) for name in PHASES}
    sent = sum(by_phase.values())
    return [
        str(sent),
        "/".join(str(by_phase.get(name, 0)) for name in PHASES),
        str(total.cache_hits),
        f"{total.prompt_tokens:,}",
        f"{total.completion_tokens:,}",
        f"{seconds:.2f}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="httpx", choices=sorted(CHANGED_FILE))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the server waits before each answer")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args(argv)
    assert args.corpus in CORPORA
    fetch_all([args.corpus], args.cache)
    with tempfile.TemporaryDirectory() as temporary, OpenAIServer() as server:
        repo = Path(temporary) / args.corpus
        shutil.copytree(args.cache / f"corpus-{args.corpus}", repo)
        store = Path(temporary) / "store"
        os.environ["OPENAI_BASE_URL"] = server.base_url
        os.environ["OPENAI_API_KEY"] = "benchmark"
        rows = [["dry run (estimate, nothing sent)", *run_once(repo, store, server, args, dry_run=True)]]
        rows.append(["full build", *run_once(repo, store, server, args)])
        rows.append(["no-change rebuild", *run_once(repo, store, server, args)])
        changed = repo / CHANGED_FILE[args.corpus]
        changed.write_text(changed.read_text(encoding="utf-8") + ADDED, encoding="utf-8")
        rows.append([f"one-file change ({CHANGED_FILE[args.corpus]})", *run_once(repo, store, server, args)])
        rows.append([f'plan "{PLAN_REQUEST}"', *run_once(repo, store, server, args, request=PLAN_REQUEST)])
        rows.append(["the same plan again", *run_once(repo, store, server, args, request=PLAN_REQUEST)])
    print(f"\nLLM path on {args.corpus}, local test server, latency {args.latency:g} s, concurrency {args.concurrency}")
    headers = ["run", "requests", "/".join(PHASES), "cache hits", "prompt tok", "completion tok", "wall s"]
    print(_table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
