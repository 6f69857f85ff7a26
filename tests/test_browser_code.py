"""What the lighter pages (rendering/page_weight.py) draw in headless Chromium, with either
engine: a code block ships its tokens as runs and the page's script draws them as
Pygments' spans when the block is first shown, so a file page's source looks as before at
a third of its bytes; each header icon is drawn from the one icon sheet; and the reader's
colour scheme is set again by the shared palette script (Material's bundle kept away) when
the next page loads."""

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
ICON_BOXES = """() => [...document.querySelectorAll("header svg")].filter(svg => svg.checkVisibility())
    .map(svg => { const box = (svg.querySelector("use") || svg).getBBox(); return [box.width, box.height]; })"""
"""The drawn size of each visible header icon: an icon whose sheet did not load has none."""


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
    code = "details:has(code) pre code"
    assert page.evaluate(DRAWN, code) == []  # closed: still runs, no spans yet
    assert page.locator("details td.linenos").count() == 0  # nor line numbers: two numbers in an attribute
    text_before = page.locator(code).first.text_content()
    details.locator("summary").click()
    page.wait_for_function("(s) => document.querySelector(s).querySelector('span') !== null", arg=code)
    spans = page.evaluate(DRAWN, code)
    assert ["k", "def"] in spans and ["nf", "greet"] in spans and ["c1", "# a comment"] in spans
    assert any(css == "s2" and "héllo 😀" in text for css, text in spans)  # lengths in UTF-16, as JavaScript counts
    assert page.locator(code).first.text_content() == text_before  # the same text, coloured
    assert page.locator(code).first.get_attribute("data-refdoc-hl") is None
    # Pygments' table again: the numbers beside the code, whose block keeps the theme's copy button.
    assert page.locator("details td.linenos pre").first.text_content() == "1\n2\n3\n4"
    assert page.locator("details td.code pre code").first.text_content() == text_before
    assert page.locator("details td.code pre button").count() >= 1
    colour = page.evaluate("(s) => getComputedStyle(document.querySelector(s).querySelector('span.k')).color", code)
    plain = page.evaluate("(s) => getComputedStyle(document.querySelector(s)).color", code)
    assert colour != plain  # the theme's colour for a keyword


def test_every_header_icon_is_drawn(browser, site_url: str) -> None:
    page = browser.new_page()
    for path in ("", "files/app/greet.py/"):
        page.goto(f"{site_url}{path}", wait_until="load")
        page.wait_for_timeout(200)  # the sheet is fetched once, then drawn
        boxes = page.evaluate(ICON_BOXES)
        assert len(boxes) >= 2, boxes  # logo and palette at least (the menu is hidden on a wide screen)
        assert all(width > 0 and height > 0 for width, height in boxes), (path, boxes)
    page.close()


def test_the_chosen_colour_scheme_holds_on_the_next_page(browser, site_url: str) -> None:
    page = browser.new_page()
    page.goto(site_url, wait_until="load")
    before = page.evaluate("document.body.dataset.mdColorScheme")
    page.locator("form[data-md-component=palette] label:visible").first.click()
    chosen = page.evaluate("document.body.dataset.mdColorScheme")
    assert chosen != before
    # Without Material's bundle only the palette's start-up script can set the scheme.
    page.route("**/bundle.*.min.js", lambda route: route.abort())
    page.goto(f"{site_url}files/app/greet.py/", wait_until="load")
    assert page.evaluate("document.body.dataset.mdColorScheme") == chosen
    page.close()
