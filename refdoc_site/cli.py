"""Command line: `refdoc-site build|index|summarize|render|stats`.

Every error the user can cause ends in one line on stderr and exit code 2; a configuration
with several problems prints one line per problem.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .config import load_config, with_overrides
from .errors import RefdocError
from .pipeline import FACTS_NAME, DISCOVERY_NAME, Workspace, build, index, render, summarize
from .stats import chunk_stats, format_stats

log = logging.getLogger("refdoc_site")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if not args.verbose else logging.INFO, format="%(message)s")
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    try:
        return args.run(args)
    except RefdocError as error:
        for line in str(error).splitlines():
            print(f"refdoc-site: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("refdoc-site: interrupted; the store keeps what was written before", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="refdoc-site", description="Turn a code repository into a documentation site.")
    parser.add_argument("--version", action="version", version=f"refdoc-site {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, run, help_text: str, out: bool = False) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("repo", nargs="?", default=".", type=Path, help="repository to document (default: .)")
        sub.add_argument("--config", type=Path, help="configuration file (default: REPO/refdoc.yml)")
        sub.add_argument("--store", type=Path, help="store directory (default: REPO/.refdoc)")
        sub.add_argument("--chunk-size", type=int, help="token window size (overrides refdoc.yml)")
        sub.add_argument("--overlap", type=int, help="token window overlap (overrides refdoc.yml)")
        sub.add_argument("-v", "--verbose", action="store_true", help="log each step")
        if out:
            sub.add_argument("--out", type=Path, help="site output directory (default: STORE/site)")
        sub.set_defaults(run=run, out=None)
        return sub

    command("build", _build, "Run the whole pipeline and the MkDocs build.", out=True)
    command("index", _index, "Discover, chunk, analyze and summarize changed files into the store.")
    command("summarize", _summarize, "Build the file, module and system summaries from the store.")
    command("render", _render, "Render the Markdown pages and mkdocs.yml from the store.", out=True)
    command("stats", _stats, "Print chunking statistics of the store.")
    return parser


def _workspace(args: argparse.Namespace) -> Workspace:
    repo = args.repo
    if not repo.is_dir():
        raise RefdocError(f"{repo}: not a directory; pass the repository folder to document")
    config = with_overrides(load_config(repo, args.config), chunk_size=args.chunk_size, chunk_overlap=args.overlap)
    return Workspace.create(repo, config, args.store, args.out)


def _build(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    report = build(workspace)
    _print_index(report.index)
    timings = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in report.seconds.items())
    print(f"site: {report.pages} pages built in {timings}")
    print(f"open {report.site_dir / 'index.html'}")
    return 0


def _index(args: argparse.Namespace) -> int:
    _print_index(index(_workspace(args)))
    return 0


def _summarize(args: argparse.Namespace) -> int:
    hierarchy = summarize(_workspace(args))
    print(f"summaries: {len(hierarchy.files)} files, {len(hierarchy.modules)} modules, 1 system")
    print(hierarchy.system.text)
    return 0


def _render(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    if not (workspace.store_dir / FACTS_NAME).exists():
        summarize(workspace)
    pages = render(workspace)
    print(f"rendered {len(pages)} pages into {workspace.project_dir / 'docs'}")
    print(f"build them with: mkdocs build -f {workspace.project_dir / 'mkdocs.yml'}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    state = workspace.store.load()
    if not state.files:
        raise RefdocError(f"{workspace.store.index_path}: no indexed files; run `refdoc-site index` first")
    discovery = workspace.store.read_json(DISCOVERY_NAME)
    skipped: dict[str, int] = {}
    for entry in discovery["skipped"]:
        skipped[entry["reason"]] = skipped.get(entry["reason"], 0) + 1
    stats = chunk_stats(
        state.documents,
        {path: entry.language for path, entry in state.files.items()},
        dict(sorted(skipped.items())),
        workspace.config.chunk_size,
    )
    print(format_stats(stats))
    return 0


def _print_index(report) -> None:
    skipped = sum(report.skipped.values())
    print(
        f"index: {report.files} files ({report.reprocessed} processed, {report.reused} unchanged, "
        f"{report.removed} removed), {report.chunks} chunks, {skipped} skipped"
        + (f", {len(report.failed)} failed" if report.failed else "")
    )
    for line in report.failed[:20]:
        print(f"  failed: {line}", file=sys.stderr)
