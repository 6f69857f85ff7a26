"""What the gh-pages branch holds with the default branch's site and ten open previews.

    python benchmarks/previews.py --corpus django --cache /work/bench-cache
    python benchmarks/previews.py --corpus homeassistant --cache /work/bench-cache --work /tmp/previews-ha

The corpus (benchmarks/run.py's, fetched into the cache) is committed into a git
repository in the work folder and built as the default branch's site
(`refdoc-site build --site-url https://bench.github.io/NAME/`), put at the root of a folder
laid out as the gh-pages branch (what the workflow's publish step copies there). Then each
of N pull requests changes one file, a function appended to the K-th of the corpus's
Python files spread evenly over it, is built from the base with `--site-url …/pr-K/
--base`, and published as the workflow's preview step publishes it
(`refdoc-site preview SITE --main BRANCH --out BRANCH/pr-K`); the file is then restored,
as the next pull request starts from the base too. The store is the one the builds share,
as the CI cache shares it.

Printed: per preview, the files and bytes it holds and the seconds `preview` took; then
the branch's bytes and the previews' share of the main site. GitHub Pages publishes at
most 1 GB, and the bound is for ten open previews whatever --previews is: the verdict
(`verdict`) is per preview, the run's largest against a tenth of the bound. For
homeassistant: main + 10 × that preview < 1 GB; for a smaller corpus the same bound
scaled to its size, the preview's bytes as a fraction of the main site against
(1 GB − homeassistant's site) / homeassistant's site / 10.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import CORPORA, DEFAULT_CACHE, GIT_IDENTITY, fetch_corpus  # noqa: E402

PAGES_LIMIT = 1_000_000_000
"""GitHub Pages: a published site of at most 1 GB."""
HOMEASSISTANT_SITE = 495_000_000
"""homeassistant 2026.11.0's site as benchmarks/README.md last measured it (495.0 MB, a full
build at 3fd5c08; 681.4 MB when this benchmark was written): the size at which the 1 GB
bound leaves (1 GB − it) for the previews."""
OPEN_PREVIEWS = 10
"""The issue's bound: the main site and ten open previews."""


def _git(repo: Path, *arguments: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "core.autocrlf=false", *arguments], check=True, capture_output=True, text=True, env={**os.environ, **GIT_IDENTITY})
    return done.stdout.strip()


def _build(repo: Path, out: Path, site_url: str, log: Path, *extra: str) -> float:
    started = time.monotonic()
    command = [sys.executable, "-m", "refdoc_site", "build", str(repo), "--out", str(out), "--site-url", site_url, *extra]
    with log.open("a", encoding="utf-8") as written:
        written.write(f"$ {' '.join(command)}\n")
        written.flush()
        done = subprocess.run(command, stdout=written, stderr=subprocess.STDOUT, check=False)
    if done.returncode:
        raise SystemExit(f"benchmark: build failed ({done.returncode}); see {log}")
    return time.monotonic() - started


def _bytes(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file() and ".git" not in p.parts]
    return len(files), sum(p.stat().st_size for p in files)


def verdict(corpus: str, main_bytes: int, previews: list[int]) -> tuple[bool, str]:
    """PASS or FAIL for the previews of the run, and the line that says it.

    The bound is for OPEN_PREVIEWS previews at once, whatever number the run built: each
    preview's share of the main site (its bytes over the main site's) against the bound's
    share for one preview, the bound divided by OPEN_PREVIEWS. The run passes when its
    largest preview does (the mean would let a cheap preview pay for a dear one). For
    homeassistant the bound is the 1 GB itself: main + OPEN_PREVIEWS × that preview; for a
    smaller corpus the share of the main site that bound leaves homeassistant's site,
    (1 GB − homeassistant's site) / homeassistant's site.
    """
    largest = max(previews, default=0)
    share = largest / main_bytes
    if corpus == "homeassistant":
        ten = main_bytes + OPEN_PREVIEWS * largest
        return ten < PAGES_LIMIT, (
            f"{'PASS' if ten < PAGES_LIMIT else 'FAIL'}  per preview, the largest of the run's {len(previews)}: "
            f"main {main_bytes / 1e6:.1f} MB + {OPEN_PREVIEWS} × {largest / 1e6:.2f} MB = {ten / 1e6:.1f} MB {'<' if ten < PAGES_LIMIT else '≥'} 1 GB"
        )
    allowed = (PAGES_LIMIT - HOMEASSISTANT_SITE) / HOMEASSISTANT_SITE / OPEN_PREVIEWS
    projected = HOMEASSISTANT_SITE * (1 + OPEN_PREVIEWS * share)
    passed = share < allowed
    return passed, (
        f"{'PASS' if passed else 'FAIL'}  per preview, the largest of the run's {len(previews)}: {share:.2%} of the main site "
        f"{'<' if passed else '≥'} {allowed:.2%}, the bound for one of {OPEN_PREVIEWS} open previews ({OPEN_PREVIEWS} × {allowed:.2%} keeps "
        f"homeassistant's {HOMEASSISTANT_SITE / 1e6:.1f} MB site + previews under 1 GB; {OPEN_PREVIEWS} previews like this one: "
        f"{projected / 1e6:.0f} MB)"
    )


