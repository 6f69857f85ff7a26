"""The component map in headless Chromium, served under a sub-path: its labels are at least
11 px tall on screen at 390 and 1440 px, every node of every level links to a page that
opens, and a node with a map of its own leads to that map; with either engine."""

from __future__ import annotations

from urllib.parse import urljoin

import pytest
from helpers import require_chromium, served_build, write_repo

from refdoc_site.rendering.component_map import graphviz
from refdoc_site.rendering.zensical_site import zensical_installed

require_chromium()
pytestmark = pytest.mark.skipif(not graphviz(), reason="needs Graphviz's dot (Debian: graphviz; scripts/test.sh installs it)")

SUB_PATH = "pr-3"
MIN_LABEL_PX = 11
WIDTHS = (390, 1440)
PLUGINS = 40
"""More plugins than one view may show: the plugin layer is cut into groups."""
LABEL_SIZES = """() => [...document.querySelectorAll(".refdoc-map svg")].flatMap(svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll("text")].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
})"""
"""Each label's font size as drawn on screen: its CSS size times the SVG's scale."""
MAP_LINKS = """() => [...document.querySelectorAll(".refdoc-map a")].map(a => [a.getAttribute("href"), a.textContent])"""


def _repository() -> dict[str, str]:
    files = {
        "README.md": "# Hub\n\nA hub that plugins plug into.\n",
        "hub/__init__.py": '"""The hub."""\nfrom .core import Hub\n',
        "hub/core.py": "from .helpers import util\n\nclass Hub:\n    pass\n",
        "hub/helpers/__init__.py": "",
        "hub/helpers/util.py": "def util():\n    return 1\n",
        "hub/plugins/__init__.py": '"""Plugins."""\n',
        "hub/plugins/sensor/__init__.py": "from hub.core import Hub\n",
        "tests/test_core.py": "from hub.core import Hub\n\ndef test_hub():\n    assert Hub\n",
        "docs/guide.md": "# Guide\n\nHow to write a plugin.\n",
    }
    for number in range(PLUGINS):
        files[f"hub/plugins/p{number:02}/__init__.py"] = "from hub.plugins.sensor import Hub\n"
    return files


@pytest.fixture(scope="module", params=["mkdocs", "zensical"])
def site_url(request, tmp_path_factory):
    """The hub built by each engine (Zensical rewrites the SVG's links, MkDocs does not)."""
    if request.param == "zensical" and not zensical_installed():
        pytest.skip("needs Zensical: pip install 'refdoc-site[zensical]' (the test extra has it)")
    work = tmp_path_factory.mktemp(f"browser-map-{request.param}")
    with served_build(write_repo(work / "hub", _repository()), work / "served", SUB_PATH, request.param) as url:
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_the_labels_are_readable_at_both_widths(browser, site_url, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    for address in (site_url, f"{site_url}modules/hub/plugins/"):
        page.goto(address)
        sizes = page.evaluate(LABEL_SIZES)
        assert sizes and min(sizes) >= MIN_LABEL_PX, (address, sizes)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, (address, overflow)  # a wide map scrolls in its own frame, not the page
    page.close()


def test_every_node_of_every_level_opens_its_page(browser, site_url) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    to_visit, seen, maps = [site_url], set(), 0
    while to_visit:
        address = to_visit.pop()
        if address in seen:
            continue
        seen.add(address)
        response = page.goto(address)
        assert response is not None and response.ok, address
        links = page.evaluate(MAP_LINKS)
        maps += bool(links)
        to_visit += [urljoin(address, href) for href, _ in links]
    assert maps >= 3  # the overview, the plugin layer and at least one group of plugins
    assert f"{site_url}modules/hub/plugins/sensor/" in seen and f"{site_url}files/hub/core.py/" in seen
    page.goto(site_url)
    page.click(".refdoc-map a:has-text('core.py')")
    page.wait_for_url(f"{site_url}files/hub/core.py/")
    page.close()
