"""What a newcomer finds on the overview page: facts per repository, found/total.

    python benchmarks/reader.py [--repos flask,click] [--cache DIR] [--code DIR]
                                [--site NAME=DIR ...] [--source NAME=DIR ...] [-v] [--json FILE]

The facts (`reader/facts.json`) were written from reading each repository's code before
the overview changed: its central abstractions (linked to the file that defines them), its
entry points, its main flow (the steps' names in order), its components and its own guide
docs (linked). For each repository the benchmark fetches the corpus once into the cache
(`pip download` of an sdist or wheel, `npm pack`; a git repository comes from
`--source NAME=DIR`, e.g. a checkout of cobra v1.8.1), commits it into a fresh git
repository (so source links have a commit), builds the site's pages offline (`index`,
`summarize`, `render` in a child process; no MkDocs: the overview is read from its
Markdown) and checks each fact on `index.md`. `--site NAME=DIR` reads a site built before
(its `index.html`, or a store's `mkdocs/docs/index.md`) instead of building. `--code DIR`
builds with another checkout of refdoc-site (a copy of main, to measure "before").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from dataclasses import asdict, dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import markdown

HERE = Path(__file__).resolve().parent
FACTS = HERE / "reader" / "facts.json"
DEFAULT_CACHE = HERE / ".cache"
KINDS = ("abstraction", "entry", "flow", "component", "guide")
EXTENSION = re.compile(r"\.(?:py|js|mjs|cjs|ts|go|rs|md|rst|txt)$")


# --- reading a page -------------------------------------------------------------------------


class _Anchors(HTMLParser):
    """The page's links (visible text, address) and its whole visible text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self.text: list[str] = []
        self._open: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open.append((dict(attrs).get("href") or "", []))

    def handle_endtag(self, tag):
        if tag == "a" and self._open:
            href, parts = self._open.pop()
            self.links.append(("".join(parts).strip(), unquote(href)))

    def handle_data(self, data):
        self.text.append(data)
        for _, parts in self._open:
            parts.append(data)


@dataclass
class Page:
    links: list[tuple[str, str]]
    text: str


def read_page(path: Path) -> Page:
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        source = markdown.markdown(re.sub(r"\A---\n.*?\n---\n", "", source, flags=re.S), extensions=["tables"])
    parser = _Anchors()
    parser.feed(source)
    return Page(parser.links, " ".join("".join(parser.text).split()))


def _bare(label: str) -> str:
    return label.strip().strip("`").removesuffix("()").strip()


def _names(label: str, name: str) -> bool:
    bare = _bare(label)
    return bare == name or bare.endswith("." + name)


def _href_names(href: str, path: str) -> bool:
    """Whether a link's address is the page of `path` (the file page, or a docs page
    addressed by the path without its extension)."""
    return path in href or EXTENSION.sub("", path) in href


def found(fact: dict, page: Page) -> bool:
    kind = fact["kind"]
    if kind in ("abstraction", "entry"):
        return any(_names(label, fact["name"]) and _href_names(href, fact["path"]) for label, href in page.links)
    if kind == "component":
        def segment(label: str) -> str:
            return re.split(r"[/.]", EXTENSION.sub("", _bare(label).rstrip("/")))[-1] if _bare(label) else ""
        return any(segment(label) == fact["name"] or _bare(label) == fact["name"] for label, _ in page.links)
    if kind == "guide":
        return any(_href_names(href, fact["path"]) for _, href in page.links)
    if kind == "flow":
        position = 0
        for step in fact["steps"]:
            match = re.compile(r"(?<![\w.])(?:[\w.]*\.)?" + re.escape(step) + r"(?![\w])").search(page.text, position)
            if match is None:
                return False
            position = match.end()
        return True
    raise ValueError(f"{FACTS}: unknown fact kind {kind!r}")


# --- fetching and building ------------------------------------------------------------------


def corpus_dir(name: str, spec: dict, cache: Path, sources: dict[str, Path]) -> Path:
    """The repository's files, unpacked once into the cache and committed into git."""
    if name in sources:
        return sources[name]
    fetch = spec["fetch"]
    requirement = fetch.get("pip_sdist") or fetch.get("pip_wheel") or fetch.get("npm") or ""
    version = re.split(r"==|@", requirement)[-1] if requirement else fetch.get("tag", "").lstrip("v")
    target = cache / f"corpus-{name}-{version}"
    if (target / ".git").is_dir():
        return target
    if not requirement:
        sys.exit(f"{name}: a git corpus is not fetched here; pass --source {name}=DIR (a checkout of {fetch['git']} at {fetch['tag']})")
    downloads = cache / "dl"
    downloads.mkdir(parents=True, exist_ok=True)
    if "pip_sdist" in fetch:
        _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", requirement, "-d", str(downloads)])
        archive = next(downloads.glob(f"{name}-{version}.tar.gz"))
    elif "pip_wheel" in fetch:
        _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
              "--python-version", fetch["python_version"], requirement, "-d", str(downloads)])
        archive = next(downloads.glob(f"{name}-{version}-*.whl"))
    else:
        _run(["npm", "pack", "--silent", requirement], cwd=downloads)
        archive = downloads / f"{name}-{version}.tgz"
    target.mkdir(parents=True, exist_ok=True)
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            wheel.extractall(target)
        for record in target.glob("*.dist-info/RECORD"):
            record.unlink()
    else:
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                member.name = member.name.split("/", 1)[1] if "/" in member.name else ""
            tar.extractall(target, members=[m for m in tar.getmembers() if m.name], filter="data")
    _run(["git", "init", "-q"], cwd=target)
    _run(["git", "add", "-A"], cwd=target)
    _run(["git", "-c", "user.name=reader", "-c", "user.email=reader@localhost", "commit", "-qm", "corpus"], cwd=target)
    return target


