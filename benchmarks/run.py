"""Benchmark refdoc-site on real code: wall time per phase, throughput, peak memory.

    python benchmarks/run.py [--corpora click,httpx,django] [--cache DIR] [--no-mkdocs]
    python benchmarks/run.py --corpora click,httpx,django,homeassistant --no-rebuild   # the scaling table

Each corpus is a published wheel fetched with `pip download --no-deps` into the cache
folder and unpacked there. For each corpus the benchmark runs, in a fresh temporary store
and output folder, a full build and then a no-change rebuild against the same store. Each
of the two runs is its own child process, so its peak resident memory is that process's
own (read from the kernel's rusage of that child) and the rebuild starts as cold as a
second `refdoc-site build` would.

Each build's log is read line by line as it comes, so the longest interval without a
progress line is measured too (a CI runner takes a silent job for a hung one).

See benchmarks/README.md for how to read the tables.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from site_scale import RssSamples, logged_lines, scale_rows, verdicts  # noqa: E402
from page_anatomy import describe_anatomy, site_anatomy  # noqa: E402
from site_weight import SiteWeight, describe, describe_kinds, site_weight  # noqa: E402

DEFAULT_CACHE = HERE / ".cache"

THROUGHPUT_TARGET_KBPS = 500.0
"""End-to-end source throughput excluding MkDocs, in KB (1000 bytes) per second."""
REBUILD_TARGET_RATIO = 0.10
"""A no-change rebuild (excluding MkDocs) must take less than this share of the full build."""

PHASES = ("index", "summarize", "render", "mkdocs")
CORE_PHASES = PHASES[:3]


@dataclass(frozen=True)
class Corpus:
    name: str
    requirement: str
    fallback: str | None = None
    """Tried when the pinned requirement cannot be downloaded."""
    sha256: str = ""
    """When set, the wheel must have this digest (a wheel already in the cache is used as it is)."""
    pip_options: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    """Files of the wheel left out of the corpus (relative paths)."""
    git: bool = False
    """Committed once into a fresh git repository, as a team's checkout would be."""


CORPORA = {
    "click": Corpus("click", "click==8.1.7"),
    "httpx": Corpus("httpx", "httpx==0.27.2"),
    "django": Corpus("django", "django==5.1.4", fallback="django>=5,<6"),
    # A monorepo: 58,144 files, 10,913 of them Python, ~1,400 integrations in one folder.
    "homeassistant": Corpus(
        "homeassistant", "homeassistant==2026.11.0",
        sha256="7ca5fbde9dea879ac7723949fc84347aac5182e6309c357b2e4973fd391b00f7",
        pip_options=("--python-version", "3.14.2"),
        drop=("homeassistant-2026.11.0.dist-info/RECORD",),
        git=True,
    ),
}
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid", "GIT_AUTHOR_DATE": "2026-11-05T00:00:00Z",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid", "GIT_COMMITTER_DATE": "2026-11-05T00:00:00Z",
}
"""A fixed author and date: the commit, and so the site's build stamp, is the same on every machine."""


