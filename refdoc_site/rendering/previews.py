"""Pull-request previews that cost what the pull request changes.

A preview is built as a whole site (the same build as the default branch's), then cut down
against the site the `gh-pages` branch already holds at its root: it keeps only the files
that differ, and reaches the rest on the main site. What each site holds is stated by the
site itself, in `refdoc-pages.json.gz` at its root (`write_page_manifest`, run by every build):
a SHA-256 per file, of what a reader gets from it. For a page that is its `<title>` and
`<article>` (the navigation, the footer's build stamp and the canonical address differ on
every page of a preview, and say nothing about the page), for any text the commit and the
site's address replaced by marks, for other files the bytes.

`make_preview` then writes, into the preview's folder of the branch (`pr-N/`):

- the home page (the pull request's comment links to it), and the pages whose content
  differs or that the main site lacks (the changed files' pages, their modules', "What
  changed"), their links to a page or asset they do not keep
  rewritten to the main site's copy (`../` out of the preview's folder): `href`/`src`,
  the Mermaid script and the worker address in Material's `__config`, Markdown links in `md/` and `llms.txt`;
- the search: the scripts of `assets/refdoc/` always (the worker finds its data relative
  to itself), `config.json` always, and of the data files those whose bytes differ, the
  chunk rows too (a row names its page relative to the site's root, the same on both
  sites, so a row bundle of files the pull request left alone is the main site's bundle);
  `config.json`'s `preview` names the data files the preview holds (`own`: a few, where
  the main site's would be thousands; the worker's `fetched` takes any other from the main
  site) and where that site's data lies, and the pages the preview keeps (`pages`, as
  rows name them) and where the main site's root lies (`site`): the worker points a row at
  the main site's page unless the preview keeps it; the vector clusters are cut again
  against the main site's centroids (`_clusters_recut`), so that only the clusters of the
  chunks the pull request changed differ;
- `refdoc-preview.json`: what was kept and what was reached on the main site.

It leaves out the sitemap (a preview is not for crawlers, and it would list pages served
elsewhere), and takes `summaries/hierarchy.json.gz` from the main site even when it differs
(`MAIN_COPIES`: no page reads it, and the record's `main_copies` says it is the main site's). The output depends only on the two sites' files, so the same sites give the
same bytes. A reader who follows a link to a page the preview did not keep lands on the
main site and stays there: that page is the same on both.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import posixpath
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import orjson

from ..core.errors import RefdocError
from ..core.terminal import say
from ..search.site_search import DATA_DIR, SCRIPTS_DIR
from ..search.vector_pieces import clusters_cut_by
from .render import HIERARCHY_JSON

PAGE_MANIFEST = "refdoc-pages.json.gz"
"""Gzipped: a SHA-256 a file is 6 MB on homeassistant's site, 2.2 MB packed (GitHub Pages
counts the bytes it stores); read here only, from the branch's files."""
UNPACKED_MANIFEST = "refdoc-pages.json"
"""The manifest as a main site built before it was packed holds it."""
PREVIEW_RECORD = "refdoc-preview.json"
MANIFEST_FORMAT = "refdoc-pages/1"
OWN_FILES = (f"{SCRIPTS_DIR}/", f"{DATA_DIR}/config.json", "search/search_index.json")
"""Always the preview's own: the search worker fetches its data relative to its own address,
and Material's search box its (tiny) index relative to the site's root."""
HOME_PAGE = "index.html"
"""Always the preview's own too: the pull request's comment links to it."""
LEFT_OUT = ("sitemap.xml", "sitemap.xml.gz", PAGE_MANIFEST, UNPACKED_MANIFEST)
MAIN_COPIES = (HIERARCHY_JSON,)
"""Never the preview's, even when they differ: the summaries as one JSON file for a
program (2.4 MB on django, rewritten by any change), which no page reads; the system
page's link to it reaches the main site's copy."""
COMMIT_MARK = b"\x00commit\x00"
SITE_URL_MARK = b"\x00site\x00"
SHORT_COMMIT = 12
_TITLE = re.compile(rb"<title>.*?</title>", re.S)
_ARTICLE = re.compile(rb"<article\b.*</article>", re.S)
_HTML_LINK = re.compile(r'(\s(?:href|src|data-mermaid)=")([^"]*)(")|("search":\s*")([^"]*)(")')
"""The addresses a page names: links, scripts and styles, the Mermaid script it loads on
demand, and Material's search worker (refdoc-page.js loads Lunr from there)."""
_MARKDOWN_LINK = re.compile(r"(\]\()([^)\s]+)(\))")
_LINKED_TEXT = (".html", ".md", ".txt")