def build_overview(name: str, repo: Path, cache: Path, code: Path | None, tag: str) -> tuple[Path, float]:
    """Index, summarize and render the repository offline; the overview's Markdown and the seconds taken."""
    store = cache / f"reader-store-{tag}-{name}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    start = time.monotonic()
    for phase in ("index", "summarize", "render"):
        _run([sys.executable, "-m", "refdoc_site", phase, str(repo), "--store", str(store)], env=env)
    return store / "mkdocs" / "docs" / "index.md", time.monotonic() - start


def _run(command: list[str], **options) -> None:
    result = subprocess.run(command, capture_output=True, text=True, **options)
    if result.returncode:
        sys.exit(f"{' '.join(command[:4])}…: exit {result.returncode}\n{result.stderr[-2000:]}")


def overview_of(site: Path) -> Path:
    for candidate in (site / "index.html", site / "mkdocs" / "docs" / "index.md", site / "docs" / "index.md", site):
        if candidate.is_file():
            return candidate
    sys.exit(f"--site {site}: no index.html, mkdocs/docs/index.md or docs/index.md there")


# --- the table ------------------------------------------------------------------------------


@dataclass
class Result:
    repository: str
    language: str
    found: int
    total: int
    by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    seconds: float = 0.0


def check(name: str, spec: dict, page: Page) -> Result:
    result = Result(name, spec["language"], 0, len(spec["facts"]))
    for kind in KINDS:
        facts = [f for f in spec["facts"] if f["kind"] == kind]
        hits = [f for f in facts if found(f, page)]
        result.by_kind[kind] = (len(hits), len(facts))
        result.found += len(hits)
        result.missing += [f"{kind}: {f.get('name') or f.get('path') or ' → '.join(f['steps'])}" for f in facts if f not in hits]
    return result


def table(results: list[Result]) -> str:
    header = ["repository", "language", "found", *KINDS, "build s"]
    rows = [header, ["---"] * len(header)]
    for r in results:
        kinds = [f"{r.by_kind[k][0]}/{r.by_kind[k][1]}" if r.by_kind[k][1] else "-" for k in KINDS]
        rows.append([r.repository, r.language, f"{r.found}/{r.total}", *kinds, f"{r.seconds:.0f}" if r.seconds else "-"])
    total_found, total = sum(r.found for r in results), sum(r.total for r in results)
    rows.append(["all", "", f"{total_found}/{total}", *[""] * len(KINDS), ""])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _pairs(values: list[str], option: str) -> dict[str, Path]:
    pairs = {}
    for value in values:
        name, sep, directory = value.partition("=")
        if not sep:
            sys.exit(f"{option} {value}: write NAME=DIR")
        pairs[name] = Path(directory).resolve()
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", help="comma-separated names from reader/facts.json (default: all)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--code", type=Path, help="a refdoc-site checkout to build with (default: the installed one)")
    parser.add_argument("--tag", default="", help="names the stores kept in the cache (default: 'code' with --code, else 'now')")
    parser.add_argument("--site", action="append", default=[], help="NAME=DIR: read this built site or store")
    parser.add_argument("--source", action="append", default=[], help="NAME=DIR: the repository's files (needed for git corpora)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the facts not found")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    specs = json.loads(FACTS.read_text(encoding="utf-8"))["repositories"]
    names = args.repos.split(",") if args.repos else list(specs)
    unknown = [n for n in names if n not in specs]
    if unknown:
        sys.exit(f"--repos: {', '.join(unknown)} not in {FACTS.name} ({', '.join(specs)})")
    sites, sources = _pairs(args.site, "--site"), _pairs(args.source, "--source")
    tag = args.tag or ("code" if args.code else "now")
    results = []
    for name in names:
        spec = specs[name]
        seconds = 0.0
        if name in sites:
            overview = overview_of(sites[name])
        else:
            overview, seconds = build_overview(name, corpus_dir(name, spec, args.cache, sources), args.cache, args.code, tag)
        result = check(name, spec, read_page(overview))
        result.seconds = seconds
        results.append(result)
        print(f"{name}: {result.found}/{result.total} ({overview})", file=sys.stderr, flush=True)
    print(table(results))
    if args.verbose:
        for r in results:
            for missing in r.missing:
                print(f"  {r.repository}: not found: {missing}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