# --- fetching -------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_corpus(corpus: Corpus, cache: Path) -> dict:
    """Download and unpack `corpus` unless already unpacked; returns what was fetched."""
    target = cache / f"corpus-{corpus.name}"
    marker = cache / f"corpus-{corpus.name}.json"
    if target.is_dir() and marker.is_file():
        info = json.loads(marker.read_text(encoding="utf-8"))
        info["cached"] = True
        return info
    wheels = cache / f"wheels-{corpus.name}"
    requirement = corpus.requirement
    # A wheel already in the cache with the pinned digest (homeassistant's is 65 MB) is used as it is.
    pinned = [w for w in sorted(wheels.glob("*.whl")) if corpus.sha256 and sha256_of(w) == corpus.sha256][:1]
    if not pinned and wheels.exists():
        shutil.rmtree(wheels)
    wheels.mkdir(parents=True, exist_ok=True)
    for other in set(wheels.glob("*.whl")) - set(pinned):
        other.unlink()
    if pinned:
        print(f"  using {pinned[0]} (sha256 as pinned)", flush=True)
    elif not _pip_download(requirement, wheels, corpus.pip_options) and corpus.fallback:
        print(f"  {requirement} could not be downloaded; trying {corpus.fallback}", flush=True)
        requirement = corpus.fallback
        if not _pip_download(requirement, wheels):
            raise SystemExit(f"benchmark: could not download {corpus.fallback}")
    elif not any(wheels.glob("*.whl")):
        raise SystemExit(f"benchmark: could not download {requirement}")
    found = sorted(wheels.glob("*.whl"))
    if len(found) != 1:
        names = [p.name for p in found]
        raise SystemExit(f"benchmark: expected one wheel in {wheels}, found {names}")
    wheel = found[0]
    staging = cache / f"corpus-{corpus.name}.unpacking"
    if staging.exists():
        shutil.rmtree(staging)
    if corpus.sha256 and sha256_of(wheel) != corpus.sha256:
        raise SystemExit(f"benchmark: {wheel} has sha256 {sha256_of(wheel)}, not the pinned {corpus.sha256}")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(staging)
    for dropped in corpus.drop:
        (staging / dropped).unlink(missing_ok=True)
    if corpus.git:
        git = ["git", "-C", str(staging), "-c", "core.autocrlf=false"]
        environment = {**os.environ, **GIT_IDENTITY}
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", f"{wheel.name}, unpacked"]):
            subprocess.run(git + command, check=True, env=environment)
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    info = {
        "name": corpus.name,
        "requirement": requirement,
        "wheel": wheel.name,
        "version": wheel.name.split("-")[1],
        "sha256": sha256_of(wheel),
        "wheel_bytes": wheel.stat().st_size,
    }
    marker.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    info["cached"] = False
    return info


def _pip_download(requirement: str, dest: Path, options: tuple[str, ...] = ()) -> bool:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
        "--disable-pip-version-check", "--quiet", *options, "-d", str(dest), requirement,
    ]
    print(f"  $ pip download --no-deps --only-binary :all: {' '.join(options)} -d {dest} '{requirement}'", flush=True)
    result = subprocess.run(command, check=False)
    return result.returncode == 0 and any(dest.glob("*.whl"))


# --- the measured child process -------------------------------------------------------------


