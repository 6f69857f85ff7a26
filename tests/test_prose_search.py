"""The overview, module pages, decision log and plans are in the site's search, one row per
section, landing on the heading MkDocs writes; ranked with the code, they never push a
definition off the top of a search for its name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import write_repo
from test_japanese_search import JAPANESE_REPO
from test_js_parity import node_available, rank_in_node

from refdoc_site.asking.answer import ask
from refdoc_site.asking.library import Library
from refdoc_site.asking.mcp_server import LibraryTools
from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.core.records import ChunkKind
from refdoc_site.pipeline import Workspace, build
from refdoc_site.pipeline.render_phase import load_site_data, searched_sections
from refdoc_site.rendering.render import prose_pages
from refdoc_site.search.embed import default_embedder, matching_embedder
from refdoc_site.search.prose import ProsePage, page_documents
from refdoc_site.search.ranking import SearchIndex
from refdoc_site.search.site_search import DATA_DIR

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "golden_repo"


QUERIES = ["UserService", "Use Go for the order server", "phased refactoring plan", "module map", "delete a user",
           "請求書の発行", "バックアップの復元", "データベース", "boundary of the app module", "order"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, SearchIndex]:
    """The shop with a Japanese module, built; and the Python index over what its site searches."""
    work = tmp_path_factory.mktemp("prose")
    repo = work / "shop"
    shutil.copytree(FIXTURE, repo)
    write_repo(repo, JAPANESE_REPO)
    workspace = Workspace.create(repo, Config(), work / "store", work / "site")
    build(workspace)
    state = workspace.store.load()
    sections = searched_sections(prose_pages(load_site_data(workspace)), matching_embedder(state))
    return workspace.out_dir, SearchIndex.build(state.documents + sections)


@pytest.mark.parametrize("mode", ["sparse", "fused"])
def test_query_ranks_what_the_site_searches_pages_included(built, mode, capsys) -> None:
    """`refdoc-site query` over a built store ranks the chunks and the prose pages' sections
    the site's search holds, in the same order, with the same scores."""
    site, python_index = built
    work = site.parent
    embedder = default_embedder() if mode == "fused" else None
    kinds = set()
    for query in QUERIES:
        capsys.readouterr()
        assert main(["query", query, str(work / "shop"), "--store", str(work / "store"), "--json", "--mode", mode]) == 0
        cli = json.loads(capsys.readouterr().out)
        site_hits = python_index.search(query, 10, mode, embedder)
        assert [(h["path"], h["symbol"], h["kind"]) for h in cli] == [(h.path, h.symbol, h.kind) for h in site_hits], query
        assert [h["score"] for h in cli] == pytest.approx([h.score for h in site_hits], abs=1e-6), query  # --json rounds to 6 places
        kinds.update(hit["kind"] for hit in cli)
    assert "page" in kinds
    capsys.readouterr()
    assert main(["query", "module map", str(work / "shop"), "--store", str(work / "store"), "--mode", mode]) == 0
    assert "index.md#" in capsys.readouterr().out  # a page's result is named by its page and heading


def test_the_mcp_search_ranks_the_pages_too_and_links_to_their_headings(built) -> None:
    """The `mcp` search tool ranks what the site's search does, pages included, and a page
    section links to a heading of the built page; `ask` answers from the code and the
    repository's own docs only (`Library.search`)."""
    site, python_index = built
    work = site.parent
    library = Library.open(Workspace.create(work / "shop", Config(), work / "store", site))
    tools = LibraryTools(library)
    page_urls = []
    for query in QUERIES:
        site_ranking = [(h.path, h.symbol, h.kind) for h in python_index.search(query, 10, "fused", library.embedder)]
        hits = tools.search(query, 10)["hits"]
        assert [(h["path"], h["symbol"], h["kind"]) for h in hits] == site_ranking, query
        page_urls += [hit["url"] for hit in hits if hit["kind"] == "page"]
        assert all(source.kind != "page" for source in ask(query, library, None).sources), query
    assert page_urls
    for url in page_urls:
        page, _, anchor = url.partition("#")
        built_page = (site / page.removeprefix("./") / "index.html").read_text(encoding="utf-8")
        assert anchor and f'id="{anchor}"' in built_page, url


