"""The Ask panel in headless Chromium: against `refdoc-site serve` on loopback it appears
beside the search box, streams an answer whose citation lands on the definition's anchor and
keeps the conversation across pages; without a model it shows the paragraph and the list
`refdoc-site ask` prints (parity); the same site on a static host draws no panel, asks
nothing and logs nothing; a model's answer shows its sources and flags and runs nothing of
what it wrote; an open page reloads itself after a rebuild, or offers to while a question
is being typed. The panel and its absence are checked on the MkDocs site and on the
Zensical one, whose header holds refdoc-site's own search box."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import markdown

import pytest
from helpers import SHOP_FIXTURE, require_chromium, running, served_folder
from openai_server import TEST_KEY, OpenAIServer

from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.core.workspace import Workspace
from refdoc_site.llm import open_session
from refdoc_site.rendering.zensical_site import zensical_installed
from refdoc_site.serving.answering import LibraryAnswering
from refdoc_site.serving.app import Served, ServeOptions

require_chromium()


ENGINES = ("mkdocs", pytest.param("zensical", marks=pytest.mark.skipif(not zensical_installed(), reason="needs Zensical: pip install 'refdoc-site[zensical]' (the test extra has it)")))
SEARCH_BOX = {"mkdocs": ".md-search", "zensical": ".refdoc-zsearch"}
"""The header's search box the Ask button follows, per engine."""
SEARCH_INPUT = {"mkdocs": ".md-search__input", "zensical": ".refdoc-zsearch__input"}
SEARCH_RESULT = {"mkdocs": ".md-search-result__item", "zensical": ".refdoc-zsearch__link"}
PHONE_SEARCH = {"mkdocs": "label.md-header__button[for=__search]", "zensical": ".refdoc-zsearch__input"}
"""What a phone taps to search: Material folds its box behind an icon; ours stays a box."""


def served_shop(tmp_path: Path, watch: bool = False, llm: bool = False, engine: str = "mkdocs", repo_url: str = "") -> Served:
    """The shop's site built by `engine` and served on a free loopback port; with `llm`,
    through the session the environment configures."""
    repo = tmp_path / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    workspace = Workspace.create(repo, Config(engine=engine, repo_url=repo_url))
    session = open_session(workspace.config, workspace.store_dir)[0] if llm else None
    options = ServeOptions(port=0, watch=watch, per_minute=600, burst=50)
    return Served(workspace, session, LibraryAnswering(workspace, session), options, say=lambda line: None)


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    served = served_shop(tmp_path_factory.mktemp("ask-browser"))
    with running(served):
        yield served


@pytest.fixture(scope="module")
def zensical_shop(tmp_path_factory):
    served = served_shop(tmp_path_factory.mktemp("ask-browser-zensical"), engine="zensical")
    with running(served):
        yield served


def served_by(request, engine: str) -> Served:
    """The module's served shop built by `engine`."""
    return request.getfixturevalue("shop" if engine == "mkdocs" else f"{engine}_shop")


def watched_page(browser):
    """A new page and what it logs: (page, requests, console errors)."""
    page = browser.new_page()
    requests: list = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, requests, errors


def ask_in_panel(page, question: str):
    """Type a question into the open panel; returns the answer element once it is done."""
    page.fill(".refdoc-ask__input", question)
    page.keyboard.press("Enter")
    done = page.wait_for_selector(".refdoc-ask__turn:last-child .refdoc-ask__answer[data-state=done]", timeout=30_000)
    return done


