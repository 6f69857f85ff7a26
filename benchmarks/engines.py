"""Benchmark the two site engines (MkDocs, Zensical) on one corpus, build after build.

    python benchmarks/engines.py [--corpus django] [--cache DIR] [--engines mkdocs,zensical]

For each engine, on its own copy of the corpus and its own store, four builds in a row,
each its own child process (`refdoc-site build --engine E` as a function call, so each
phase is timed): a full build; a rebuild with nothing changed; a rebuild after one file
changed (a function appended to the corpus's file in `ONE_FILES`); and a rebuild after 1% of the indexed files
changed (a function appended to each, spread evenly over the sorted Python files). The
table gives the wall time of the child, split into refdoc-site's pipeline (index,
summarize, render) and the engine's site phase (the engine's build, and for Zensical the
copy out of its project and the page-weight passes; publishing included for both), and the
items processed: files reindexed, pages rendered (the pages refdoc-site's render phase
rendered: all on a first build, then those whose inputs changed), the pages
whose Markdown the engine converted (MkDocs: the pages it wrote less those taken from its
last build, rendering/page_reuse.py; Zensical: the entries of its cache, `.cache/<hash>`,
written by this build, as it converts only a page whose text changed), and the HTML pages the engine wrote (files of its output whose modification time
is from this build).

The corpus is fetched as benchmarks/run.py fetches it (`--cache` as there).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import CORPORA, DEFAULT_CACHE, _s, _table, fetch_all  # noqa: E402

ENGINES = ("mkdocs", "zensical")
ONE_FILES = {
    "django": "django/utils/text.py", "click": "click/utils.py", "httpx": "httpx/_utils.py",
    "homeassistant": "homeassistant/components/homeworks/const.py",
}
CHANGED_SHARE = 0.01
STEPS = ("full build", "no change", "one file changed", "1% of files changed")


def run_child(repo: Path, store: Path, out: Path, engine: str, result_path: Path) -> int:
    """One build with `engine`; writes its phase times and counts as JSON."""
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("mkdocs").setLevel(logging.ERROR)

    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace, build

    workspace = Workspace.create(repo, Config(engine=engine), store, out)
    built = build(workspace)
    result = {
        "seconds": built.seconds,
        "files": built.index.files,
        "reprocessed": built.index.reprocessed,
        "pages": built.pages,
        "rendered": built.rendered,
        "taken": built.taken,
    }
    result_path.write_text(json.dumps(result), encoding="utf-8")
    return 0


def written_since(files: list[Path], started_ns: int) -> int:
    """How many of `files` were modified at or after `started_ns`."""
    return sum(1 for path in files if path.stat().st_mtime_ns >= started_ns)


def html_pages(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*.html") if path.is_file()) if folder.is_dir() else []


def zensical_cache_entries(store: Path) -> list[Path]:
    """Zensical's cached conversions of pages (`.cache/` files named by a number)."""
    cache = store / "mkdocs" / ".cache"
    return [path for path in cache.iterdir() if path.name.isdigit()] if cache.is_dir() else []


def measure(repo: Path, store: Path, out: Path, engine: str) -> dict:
    """One build in a child process, with what it processed."""
    result_path = store.parent / f"result-{engine}.json"
    started_ns = time.time_ns()
    started = time.perf_counter()
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(repo), "--store", str(store), "--out", str(out), "--engine", engine, "--result", str(result_path)]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"benchmark: {engine} build failed:\n{completed.stderr[-2000:]}")
    result = json.loads(result_path.read_text(encoding="utf-8"))
    seconds = result["seconds"]
    zensical = engine == "zensical"
    html_written = written_since(html_pages(store / "mkdocs" / "site" if zensical else out), started_ns)
    return {
        "wall": wall,
        "pipeline": sum(seconds.get(phase, 0.0) for phase in ("index", "summarize", "render")),
        "engine": seconds.get(engine, 0.0),
        "reindexed": result["reprocessed"],
        "files": result["files"],
        "rendered": result["rendered"],
        "engine_converted": written_since(zensical_cache_entries(store), started_ns) if zensical else html_written - result["taken"],
        "engine_pages": html_written,
        "site_pages": len(html_pages(out)),
    }



def probe(path: Path, number: int) -> None:
    """Append a small function to `path` (a change the index sees as one new definition)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f'\n\ndef refdoc_bench_probe_{number}(value):\n    """Benchmark probe {number}: returns its value."""\n    return value\n')


def changed_share(repo: Path, files: int) -> list[Path]:
    """1% of the indexed files' count, as Python files spread evenly over the sorted list."""
    python = sorted(p for p in repo.rglob("*.py") if p.is_file())
    wanted = max(1, math.ceil(files * CHANGED_SHARE))
    step = max(1, len(python) // wanted)
    return python[::step][:wanted]


def bench_engine(corpus: Path, one_file: str, engine: str, work: Path) -> list[dict]:
    repo = work / engine / "repo"
    shutil.copytree(corpus, repo)
    store, out = work / engine / "store", work / engine / "site"
    rows = []
    print(f"{engine}: full build ...", flush=True)
    rows.append(measure(repo, store, out, engine))
    print(f"{engine}: no change ...", flush=True)
    rows.append(measure(repo, store, out, engine))
    probe(repo / one_file, 0)
    print(f"{engine}: one file changed ...", flush=True)
    rows.append(measure(repo, store, out, engine))
    changed = changed_share(repo, rows[0]["files"])
    for number, path in enumerate(changed, start=1):
        probe(path, number)
    print(f"{engine}: {len(changed)} files changed ...", flush=True)
    rows.append(measure(repo, store, out, engine))
    rows[-1]["changed"] = len(changed)
    return rows


def print_table(results: dict[str, list[dict]], flush: bool = False) -> None:
    headers = ["engine", "step", "wall s", "pipeline s", "engine s", "files reindexed", "pages rendered", "engine converted", "engine wrote", "site pages"]
    table = []
    for engine, rows in results.items():
        for step, row in zip(STEPS, rows):
            label = step if "changed" not in row else f"{step} ({row['changed']})"
            table.append([engine, label, _s(row["wall"]), _s(row["pipeline"]), _s(row["engine"]), str(row["reindexed"]), str(row["rendered"]), str(row["engine_converted"]), str(row["engine_pages"]), str(row["site_pages"])])
    print(_table(headers, table, right_from=2), flush=flush)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="django", choices=sorted(CORPORA))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where corpora are fetched and unpacked (as run.py)")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated engines to time")
    parser.add_argument("--work", type=Path, help="keep the copies, stores and sites here (default: a temporary folder, removed)")
    parser.add_argument("--json", type=Path, help="also write the raw results to this file")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--engine", help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return run_child(args.child, args.store, args.out, args.engine, args.result)
    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    unknown = [name for name in engines if name not in ENGINES]
    if unknown:
        parser.error(f"--engines: unknown {', '.join(unknown)}; choose from {', '.join(ENGINES)}")
    fetch_all([args.corpus], args.cache)
    corpus = args.cache / f"corpus-{args.corpus}"
    work = args.work or Path(tempfile.mkdtemp(prefix="refdoc-engines-"))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; corpus {corpus}; work {work}", flush=True)
    results: dict[str, list[dict]] = {}
    try:
        for engine in engines:
            results[engine] = bench_engine(corpus, ONE_FILES[args.corpus], engine, work)
            print_table({engine: results[engine]}, flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
