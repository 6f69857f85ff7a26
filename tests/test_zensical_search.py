"""The golden fixture's site built by Zensical (`--engine zensical`), in headless Chromium:
served under a sub-path, the header's search box answered by refdoc-site's worker with the
same ranking as the MkDocs site, a click landing on the chunk's anchor, Mermaid only on a
page with a diagram, no request leaving localhost (the page's nor its worker's)."""

from __future__ import annotations

import re

import pytest
from helpers import (
    check_mermaid_only_on_a_diagram_page,
    check_search_data_waits_for_the_box,
    require_chromium,
    served_shop_site,
)

from refdoc_site.rendering.zensical_site import zensical_installed

SUB_PATH = "pr-7"
SEARCH_DATA = ("/search/refdoc/", "/assets/refdoc/search-worker.js", "/assets/refdoc/lunr-host.js")
"""What the box fetches once used: the worker, lunr's host, the data."""

require_chromium()
if not zensical_installed():
    pytest.skip("needs Zensical: pip install 'refdoc-site[zensical]' (the test extra has it)", allow_module_level=True)


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    with served_shop_site(tmp_path_factory.mktemp("zensical-browser"), SUB_PATH, engine="zensical") as url:
        yield url


@pytest.fixture(scope="module")
def mkdocs_url(tmp_path_factory):
    with served_shop_site(tmp_path_factory.mktemp("mkdocs-browser"), SUB_PATH) as url:
        yield url


def typed(page, url: str, query: str) -> list[tuple[str, str]]:
    """Type `query` into the header's box; (href, text) of the results once they settle."""
    page.goto(url)
    page.click(".refdoc-zsearch__input")
    page.keyboard.type(query, delay=10)
    page.wait_for_selector(".refdoc-zsearch__link", timeout=10_000)
    page.wait_for_selector("html[data-refdoc-search=settled]", state="attached", timeout=10_000)
    return [(a.get_attribute("href"), a.inner_text()) for a in page.query_selector_all(".refdoc-zsearch__link")]


def test_a_result_from_our_ranking_lands_on_its_anchor_under_the_sub_path(tab, site_url) -> None:
    links = typed(tab, f"{site_url}modules/app/", "delete user")
    first, text = links[0]
    assert first == f"{site_url}files/app/service.py/#chunk-UserService.delete-user", links
    assert "def delete_user" in text
    tab.click(".refdoc-zsearch__link >> nth=0")
    tab.wait_for_url(f"{site_url}files/app/service.py/#chunk-UserService.delete-user")
    target = tab.locator("#chunk-UserService\\.delete-user")
    assert target.count() == 1
    assert target.evaluate("e => e.getBoundingClientRect().top >= 0 && e.getBoundingClientRect().top < innerHeight")
    assert any(url.startswith(f"{site_url}search/refdoc/index.json") for url in tab.requests)
    assert not any(url.endswith("/search.json") for url in tab.requests), "Zensical's own search index was loaded"


def test_the_results_are_the_mkdocs_sites_in_the_same_order(browser, site_url, mkdocs_url) -> None:
    for query in ("delete user", "export users to a file", "NewServer"):
        page = browser.new_page()
        zensical = [href.removeprefix(site_url) for href, _ in typed(page, site_url, query)]
        page.goto(mkdocs_url)
        page.click(".md-search__input")
        page.keyboard.type(query, delay=10)
        page.wait_for_selector(".md-search-result__item", timeout=10_000)
        page.wait_for_selector("html[data-refdoc-search=settled]", state="attached", timeout=10_000)
        page.wait_for_timeout(300)
        mkdocs = page.eval_on_selector_all(".md-search-result__item", "items => items.map(i => i.querySelector('a[href*=\"#\"]').href)")
        page.close()
        # Material adds the query as `?h=` (its search.highlight), which the Zensical box does not
        assert zensical == [re.sub(r"\?[^#]*", "", href.removeprefix(mkdocs_url)) for href in mkdocs], query


def test_nothing_of_the_search_loads_before_the_box_is_used(tab, site_url) -> None:
    check_search_data_waits_for_the_box(tab, site_url, ".refdoc-zsearch__input", SEARCH_DATA)


def test_the_meaning_side_ranks_as_with_mkdocs(tab, site_url) -> None:
    from refdoc_site.search.embed import default_embedder

    if default_embedder() is None:
        pytest.skip("the embedding model is not shipped in this checkout")
    links = typed(tab, site_url, "erase an account")
    assert any(href.endswith("#chunk-UserService.delete-user") for href, _ in links), links
    assert any(url.endswith("/search/refdoc/vectors.bin") for url in tab.requests)


def test_enter_opens_the_first_result(tab, site_url) -> None:
    links = typed(tab, site_url, "getOrder")
    assert links[0][0].endswith("#chunk-ApiClient.getOrder"), links
    tab.keyboard.press("Enter")
    tab.wait_for_url(links[0][0])


def test_mermaid_loads_only_on_a_page_with_a_diagram(tab, site_url) -> None:
    check_mermaid_only_on_a_diagram_page(tab, site_url)
