"""What a cold visit to a built site costs, in headless Chromium: Mermaid only on a page
that draws a diagram, no search data before the search box is about to be used, keyword
results first and the vector side settling below them, a result count that matches the
list; served under a sub-path with no request leaving 127.0.0.1."""

from __future__ import annotations

import re

import pytest
from helpers import (
    check_mermaid_only_on_a_diagram_page,
    check_search_data_waits_for_the_box,
    require_chromium,
    served_shop_site,
)

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


def shown(tab) -> tuple[list[str], int]:
    """(each result's chunk link, the count the result header states)."""
    links = tab.eval_on_selector_all(".md-search-result__item", "items => items.map(i => i.querySelector('a[href*=\"#\"]').href)")
    header = tab.inner_text(".md-search-result__meta")
    count = int(re.search(r"\d+", header).group()) if re.search(r"\d+", header) else 0
    return links, count


def test_mermaid_loads_only_on_a_page_with_a_diagram(tab, site_url) -> None:
    check_mermaid_only_on_a_diagram_page(tab, site_url)


def test_no_search_data_before_the_box_is_about_to_be_used(tab, site_url) -> None:
    check_search_data_waits_for_the_box(tab, site_url, ".md-search__input", SEARCH_DATA)


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
