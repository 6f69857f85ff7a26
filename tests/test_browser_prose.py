"""The search box finds the site's own prose (a decision, a module page's section) and
Japanese docstrings and Markdown, in headless Chromium, under a sub-path, with no request
leaving 127.0.0.1; a reStructuredText guide reads as prose, every section its own."""

from __future__ import annotations

import re
import shutil

import pytest
from helpers import SHOP_FIXTURE, require_chromium, served_build, write_repo
from test_browser_search import SUB_PATH, search
from test_japanese_search import JAPANESE_REPO

require_chromium()


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    """The shop with a Japanese module, built and served under the sub-path."""
    work = tmp_path_factory.mktemp("browser-prose")
    shutil.copytree(SHOP_FIXTURE, work / "shop")
    with served_build(write_repo(work / "shop", {**JAPANESE_REPO, **GUIDE_REPO}), work / "served", SUB_PATH) as url:
        yield url


GUIDE_REPO = {
    "docs/lifecycle.rst": """
        .. currentmodule:: app

        Application Lifecycle
        =====================

        The shop serves orders through one service.

        Serving the Application
        -----------------------

        A server calls the service.

        Middleware
        ~~~~~~~~~~

        Middleware wraps the service <img src=x onerror=alert(7)>.

        How an Order is Handled
        -----------------------

        Each order names are cleaned by :func:`~app.util.normalize_name` first.

        1. The request arrives.
        2. The service answers.

        .. code-block:: python

            normalize_name("Ada")

        .. raw:: html

           <script>window.injected = true</script>
        """,
}
"""A guide in reStructuredText: a `~~~` level, a directive before its title, a role, a
list, code and markup that must stay text."""
GUIDE_PAGE = "files/docs/lifecycle.rst/"
HANDLED_ANCHOR = "chunk-Application-Lifecycle-How-an-Order-is-Handled"


def test_a_guide_doc_renders_as_prose_with_every_section_its_own(browser, site_url) -> None:
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{site_url}{GUIDE_PAGE}")
    article = page.locator("article")
    assert article.locator("h1").inner_text().startswith("Application Lifecycle")
    headings = [text.strip().rstrip("¶").strip() for text in article.locator("h2, h3").all_inner_texts()]
    assert headings == ["Serving the Application", "Middleware", "How an Order is Handled"], headings
    assert page.locator(f'[id="{HANDLED_ANCHOR}"]').is_visible()
    prose = article.locator("p", has_text="A server calls the service.")
    assert prose.count() == 1 and prose.evaluate("p => !p.closest('pre, code, details')"), "the text is prose, not code"
    assert article.locator("ol li").all_inner_texts() == ["The request arrives.", "The service answers."]
    link = article.locator("a", has_text="normalize_name").first
    assert link.get_attribute("href") == "../../app/util.py/#chunk-normalize-name"
    assert article.locator("pre code", has_text='normalize_name("Ada")').count() == 1
    text = article.inner_text()
    assert "currentmodule" not in text and ":func:" not in text and "code-block" not in text
    assert "<img src=x onerror=alert(7)>" in text, "raw HTML in a doc shows as its text"
    assert article.locator("img, script").count() == 0
    assert article.locator("details").count() == 0, "no raw Source box"
    assert page.evaluate("window.injected === undefined") and not dialogs
    page.close()


def test_a_guide_docs_third_level_section_is_a_search_result_of_its_own(browser, site_url) -> None:
    links, requests = search(browser, site_url, "order names cleaned")
    assert f"{site_url}{GUIDE_PAGE}#{HANDLED_ANCHOR}" in found(links), links
    assert not outside(requests), outside(requests)


def outside(requests: list[str]) -> list[str]:
    return [url for url in requests if not url.startswith("http://127.0.0.1:")]


def found(links: list[tuple[str, str]]) -> dict[str, str]:
    """Result text by link, without the `?h=` Material adds to highlight the query."""
    return {re.sub(r"\?h=[^#]*", "", href): text for href, text in links}


def test_a_decision_is_found_and_its_result_lands_on_its_heading(browser, site_url) -> None:
    links, requests = search(browser, site_url, "order server concurrent requests")
    target = f"{site_url}decisions/#1-use-go-for-the-order-server"
    texts = found(links)
    assert target in texts, links
    assert "1. Use Go for the order server" in texts[target]
    assert "Decisions" in texts[f"{site_url}decisions/"]  # the page's title heads its sections
    assert not outside(requests), outside(requests)

    page = browser.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url)
    page.click(".md-search__input")
    page.keyboard.type("order server concurrent requests", delay=10)
    page.click(f'.md-search-result__link[href^="{site_url}decisions/"][href$="#1-use-go-for-the-order-server"]')
    page.wait_for_url(lambda url: url.startswith(f"{site_url}decisions/") and url.endswith("#1-use-go-for-the-order-server"))
    assert page.locator('[id="1-use-go-for-the-order-server"]').is_visible()
    page.close()
    assert not outside(requests), outside(requests)


def test_a_module_page_section_is_found(browser, site_url) -> None:
    links, requests = search(browser, site_url, "Module app boundary")
    assert f"{site_url}modules/app/#boundary" in found(links), links
    assert not outside(requests), outside(requests)


def test_a_japanese_query_finds_japanese_docstrings_and_markdown(browser, site_url) -> None:
    links, requests = search(browser, site_url, "請求書の発行")
    assert any(href.endswith("#chunk-issue-invoice") for href, _ in links), links
    links, _ = search(browser, site_url, "バックアップの復元")
    assert any("/files/docs/" in href for href, _ in links), links
    assert not outside(requests), outside(requests)
