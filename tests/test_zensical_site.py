"""`engine: zensical`: the same generated project built by Zensical. Its pages are the
MkDocs site's pages, with refdoc-site's search box in place of Zensical's, lightened as the
MkDocs hooks lighten them; two builds from different folders are byte-identical and carry
the build stamp; a missing Zensical, an unknown engine and a failing Zensical build each
give one clear line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import SHOP_FIXTURE, write_repo
from test_determinism import SOURCES, built_site, committed

from refdoc_site.cli import main
from refdoc_site.core.config import parse_config
from refdoc_site.core.errors import ConfigError, SiteBuildError
from refdoc_site.rendering import zensical_site
from refdoc_site.rendering.page_weight import UNSTYLED_SPAN, squeezed_white_space
from refdoc_site.rendering.zensical_site import build_with_zensical, zensical_installed

needs_zensical = pytest.mark.skipif(not zensical_installed(), reason="needs Zensical: pip install 'refdoc-site[zensical]' (the test extra has it)")


def html_pages(site: Path) -> set[str]:
    return {page.relative_to(site).as_posix() for page in site.rglob("*.html")}


@pytest.fixture(scope="module")
def golden_sites(tmp_path_factory) -> tuple[Path, Path, Path]:
    """The golden fixture built by MkDocs, then by Zensical from the same store:
    (the MkDocs site, the Zensical site, the store)."""
    work = tmp_path_factory.mktemp("engines")
    repo = work / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    store = work / "store"
    assert main(["build", str(repo), "--store", str(store), "--out", str(work / "mkdocs-site")]) == 0
    assert main(["build", str(repo), "--store", str(store), "--out", str(work / "zensical-site"), "--engine", "zensical"]) == 0
    return work / "mkdocs-site", work / "zensical-site", store


@needs_zensical
def test_zensical_writes_every_page_mkdocs_writes(golden_sites) -> None:
    mkdocs, zensical, _ = golden_sites
    assert html_pages(mkdocs) - {"404.html"} <= html_pages(zensical)
    for asset in ("search/refdoc/index.json", "search/refdoc/chunks.json", "assets/refdoc/search-worker.js", "assets/refdoc/lunr-host.js"):
        assert (zensical / asset).is_file(), asset


@needs_zensical
def test_the_header_holds_our_search_box_not_zensicals(golden_sites) -> None:
    _, zensical, _ = golden_sites
    home = (zensical / "index.html").read_text(encoding="utf-8")
    assert "data-refdoc-search-box" in home and "assets/refdoc/zensical-search.js" in home
    assert 'data-md-component="search"' not in home


@needs_zensical
def test_pages_are_lightened_as_the_mkdocs_hooks_lighten_them(golden_sites) -> None:
    _, zensical, store = golden_sites
    raw = (store / "mkdocs" / "site" / "files" / "app" / "service.py" / "index.html").read_text(encoding="utf-8")
    published = (zensical / "files" / "app" / "service.py" / "index.html").read_text(encoding="utf-8")
    assert UNSTYLED_SPAN.search(raw), "Zensical's own output has no span to leave out: the check proves nothing"
    assert not UNSTYLED_SPAN.search(published)
    assert squeezed_white_space(raw) != raw and squeezed_white_space(published) == published
    assert len(published) < len(raw)


@needs_zensical
def test_two_zensical_builds_from_different_folders_are_byte_identical(tmp_path: Path) -> None:
    original = write_repo(tmp_path / "original" / "tiny", SOURCES)
    commit = committed(original)
    first, second = tmp_path / "a" / "tiny", tmp_path / "somewhere" / "else" / "tiny"
    for copy in (first, second):
        shutil.copytree(original, copy, symlinks=True)
    one = built_site(first, tmp_path / "a" / "site", "1", engine="zensical")
    two = built_site(second, tmp_path / "b" / "public", "2", engine="zensical")
    assert sorted(one) == sorted(two)
    assert [path for path in one if one[path] != two[path]] == []
    everything = b"".join(one.values())
    for folder in (tmp_path, first, second):
        assert str(folder).encode() not in everything
    assert f"Built from <code>{commit[:12]}</code> (2024-01-02)" in one["index.html"].decode()
    assert one["sitemap.xml"].decode().count("<loc>https://acme.github.io/tiny/") > 0


def test_an_unknown_engine_is_one_line_naming_the_key() -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config({"engine": "hugo"})
    assert str(raised.value) == "refdoc.yml: engine: expected one of mkdocs, zensical, got 'hugo'"
    assert parse_config({"engine": "zensical"}).engine == "zensical"


def test_an_unknown_engine_on_the_command_line_is_refused(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["build", str(tmp_path), "--engine", "hugo"])
    assert raised.value.code == 2
    assert "--engine: invalid choice: 'hugo'" in capsys.readouterr().err


def test_a_missing_zensical_says_how_to_install_it(tmp_path: Path, monkeypatch, capsys) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    monkeypatch.setattr(zensical_site, "zensical_installed", lambda: False)
    assert main(["build", str(repo), "--out", str(tmp_path / "site"), "--engine", "zensical"]) != 0
    error = capsys.readouterr().err.strip().splitlines()
    assert error[-1].endswith("engine: zensical: the zensical package is not installed; install it with pip install 'refdoc-site[zensical]', or set engine: mkdocs")
    assert not (tmp_path / "site").exists()


@needs_zensical
def test_a_failing_zensical_build_names_the_page_and_the_problem(tmp_path: Path) -> None:
    project = write_repo(tmp_path / "project", {"mkdocs.yml": "site_name: x\n", "docs/index.md": "# A\n\n[gone](missing.md)\n"})
    with pytest.raises(SiteBuildError) as raised:
        build_with_zensical(project / "mkdocs.yml", tmp_path / "out")
    assert str(raised.value) == f"{project / 'mkdocs.yml'}: zensical build --strict failed: index.md:3:8: page does not exist"


def test_a_folder_named_like_a_page_is_not_read_as_one(tmp_path: Path) -> None:
    """django's admin/templates/admin/404.html has its file page at files/…/404.html/index.html."""
    page = write_repo(tmp_path, {"files/admin/404.html/index.html": "<p>\n    one</p>\n"}) / "files/admin/404.html/index.html"
    assert zensical_site.lightened(tmp_path) == 1
    assert page.read_text(encoding="utf-8") == "<p>\none</p>\n"