def content_hash(name: str, data: bytes, commit: str, site_url: str) -> str:
    """What a reader gets from the file `name` of a site built from `commit` at `site_url`."""
    if name.endswith(".html"):
        article = _ARTICLE.search(data)
        if article:
            title = _TITLE.search(data)
            data = (title.group(0) if title else b"") + article.group(0)
    if commit:
        data = data.replace(commit.encode(), COMMIT_MARK).replace(commit[:SHORT_COMMIT].encode(), COMMIT_MARK)
    if site_url:
        data = data.replace(site_url.encode(), SITE_URL_MARK)
    return hashlib.sha256(data).hexdigest()


def page_manifest(site: Path, commit: str, site_url: str, last: Path | None = None) -> dict:
    """The manifest of a built site: every file but the dot-files (the output's marker).
    A file that is the `last` site's own file (both link one file: page_reuse.py links the
    search pieces a render kept, 49,000 on homeassistant) keeps that site's hash when it
    was built from the same commit for the same address, rather than being read again."""
    known = read_manifest(last) if last is not None else None
    if known is None or (known.get("commit"), known.get("site_url")) != (commit, site_url):
        known = {"files": {}}
    device = site.stat().st_dev
    files = {}
    for name, inode in sorted(_site_files(site, ""), key=lambda found: found[0].split("/")):
        if name.startswith(".") or name in (PAGE_MANIFEST, UNPACKED_MANIFEST):
            continue
        hashed = known["files"].get(name)
        if not (hashed and _is_inode(last / name, device, inode)):
            hashed = content_hash(name, (site / name).read_bytes(), commit, site_url)
        files[name] = hashed
    return {"format": MANIFEST_FORMAT, "commit": commit, "site_url": site_url, "files": files}


def _site_files(folder: Path, prefix: str) -> Iterator[tuple[str, int]]:
    """Each file under `folder` (links to files too, as `Path.is_file` counts them) as its
    POSIX path from the top, with its inode."""
    with os.scandir(folder) as entries:
        for entry in entries:
            name = prefix + entry.name
            if entry.is_dir():
                yield from _site_files(Path(entry.path), name + "/")
            elif entry.is_file():
                yield name, entry.inode()


def _is_inode(path: Path, device: int, inode: int) -> bool:
    try:
        found = path.stat()
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (device, inode)


def write_page_manifest(site: Path, commit: str, site_url: str, last: Path | None = None) -> None:
    """`site`'s manifest written into it (`last`: the site it replaces, whose hashes its linked files keep)."""
    (site / UNPACKED_MANIFEST).unlink(missing_ok=True)
    manifest = page_manifest(site, commit, site_url, last)
    (site / PAGE_MANIFEST).write_bytes(gzip.compress(orjson.dumps(manifest) + b"\n", compresslevel=6, mtime=0))


