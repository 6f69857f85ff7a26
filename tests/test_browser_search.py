"""The search box of a built site, in headless Chromium: served under a sub-path as a pull
request preview would be, queried by typing, answered by refdoc-site's worker, with no
request leaving localhost."""

from __future__ import annotations

import pytest
from helpers import require_chromium, served_shop_site

SUB_PATH = "pr-123"

require_chromium()


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    with served_shop_site(tmp_path_factory.mktemp("browser"), SUB_PATH) as url:
        yield url


def search(browser, url: str, query: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Type a query into the search box; return (href, text) of result links and all request URLs."""
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url)
    page.click(".md-search__input")
    page.keyboard.type(query, delay=10)
    if not query.isascii():
        # Characters outside the keyboard's layout arrive as text input, with no key events;
        # a user's input method ends with a key press, which Material's keyup listener sees.
        page.keyboard.press("Space")
    page.wait_for_selector(".md-search-result__item", timeout=10_000)
    # Keyword results show first; the list settles once the vectors are in.
    page.wait_for_selector("html[data-refdoc-search=settled]", state="attached", timeout=10_000)
    links = [(a.get_attribute("href"), a.inner_text()) for a in page.query_selector_all(".md-search-result__link")]
    page.close()
    return links, requests


def test_search_box_links_to_the_chunk_under_the_sub_path(browser, site_url) -> None:
    links, requests = search(browser, site_url, "delete user")
    hrefs = [href for href, _ in links]
    assert any(href.split("?")[0].endswith(f"/{SUB_PATH}/files/app/service.py/") for href in hrefs)
    chunk_links = [href for href in hrefs if "#" in href]
    assert chunk_links[0].endswith("#chunk-UserService.delete-user"), chunk_links
    assert chunk_links[0].startswith(f"{site_url}files/app/service.py/")
    assert all(url.startswith("http://127.0.0.1:") for url in requests), [u for u in requests if not u.startswith("http://127.0.0.1:")]
    assert any("/search/refdoc/index.json" in url for url in requests)


def test_results_show_signature_and_summary_as_text(browser, site_url) -> None:
    links, _ = search(browser, site_url, "export users to a file")
    text = next(text for href, text in links if href.endswith("#chunk-UserService.export"))
    assert "def export(self, path: str) -> None" in text
    assert "<script>alert(1)</script>" in text  # shown as text, not run as markup


def test_typescript_and_go_chunks_are_found(browser, site_url) -> None:
    links, _ = search(browser, site_url, "getOrder")
    assert any(href.endswith("#chunk-ApiClient.getOrder") for href, _ in links)
    links, _ = search(browser, site_url, "NewServer")
    assert any(href.endswith("#chunk-NewServer") for href, _ in links)


def test_meaning_finds_what_no_keyword_names(browser, site_url) -> None:
    from refdoc_site.search.embed import default_embedder

    if default_embedder() is None:
        pytest.skip("the embedding model is not shipped in this checkout")
    links, requests = search(browser, site_url, "erase an account")
    assert any(href.endswith("#chunk-UserService.delete-user") for href, _ in links)
    assert any(url.endswith("/search/refdoc/vectors.bin") for url in requests)
    assert any(url.endswith("/search/refdoc/model/embeddings.bin") for url in requests)


def test_a_japanese_query_finds_the_english_code(browser, site_url) -> None:
    links, _ = search(browser, site_url, "ユーザーを削除する")
    assert any(href.endswith("#chunk-UserService.delete-user") for href, _ in links), links


def test_a_katakana_word_the_glossary_lacks_is_read_by_sound(browser, site_url) -> None:
    links, _ = search(browser, site_url, "プライス")  # price: in no glossary entry
    chunk_links = [href for href, _ in links if "#" in href]
    assert chunk_links[0].endswith("#chunk-formatPrice"), chunk_links
