"""The hostile repository's site (tests/hostile.py) in headless Chromium, served under a
sub-path and built by each engine (MkDocs, and Zensical when installed): every page opened,
hostile names typed into the search box (Material's, or refdoc-site's own box in
Zensical's header), and nothing runs that the site did not ship. Graphviz (when installed)
lays out the component map, whose labels are checked as the SVG shows them."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from helpers import TESTS_MERMAID, require_chromium, served_folder
from hostile import HOSTILE_PLAN, SCRIPT_IN_FOLDER, TITLE_BREAKING_PATH, build_hostile_site

from refdoc_site.rendering.component_map import graphviz
from refdoc_site.rendering.site import MERMAID_ENV
from refdoc_site.rendering.zensical_site import zensical_installed

SUB_PATH = "pr-9"
OPEN_SHADOWS = """(() => {
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (options) { return attach.call(this, {...options, mode: "open"}); };
})();"""
"""Material draws each diagram into a closed shadow root; opened, the test can read it."""
INJECTED = """() => {
  const all = root => [...root.querySelectorAll("*")].flatMap(e => [e, ...(e.shadowRoot ? all(e.shadowRoot) : [])]);
  return all(document)
    .filter(e => (e.tagName.toLowerCase() === "img" && e.getAttribute("src") === "x")
              || [...e.attributes].some(a => a.name.toLowerCase().startsWith("on")))
    .map(e => e.outerHTML.slice(0, 200));
}"""
"""Elements a hostile name would have injected, shadow roots included: `<img src=x>` or any
event handler attribute."""
MAP_TEXT = """() => [...document.querySelectorAll(".refdoc-map text")].map(e => e.textContent).join("\\n")"""
"""The overview map's labels, as the SVG shows them."""

SEARCH_BOX = {
    "mkdocs": (".md-search__input", ".md-search-result__meta", ".md-search-result__link"),
    "zensical": (".refdoc-zsearch__input", ".refdoc-zsearch__meta", ".refdoc-zsearch__link"),
}
"""Per engine: the search box's input, its count of results, a result's link."""

require_chromium()


@pytest.fixture(scope="module", params=sorted(SEARCH_BOX))
def served(request, tmp_path_factory):
    """(site URL, the built site's folder, the engine that built it)."""
    engine = request.param
    if engine == "zensical" and not zensical_installed():
        pytest.skip("needs Zensical: pip install 'refdoc-site[zensical]' (the test extra has it)")
    work = tmp_path_factory.mktemp(f"hostile-browser-{engine}")
    root = work / "served"
    with pytest.MonkeyPatch.context() as patch:
        if TESTS_MERMAID.is_file():  # the operator's script, from the environment; the repository's own
            patch.setenv(MERMAID_ENV, str(TESTS_MERMAID))  # mermaid_js points out of it and is refused
        _, exit_code = build_hostile_site(work, root / SUB_PATH, engine=engine)
    assert exit_code == 0
    with served_folder(root) as url:
        yield f"{url}{SUB_PATH}/", root / SUB_PATH, engine


@pytest.fixture()
def tab(browser):
    """A browser tab that records every dialog and every request it makes."""
    page = browser.new_page()
    page.add_init_script(OPEN_SHADOWS)
    page.dialogs, page.requests = [], []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: page.requests.append(request.url))
    yield page
    page.close()


def assert_nothing_ran(tab) -> None:
    assert tab.dialogs == []
    assert tab.evaluate(INJECTED) == []
    assert all(url.startswith("http://127.0.0.1:") for url in tab.requests), [u for u in tab.requests if not u.startswith("http://127.0.0.1:")]


def test_every_page_opens_with_nothing_injected(tab, served) -> None:
    url, site, _ = served
    pages = sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html"))
    assert len(pages) > 40
    for page in pages:
        response = tab.goto(url + quote(page))
        assert response is not None and response.ok, page
        tab.wait_for_load_state("load")
        assert_nothing_ran(tab)
    tab.goto(url)
    if graphviz():
        labels = tab.evaluate(MAP_TEXT)
        assert f"{SCRIPT_IN_FOLDER}/widget" in labels and "x</title><script>alert(1)<" in labels, labels  # long labels are cut
    assert_nothing_ran(tab)


@pytest.mark.parametrize("query", [SCRIPT_IN_FOLDER, TITLE_BREAKING_PATH, HOSTILE_PLAN, "widget"])
def test_hostile_searches_show_results_as_text(tab, served, query: str) -> None:
    url, _, engine = served
    box, count, link = SEARCH_BOX[engine]
    tab.goto(url)
    tab.click(box)
    tab.keyboard.type(query, delay=5)
    tab.wait_for_selector(count, timeout=10_000)
    tab.wait_for_timeout(300)
    assert_nothing_ran(tab)
    if query == "widget":
        result = tab.wait_for_selector(link, timeout=10_000)
        assert f"{SCRIPT_IN_FOLDER}/widget.py" in result.inner_text()
        response = tab.goto(result.get_attribute("href"))
        assert response is not None and response.ok
        assert tab.title().startswith(f"{SCRIPT_IN_FOLDER}/widget.py - ")
        assert_nothing_ran(tab)
