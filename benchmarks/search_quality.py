"""Search relevance on every labelled set: MRR@10, R@1 and R@10 per query kind, tuned apart.

    python benchmarks/search_quality.py [--sets click,requests,...] [--cache DIR]
                                        [--corpus NAME=DIR ...] [--json FILE]
                                        [--transformer DIR [--transformer-weights 0.4,0.5]]

Each set in `benchmarks/eval/` is about one published package, fetched into the cache
(`pip download --no-deps` for a wheel, `npm pack` for an npm tarball), its sha256 checked
against the one the labels were written for, and unpacked; `--corpus NAME=DIR` uses a
folder already on disk instead. Each corpus is indexed once (offline, static embedder) and
every set over it is scored twice: the fused ranking the site ships, and its BM25 side
alone (Lunr over the same fields, no vectors, no kind weights) as the baseline.
`--transformer` also scores all-MiniLM-L6-v2 (int8 ONNX) as the dense side, in the same
run (`transformer_dense.py`; needs the `transformer` extra).

A set is *tuned* when ranking or glossary changes were judged on it; the others are
held-out, and only their pooled figures say how the search does on code nobody tuned for.
See benchmarks/README.md ("Search relevance") for the table and how to read it.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from run import DEFAULT_CACHE, _table, sha256_of

from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, index
from refdoc_site.search.embed import matching_embedder
from refdoc_site.search.evaluate import Scores, evaluate, load_queries
from refdoc_site.search.ranking import SearchIndex, settings

EVAL_DIR = HERE / "eval"
KINDS = ("paraphrase", "keyword", "concept", "japanese", "question")
MODES = {"fused": "fused", "bm25": "sparse"}
"""Column name → ranking mode of `SearchIndex.search`."""


@dataclass(frozen=True)
class Package:
    """A published archive and the part of it the labels' paths are relative to."""

    name: str
    registry: str
    """`pip` (a wheel), `npm` (a tarball) or `git` (a repository at a commit)."""
    spec: str
    """`click==8.1.7`, `koa@2.15.3`, or for git `owner/name`."""
    sha256: str
    """The archive's sha256; for git, the commit (40 hex digits) the labels were written at."""
    keep: str = ""
    """Folder of the unpacked archive that becomes the corpus root ("" keeps it whole);
    `package/src` keeps `src/` (an npm tarball unpacks under `package/`)."""


@dataclass(frozen=True)
class LabelledSet:
    name: str
    file: str
    corpus: str
    language: str
    tuned: bool


PACKAGES = {
    "click": Package("click", "pip", "click==8.1.7", "ae74fb96c20a0277a1d615f1e4d73c8414f5a98db8b799a7931d1582f3390c28"),
    "requests": Package("requests", "pip", "requests==2.32.3", "70761cfe03c773ceb22aa2f671b4757976145175cdfca038c02654d061d6dcc6"),
    "wsproto": Package("wsproto", "pip", "wsproto==1.2.0", "b9acddd652b585d75b20477888c56642fdade28bdfd3579aa24a4d2c037dd736"),
    "httpx": Package("httpx", "pip", "httpx==0.27.2", "7bb2708e112d8fdd7829cd4243970f0c223274051cb35ee80c03301ee29a3df0", keep="httpx"),
    "koa": Package("koa", "npm", "koa@2.15.3", "23b9a334640c93f61306e1941dc87b6001b0273230482fb9138243de870727f1", keep="package"),
    "express": Package("express", "npm", "express@4.22.3", "5414b9a1a1a87a182475559c39b471f8bea7b069160c76a7876818b1da80a09c", keep="package"),
    "immer": Package("immer", "npm", "immer@10.1.1", "946cc79684ad1e080b09d4f2da14247b272aa667f3aaa100f35846148689f08f", keep="package/src"),
    # Whole repositories, tests and docs included: what own-code-first is measured on.
    "gin": Package("gin", "git", "gin-gonic/gin", "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9"),
    "cobra": Package("cobra", "git", "spf13/cobra", "adbc8813901bba65827259daa8e22ff94ec1f30e"),
    "ky": Package("ky", "git", "sindresorhus/ky", "3419113b48e034fdcf8fa6bd3be3da7b3d0d758f"),
    "semver": Package("semver", "git", "dtolnay/semver", "8591f2344b52b31d85b538de58b76a676fe9ff90"),
    "chi": Package("chi", "git", "go-chi/chi", "735ae2b87f8c733d616e809ae86e0985c1bc3350"),
}
MIRRORS = Path("/work/.mirror")
"""Bare clones named `owner+name/repo` (the search tool's mirrors); a repository missing
there is cloned from GitHub."""