def fetch_all(names: list[str], cache: Path) -> dict[str, dict]:
    """Fetch (or find cached) every named corpus into `cache`, printing what was used."""
    cache.mkdir(parents=True, exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs; cache {cache}")
    print("fetched corpora:")
    infos = {}
    for name in names:
        info = fetch_corpus(CORPORA[name], cache)
        infos[name] = info
        state = "cached" if info["cached"] else "downloaded"
        print(f"  {name}: {info['wheel']} ({info['wheel_bytes']} bytes, {state}) sha256 {info['sha256']}", flush=True)
    return infos


def run_child(repo: Path, store: Path, out: Path, result_path: Path, mkdocs: bool, site_only: bool = False) -> int:
    """Run every phase once against `store`, timing each; write the result as JSON. With
    `site_only`, only the render and engine phases, over a store already indexed and
    summarized (`--from-store`)."""
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("mkdocs").setLevel(logging.ERROR)

    from refdoc_site.core.progress import heartbeat

    with heartbeat("starting"):  # as the `refdoc-site` command loads (launch.py)
        from refdoc_site.core.config import Config
        from refdoc_site.pipeline import Workspace, build

    workspace = Workspace.create(repo, Config(), store, out)
    seconds: dict[str, float] = {}
    result: dict = {"seconds": seconds, "error": None}
    samples = RssSamples()
    try:
        started = time.monotonic()
        built = site_phases(workspace, mkdocs) if site_only else build(workspace, site=mkdocs)
        samples.stop()
        report = built.index
        seconds.update(built.seconds)
        result["phase_rss_mb"] = samples.per_phase(started, built.seconds)
        result.update(
            files=report.files,
            chunks=report.chunks,
            source_bytes=report.source_bytes,
            reprocessed=report.reprocessed,
            reused=report.reused,
            failed=len(report.failed),
            skipped=sum(report.skipped.values()),
            pages=built.pages,
        )
    except Exception as error:  # reported in the table, the benchmark goes on
        result["error"] = f"{type(error).__name__}: {error}".splitlines()[0][:300]
    result_path.write_text(json.dumps(result), encoding="utf-8")
    return 0


def site_phases(workspace, mkdocs: bool):
    """The render and engine phases as `build()` runs them, timed, over a summarized store."""
    from refdoc_site.core.progress import heartbeat
    from refdoc_site.pipeline import BuildReport, IndexReport, publish, render

    seconds = {}
    started = time.perf_counter()
    with heartbeat("render"):  # loading homeassistant's state alone takes 15 s: it is the render's
        state = workspace.load_state()
        pages = render(workspace)
    seconds["render"] = time.perf_counter() - started
    if mkdocs:
        workspace.forget_state()  # as build() does
        started = time.perf_counter()
        publish(workspace)
        seconds["mkdocs"] = time.perf_counter() - started
    files = len(state.files)
    report = IndexReport(files=files, chunks=len(state.documents), source_bytes=sum(f.size for f in state.files.values()))
    return BuildReport(report, len(pages), workspace.out_dir, seconds)


def measure(repo: Path, store: Path, out: Path, mkdocs: bool, log_path: Path, site_only: bool = False) -> dict:
    """One build in a child process; adds its peak RSS (MB) from the child's own rusage."""
    result_path = store.parent / f"result-{time.monotonic_ns()}.json"
    command = [
        sys.executable, str(Path(__file__).resolve()), "--child", str(repo),
        "--store", str(store), "--out", str(out), "--result", str(result_path),
    ]
    if not mkdocs:
        command.append("--no-mkdocs")
    if site_only:
        command.append("--site-only")
    with log_path.open("a", encoding="utf-8") as log:
        environment = {**os.environ, "PYTHONUNBUFFERED": "1"}  # each line when it is said, for the silence measured
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", env=environment)
        silence = logged_lines(process, log)
        # wait4 reports this child's own rusage (ru_maxrss: its peak RSS, including any
        # process it waited for), untouched by pip or by the other corpora's children.
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0 or not result_path.exists():
        tail = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        raise SystemExit(f"benchmark: child exited {process.returncode}:\n" + "\n".join(tail))
    result = json.loads(result_path.read_text(encoding="utf-8"))
    result_path.unlink()
    result["peak_rss_mb"] = _rss_mb(usage.ru_maxrss)
    result["longest_silence_s"], result["silent_after"] = silence
    return result


def _rss_mb(maxrss: int) -> float:
    # Linux reports kilobytes, macOS bytes.
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


# --- the run --------------------------------------------------------------------------------


def bench_corpus(name: str, repo: Path, mkdocs: bool, keep: bool, with_rebuild: bool = True, from_store: Path | None = None) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"refdoc-bench-{name}-"))
    store, out, log = work / "store", work / "site", work / "child.log"
    print(f"  log: {log}", flush=True)
    if from_store is not None:  # its render and engine phases only, on a copy
        shutil.copytree(from_store, store, ignore=shutil.ignore_patterns("mkdocs", "lock*"))
    try:
        full = measure(repo, store, out, mkdocs, log, site_only=from_store is not None)
        weight = asdict(site_weight(out)) if mkdocs and full["error"] is None else None
        anatomy = site_anatomy(out) if weight else None  # where a file page's bytes go
        rebuild = measure(repo, store, out, mkdocs, log) if with_rebuild else {**full, "seconds": {}, "not_run": True}
    finally:
        if keep:
            print(f"  kept store and site in {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return {"name": name, "full": full, "rebuild": rebuild, "mkdocs": mkdocs, "site": weight, "anatomy": anatomy}


def summarize_result(result: dict) -> dict:
    full, rebuild = result["full"], result["rebuild"]
    core_full = sum(full["seconds"].get(p, 0.0) for p in CORE_PHASES)
    core_rebuild = sum(rebuild["seconds"].get(p, 0.0) for p in CORE_PHASES)
    all_full = sum(full["seconds"].values())
    all_rebuild = sum(rebuild["seconds"].values())
    throughput = full["source_bytes"] / 1000 / core_full if core_full else 0.0
    ratio_core = core_rebuild / core_full if core_full else 0.0
    has_mkdocs = "mkdocs" in full["seconds"]
    ratio_all = all_rebuild / all_full if has_mkdocs and all_full and "mkdocs" in rebuild["seconds"] else None
    ok = full["error"] is None and rebuild["error"] is None
    if rebuild.get("not_run"):
        ratio_core = ratio_all = core_rebuild = all_rebuild = None
    return {
        "core_full": core_full,
        "core_rebuild": core_rebuild,
        "all_full": all_full if has_mkdocs else None,
        "all_rebuild": all_rebuild if has_mkdocs else None,
        "throughput_kbps": throughput,
        "ratio_core": ratio_core,
        "ratio_all": ratio_all,
        "throughput_pass": ok and throughput >= THROUGHPUT_TARGET_KBPS,
        "rebuild_pass": ok and ratio_core is not None and ratio_core < REBUILD_TARGET_RATIO,
    }


def _table(headers: list[str], rows: list[list[str]], right_from: int = 1) -> str:
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            str(c).ljust(w) if i < right_from else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths))
        )

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _mb(value: float) -> str:
    return f"{value / 1e6:.1f}"