@pytest.mark.parametrize("engine", ENGINES)
def test_the_panel_streams_an_answer_and_its_citation_lands_on_the_anchor(browser, request, engine: str) -> None:
    shop = served_by(request, engine)
    page, requests, errors = watched_page(browser)
    page.goto(shop.url + "modules/app/")
    toggle = page.wait_for_selector(".md-header__inner .refdoc-ask-toggle", timeout=10_000)
    assert page.evaluate(f"document.querySelector('.md-header__inner {SEARCH_BOX[engine]}').nextElementSibling.className") == "refdoc-ask-toggle"
    sizes = page.evaluate(f"[getComputedStyle(document.querySelector('.refdoc-ask-toggle')).fontSize, getComputedStyle(document.querySelector('{SEARCH_INPUT[engine]}')).fontSize]")
    assert float(sizes[0].rstrip("px")) >= 0.8 * float(sizes[1].rstrip("px")), sizes  # as legible as the search box's
    toggle_box, header_box = page.locator(".refdoc-ask-toggle").bounding_box(), page.locator(".md-header").bounding_box()
    assert header_box["y"] <= toggle_box["y"] and toggle_box["y"] + toggle_box["height"] <= header_box["y"] + header_box["height"], (toggle_box, header_box)
    toggle.click()
    answer = ask_in_panel(page, "how is a user deleted?")
    assert int(answer.get_attribute("data-pieces")) >= 2  # streamed: a piece per source
    asked = [r for r in requests if r.url == shop.url + "ask" and r.method == "POST"]
    assert json.loads(asked[0].post_data) == {"question": "how is a user deleted?", "history": []}
    assert asked[0].response().header_value("content-type").startswith("application/x-ndjson")
    assert len(answer.query_selector_all(".refdoc-ask__text ol > li")) >= 2  # ranked results keep their numbers
    links = [(a.get_attribute("href"), a.inner_text()) for a in answer.query_selector_all("a")]
    target = next(href for href, _ in links if href.endswith("#chunk-UserService.delete-user"))
    assert target.startswith(shop.url + "files/app/service.py/")
    assert any(text.startswith("app/service.py:") for href, text in links if href == target)

    answer.query_selector(f'a[href="{target}"]').click()
    page.wait_for_url(target)
    anchor = page.evaluate("(() => { const r = document.getElementById('chunk-UserService.delete-user').getBoundingClientRect(); return [r.top, innerHeight]; })()")
    assert 0 <= anchor[0] < anchor[1], anchor  # scrolled to the definition

    # The conversation followed to the new page, and goes with the next question.
    page.wait_for_selector("#refdoc-ask:not([hidden]) .refdoc-ask__turn", timeout=10_000)
    assert page.inner_text(".refdoc-ask__question") == "how is a user deleted?"
    ask_in_panel(page, "and how is one exported?")
    second = [r for r in requests if r.url == shop.url + "ask" and r.method == "POST"][1]
    history = json.loads(second.post_data)["history"]
    assert [turn["question"] for turn in history] == ["how is a user deleted?"]
    assert len(page.query_selector_all(".refdoc-ask__turn")) == 2
    assert all(r.url.startswith(shop.url) for r in requests)
    assert errors == []
    page.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_on_a_phone_a_followed_citation_closes_the_panel_and_the_conversation_stays(browser, request, engine: str) -> None:
    """At 375 px the panel covers the page, within the screen: following one of its
    citations closes it, so the definition it leads to is what the reader sees; Ask reopens
    the same conversation. A wide screen keeps it open beside the page (the test above)."""
    shop = served_by(request, engine)
    page = browser.new_page(viewport={"width": 375, "height": 740})
    page.goto(shop.url + "modules/app/")
    page.wait_for_selector(".refdoc-ask-toggle", timeout=10_000).click()
    answer = ask_in_panel(page, "how is a user deleted?")
    cover = page.evaluate("document.getElementById('refdoc-ask').offsetWidth / innerWidth")
    assert cover > 0.8, cover
    edges = page.evaluate("(() => { const r = document.getElementById('refdoc-ask').getBoundingClientRect(); return [r.left, r.right, document.documentElement.clientWidth]; })()")
    assert 0 <= edges[0] and edges[1] <= edges[2], edges  # all of it on screen (Zensical keeps a scroll bar's gutter)
    target = next(a for a in answer.query_selector_all("a") if a.get_attribute("href").endswith("#chunk-UserService.delete-user"))
    target.click()
    page.wait_for_url("**#chunk-UserService.delete-user")
    page.wait_for_selector(".refdoc-ask-toggle", timeout=10_000)
    assert page.evaluate("document.getElementById('refdoc-ask').hidden")
    seen = page.evaluate(
        "(() => { const r = document.getElementById('chunk-UserService.delete-user').getBoundingClientRect();"
        " const at = document.elementFromPoint(r.left + 5, r.top + r.height / 2);"
        " return [r.top >= 0 && r.top < innerHeight, !!at && !at.closest('#refdoc-ask')]; })()"
    )
    assert seen == [True, True], seen  # the definition is on screen, not under the panel
    page.click(".refdoc-ask-toggle")
    assert page.inner_text("#refdoc-ask .refdoc-ask__question") == "how is a user deleted?"
    page.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_the_sites_search_results_cover_the_open_panel(browser, request, engine: str) -> None:
    """Searching while the panel is open: the results drawn under the search box (Material's
    or ours) are on top, not hidden under the panel (they were: the panel's z-index beat the
    header's)."""
    shop = served_by(request, engine)
    for width, height in ((1280, 800), (375, 740)):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(shop.url)
        page.wait_for_selector(".refdoc-ask-toggle", timeout=10_000).click()
        ask_in_panel(page, "how is a user deleted?")
        page.click(PHONE_SEARCH[engine] if width < 600 else SEARCH_INPUT[engine])
        page.keyboard.type("delete user")
        page.wait_for_selector(SEARCH_RESULT[engine], timeout=20_000)
        page.wait_for_selector("html[data-refdoc-search=settled]", state="attached", timeout=20_000)
        box = page.locator(SEARCH_RESULT[engine]).first.bounding_box()
        on_top = page.evaluate(
            "([x, y]) => { const e = document.elementFromPoint(x, y); return !!e && !e.closest('#refdoc-ask'); }",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert on_top, (width, box)
        page.close()


class Rendered(HTMLParser):
    """A paragraph of Markdown as a Markdown renderer draws it: its text, its links' targets
    and its code spans."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text, self.links, self.code, self._in_code = "", [], [], False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "a":
            self.links.append(dict(attrs)["href"])
        self._in_code = tag == "code"

    def handle_endtag(self, tag: str) -> None:
        self._in_code = False if tag == "code" else self._in_code

    def handle_data(self, data: str) -> None:
        self.text += data
        if self._in_code:
            self.code.append(data)


def rendered(markdown_text: str) -> Rendered:
    parser = Rendered()
    parser.feed(markdown.markdown(markdown_text))
    return parser


PARITY_QUESTIONS = (
    "normalize the name when creating a user",  # a call between listed definitions, both ways
    "how is a user deleted?",
    "what temperature should sourdough bread be baked at?",  # about nothing here
)


@pytest.mark.parametrize("question", PARITY_QUESTIONS)
def test_without_a_model_the_panel_shows_the_paragraph_the_cli_prints(browser, shop, question: str, capsys) -> None:
    """Parity: the panel's answer is the one `refdoc-site ask` prints for the same store and
    question (serve answers with the same `ask()`), drawn as a Markdown renderer draws it:
    the paragraph's words, each definition's link to its anchor on the site, its names as
    code; "not found in this repository" for a question about nothing in it."""
    store = ["--store", str(shop.workspace.store_dir)]
    assert main(["ask", question, str(shop.workspace.repo), *store, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    page, _, errors = watched_page(browser)
    page.goto(shop.url)
    page.wait_for_selector(".refdoc-ask-toggle", timeout=10_000).click()
    assert "put together from the best search results" in page.inner_text(".refdoc-ask__note")
    answer = ask_in_panel(page, question)
    shown = answer.query_selector(".refdoc-ask__text > p")
    expected = rendered(printed["text"].split("\n\n")[0])
    assert shown.text_content() == expected.text
    assert [a.get_attribute("href") for a in shown.query_selector_all("a")] == [shop.url + link for link in expected.links]
    assert [c.text_content() for c in shown.query_selector_all("code")] == expected.code
    if printed["mode"] == "not_found":
        assert expected.text.startswith("Not found in this repository") and not answer.query_selector_all("ol li")
    else:
        listed = [a.get_attribute("href") for a in answer.query_selector_all(".refdoc-ask__text ol > li a")]
        assert listed == [shop.url + source["url"] for source in printed["sources"]]
        assert expected.links[0] == printed["sources"][0]["url"], "the paragraph opens with the best match"
    if question == PARITY_QUESTIONS[0]:
        create, normalize = (shop.url + "files/app/service.py/#chunk-UserService.create-user", shop.url + "files/app/util.py/#chunk-normalize-name")
        assert "it calls normalize_name (app/util.py:" in shown.text_content()
        assert [a.get_attribute("href") for a in shown.query_selector_all("a")][:2] == [create, normalize]
    assert errors == []
    page.close()


MODEL_REPLY = (
    "A user is removed by `UserService.delete_user` [C1]. See also app/nowhere.py:3-4. "
    "[run](javascript:alert(1)) [away](https://example.invalid/x) <img src=x onerror=alert(1)> "
    "Escaped as an answer's names are (core/text.markdown_line): app/\\[id\\].ts and &lt;b>bold&lt;/b>."
)


def test_a_model_answer_shows_its_sources_and_flags_and_stays_text(browser, tmp_path: Path, monkeypatch) -> None:
    """The configured model (the tests' OpenAI server) streams a reply with a citation, a place
    outside its context, and links and markup a page must not run: the citation is a link to
    the definition, the outside place is flagged, the rest is drawn as text."""
    with OpenAIServer(api_key=TEST_KEY) as api:
        api.inject("reply", content=MODEL_REPLY, times=None, when=lambda request: bool(request.body.get("stream")))
        monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", api.base_url)
        served = served_shop(tmp_path, llm=True, repo_url="https://github.com/acme/shop")
        try:
            with running(served) as url:
                page, requests, errors = watched_page(browser)
                page.goto(url)
                page.wait_for_selector(".refdoc-ask-toggle", timeout=10_000).click()
                answer = ask_in_panel(page, "how is a user removed?")
                text = answer.query_selector(".refdoc-ask__text")
                hrefs = [a.get_attribute("href") for a in text.query_selector_all("a")]
                assert hrefs and hrefs[0] == url + "files/app/service.py/#chunk-UserService.delete-user", hrefs
                assert all(href.startswith(url) for href in hrefs), hrefs
                assert answer.query_selector_all("img") == []
                assert "[run](javascript:alert(1))" in text.inner_text()
                assert "<img src=x onerror=alert(1)>" in text.inner_text()
                assert "app/[id].ts and <b>bold</b>." in text.inner_text()  # the escapes read as what they stand for
                assert answer.query_selector_all("b") == []
                assert "app/nowhere.py" in answer.inner_text().split("Cited but not in")[1]
                assert answer.query_selector_all(".refdoc-ask__sources li")  # what the model was shown
                report = answer.query_selector("a.refdoc-wrong").get_attribute("href")  # "This is wrong", prefilled
                fields = parse_qs(urlsplit(report).query)
                assert report.startswith("https://github.com/acme/shop/issues/new?") and "Ask: how is a user removed?" in fields["body"][0]
                assert "app/service.py:" in fields["body"][0].split("**Evidence:**")[1], "the sources it was shown"
                assert all(r.url.startswith(url) for r in requests)
                assert errors == []
                page.close()
        finally:
            served.llm.close()
        assert any(recorded.streamed for recorded in api.requests)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_static_site_has_no_panel_and_asks_nothing(browser, request, engine: str) -> None:
    shop = served_by(request, engine)
    assert (shop.workspace.out_dir / "assets/refdoc/refdoc-ask.js").is_file()  # published, and left unloaded
    with served_folder(shop.workspace.out_dir) as url:
        page, requests, errors = watched_page(browser)
        page.goto(url + "modules/app/")
        page.wait_for_load_state("networkidle")
        page.hover(SEARCH_BOX[engine])
        page.wait_for_timeout(300)
        assert page.query_selector(".refdoc-ask-toggle, #refdoc-ask") is None
        assert page.evaluate("window.refdocServed === undefined")
        assert not [r.url for r in requests if "/ask" in r.url or "refdoc-ask.js" in r.url]
        assert errors == []
        page.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_an_open_page_reloads_after_a_rebuild_unless_a_question_is_typed(browser, tmp_path: Path, engine: str) -> None:
    served = served_shop(tmp_path, watch=True, engine=engine)
    repo = served.workspace.repo
    with running(served) as url:
        page, _, errors = watched_page(browser)
        page.goto(url + "files/app/util.py/")
        page.wait_for_selector(".refdoc-ask-toggle", timeout=10_000)
        assert "refund_total" not in page.content()
        with page.expect_event("load", timeout=60_000):
            with (repo / "app" / "util.py").open("a", encoding="utf-8") as source:
                source.write('\n\ndef refund_total(amounts: list[float]) -> float:\n    """Sum the refunds of an order."""\n    return sum(amounts)\n')
        page.wait_for_selector("#chunk-refund-total", state="attached", timeout=10_000)

        # A question being typed is not lost: the panel offers the reload instead.
        page.click(".refdoc-ask-toggle")
        page.fill(".refdoc-ask__input", "half a question")
        with (repo / "app" / "util.py").open("a", encoding="utf-8") as source:
            source.write('\n\ndef refund_count(amounts: list[float]) -> int:\n    """Count the refunds of an order."""\n    return len(amounts)\n')
        page.wait_for_selector(".refdoc-ask__rebuilt", timeout=60_000)
        assert page.input_value(".refdoc-ask__input") == "half a question"
        assert page.query_selector("#chunk-refund-count") is None
        with page.expect_event("load"):
            page.click(".refdoc-ask__rebuilt button")
        page.wait_for_selector("#chunk-refund-count", state="attached", timeout=10_000)
        assert errors == []
        page.close()
