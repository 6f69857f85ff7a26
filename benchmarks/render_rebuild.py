"""Time the pipeline's phases over one-file rebuilds of a kept store.

    python benchmarks/render_rebuild.py DIR/zensical/repo DIR/zensical/store [--file django/utils/text.py] [--runs 3]
    python benchmarks/render_rebuild.py DIR/zensical/repo DIR/zensical/store --parts

DIR is the folder `engines.py --work DIR` kept. Each run appends a function to `--file`
(as engines.py's one-file step does) and builds without the site (`build(site=False)`)
in a new process; the table gives each phase's seconds and the pages the render phase
rendered ("-" for code from before it counted them, which rendered every page whenever
the phase ran). The first run after a change of refdoc-site's code reindexes every file (the
index fingerprint holds the code's digest): run once more before reading the table.
`--parts` times the parts of a whole render of the store instead (where a render's time
goes), with the functions both this code and the code before incremental rendering have.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from engines import probe  # noqa: E402
from run import _table  # noqa: E402

PHASES = ("index", "summarize", "render")


def run_child(repo: Path, store: Path) -> int:
    """One build without the site; prints its phase times and counts as JSON."""
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace, build

    built = build(Workspace.create(repo, Config(), store, store / "site"), site=False)
    print(json.dumps({"seconds": built.seconds, "rendered": getattr(built, "rendered", None), "pages": built.pages, "reindexed": built.index.reprocessed}))
    return 0


def time_parts(repo: Path, store: Path) -> int:
    """The parts of a whole render of the store's pages, one after the other (the search
    data in this process, not beside the pages), into a temporary folder."""
    import tempfile
    import time

    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace
    from refdoc_site.pipeline.render_phase import load_site_data, searched_sections
    from refdoc_site.rendering.llms import llms_full_txt, llms_txt
    from refdoc_site.rendering.render import _Pages, front_matter, prose_pages
    from refdoc_site.search.embed import matching_embedder
    from refdoc_site.search.site_search import write_search_data

    workspace = Workspace.create(repo, Config(), store, store / "site")
    rows = []
    started = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal started
        now = time.perf_counter()
        rows.append([name, f"{now - started:.2f}"])
        started = now

    data = load_site_data(workspace)
    embedder = matching_embedder(workspace.load_state())
    lap("load the store's records")
    prose = prose_pages(data)
    lap(f"render the {len(prose)} prose pages")
    sections = searched_sections(prose, embedder)
    lap("their search sections (not from the store)")
    reference = list(_Pages(data).reference())
    lap(f"render the {len(reference)} file and summary pages")
    with tempfile.TemporaryDirectory() as folder:
        for page, title, text in reference:
            target = Path(folder) / page
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(front_matter(title) + text, encoding="utf-8")
        lap("write them")
        write_search_data(data.documents + sections, Path(folder), embedder.directory if embedder else None, data.publish_source)
        lap("the search data")
    llms_txt(data, [page for page, _, _ in reference])
    llms_full_txt(data)
    lap("llms.txt and llms-full.txt")
    print(_table(["part", "seconds"], rows, right_from=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", type=Path)
    parser.add_argument("store", type=Path)
    parser.add_argument("--file", default="django/utils/text.py", help="the file a function is appended to, relative to the repository")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parts", action="store_true", help="time the parts of a whole render of the store instead")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.parts:
        return time_parts(args.repo, args.store)
    if args.child:
        return run_child(args.repo, args.store)
    rows = []
    for run in range(1, args.runs + 1):
        probe(args.repo / args.file, 1000 + run)
        command = [sys.executable, str(Path(__file__).resolve()), str(args.repo), str(args.store), "--child"]
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        if completed.returncode != 0:
            raise SystemExit(f"benchmark: build failed:\n{completed.stderr[-2000:]}")
        result = json.loads(completed.stdout.strip().splitlines()[-1])
        seconds = result["seconds"]
        rows.append([str(run), *(f"{seconds.get(phase, 0.0):.2f}" for phase in PHASES), str(result["reindexed"]), f"{'-' if result['rendered'] is None else result['rendered']} of {result['pages']}"])
        print(f"run {run}: done", flush=True)
    print(_table(["run", *(f"{phase} s" for phase in PHASES), "files reindexed", "pages rendered"], rows, right_from=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