def _kb(value: float) -> str:
    return f"{value / 1000:.1f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def print_corpus(info: dict, result: dict, derived: dict) -> None:
    full, rebuild = result["full"], result["rebuild"]
    print()
    print(f"== {info['name']} {info['version']}  ({info['wheel']}, sha256 {info['sha256']})")
    print(
        f"files {full['files']}  chunks {full['chunks']}  "
        f"source {full['source_bytes'] / 1000:.1f} KB  "
        f"pages {full.get('pages', '-')}  skipped {full['skipped']}  failed {full['failed']}  "
        + ("rebuild not run" if rebuild.get("not_run") else f"rebuild reused {rebuild['reused']}/{rebuild['files']} files")
    )
    for label, run in (("full build", full), ("rebuild", rebuild)):
        if run["error"]:
            print(f"ERROR in {label}: {run['error']}")
    rows = []
    for phase in PHASES:
        f, r = full["seconds"].get(phase), rebuild["seconds"].get(phase)
        if f is None and r is None:
            rows.append([phase, "skipped", "skipped", "-"])
            continue
        rows.append([phase, _s(f), _s(r), _pct(r / f if f and r is not None else None)])
    for label, key in (("total excl. mkdocs", "core"), ("total incl. mkdocs", "all")):
        ratio = derived["ratio_core" if key == "core" else "ratio_all"]
        rows.append([label, _s(derived[f"{key}_full"]), _s(derived[f"{key}_rebuild"]), _pct(ratio)])
    rows.append(["peak RSS MB", f"{full['peak_rss_mb']:.0f}", f"{rebuild['peak_rss_mb']:.0f}", "-"])
    for phase, peak in full.get("phase_rss_mb", {}).items():
        rows.append([f"  main process RSS MB in {phase}", f"{peak:.0f}", "-", "-"])
    print(_table(["phase (wall s)", "full", "no-change rebuild", "rebuild/full"], rows))
    site = result.get("site")
    if site:
        print(describe(SiteWeight(**site)))
        print(describe_kinds(SiteWeight(**site), full["files"]))
    if result.get("anatomy"):
        count, totals, classes = result["anatomy"]
        print(f"where the {count} file pages' bytes go (page_anatomy.py):")
        print(describe_anatomy(count, totals, classes, full["files"]))
    print(f"longest interval without a line: {full.get('longest_silence_s', 0.0):.1f} s, after {full.get('silent_after', '?')!r}")
    verdict = "PASS" if derived["throughput_pass"] else "FAIL"
    print(
        f"throughput excl. mkdocs: {derived['throughput_kbps']:.0f} KB/s "
        f"(target >= {THROUGHPUT_TARGET_KBPS:.0f} KB/s: {verdict})"
    )
    verdict = "PASS" if derived["rebuild_pass"] else "FAIL"
    print(
        f"no-change rebuild excl. mkdocs: {_pct(derived['ratio_core'])} of full "
        f"(target < {REBUILD_TARGET_RATIO * 100:.0f}%: {verdict}); "
        f"incl. mkdocs: {_pct(derived['ratio_all'])}"
    )