SETS = [
    # click: the shared set every ranking change so far was judged on.
    LabelledSet("click", "click.jsonl", "click", "Python", tuned=True),
    # requests: the build-time expansion's weights (members, model words) were chosen on it.
    LabelledSet("requests", "requests.jsonl", "requests", "Python", tuned=True),
    # httpx-ja: the Japanese glossary grew from its misses (see eval/README.md).
    LabelledSet("httpx-ja", "httpx-ja.jsonl", "httpx", "Python", tuned=True),
    # wsproto: the held-out Python set since requests became tuned; unseen by the embedding model too.
    LabelledSet("wsproto", "wsproto.jsonl", "wsproto", "Python", tuned=False),
    LabelledSet("koa", "koa.jsonl", "koa", "JavaScript", tuned=False),
    LabelledSet("express", "express.jsonl", "express", "JavaScript", tuned=False),
    LabelledSet("immer", "immer.jsonl", "immer", "TypeScript", tuned=False),
    # Written for issue 23 before any ranking ran on them (eval/README.md). gin is tuned:
    # the one set with tests beside the code that the own-code-first weight was chosen on.
    LabelledSet("gin", "gin.jsonl", "gin", "Go", tuned=True),
    LabelledSet("cobra", "cobra.jsonl", "cobra", "Go", tuned=False),
    LabelledSet("ky", "ky.jsonl", "ky", "TypeScript", tuned=False),
    LabelledSet("semver", "semver.jsonl", "semver", "Rust", tuned=False),
    # Questions as a newcomer asks them (how…, where…, what happens when…), written for
    # issue 23 before any ranking ran on them; every other set describes the code instead.
    LabelledSet("chi-questions", "chi-questions.jsonl", "chi", "Go", tuned=False),
]


# --- corpora --------------------------------------------------------------------------------


def fetch_package(package: Package, cache: Path) -> Path:
    """The corpus folder of `package` in `cache`, downloading and unpacking it the first time."""
    target = cache / f"corpus-{package.name}"
    if target.is_dir():
        return target
    if package.registry == "git":
        return _checkout(package, cache, target)
    download = cache / f"download-{package.name}"
    shutil.rmtree(download, ignore_errors=True)
    download.mkdir(parents=True)
    if package.registry == "pip":
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                   "--disable-pip-version-check", "--quiet", "-d", str(download), package.spec]
    else:
        command = ["npm", "pack", "--silent", package.spec]
    print(f"  $ {' '.join(command[2:] if package.registry == 'pip' else command)}", flush=True)
    subprocess.run(command, cwd=download, check=True, stdout=subprocess.DEVNULL)
    archive = next(p for p in download.iterdir() if p.suffix in (".whl", ".tgz"))
    digest = sha256_of(archive)
    if digest != package.sha256:
        raise SystemExit(f"search_quality: {archive.name}: sha256 {digest}, expected {package.sha256}; the labels are for that file")
    unpacked = download / "unpacked"
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            wheel.extractall(unpacked)
    else:
        with tarfile.open(archive) as tarball:
            tarball.extractall(unpacked, filter="data")
    staging = cache / f"staging-{package.name}"
    shutil.rmtree(staging, ignore_errors=True)
    kept = unpacked / package.keep if package.keep else unpacked
    # The corpus root keeps the kept folder's own name unless it is npm's `package/` wrapper.
    inner = staging / kept.name if package.keep and kept.name != "package" else staging
    inner.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(kept), str(inner))
    staging.rename(target)
    shutil.rmtree(download)
    return target


def _checkout(package: Package, cache: Path, target: Path) -> Path:
    """The repository's tree at the pinned commit, from the local mirror or a fresh clone."""
    mirror = MIRRORS / package.spec.replace("/", "+") / "repo"
    if not mirror.is_dir():
        mirror = cache / f"clone-{package.name}"
        if not mirror.is_dir():
            print(f"  $ git clone --bare {package.spec}", flush=True)
            subprocess.run(["git", "clone", "--quiet", "--bare", f"https://github.com/{package.spec}", str(mirror)], check=True)
    staging = cache / f"staging-{package.name}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(mirror), "archive", package.sha256], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tarball:
        tarball.extractall(staging, filter="data")
    staging.rename(target)
    return target


