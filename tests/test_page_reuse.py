"""An MkDocs rebuild converts only the pages whose Markdown changed (rendering/page_reuse.py):
the rest are taken from the last build, its build values (address, stamp, commit) replaced,
and the site is byte for byte the one a build from nothing writes."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

from helpers import write_repo
from test_incremental_render import SOURCES

from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, build
from refdoc_site.pipeline.diff_phase import Base
from refdoc_site.search.site_search import DATA_DIR
from refdoc_site.rendering.page_reuse import CACHE_DIR, CACHE_RECORD, BuildValues, build_key, rebased

CONFIG = Config(repo_url="https://github.com/acme/tiny")
MAIN_URL = "https://acme.github.io/tiny/"
PREVIEW_URL = "https://acme.github.io/tiny/pr-7/"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args], check=True, capture_output=True)


def _commit(repo: Path, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def _built(repo: Path, store: Path, out: Path, site_url: str, base: str = ""):
    workspace = Workspace.create(repo, replace(CONFIG, site_url=site_url), store, out)
    return build(workspace, base=Base(base) if base else None)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _from_nothing(tmp_path: Path, repo: Path, store: Path, site_url: str, name: str, base: str = "") -> dict[str, bytes]:
    """The site a build writes with the same store but no pages of an earlier build."""
    clean = tmp_path / f"{name}-store"
    shutil.copytree(store, clean)
    shutil.rmtree(clean / "mkdocs" / CACHE_DIR)
    (clean / "mkdocs" / CACHE_RECORD).unlink()
    for record in clean.glob("published*.json"):
        record.unlink()
    report = _built(repo, clean, tmp_path / f"{name}-site", site_url, base)
    assert report.taken == 0
    return _tree(tmp_path / f"{name}-site")


def test_a_rebuild_takes_the_unchanged_pages_and_writes_the_same_site(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    _git(repo, "init", "-q")
    _commit(repo, "one")
    store = tmp_path / "store"
    first = _built(repo, store, tmp_path / "site", MAIN_URL)
    assert first.taken == 0
    published = _tree(tmp_path / "site" / DATA_DIR)

    # One function appended, and built as a pull request's preview: another address, commit,
    # stamp, and a "What changed" page (which no navigation lists, so the pages' is the same).
    with (repo / "pkg/words.py").open("a", encoding="utf-8") as source:
        source.write('\n\ndef whisper(text: str) -> str:\n    """The text in small letters."""\n    return text.lower()\n')
    _commit(repo, "two")
    second = _built(repo, store, tmp_path / "preview", PREVIEW_URL, base="HEAD~1")
    # Converted: words.py's page, its module's, the overview (it names the commit), the two
    # summaries words.py is in and "What changed".
    assert second.taken == second.pages - 6
    site = _tree(tmp_path / "preview")
    assert site == _from_nothing(tmp_path, repo, store, PREVIEW_URL, "clean", base="HEAD~1")
    assert "changes/index.html" in site
    # The search data is linked into the site, not copied; the render wrote a changed piece
    # as a new file, so the main site published before keeps its bytes.
    data = tmp_path / "preview" / DATA_DIR
    assert all(p.stat().st_ino == (store / "mkdocs" / "docs" / DATA_DIR / p.relative_to(data)).stat().st_ino for p in data.rglob("*") if p.is_file())
    assert _tree(tmp_path / "site" / DATA_DIR) == published != _tree(data)
    page = site["files/pkg/numbers.py/index.html"].decode()
    assert f'href="{PREVIEW_URL}files/pkg/numbers.py/"' in page and MAIN_URL + "files" not in page

    # A file added (its module's page changes, the navigation does not): the rest is taken.
    write_repo(repo, {"pkg/letters.py": '"""Letters."""\n\ndef first(text: str) -> str:\n    """The first letter."""\n    return text[:1]\n'})
    _commit(repo, "three")
    third = _built(repo, store, tmp_path / "site", MAIN_URL)
    assert third.taken > 0
    assert _tree(tmp_path / "site") == _from_nothing(tmp_path, repo, store, MAIN_URL, "added")

    # A file removed: a page whose Markdown names its page is converted (MkDocs checks its
    # links), the others are taken; so is the preview's "What changed", gone from this build.
    (repo / "pkg/letters.py").unlink()
    _commit(repo, "four")
    fourth = _built(repo, store, tmp_path / "site", MAIN_URL)
    assert fourth.taken > 0
    assert _tree(tmp_path / "site") == _from_nothing(tmp_path, repo, store, MAIN_URL, "removed")


def test_a_page_is_rebased_only_where_the_theme_writes_the_values() -> None:
    old = BuildValues("https://a.example/", "Built from <code>111</code>", "111")
    new = BuildValues("https://a.example/pr-2/", "Built from <code>222</code>", "222")
    page = (
        '<link rel="canonical" href="https://a.example/files/x/">'
        '<script data-report-commit="111"></script><p>https://a.example/ and 111 in the text</p>'
        '<div class="md-copyright__highlight">\nBuilt from <code>111</code>\n</div>'
    )
    assert rebased(page, old, new) == (
        '<link rel="canonical" href="https://a.example/pr-2/files/x/">'
        '<script data-report-commit="222"></script><p>https://a.example/ and 111 in the text</p>'
        '<div class="md-copyright__highlight">\nBuilt from <code>222</code>\n</div>'
    )
    assert rebased(page.replace('data-report-commit="111"', ""), old, new) is None  # a value not found
    assert rebased(page + page, old, new) is None  # nor twice
    assert rebased(page, old, replace(new, site_url="")) is None  # one build has an address, the other none


def test_the_key_ignores_the_build_values_only(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    text = 'site_name: "x"\nsite_url: "https://a/"\ncopyright: "Built from 1"\nnav:\n  - "A": "a.md"\nextra:\n  refdoc_commit_date: "2026-01-01"\n  refdoc_report:\n    commit: "1"\n'
    config.write_text(text, encoding="utf-8")
    key = build_key(config)
    config.write_text(text.replace("https://a/", "https://b/").replace("1", "2"), encoding="utf-8")
    assert build_key(config) == key
    config.write_text(text.replace('"A": "a.md"', '"B": "a.md"'), encoding="utf-8")
    assert build_key(config) != key
