"""Code colours in headless Chromium: a code block ships its tokens as runs
(rendering/page_weight.py) and the page's script draws them as Pygments' spans when the
block is first shown, so a file page's source looks as before at a third of its bytes;
with either engine."""

from __future__ import annotations

import pytest
from helpers import require_chromium, served_build, write_repo

from refdoc_site.rendering.zensical_site import zensical_installed

require_chromium()

SOURCE = '''def greet(name: str) -> str:
    """Say hello to `name`."""
    message = "héllo 😀 " + name  # a comment
    return message.upper()
'''
DRAWN = """(selector) => [...document.querySelector(selector).querySelectorAll("span")].map(s => [s.className, s.textContent.trim()])"""
"""Each span's class and text (white space between two tokens is taken into a run)."""


@pytest.fixture(scope="module", params=["mkdocs", "zensical"])
def site_url(request, tmp_path_factory):
    if request.param == "zensical" and not zensical_installed():
        pytest.skip("needs Zensical: pip install 'refdoc-site[zensical]' (the test extra has it)")
    work = tmp_path_factory.mktemp(f"browser-code-{request.param}")
    with served_build(write_repo(work / "repo", {"app/greet.py": SOURCE}), work / "served", "site", request.param) as url:
        yield url


def test_a_source_block_is_coloured_when_it_opens(browser, site_url: str) -> None:
    page = browser.new_page()
    page.goto(f"{site_url}files/app/greet.py/", wait_until="load")
    details = page.locator("details:has(code[data-refdoc-hl])").first
    code = "details:has(code) td.code code"
    assert page.evaluate(DRAWN, code) == []  # closed: still runs, no spans yet
    text_before = page.locator(code).first.text_content()
    details.locator("summary").click()
    page.wait_for_function("(s) => document.querySelector(s).querySelector('span') !== null", arg=code)
    spans = page.evaluate(DRAWN, code)
    assert ["k", "def"] in spans and ["nf", "greet"] in spans and ["c1", "# a comment"] in spans
    assert any(css == "s2" and "héllo 😀" in text for css, text in spans)  # lengths in UTF-16, as JavaScript counts
    assert page.locator(code).first.text_content() == text_before  # the same text, coloured
    assert page.locator(code).first.get_attribute("data-refdoc-hl") is None
    colour = page.evaluate("(s) => getComputedStyle(document.querySelector(s).querySelector('span.k')).color", code)
    plain = page.evaluate("(s) => getComputedStyle(document.querySelector(s)).color", code)
    assert colour != plain  # the theme's colour for a keyword
