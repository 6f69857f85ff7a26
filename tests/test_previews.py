"""Pull-request previews that hold only what differs from the main site (rendering/previews.py).

The workflow's own steps, run as its jobs run them: the default branch's build published at
the root of a local gh-pages remote, then two pull requests (one file each) built and
published as previews. The branch is then read back: what each preview holds, that every
link and every search result of a preview lands on a file of the branch (the preview's or
the main site's), and that the worker's data is the data the preview's build wrote."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import orjson
import pytest
from helpers import require_chromium, served_folder
from test_init import PAGES_URL, _git, _run_step, _step, _workflow

from refdoc_site.cli import main
from refdoc_site.rendering.previews import PAGE_MANIFEST, PREVIEW_RECORD, make_preview, page_manifest, read_manifest, write_page_manifest

GOLDEN = Path(__file__).parent / "fixtures" / "golden_repo"
SERVED_AT = urlsplit(PAGES_URL).path
DATA_DIR = "search/refdoc"
CHANGES = {
    "1": ("app/util.py", '\n\ndef clamp(value: int, low: int, high: int) -> int:\n    """Keep value between low and high."""\n    return max(low, min(high, value))\n'),
    "2": ("web/src/format.ts", "\nexport function formatCount(count: number): string {\n  return `${count} items`;\n}\n"),
}
"""Per pull request, the one file it changes and what it appends."""


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "data-mermaid") and value:
                self.links.append(value)
            if name in ("id", "name") and value:
                self.ids.add(value)


def _parsed(page: Path) -> _Page:
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _landing(branch: Path, url: str) -> tuple[Path | None, str]:
    """The file of the branch an absolute address of the Pages host names, and its fragment."""
    parts = urlsplit(url)
    if parts.netloc != urlsplit(PAGES_URL).netloc or not parts.path.startswith(SERVED_AT):
        return None, ""
    path = branch / unquote(parts.path.removeprefix(SERVED_AT))
    if path.is_dir() or parts.path.endswith("/"):
        path = path / "index.html"
    return (path if path.is_file() else None), parts.fragment


def _unresolved(branch: Path, preview: Path) -> tuple[int, list[str]]:
    """Every link of the preview's pages, Markdown copies and llms.txt that stays on the
    site, resolved as a browser does from the page's address in the branch; those that miss
    a file, or an anchor of the page they land on."""
    checked, missing = 0, []
    ids: dict[Path, set[str]] = {}
    for file in sorted(preview.rglob("*")):
        if not file.is_file():
            continue
        if file.suffix == ".html":
            links = _parsed(file).links
        elif file.suffix in (".md", ".txt"):
            links = re.findall(r"\]\(([^)\s]+)\)", file.read_text(encoding="utf-8"))
        else:
            continue
        address = PAGES_URL + file.relative_to(branch).as_posix()
        for link in links:
            if urlsplit(link).scheme and not link.startswith(PAGES_URL) or link.startswith(("#", "mailto:")):
                continue
            checked += 1
            target, fragment = _landing(branch, urljoin(address, link))
            where = f"{file.relative_to(branch)}: {link}"
            if target is None:
                missing.append(f"{where} lands on no file of the branch")
            elif fragment and target.suffix == ".html":
                found = ids.setdefault(target, _parsed(target).ids)
                if unquote(fragment) not in found:
                    missing.append(f"{where} lands on {target.relative_to(branch)}, which has no #{fragment}")
    return checked, missing


def _article(page: Path, commit: str) -> str:
    text = page.read_text(encoding="utf-8").replace(commit, "COMMIT").replace(commit[:12], "COMMIT")
    return text.split("<article", 1)[-1].split("</article>", 1)[0]


@dataclass
class _Published:
    branch: Path
    """A clone of the gh-pages remote with the main site and both previews."""
    built: dict[str, Path]
    """Per pull request, the whole site its build wrote."""
    publish: Callable[..., Path]


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> _Published:
    """The default branch's site and two previews, published by the workflow's steps."""
    tmp_path = tmp_path_factory.mktemp("previews")
    repo = tmp_path / "widget"
    shutil.copytree(GOLDEN, repo)
    (repo / ".gitignore").write_text((repo / ".gitignore").read_text(encoding="utf-8") + ".refdoc/\n_publish/\n_pages/\n_change-map.md\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "trunk")
    _git(repo, "remote", "add", "origin", "git@github.com:acme/widget.git")
    assert main(["init", str(repo)]) == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Base")
    base = _git(repo, "rev-parse", "HEAD")
    workflow = _workflow(repo)
    pages = tmp_path / "pages.git"
    subprocess.run(["git", "init", "-q", "--bare", str(pages)], check=True)
    remote = {"GH_TOKEN": "", "REPOSITORY": "acme/widget"}

    def build(event: str, number: str = "") -> Path:
        env = {"OPENAI_API_KEY": "", "EVENT": event, "PR_NUMBER": number, "BASE_SHA": base if number else "", "PAGES_URL": PAGES_URL}
        _run_step(_step(workflow, "build", "build"), repo, env)
        kept = tmp_path / f"built-{number or 'main'}"
        shutil.copytree(repo / "_publish/site", kept)
        return kept

    def publish(job: str, step_id: str, checkout: str = "gh-pages", **env: str) -> Path:
        said = _run_step(_step(workflow, job, step_id), repo, {**remote, **env}, extra={"PAGES_REMOTE": str(pages)})
        shutil.rmtree(repo / "_pages")
        shutil.rmtree(tmp_path / checkout, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "-b", "gh-pages", str(pages), str(tmp_path / checkout)], check=True)
        assert "the preview is the whole site" not in said
        return tmp_path / checkout

    build("push")
    publish("publish", "publish")
    built = {}
    for number, (path, appended) in CHANGES.items():
        _git(repo, "checkout", "-q", "-B", f"pr-{number}", base)
        with (repo / path).open("a", encoding="utf-8") as changed:
            changed.write(appended)
        _git(repo, "commit", "-q", "-am", f"Change {path}")
        built[number] = build("pull_request", number)
        branch = publish("preview", "preview", PR_NUMBER=number)
    return _Published(branch, built, publish)


def test_two_previews_hold_only_what_their_change_touches_and_reach_the_rest_on_the_main_site(published: _Published, tmp_path: Path) -> None:
    branch, built = published.branch, published.built
    main_files = {p.relative_to(branch).as_posix() for p in branch.rglob("*") if p.is_file() and ".git" not in p.parts and not p.relative_to(branch).as_posix().startswith("pr-")}
    main_bytes = sum((branch / name).stat().st_size for name in main_files)
    main_commit = read_manifest(branch)["commit"]
    for number, (path, _) in CHANGES.items():
        preview = branch / f"pr-{number}"
        whole = built[number]
        commit = read_manifest(whole)["commit"]
        held = {p.relative_to(preview).as_posix() for p in preview.rglob("*") if p.is_file()}
        held_pages = {name for name in held if name.endswith(".html")}
        # The pages kept are exactly those whose content differs from the main site's.
        differing = {
            name for name in (p.relative_to(whole).as_posix() for p in whole.rglob("*.html"))
            if not (branch / name).is_file() or _article(whole / name, commit) != _article(branch / name, main_commit)
        }
        assert held_pages == differing | {"index.html"}, "the home page, which the comment links to, and what differs"
        assert {f"files/{path}/index.html", "changes/index.html"} <= held_pages
        other = next(p for n, (p, _) in CHANGES.items() if n != number)
        assert f"files/{other}/index.html" not in held_pages, "the other pull request's file is the main site's page"
        assert len(held_pages) * 2 < len(differing | {p.relative_to(whole).as_posix() for p in whole.rglob("*.html")})
        # Besides those pages: the search's scripts and data that differ, and the record.
        for name in held - held_pages:
            assert name.startswith(("assets/refdoc/", "search/", "md/", "llms")) or name == PREVIEW_RECORD, name
        assert "summaries/hierarchy.json.gz" not in held, "the summaries' JSON is the main site's copy"
        assert orjson.loads((preview / PREVIEW_RECORD).read_bytes())["main_copies"] == ["summaries/hierarchy.json.gz"]
        held_bytes = sum((preview / name).stat().st_size for name in held)
        assert held_bytes * 10 < main_bytes, (held_bytes, main_bytes)

        checked, missing = _unresolved(branch, preview)
        assert checked > 100 and missing == []

        # The worker's data: config.json names the data files the preview holds, the
        # worker fetches any other from the main site; every file the build wrote reaches
        # the worker, byte for byte, the rows too.
        config = orjson.loads((preview / DATA_DIR / "config.json").read_bytes())
        data_url = f"{PAGES_URL}pr-{number}/{DATA_DIR}/"
        own = set(config["preview"]["own"])
        assert own == {name.removeprefix(f"{DATA_DIR}/") for name in held if name.startswith(f"{DATA_DIR}/")}
        from_main = set()
        for file in sorted((whole / DATA_DIR).rglob("*")):
            name = file.relative_to(whole / DATA_DIR).as_posix()
            if not file.is_file() or name == "config.json":
                continue
            from_main |= set() if name in own else {name}
            target, _ = _landing(branch, urljoin(data_url if name in own else urljoin(data_url, config["preview"]["main"]), name))
            assert target is not None, name
            assert target.read_bytes() == file.read_bytes(), name
        assert from_main, "the model is the main site's"
        assert "config.json" in own and own.isdisjoint(from_main), "the preview names its own files, not the main site's"
        # Every row a search can show lands on its page and anchor in the branch, as the
        # worker resolves it: the preview's page if the preview keeps it, else the main site's.
        rows = orjson.loads((whole / DATA_DIR / "chunks.json").read_bytes())
        own_pages = set(config["preview"]["pages"])
        results = 0
        for row in rows:
            page = row["page"] if row["page"] in own_pages else config["preview"]["site"] + row["page"]
            target, _ = _landing(branch, urljoin(f"{PAGES_URL}pr-{number}/", page))
            assert target is not None, row["page"]
            if row["anchor"]:
                assert row["anchor"] in _parsed(target).ids, (row["page"], row["anchor"])
            results += 1
            assert (target.is_relative_to(preview)) == (target.relative_to(branch).as_posix().removeprefix(f"pr-{number}/") in held_pages)
        assert results == len(orjson.loads((whole / DATA_DIR / "chunks.json").read_bytes()))
        assert f"files/{path}/" in own_pages and f"files/{other}/" not in own_pages
        assert any(row["page"] == f"files/{other}/" for row in rows) and any(row["page"] == f"files/{path}/" for row in rows)

        # Same sites, same bytes.
        again = tmp_path / "again" / f"pr-{number}"
        shutil.copytree(branch, tmp_path / "again", ignore=shutil.ignore_patterns(".git", "pr-*"), dirs_exist_ok=True)
        make_preview(whole, tmp_path / "again", again)
        assert {n: (again / n).read_bytes() for n in held} == {n: (preview / n).read_bytes() for n in held}
        assert {p.relative_to(again).as_posix() for p in again.rglob("*") if p.is_file()} == held


def test_a_preview_holds_the_row_bundles_its_change_rewrote_only(tmp_path: Path) -> None:
    """A large site's rows in bundles by file group (site_shards.py): the bundle of a file
    the pull request left alone is the main site's, fetched there (any not in config.json's
    `preview.own`); the changed file's bundle is the preview's own, byte for byte, and
    its rows keep their site-relative pages, which the worker resolves by `preview.pages`."""
    def site(folder: str, changed_text: str) -> Path:
        root = tmp_path / folder
        pages = {"index.html": "home", "files/a.py/index.html": "a", "files/b.py/index.html": changed_text}
        bundles = {"rows/0-0.json": [{"page": "files/a.py/", "anchor": "chunk-a"}], "rows/1-0.json": [{"page": "files/b.py/", "anchor": changed_text}]}
        for name, text in pages.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(f"<title>{name}</title><article>{text}</article>", encoding="utf-8")
        for name, rows in {**bundles, "config.json": {"shards": {}}}.items():
            (root / DATA_DIR / name).parent.mkdir(parents=True, exist_ok=True)
            (root / DATA_DIR / name).write_bytes(orjson.dumps(rows))
        return root

    branch = site("gh-pages", "chunk-b")
    write_page_manifest(branch, "", "https://acme.github.io/widget/")
    built = site("built", "chunk-b-changed")
    write_page_manifest(built, "", "https://acme.github.io/widget/pr-4/")
    report = make_preview(built, branch, branch / "pr-4")
    preview = branch / "pr-4"
    assert not (preview / DATA_DIR / "rows/0-0.json").exists(), report.kept
    assert (preview / DATA_DIR / "rows/1-0.json").read_bytes() == (built / DATA_DIR / "rows/1-0.json").read_bytes()
    config = orjson.loads((preview / DATA_DIR / "config.json").read_bytes())["preview"]
    assert config["own"] == ["config.json", "rows/1-0.json"], "the preview's own data files, not the main site's"
    assert (config["site"], config["pages"]) == ("../", ["./", "files/b.py/"])
    assert (preview / "files/b.py/index.html").is_file() and not (preview / "files/a.py").exists()


def test_closing_a_pull_request_removes_its_preview_only(published: _Published) -> None:
    branch = published.publish("remove-preview", "remove", checkout="after-removal", PR_NUMBER="1")
    assert not (branch / "pr-1").exists() and (branch / "pr-2" / PREVIEW_RECORD).is_file() and (branch / PAGE_MANIFEST).is_file()


def test_the_manifest_is_stored_packed_and_a_main_site_built_before_is_still_read(tmp_path: Path) -> None:
    import gzip

    (tmp_path / "index.html").write_text("<title>Home</title><article>hello</article>", encoding="utf-8")
    write_page_manifest(tmp_path, "abc", "https://acme.github.io/widget/")
    packed = (tmp_path / PAGE_MANIFEST).read_bytes()
    assert PAGE_MANIFEST.endswith(".gz") and packed[:2] == b"\x1f\x8b"
    manifest = read_manifest(tmp_path)
    assert manifest["commit"] == "abc" and list(manifest["files"]) == ["index.html"]
    # a gh-pages branch whose main site an earlier version built holds it unpacked
    (tmp_path / PAGE_MANIFEST).unlink()
    (tmp_path / "refdoc-pages.json").write_bytes(gzip.decompress(packed))
    assert read_manifest(tmp_path) == manifest


def test_a_branch_without_a_main_site_gets_the_whole_preview(tmp_path: Path, capsys) -> None:
    """The first pull request before any push published the site: nothing to reach, so
    the preview is the build itself (less the sitemap), said in one line."""
    site = tmp_path / "site"
    (site / DATA_DIR).mkdir(parents=True)
    (site / "index.html").write_text("<title>x</title><article>home</article>", encoding="utf-8")
    (site / "sitemap.xml").write_text("<urlset/>", encoding="utf-8")
    (site / DATA_DIR / "config.json").write_text("{}", encoding="utf-8")
    write_page_manifest(site, "", "https://acme.github.io/widget/pr-3/")
    branch = tmp_path / "gh-pages"
    branch.mkdir()
    assert main(["preview", str(site), "--main", str(branch), "--out", str(branch / "pr-3")]) == 0
    said = capsys.readouterr().out
    assert f"{branch / PAGE_MANIFEST} is missing: the main site does not say what it holds, so the preview is the whole site" in said
    assert (branch / "pr-3/index.html").is_file() and not (branch / "pr-3/sitemap.xml").exists()
    assert main(["preview", str(site), "--main", str(branch), "--out", str(tmp_path / "elsewhere")]) == 2
    assert f"--out {tmp_path / 'elsewhere'}: not inside --main {branch}" in capsys.readouterr().err


def test_a_preview_searched_in_chromium_finds_its_change_and_the_main_site_pages(published: _Published, browser, tmp_path: Path) -> None:
    """The branch served as GitHub Pages serves it (under /widget/), the preview's search box
    typed into: the changed function lands in the preview, an unchanged one on the main
    site, and nothing the worker fetched (its data, the model from the main site) failed."""
    require_chromium()
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / SERVED_AT.strip("/")).symlink_to(published.branch)
    with served_folder(tmp_path / "root") as url:
        page = browser.new_page()
        failed: list[str] = []
        page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
        page.goto(f"{url}widget/pr-1/")
        found = {}
        for query in ("clamp", "delete user"):
            page.fill(".md-search__input", "")
            page.click(".md-search__input")
            page.keyboard.type(query, delay=10)
            page.wait_for_function(
                "q => document.documentElement.getAttribute('data-refdoc-search') === 'settled'"
                " && document.querySelector('.md-search__input').value === q && document.querySelector('.md-search-result__link')",
                arg=query, timeout=20_000,
            )
            page.wait_for_timeout(300)
            found[query] = [link.evaluate("a => a.href") for link in page.query_selector_all(".md-search-result__link")]
        page.close()
        for links in found.values():
            for link in links:
                target, _ = _landing(published.branch, link.replace(f"{url}widget/", PAGES_URL).split("?")[0])
                assert target is not None, link
    assert any(link.startswith(f"{url}widget/pr-1/files/app/util.py/") and "#chunk-clamp" in link for link in found["clamp"]), found
    assert any(link.startswith(f"{url}widget/files/app/service.py/") and "#chunk-UserService.delete-user" in link for link in found["delete user"]), found
    assert failed == []


def test_a_site_s_manifest_keeps_the_hashes_of_the_files_it_links_from_the_last(tmp_path: Path) -> None:
    """A page the engine took from the last build (a link to the same file) keeps the last
    manifest's hash; a page written anew, or a last site of another commit, is read again.
    Either way the manifest is the one reading every file gives."""
    import os

    last, built = tmp_path / "site", tmp_path / "staging"
    for folder in (last, built):
        (folder / "api").mkdir(parents=True)
    (last / "index.html").write_text("<title>Home</title><article>old home</article>", encoding="utf-8")
    (last / "api/a.html").write_text("<title>A</title><article>a at abc1234</article>", encoding="utf-8")
    write_page_manifest(last, "abc1234", "https://acme.github.io/widget/")
    (built / "index.html").write_text("<title>Home</title><article>new home</article>", encoding="utf-8")
    os.link(last / "api/a.html", built / "api/a.html")
    write_page_manifest(built, "abc1234", "https://acme.github.io/widget/", last)
    kept = read_manifest(built)
    assert kept == page_manifest(built, "abc1234", "https://acme.github.io/widget/")
    assert kept["files"]["index.html"] != read_manifest(last)["files"]["index.html"]
    # the last manifest's hash is what a linked file gets: a last manifest that says
    # otherwise shows it (only a site edited in place behind the build's back would)
    forged = read_manifest(last)
    forged["files"]["api/a.html"] = "f" * 64
    (last / PAGE_MANIFEST).write_bytes(gzip.compress(orjson.dumps(forged)))
    assert page_manifest(built, "abc1234", "https://acme.github.io/widget/", last)["files"]["api/a.html"] == "f" * 64
    other_commit = page_manifest(built, "def5678", "https://acme.github.io/widget/", last)
    assert other_commit == page_manifest(built, "def5678", "https://acme.github.io/widget/")