def changed_files(repo: Path, count: int) -> list[str]:
    """`count` Python files of the corpus, spread evenly over its sorted list."""
    files = sorted(_git(repo, "ls-files", "*.py").splitlines())
    files = [name for name in files if "/migrations/" not in name and not name.endswith("__init__.py")]
    return [files[len(files) * (k + 1) // (count + 1)] for k in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="django", choices=sorted(CORPORA))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--work", type=Path, help="work folder (default: /tmp/refdoc-previews-NAME); reused")
    parser.add_argument("--previews", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep each pull request's whole built site (pr-K-site) for inspection")
    parser.add_argument("--origin", help="the repository's `origin` remote (e.g. https://github.com/bench/NAME): with it the pages link their sources at each commit, as a GitHub checkout's do")
    args = parser.parse_args(argv)
    info = fetch_corpus(CORPORA[args.corpus], args.cache)
    work = args.work or Path(f"/tmp/refdoc-previews-{args.corpus}")
    repo, branch, log = work / "repo", work / "gh-pages", work / "builds.log"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shutil.copytree(args.cache / f"corpus-{args.corpus}", repo, ignore=shutil.ignore_patterns(".git"))
    (repo / ".gitignore").write_text(".refdoc/\n", encoding="utf-8")
    _git(repo, "init", "-q")
    if args.origin:
        _git(repo, "remote", "add", "origin", args.origin)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"{info['name']} {info['version']}")
    base = _git(repo, "rev-parse", "HEAD")
    pages_url = f"https://bench.github.io/{args.corpus}/"

    print(f"{info['name']} {info['version']}: building the main site", flush=True)
    seconds = _build(repo, work / "main", pages_url, log)
    shutil.copytree(work / "main", branch, ignore=shutil.ignore_patterns(".refdoc-site.json"))
    main_files, main_bytes = _bytes(branch)
    print(f"  main site: {main_files:,} files, {main_bytes / 1e6:.1f} MB, built in {seconds:.0f} s", flush=True)
    base_store = work / "base-store"
    shutil.copytree(repo / ".refdoc", base_store)

    rows, held_bytes = [], []
    for number, path in enumerate(changed_files(repo, args.previews), start=1):
        with (repo / path).open("a", encoding="utf-8") as changed:
            changed.write(f"\n\ndef preview_change_{number}(value):\n    \"\"\"Pull request {number}: one function added.\"\"\"\n    return value\n")
        _git(repo, "commit", "-q", "-am", f"Pull request {number}: {path}")
        site = work / f"pr-{number}-site"
        build_seconds = _build(repo, site, f"{pages_url}pr-{number}/", log, "--base", base, "--base-store", str(base_store))
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "refdoc_site", "preview", str(site), "--main", str(branch), "--out", str(branch / f"pr-{number}")],
            capture_output=True, text=True, check=False,
        )
        if done.returncode:
            raise SystemExit(f"benchmark: preview failed: {done.stderr.strip()}")
        preview_seconds = time.monotonic() - started
        files, held = _bytes(branch / f"pr-{number}")
        pages = len(list((branch / f"pr-{number}").rglob("*.html")))
        whole_files, whole = _bytes(site)
        held_bytes.append(held)
        rows.append([str(number), path, f"{pages:,}", f"{files:,}", f"{held / 1e6:.2f}", f"{whole / 1e6:.1f}", f"{held / main_bytes:.2%}", f"{build_seconds:.0f}", f"{preview_seconds:.1f}"])
        print("  " + " | ".join(rows[-1]), flush=True)
        if not args.keep:
            shutil.rmtree(site)
        _git(repo, "checkout", "-q", base, "--", path)
        _git(repo, "commit", "-q", "-am", f"Back to the base: {path}")

    headers = ["PR", "changed file", "pages", "files", "MB held", "MB whole", "of main", "build s", "preview s"]
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    print()
    for row in [headers, ["-" * w for w in widths], *rows]:
        print("| " + " | ".join(cell.ljust(w) if i == 1 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))) + " |")
    total_files, total = _bytes(branch)
    previews = total - main_bytes
    print(f"\ngh-pages: {total_files:,} files, {total / 1e6:.1f} MB: main site {main_bytes / 1e6:.1f} MB + {args.previews} previews {previews / 1e6:.2f} MB ({previews / main_bytes:.2%} of the main site)")
    passed, text = verdict(args.corpus, main_bytes, held_bytes)
    print(text)
    (work / "result.json").write_text(json.dumps({"corpus": info, "main_bytes": main_bytes, "branch_bytes": total, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
