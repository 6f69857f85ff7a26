"""A large site's search in headless Chromium: the shop fixture written in pieces (as a
site past `shards.min_chunks` is), queried by typing; a query fetches its own term shards
and result rows, not the whole index, and the vectors of a few clusters only."""

from __future__ import annotations

import pytest
from helpers import require_chromium, served_shop_site

import refdoc_site.search.site_search as site_search
import refdoc_site.search.site_shards as site_shards

require_chromium()


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    shared = site_search.settings()
    small = {**shared, "shards": {**shared["shards"], "min_chunks": 0, "term_shard_bytes": 1500, "chunks_per_cluster": 4, "probe": 3}}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(site_search, "settings", lambda: small)
        patch.setattr(site_shards, "settings", lambda: small)
        with served_shop_site(tmp_path_factory.mktemp("sharded-browser"), "pr-7") as url:
            yield url


def search(browser, url: str, queries: list[str]) -> list[tuple[list[str], list[str]]]:
    """Type each query in turn into one page's search box; per query, the result links
    once settled and the search data files fetched meanwhile (relative to the data folder)."""
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url)
    answers = []
    for query in queries:
        requests.clear()
        page.fill(".md-search__input", "")
        page.click(".md-search__input")
        # the whole query at once, then one key's keyup (Material searches on keyup): typed key
        # by key on a loaded machine, the prefixes ("delete", "delete u") ran as queries of
        # their own and fetched their clusters too
        page.fill(".md-search__input", query)
        page.keyboard.press("End")
        page.wait_for_selector(".md-search-result__item", timeout=10_000)
        page.wait_for_function(
            "q => document.documentElement.getAttribute('data-refdoc-search') === 'settled'"
            " && document.querySelector('.md-search__input').value === q",
            arg=query, timeout=10_000,
        )
        page.wait_for_timeout(300)
        links = [a.get_attribute("href") for a in page.query_selector_all(".md-search-result__link")]
        fetched = [u.split("/search/refdoc/", 1)[1] for u in requests if "/search/refdoc/" in u]
        answers.append((links, fetched))
    page.close()
    return answers


def test_a_query_fetches_some_shards_and_finds_the_chunk(browser, site_url, tmp_path) -> None:
    (links, fetched), (second_links, second) = search(browser, site_url, ["delete user", "export users to a file"])
    assert any(href.endswith("#chunk-UserService.delete-user") for href in links), links
    assert any(href.endswith("#chunk-UserService.export") for href in second_links), second_links
    assert "index.json" not in fetched and "chunks.json" not in fetched and "vectors.bin" not in fetched
    import json
    import urllib.request

    config = json.loads(urllib.request.urlopen(site_url + "search/refdoc/config.json").read())
    shards = config["shards"]
    terms = [name for name in fetched if name.startswith("terms/")]
    assert 0 < len(terms) < len(shards["keys"]) / 2, (terms, len(shards["keys"]))
    if shards["vectors"]:
        clusters = [name for name in fetched if name.startswith("clusters/")]
        assert 0 < len(clusters) <= shards["vectors"]["probe"] < shards["vectors"]["clusters"], clusters
        assert not any(name == "model/embeddings.bin" for name in fetched)
    # The second query fetches the pieces it lacks, not the first query's again.
    assert not set(second) & set(fetched) - {"config.json"}
    assert any(name.startswith("terms/") for name in second)