def _site_cells(site: dict | None) -> list[str]:
    """The built site's weight (site_weight.py): total MB, files, mean page KB, nav KB mean and max."""
    if not site:
        return ["-"] * 5
    return [
        _mb(site["total_bytes"]), str(site["files"]), _kb(site["page_bytes_mean"]),
        _kb(site["nav_bytes_mean"]), _kb(site["nav_bytes_max"]),
    ]


def print_summary(entries: list[tuple[dict, dict, dict]]) -> None:
    headers = [
        "corpus", "files", "chunks", "src KB", "index s", "summ. s", "render s", "mkdocs s",
        "total excl s", "KB/s", "peak RSS MB", "rebuild/full excl", "rebuild/full incl",
        "site MB", "site files", "KB/page", "nav KB/page", "nav KB max",
        f">={THROUGHPUT_TARGET_KBPS:.0f}KB/s", f"rebuild<{REBUILD_TARGET_RATIO * 100:.0f}%",
    ]
    rows = []
    for info, result, derived in entries:
        full = result["full"]
        seconds = full["seconds"]
        rows.append([
            f"{info['name']} {info['version']}",
            str(full["files"]),
            str(full["chunks"]),
            f"{full['source_bytes'] / 1000:.0f}",
            _s(seconds.get("index")),
            _s(seconds.get("summarize")),
            _s(seconds.get("render")),
            _s(seconds.get("mkdocs")),
            _s(derived["core_full"]),
            f"{derived['throughput_kbps']:.0f}",
            f"{max(full['peak_rss_mb'], result['rebuild']['peak_rss_mb']):.0f}",
            _pct(derived["ratio_core"]),
            _pct(derived["ratio_all"]),
            *_site_cells(result.get("site")),
            "PASS" if derived["throughput_pass"] else "FAIL",
            "PASS" if derived["rebuild_pass"] else "FAIL",
        ])
    print()
    print("== summary (full build; rebuild ratios from the same run)")
    print(_table(headers, rows))
    print()
    print("== scaling (full build): bytes and seconds per indexed file")
    print(_table(*scale_rows(entries)))
    print("\n".join(verdicts(entries)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpora", default="click,httpx,django", help="comma-separated: " + ",".join(CORPORA)
    )
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE,
        help="download cache (default: benchmarks/.cache)",
    )
    parser.add_argument(
        "--no-mkdocs", action="store_true", help="skip the MkDocs build (publish phase)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep each corpus's temporary store and site"
    )
    parser.add_argument("--json", type=Path, help="also write the raw results to this file")
    parser.add_argument("--no-rebuild", action="store_true", help="only the full build (homeassistant's takes 15+ minutes)")
    parser.add_argument(
        "--from-store", type=Path,
        help="a store a kept run indexed and summarized (`--keep`): only its render and engine phases, on a copy (one corpus)",
    )
    parser.add_argument("--site-only", action="store_true", help=argparse.SUPPRESS)
    # Internal: one measured build in this process (used by the parent; also handy to profile).
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        return run_child(args.child, args.store, args.out, args.result, not args.no_mkdocs, args.site_only)

    names = [n.strip() for n in args.corpora.split(",") if n.strip()]
    unknown = [n for n in names if n not in CORPORA]
    if unknown:
        parser.error(f"unknown corpora {', '.join(unknown)}; known are {', '.join(CORPORA)}")
    if args.from_store and (len(names) != 1 or not (args.from_store / "index.jsonl").is_file()):
        parser.error(f"--from-store {args.from_store}: give one corpus and the `store` folder of a kept run of it (it holds index.jsonl)")
    cache = args.cache.resolve()
    infos = fetch_all(names, cache)

    entries = []
    for name in names:
        mode = "without" if args.no_mkdocs else "with"
        print(f"\nbenchmarking {name} ({mode} mkdocs) ...", flush=True)
        started = time.perf_counter()
        result = bench_corpus(
            name, cache / f"corpus-{name}", not args.no_mkdocs, args.keep, not (args.no_rebuild or args.from_store), args.from_store
        )
        derived = summarize_result(result)
        print(f"  done in {time.perf_counter() - started:.1f}s", flush=True)
        print_corpus(infos[name], result, derived)
        entries.append((infos[name], result, derived))
    print_summary(entries)
    if args.json:
        args.json.write_text(
            json.dumps([{"corpus": i, "result": r, "derived": d} for i, r, d in entries], indent=2)
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