def read_manifest(site: Path) -> dict | None:
    """A site's manifest, or None when it has none this version reads (built before previews were cut)."""
    try:
        if (site / PAGE_MANIFEST).is_file():
            manifest = orjson.loads(gzip.decompress((site / PAGE_MANIFEST).read_bytes()))
        else:
            manifest = orjson.loads((site / UNPACKED_MANIFEST).read_bytes())
    except (OSError, EOFError, orjson.JSONDecodeError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == MANIFEST_FORMAT else None


@dataclass
class PreviewReport:
    kept: list[str] = field(default_factory=list)
    """The files the preview's folder holds, the record included."""
    inherited: int = 0
    """Files of the preview's build that readers get from the main site instead."""
    bytes: int = 0
    whole: str = ""
    """Why the preview is the whole site (no main site to reach), or ""."""


@dataclass(frozen=True)
class _Sites:
    """Where the preview's kept files are, and how to reach the main site's from them."""

    kept: frozenset[str]
    main: frozenset[str]
    depth: int
    """Folders between the main site's root and the preview's (pr-N/: 1)."""
    preview_path: str
    """The preview's address without its host (`/repo/pr-7/`): root-relative links start so."""
    main_path: str

    def target(self, name: str) -> str | None:
        """The site file an address inside the site names (a folder: its index.html)."""
        name = unquote(name).strip("/")
        for candidate in (name, f"{name}/index.html" if name and name != "." else "index.html"):
            if candidate in self.kept or candidate in self.main:
                return candidate
        return None

    def relink(self, url: str, folder: str) -> str:
        """`url`, written in the preview's file in `folder`, pointed at the main site when the
        file it names is one the preview does not keep."""
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path or url.startswith(("#", "data:", "mailto:")):
            return url
        rooted = parts.path.startswith("/")
        if rooted:
            if not self.preview_path or not parts.path.startswith(self.preview_path):
                return url
            path = posixpath.normpath(parts.path[len(self.preview_path):] or ".")
        else:
            path = posixpath.normpath(posixpath.join(folder, parts.path))
        if path.startswith(".."):
            return url
        target = self.target(path)
        if target is None or target in self.kept or target not in self.main:
            return url
        slash = "/" if parts.path.endswith("/") else ""
        where = "" if path == "." else path
        if rooted:
            new = f"{self.main_path}{where}{slash}"
        else:
            ups = (folder.count("/") + 1 if folder else 0) + self.depth
            new = "../" * ups + where + (slash if where else "")
            new = new or "./"
        return new + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")


def make_preview(site: Path, main: Path, out: Path) -> PreviewReport:
    """Write the preview of the built `site` into `out`, a folder inside the `main` site."""
    if not (site / "index.html").is_file():
        raise RefdocError(f"{site}: no built site here (no index.html); pass the folder `refdoc-site build --out` wrote")
    try:
        relative = out.resolve().relative_to(main.resolve())
    except ValueError:
        raise RefdocError(f"--out {out}: not inside --main {main}; the preview must live beside the main site") from None
    if not relative.parts:
        raise RefdocError(f"--out {out}: is the main site itself; give the preview a folder of its own (pr-N)")
    own = read_manifest(site)
    if own is None:
        raise RefdocError(f"{site / PAGE_MANIFEST}: missing or unreadable; build the preview with this version of refdoc-site")
    shutil.rmtree(out, ignore_errors=True)
    base = read_manifest(main)
    if base is None:
        shutil.copytree(site, out, ignore=shutil.ignore_patterns(*LEFT_OUT))
        report = PreviewReport(whole=f"{main / PAGE_MANIFEST} is missing: the main site does not say what it holds, so the preview is the whole site")
        report.kept = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
        report.bytes = sum((out / name).stat().st_size for name in report.kept)
        return report
    theirs: dict[str, str] = base["files"]
    ours: dict[str, str] = dict(own["files"])
    recut, cut_vectors = _clusters_recut(site, main, ours, own)

    def differs(name: str) -> bool:
        return name.startswith(OWN_FILES) or name == HOME_PAGE or theirs.get(name) != ours[name]

    kept = {name for name in ours if name not in LEFT_OUT and name not in MAIN_COPIES and differs(name)}
    data_files = {name for name in ours if name.startswith(f"{DATA_DIR}/")}
    sites = _Sites(frozenset(kept), frozenset(theirs), len(relative.parts), urlsplit(own["site_url"]).path, urlsplit(base["site_url"]).path)
    written: dict[str, bytes] = {}
    for name in sorted(kept):
        if name.endswith(_LINKED_TEXT):
            written[name] = _relinked_text(name, (site / name).read_text(encoding="utf-8"), sites).encode("utf-8")
        else:
            written[name] = recut[name] if name in recut else (site / name).read_bytes()
    own_data = sorted(name.removeprefix(f"{DATA_DIR}/") for name in data_files & set(written))
    config_name = f"{DATA_DIR}/config.json"
    config = orjson.loads(written[config_name])
    config["preview"] = {
        "main": "../" * (DATA_DIR.count("/") + 1 + sites.depth) + f"{DATA_DIR}/",
        "own": own_data,
        "site": "../" * sites.depth,
        "pages": sorted(_page_address(name) for name in kept if name.endswith(".html")),
    }
    if recut:
        config["shards"]["vectors"].update(cut_vectors)
    written[config_name] = orjson.dumps(config)
    report = PreviewReport(inherited=len(ours) - len(written))
    record = {"format": "refdoc-preview/1", "commit": own["commit"], "main_commit": base["commit"], "kept": len(written) + 1, "from_main": report.inherited,
              "main_copies": sorted(name for name in MAIN_COPIES if name in ours and name in theirs and differs(name)),
              "clusters_cut_by_main": bool(recut)}
    written[PREVIEW_RECORD] = orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n"
    for name, data in sorted(written.items()):
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    report.kept = sorted(written)
    report.bytes = sum(len(data) for data in written.values())
    return report


def _clusters_recut(site: Path, main: Path, ours: dict[str, str], own: dict) -> tuple[dict[str, bytes], dict]:
    """The preview's vector clusters cut against the main site's centroids
    (vector_pieces.clusters_cut_by), so that a cluster none of whose chunks changed is the
    main site's file; `ours` (the preview's manifest) then names these pieces in place of
    the ones its build cut. Returns the pieces and what config.json's `vectors` says of
    them; ({}, {}) when there is nothing to cut (no vectors in pieces)."""
    cut = clusters_cut_by(site / DATA_DIR, main / DATA_DIR)
    if cut is None:
        return {}, {}
    for name in [name for name in ours if name.startswith(f"{DATA_DIR}/clusters/") or name == f"{DATA_DIR}/centroids.bin"]:
        del ours[name]
    recut = {f"{DATA_DIR}/{name}": data for name, data in cut.pieces.items()}
    for name, data in recut.items():
        ours[name] = content_hash(name, data, own["commit"], own["site_url"])
    return recut, {"clusters": cut.clusters, "probe": cut.probe}


def _relinked_text(name: str, text: str, sites: _Sites) -> str:
    folder = posixpath.dirname(name)
    if name.endswith(".html"):
        def html(match: re.Match) -> str:
            start, url, end = (match.group(1, 2, 3) if match.group(1) else match.group(4, 5, 6))
            return start + sites.relink(url, folder) + end

        return _HTML_LINK.sub(html, text)
    return _MARKDOWN_LINK.sub(lambda m: m.group(1) + sites.relink(m.group(2), folder) + m.group(3), text)


def _page_address(name: str) -> str:
    """A page file's address relative to the site's root, as a search row names it
    (core/pages.py `page_url`: quoted, a folder's page by its folder, the home page `./`)."""
    return quote(name.removesuffix("index.html")) or "./"


def add_preview_command(commands) -> None:
    """`refdoc-site preview SITE --main DIR --out DIR`, the workflow's preview step."""
    text = "Cut a built pull-request site down to the files that differ from the main site it is published beside; the rest is reached there."
    sub = commands.add_parser("preview", help=text, description=text)
    sub.add_argument("site", type=Path, help="the preview's built site (refdoc-site build --out)")
    sub.add_argument("--main", type=Path, required=True, help="the main site (the gh-pages branch's root), with its refdoc-pages.json.gz")
    sub.add_argument("--out", type=Path, required=True, help="the preview's folder inside the main site (replaced), e.g. pr-7")
    sub.add_argument("-v", "--verbose", action="store_true")
    sub.set_defaults(run=_run_preview)


def _run_preview(args: argparse.Namespace) -> int:
    report = make_preview(args.site, args.main, args.out)
    if report.whole:
        say(f"preview: {report.whole}")
    say(f"preview: {len(report.kept)} files, {report.bytes / 1e6:.2f} MB in {args.out}; {report.inherited} reached on the main site")
    return 0
