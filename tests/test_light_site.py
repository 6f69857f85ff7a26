"""What a cold visit to a built site costs, in headless Chromium: Mermaid only on a page
that draws a diagram, no search data before the search box is about to be used, keyword
results first and the vector side settling below them, a result count that matches the
list; served under a sub-path with no request leaving 127.0.0.1."""

from __future__ import annotations

import re

import pytest
from helpers import TESTS_MERMAID, require_chromium, served_shop_site

SUB_PATH = "pr-7"
SEARCH_DATA = ("/search/refdoc/", "/assets/refdoc/refdoc-search.js", "/assets/javascripts/workers/search.")
"""What the search worker fetches once used: its data, its ranking, and lunr (in Material's worker)."""
KEPT_ON_SETTLE = 3
"""search-worker.js's KEPT_ON_SETTLE: results that keep their places when the vectors arrive."""

require_chromium()


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    with served_shop_site(tmp_path_factory.mktemp("light"), SUB_PATH) as url:
        yield url


@pytest.fixture()
def tab(browser):
    """A page that records every request it and its workers make."""
    context = browser.new_context()
    page = context.new_page()
    page.requests = []
    context.on("request", lambda request: page.requests.append(request.url))
    yield page
    foreign = [url for url in page.requests if not url.startswith("http://127.0.0.1:")]
    context.close()
    assert foreign == []


def search_requests(tab) -> list[str]:
    return [url for url in tab.requests if any(part in url for part in SEARCH_DATA)]


def shown(tab) -> tuple[list[str], int]:
    """(each result's chunk link, the count the result header states)."""
    links = tab.eval_on_selector_all(".md-search-result__item", "items => items.map(i => i.querySelector('a[href*=\"#\"]').href)")
    header = tab.inner_text(".md-search-result__meta")
    count = int(re.search(r"\d+", header).group()) if re.search(r"\d+", header) else 0
    return links, count


def test_mermaid_loads_only_on_a_page_with_a_diagram(tab, site_url) -> None:
    tab.goto(site_url + "files/app/service.py/", wait_until="load")
    tab.wait_for_timeout(500)
    assert tab.query_selector("pre.mermaid, div.mermaid") is None
    assert not [url for url in tab.requests if "mermaid" in url]
    if not TESTS_MERMAID.is_file():
        pytest.skip("Mermaid is not installed in tests/js: diagrams show as text")
    tab.goto(site_url, wait_until="load")
    tab.wait_for_selector("div.mermaid", state="attached", timeout=15_000)  # Material's drawn diagram
    assert tab.query_selector("pre.mermaid") is None
    assert any(url.startswith(f"{site_url}assets/javascripts/mermaid/") for url in tab.requests)


def test_no_search_data_before_the_box_is_about_to_be_used(tab, site_url) -> None:
    tab.goto(site_url, wait_until="load")
    tab.wait_for_timeout(1500)
    assert search_requests(tab) == []
    tab.hover(".md-search__input")
    tab.wait_for_selector("html[data-refdoc-search]", state="attached", timeout=10_000)
    assert any(url.startswith(f"{site_url}search/refdoc/index.json") for url in tab.requests)


def test_keyword_results_show_first_and_the_list_settles_below_them(tab, site_url) -> None:
    from refdoc_site.search.embed import default_embedder

    if default_embedder() is None:
        pytest.skip("the embedding model is not shipped in this checkout: no vector side to wait for")
    held = []
    tab.route("**/search/refdoc/vectors.bin", lambda route: held.append(route))
    tab.goto(site_url, wait_until="load")
    tab.click(".md-search__input")
    tab.keyboard.type("user delete export", delay=10)
    tab.wait_for_function("document.querySelectorAll('.md-search-result__item').length >= 4", timeout=10_000)
    tab.wait_for_timeout(300)  # the answer to the whole query, not a prefix
    assert tab.get_attribute("html", "data-refdoc-search") == "keyword"
    first, count = shown(tab)
    assert count == len(first) and len(first) >= KEPT_ON_SETTLE
    assert all(link.startswith(site_url) for link in first)  # code, or a prose page's section
    assert held, "the vectors were not requested"
    for route in held:
        route.continue_()
    tab.wait_for_selector("html[data-refdoc-search=settled]", state="attached", timeout=10_000)
    settled, count = shown(tab)
    assert count == len(settled)
    assert settled[:KEPT_ON_SETTLE] == first[:KEPT_ON_SETTLE]
    assert any(url.endswith("/search/refdoc/model/embeddings.bin") for url in tab.requests)


def test_the_count_is_the_number_of_results_shown(tab, site_url) -> None:
    tab.goto(site_url, wait_until="load")
    tab.click(".md-search__input")
    tab.keyboard.type("user", delay=10)
    tab.wait_for_selector("html[data-refdoc-search=settled]", state="attached", timeout=10_000)
    tab.wait_for_selector(".md-search-result__item", timeout=10_000)
    links, count = shown(tab)
    assert count == len(links) > 1
    assert len(set(links)) == len(links)
