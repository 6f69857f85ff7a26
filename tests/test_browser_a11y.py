"""axe-core finds no serious or critical violation on any page kind of a built site, in
light and dark, on a phone (390 px) and a desktop (1440 px), in headless Chromium.

The theme's defaults fail on every page (an unnamed search dialog, the footer's 4.47:1
stamp, links told apart by colour only, dark-mode code links at 4.1:1); the fixes are the
theme overrides' (templates/shared/refdoc-a11y.html, templates/material/main.html).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import SHOP_FIXTURE, TESTS_MERMAID, require_chromium, served_build, write_repo

from refdoc_site.rendering.site import MERMAID_ENV

require_chromium()

AXE = Path(__file__).parent / "js" / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core as npm installs it for the tests (tests/js/package.json)."""
if not AXE.is_file():
    pytest.skip("needs axe-core: (cd tests/js && npm install), as scripts/test.sh does", allow_module_level=True)

BLOCKING = ("serious", "critical")
SUB_PATH = "a11y"
CODE_LINKS = {
    # A docstring naming a definition gives a link around code: the dark-mode contrast case.
    "app/orders.py": '''
        from app.util import normalize_name


        def order_key(name: str) -> str:
            """The key an order is filed under: the name as :func:`normalize_name` gives it.

            See :func:`app.util.normalize_name` for the spelling rules.
            """
            return normalize_name(name)
        ''',
    "billing/invoice.py": '''
        def issue_invoice(order):
            """注文から請求書を発行する。税率は注文の配送先で決まる。"""
            return {"order": order}
        ''',
    # A prose page's code blocks show a comment, a variable, an operator word and
    # punctuation: the light-mode contrast cases.
    "docs/usage.md": """
        # Usage

        Start the shop from a shell.

        ```python
        # the port comes from the environment
        ready = port not in used and port > 0
        serve()
        ```

        ```bash
        echo "$PORT"
        ```
        """,
}
PAGES = {
    "overview": "",
    "module": "modules/app/",
    "file": "files/app/orders.py/",
    "prose doc": "files/docs/usage.md/",
    "decisions": "decisions/",
    "milestones": "plans/milestones/",
    "system summary": "summaries/system/",
    "file summaries": "summaries/files/",
}
"""One page of each kind the shop's site has (its map and diagrams on the overview)."""


@contextmanager
def served_shop(tmp_path_factory, engine: str) -> Iterator[str]:
    """The shop (Python, Go, TypeScript, Markdown, a Japanese module) built with `engine`,
    its diagrams drawn, served under a sub-path."""
    work = tmp_path_factory.mktemp(f"browser-a11y-{engine}")
    shutil.copytree(SHOP_FIXTURE, work / "shop")
    with pytest.MonkeyPatch.context() as patch:
        if TESTS_MERMAID.is_file():
            patch.setenv(MERMAID_ENV, str(TESTS_MERMAID))
        with served_build(write_repo(work / "shop", CODE_LINKS), work / "served", SUB_PATH, engine) as url:
            yield url


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    with served_shop(tmp_path_factory, "mkdocs") as url:
        yield url


@pytest.fixture(scope="module")
def zensical_url(tmp_path_factory):
    with served_shop(tmp_path_factory, "zensical") as url:
        yield url


def violations(browser, url: str, scheme: str, width: int) -> list[str]:
    """The serious and critical violations axe-core reports on `url`, one line per rule."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        expected = "slate" if scheme == "dark" else "default"
        assert page.get_attribute("body", "data-md-color-scheme") == expected
        page.add_script_tag(path=str(AXE))
        found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    finally:
        context.close()
    return [
        f"{rule['id']} ({rule['impact']}): {len(rule['nodes'])} nodes, e.g. {rule['nodes'][0]['target']}: "
        f"{rule['nodes'][0]['failureSummary'].splitlines()[-1].strip()}"
        for rule in found
        if rule["impact"] in BLOCKING
    ]


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("kind", list(PAGES))
def test_no_serious_violation(browser, site_url, kind: str, scheme: str, width: int) -> None:
    assert violations(browser, site_url + PAGES[kind], scheme, width) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("kind", ["overview", "module", "decisions"])
def test_no_serious_violation_with_zensical(browser, zensical_url, kind: str, scheme: str) -> None:
    """Zensical's navigation marks the current page in its own colours (seen at 1440 px)."""
    assert violations(browser, zensical_url + PAGES[kind], scheme, 1440) == []


def test_the_search_dialog_is_named(browser, site_url) -> None:
    page = browser.new_page()
    page.goto(site_url)
    assert page.get_attribute('.md-search[role="dialog"]', "aria-label") == "Search"
    page.close()