@pytest.fixture(scope="module")
def shop_site(built) -> Path:
    return built[0]


def test_every_prose_section_lands_on_a_heading_of_its_built_page(shop_site) -> None:
    rows = [row for row in json.loads((shop_site / DATA_DIR / "chunks.json").read_text()) if row["kind"] == "page"]
    pages = {row["page"] for row in rows}
    assert {"./", "decisions/", "plans/milestones/", "modules/app/"} <= pages
    for row in rows:
        built = (shop_site / row["page"].removeprefix("./") / "index.html").read_text(encoding="utf-8")
        assert f'id="{row["anchor"]}"' in built, row
        assert row["title"] and row["summary"], row
    decision = next(row for row in rows if row["symbol"] == "1. Use Go for the order server")
    assert (decision["page"], decision["title"]) == ("decisions/", "Decisions")


def test_sections_are_cut_at_headings_without_code_blocks() -> None:
    text = "# Guide\n\nIntro.\n\n## Setup &amp; run\n\nRun **it**.\n\n```mermaid\ngraph LR\n```\n\n## Empty\n\n## 運用\n\n夜間に復元する。\n"
    sections = page_documents([ProsePage("guide.md", "", text)])
    assert [(s.chunk.symbol, s.chunk.id, s.chunk.content) for s in sections] == [
        ("Guide", "guide.md#guide", "Intro."),
        ("Setup & run", "guide.md#setup-run", "Run it ."),
        ("運用", "guide.md#_1", "夜間に復元する。"),
    ]
    assert {s.chunk.kind for s in sections} == {ChunkKind.PAGE}
    assert {s.summary.notes for s in sections} == {"Guide"}


def test_a_name_finds_its_definition_first_and_prose_finds_its_section(tmp_path) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(FIXTURE, repo)
    workspace = Workspace.create(repo, Config(), tmp_path / "store", tmp_path / "site")
    build(workspace, site=False)
    sections = searched_sections(prose_pages(load_site_data(workspace)), None)
    index = SearchIndex.build(workspace.store.load().documents + sections)
    for name in ("UserService", "NewServer", "ApiClient"):
        top = index.search(name, 10, "sparse")
        assert top[0].symbol == name and top[0].kind != "page", (name, top[:3])
        assert any(hit.kind == "page" for hit in top), name  # the module pages name them too
    hits = index.search("phased refactoring plan public API docstrings", 5, "sparse")
    assert any(hit.kind == "page" and hit.path == "plans/milestones.md" for hit in hits), hits


@pytest.mark.skipif(not node_available(), reason="needs node and `npm install` in tests/js (scripts/test.sh does it)")
@pytest.mark.parametrize("mode", ["sparse", "fused"])
def test_the_browser_ranks_page_sections_and_japanese_as_python_does(built, mode) -> None:
    site, python_index = built
    embedder = default_embedder() if mode == "fused" else None
    if mode == "fused" and (embedder is None or not python_index.has_vectors):
        pytest.skip("the embedding model is not shipped in this checkout")
    javascript = rank_in_node(site / DATA_DIR, QUERIES, mode)
    kinds = set()
    for query, js_hits in zip(QUERIES, javascript):
        py_hits = python_index.search(query, 10, mode, embedder)
        assert [h["score"] for h in js_hits] == pytest.approx([h.score for h in py_hits], abs=1e-6), query
        if mode == "sparse":  # fused: float32 and float64 query vectors may swap a near-tie
            assert [(h["path"], h["symbol"]) for h in js_hits] == [(h.path, h.symbol) for h in py_hits], query
        kinds.update(hit.kind for hit in py_hits)
    assert "page" in kinds