def corpus_folders(names: set[str], cache: Path, given: dict[str, Path]) -> dict[str, Path]:
    cache.mkdir(parents=True, exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    folders = {}
    for name in sorted(names):
        folders[name] = given[name] if name in given else fetch_package(PACKAGES[name], cache)
        print(f"  {name}: {folders[name]}", flush=True)
    return folders


# --- scoring --------------------------------------------------------------------------------


def score_corpus(folder: Path, sets: list[LabelledSet], transformer=None, weights: tuple[float, ...] = ()) -> dict[str, dict[str, dict[str, dict[str, Scores]]]]:
    """Index `folder` once; scores of each set by variant, mode and kind.

    The variant `static` is the shipped ranking. With `transformer` (an embedder from
    `transformer_dense.load`), the chunks are embedded again with it and every set is
    scored once a sparse weight of `weights` (`minilm sw=W`), and once more with the
    transformer reading only the query's ASCII (`minilm-en sw=W`: a Japanese query's
    glossary English)."""
    with tempfile.TemporaryDirectory() as temporary:
        workspace = Workspace.create(folder, Config(), Path(temporary) / "store", Path(temporary) / "site")
        index(workspace)
        state = workspace.store.load()
    variants = {"static": _score_sets(SearchIndex.build(state.documents), matching_embedder(state), sets)}
    if transformer is not None:
        import transformer_dense

        cost = transformer_dense.reembed(folder.name, state.documents, transformer)
        COSTS[folder.name] = cost
        print(f"  {folder.name}: {cost['chunks']} chunks embedded by the transformer, {cost['cpu_seconds']} CPU s "
              f"({cost['cpu_per_chunk']} a chunk)", flush=True)
        search_index = SearchIndex.build(state.documents)
        fusion = settings()["fusion"]
        shipped = fusion["sparse_weight"]
        try:
            for weight in weights:
                fusion["sparse_weight"] = weight
                variants[f"minilm sw={weight}"] = _score_sets(search_index, transformer, sets)
                variants[f"minilm-en sw={weight}"] = _score_sets(search_index, transformer_dense.EnglishOnly(transformer), sets)
        finally:
            fusion["sparse_weight"] = shipped
    return variants


COSTS: dict[str, dict] = {}
"""The transformer's build cost by corpus, filled by `score_corpus`."""


def _score_sets(search_index: SearchIndex, embedder, sets: list[LabelledSet]) -> dict[str, dict[str, Scores]]:
    results = {}
    for labelled in sets:
        queries = load_queries(EVAL_DIR / labelled.file)
        results[labelled.name] = {
            column: evaluate(search_index, queries, mode, embedder) for column, mode in MODES.items()
        }
    return results


def pooled(results: dict[str, dict[str, dict[str, Scores]]], names: list[str]) -> dict[str, dict[str, Scores]]:
    """Query-weighted sums of several sets' scores, by mode and kind."""
    out: dict[str, dict[str, Scores]] = {column: defaultdict(Scores) for column in MODES}
    for name in names:
        for column, by_kind in results[name].items():
            for kind, scores in by_kind.items():
                total = out[column][kind]
                total.count += scores.count
                total.reciprocal_ranks += scores.reciprocal_ranks
                total.at_1 += scores.at_1
                total.at_10 += scores.at_10
                total.tests_top3 += scores.tests_top3
    return out


def rows_of(label: str, language: str, tuned: str, by_mode: dict[str, dict[str, Scores]]) -> list[list[str]]:
    rows = []
    for kind in ("overall", *KINDS):
        fused = by_mode["fused"].get(kind)
        if not fused or not fused.count:
            continue
        bm25 = by_mode["bm25"][kind]
        rows.append([
            label, language, tuned, kind, str(fused.count),
            f"{fused.mrr:.3f}", f"{fused.recall_1:.3f}", f"{fused.recall_10:.3f}", str(fused.tests_top3),
            f"{bm25.mrr:.3f}", f"{bm25.recall_1:.3f}", f"{bm25.recall_10:.3f}",
        ])
    return rows


def as_json(by_mode: dict[str, dict[str, Scores]]) -> dict:
    return {
        column: {kind: {"n": s.count, "mrr10": round(s.mrr, 4), "r1": round(s.recall_1, 4), "r10": round(s.recall_10, 4), "tests_top3": s.tests_top3}
                 for kind, s in by_kind.items()}
        for column, by_kind in by_mode.items()
    }


def add_set_options(parser: argparse.ArgumentParser) -> None:
    """`--sets`, `--cache`, `--corpus`: which labelled sets, and where their corpora are."""
    parser.add_argument("--sets", default=",".join(s.name for s in SETS), help="comma-separated (default: all)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="download folder (default: %(default)s)")
    parser.add_argument("--corpus", action="append", default=[], metavar="NAME=DIR",
                        help="use a corpus already unpacked on disk (e.g. click=/tmp/corpus-click)")


def chosen_sets(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[list[LabelledSet], dict[str, Path]]:
    """The sets `--sets` names and their corpus folders, fetched into the cache when needed."""
    by_name = {s.name: s for s in SETS}
    wanted = [by_name[n] for n in args.sets.split(",") if n]
    given = {}
    for item in args.corpus:
        name, _, folder = item.partition("=")
        if name not in PACKAGES or not Path(folder).is_dir():
            parser.error(f"--corpus {item}: expected NAME=DIR with NAME one of {', '.join(PACKAGES)} and DIR a folder")
        given[name] = Path(folder)
    print("corpora:")
    return wanted, corpus_folders({s.corpus for s in wanted}, args.cache, given)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_set_options(parser)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--setting", action="append", default=[], metavar="SECTION.KEY=JSON",
                        help="score with one of settings.json's values changed (fusion.aside_weight=1.0): an ablation")
    parser.add_argument("--transformer", type=Path, metavar="DIR",
                        help="also score all-MiniLM-L6-v2 as the dense side (DIR from tools/embedder/bert_onnx.py; needs onnxruntime)")
    parser.add_argument("--transformer-weights", default="0.5", metavar="W,W",
                        help="fusion sparse weights the transformer variant is scored at (default: %(default)s)")
    args = parser.parse_args(argv)
    for item in args.setting:
        key, _, value = item.partition("=")
        section, _, name = key.partition(".")
        live = settings()
        if section not in live or name not in live[section]:
            parser.error(f"--setting {item}: no {key} in refdoc_site/search/browser/settings.json")
        live[section][name] = json.loads(value)
    wanted, folders = chosen_sets(parser, args)
    transformer = None
    if args.transformer:
        import transformer_dense

        transformer = transformer_dense.load(args.transformer)
    weights = tuple(float(w) for w in args.transformer_weights.split(",") if w)

    variants: dict[str, dict[str, dict[str, dict[str, Scores]]]] = defaultdict(dict)
    for corpus, folder in folders.items():
        for variant, scored in score_corpus(folder, [s for s in wanted if s.corpus == corpus], transformer, weights).items():
            variants[variant].update(scored)
    results = variants["static"]

    headers = ["set", "language", "tuned", "kind", "n", "MRR@10", "R@1", "R@10", "tests@3", "bm25 MRR", "R@1", "R@10"]
    rows = []
    for labelled in wanted:
        rows += rows_of(labelled.name, labelled.language, "tuned" if labelled.tuned else "", results[labelled.name])
    held_out = [s.name for s in wanted if not s.tuned]
    tuned = [s.name for s in wanted if s.tuned]
    summary = {"held-out": pooled(results, held_out), "tuned": pooled(results, tuned), "all": pooled(results, [s.name for s in wanted])}
    for label, by_mode in summary.items():
        rows += rows_of(f"pooled {label}", "", "", by_mode)
    print(_table(headers, rows, right_from=4))
    if args.json:
        report = {name: as_json(by_mode) for name, by_mode in results.items()}
        report.update({f"pooled {label}": as_json(by_mode) for label, by_mode in summary.items()})
        if transformer is not None:
            report["transformer"] = {"costs": COSTS, "variants": {
                variant: {name: as_json(by_mode) for name, by_mode in scored.items()} for variant, scored in variants.items()}}
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if transformer is not None:
        print(variant_table(variants, wanted))
    return 0


def variant_table(variants: dict[str, dict[str, dict[str, dict[str, Scores]]]], wanted: list[LabelledSet]) -> str:
    """Pooled fused MRR@10 by kind (and tests@3) of each dense variant, tuned and held-out apart."""
    groups = {"tuned": [s.name for s in wanted if s.tuned], "held-out": [s.name for s in wanted if not s.tuned]}
    headers = ["variant", "group", "n", "overall", *KINDS, "tests@3"]
    rows = []
    for group, names in groups.items():
        for variant, scored in variants.items():
            fused = pooled(scored, names)["fused"]
            rows.append([variant, group, str(fused["overall"].count), f"{fused['overall'].mrr:.3f}",
                         *(f"{fused[kind].mrr:.3f}" for kind in KINDS), str(fused["overall"].tests_top3)])
    per_set = ["", "set", *variants]
    set_rows = [["", s.name + (" (tuned)" if s.tuned else ""), *(f"{v[s.name]['fused']['overall'].mrr:.3f}" for v in variants.values())] for s in wanted]
    costs = [f"{name}: {c['chunks']} chunks, {c['cpu_seconds']} CPU s, {c['cpu_per_chunk']} a chunk" for name, c in COSTS.items()]
    return "\n".join([_table(headers, rows, right_from=2), "", _table(per_set, set_rows, right_from=2), "", *costs])


if __name__ == "__main__":
    sys.exit(main())
