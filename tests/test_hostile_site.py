"""The hostile repository (tests/hostile.py) built with the real CLI: offline, every page
parsed, no script or event handler but the site's own, every name shown as text; with an
LLM, no secret, outside file or request to the repository's endpoints leaves the build."""

from __future__ import annotations

import json
import posixpath
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers import write_repo
from hostile import (
    HOSTILE_CORRECTION,
    FENCE_BREAKING_FOLDER,
    HOSTILE_PLAN,
    HOSTILE_SITE_NAME,
    LOOKALIKE_NAMES,
    MENTION_PATHS,
    OUTSIDE_TEXT,
    QUOTED_REPO_URL,
    SCRIPT_IN_FOLDER,
    TITLE_BREAKING_PATH,
    build_hostile_site,
)
from openai_server import TEST_KEY, OpenAIServer
from test_change_map import GITHUB_LINKS, outside_code_and_targets
from test_llms_txt import assert_only_the_maps_markup, llms_txt_markup

from refdoc_site.cli import main
from refdoc_site.core.pages import ROOT_MODULE, file_page, module_page
from refdoc_site.core.redact import MARKER
from refdoc_site.core.store import Store
from refdoc_site.rendering.changes import comment_markdown
from refdoc_site.rendering.render import link_target, one_line
from refdoc_site.understanding.changes import Snapshot, compare, load_snapshot
from refdoc_site.understanding.graph import RepoGraph


class SitePage(HTMLParser):
    """What a page runs and shows: its scripts, event handler attributes, links, title, text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.directory = posixpath.dirname(page)
        self.scripts: list[str] = []
        self.handlers: list[tuple[str, str, str]] = []
        self.links: list[str] = []
        self.images: list[str] = []
        self.title = ""
        self.text: list[str] = []
        self._open: str | None = None
        self._script: list[str] = []
        self._svg = 0
        """How deep inside an inline SVG (a map): its `<title>`s are tooltips, shown text."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.handlers += [(tag, name, value or "") for name, value in attrs if name.startswith("on")]
        self.links += [value or "" for name, value in attrs if name in ("href", "src", "action", "formaction")]
        if tag == "img":
            self.images.append(attributes.get("src") or "")
        if tag == "script" and attributes.get("src"):
            self.scripts.append("src:" + posixpath.normpath(posixpath.join(self.directory, attributes["src"])))
        self._svg += tag == "svg"
        if tag == "script" or (tag == "title" and not self._svg):
            self._open, self._script = tag, []

    def handle_endtag(self, tag: str) -> None:
        self._svg -= tag == "svg" and self._svg > 0
        if tag == self._open == "script" and "".join(self._script).strip():
            self.scripts.append("inline:" + self._root_relative("".join(self._script)))
        if tag == self._open:
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open == "script":
            self._script.append(data)
        elif self._open == "title":
            self.title += data
        else:
            self.text.append(data)

    def _root_relative(self, script: str) -> str:
        """Material writes the way back to the site root into its inline scripts; without it
        the scripts of every page are the same."""
        root = posixpath.relpath(".", self.directory or ".")
        return script if root == "." else script.replace(f'"{root}/', '"').replace(f'"{root}"', '"."')


def read_pages(site: Path) -> dict[str, SitePage]:
    pages = {}
    for path in sorted(site.rglob("*.html")):
        relative = path.relative_to(site).as_posix()
        parsed = SitePage(relative)
        parsed.feed(path.read_text(encoding="utf-8"))
        pages[relative] = parsed
    return pages


def html_of(page: str) -> str:
    """The built HTML file of a Markdown page (`files/a.py.md` → `files/a.py/index.html`)."""
    return page.removesuffix(".md") + "/index.html"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile")
    repo, exit_code = build_hostile_site(work, work / "out")
    benign = write_repo(work / "benign", {"app.py": "def run():\n    return 1\n"})
    assert main(["build", str(benign), "--out", str(work / "benign-out")]) == 0
    return repo, exit_code, read_pages(work / "out"), read_pages(work / "benign-out"), work / "out"


def test_the_build_succeeds_and_every_file_gets_a_page(built) -> None:
    repo, exit_code, pages, _, site = built
    assert exit_code == 0
    for path in repo.paths:
        assert html_of(file_page(path)) in pages, path
    assert html_of(module_page(ROOT_MODULE)) != html_of(module_page("_root"))
    assert {html_of(module_page(ROOT_MODULE)), html_of(module_page("_root"))} <= set(pages)
    skipped = json.loads((repo.root / ".refdoc" / "discovery.json").read_text(encoding="utf-8"))["skipped"]
    assert len([s for s in skipped if s["reason"] == "unreadable"]) == len(repo.skipped)
    print(f"hostile site: {len(pages)} HTML pages")


def test_no_page_runs_anything_but_the_sites_own_scripts(built) -> None:
    _, _, pages, benign, _ = built
    own = {script for page in benign.values() for script in page.scripts}
    for name, page in pages.items():
        assert set(page.scripts) <= own, (name, set(page.scripts) - own)
        assert page.handlers == [], (name, page.handlers)
        assert not [link for link in page.links if "".join(link.split()).lower().startswith(("javascript:", "data:", "vbscript:"))], name
        assert "x" not in page.images, name


def test_a_maintainers_hostile_correction_is_text_on_its_page_and_in_the_search_data(built) -> None:
    """The corrections file's summary and notes are the repository's text: shown, never markup."""
    _, _, pages, _, site = built
    shown = one_line(HOSTILE_CORRECTION)
    main_page = "".join(pages[html_of(file_page("main.py"))].text)
    assert main_page.count(shown) == 3 and "Written by a maintainer" in main_page  # the summary, the note, the file's summary
    assert shown in "".join(pages["index.html"].text)  # the overview section's note
    for name in ("main.py", "index.md"):
        page = pages[html_of(file_page(name)) if name != "index.md" else "index.html"]
        assert page.handlers == [] and "x" not in page.images
    chunks = json.loads((site / "search/refdoc/chunks.json").read_text(encoding="utf-8"))
    assert shown in json.dumps(chunks, ensure_ascii=False)


def test_titles_and_navigation_show_the_names_as_text(built) -> None:
    _, _, pages, _, _ = built
    site_name = one_line(HOSTILE_SITE_NAME)
    assert pages[html_of(file_page(TITLE_BREAKING_PATH))].title == f"{TITLE_BREAKING_PATH} - {site_name}"
    assert pages[html_of(module_page(SCRIPT_IN_FOLDER))].title == f"Module {SCRIPT_IN_FOLDER} - {site_name}"
    fenced = one_line(FENCE_BREAKING_FOLDER)
    assert pages[html_of(module_page(FENCE_BREAKING_FOLDER))].title == f"Module {fenced} - {site_name}"
    home = pages["index.html"]
    assert home.title == site_name
    navigation = [text.strip() for text in home.text]
    for shown in (SCRIPT_IN_FOLDER, fenced, one_line(HOSTILE_PLAN), site_name, "_root", "(root)", ".github/workflows"):
        assert shown in navigation, shown


def test_names_that_show_as_something_else_are_written_out_and_marked(built) -> None:
    """`invoice\u202egpj.py` would show as "invoiceypj.jpg", a zero-width space not at all,
    and NFC/NFD twins alike: every page shows them as `⟨U+202E⟩`, each page of one is marked
    with a warning, and the twins' titles differ."""
    _, _, pages, _, site = built
    invisible = ("\u202e", "\u200b", "\u2066", "\u2069")
    for name, page in pages.items():
        shown = page.title + "".join(page.text)
        assert not any(c in shown for c in invisible), (name, [c for c in invisible if c in shown])
    titles = {path: pages[html_of(file_page(path))].title.split(" - ")[0] for path in LOOKALIKE_NAMES}
    assert titles["looks/invoice\u202egpj.py"] == "looks/invoice⟨U+202E⟩gpj.py"
    assert titles["looks/zero\u200bwidth.py"] == "looks/zero⟨U+200B⟩width.py"
    assert titles["looks/cafe\u0301.py"] == "looks/cafe⟨U+0301⟩.py" != titles["looks/caf\u00e9.py"] == "looks/caf\u00e9.py"
    for path in LOOKALIKE_NAMES:
        text = "".join(pages[html_of(file_page(path))].text)
        assert ("RIGHT-TO-LEFT OVERRIDE" in text) == ("\u202e" in path) and ("change how it shows" in text) != (path == "looks/caf\u00e9.py")
    module = pages[html_of(module_page("looks\u202e"))]
    assert "Module looks⟨U+202E⟩" in module.title and "RIGHT-TO-LEFT OVERRIDE" in "".join(module.text)
    assert "looks⟨U+202E⟩" in "".join(pages["index.html"].text)  # the navigation


def test_the_module_map_and_repository_link_stay_in_place(built) -> None:
    _, _, pages, _, site = built
    home = pages["index.html"]
    assert link_target(QUOTED_REPO_URL) in home.links
    index_html = (site / "index.html").read_text(encoding="utf-8")
    start = index_html.index('<div class="refdoc-map">', index_html.index('id="module-map"'))  # not a flow's drawing
    drawing = index_html[start : index_html.index("</svg></div>", start)]
    assert "&lt;img src=x onerror=alert(2)&gt;" in drawing and "<img" not in drawing
    assert "```" in one_line(FENCE_BREAKING_FOLDER) and "\n" not in drawing
    labels = SitePage("index.html")
    labels.feed(drawing + "</svg></div>")
    assert f"{SCRIPT_IN_FOLDER}/widget.py" in labels.text and labels.scripts == [] and labels.handlers == []
    assert quote(file_page(f"{SCRIPT_IN_FOLDER}/widget.py").removesuffix(".md")) + "/" in labels.links  # its page's URL


def test_llms_txt_shows_the_names_as_text(built) -> None:
    """Every hostile name is in llms.txt as text, one list item each; a Markdown renderer
    makes nothing of it but headings, lists, links to the Markdown copies and code."""
    repo, _, _, _, site = built
    assert_only_the_maps_markup(site)
    assert_only_the_maps_markup(site, "llms-full.txt")
    rendered = llms_txt_markup((site / "llms.txt").read_text(encoding="utf-8"))
    assert [path for path in repo.paths if not (site / "md" / file_page(path)).is_file()] == []
    full = llms_txt_markup((site / "llms-full.txt").read_text(encoding="utf-8"))
    for name in (SCRIPT_IN_FOLDER, TITLE_BREAKING_PATH, FENCE_BREAKING_FOLDER):
        assert one_line(name) in rendered.text and one_line(name) in full.text, name


def test_a_pull_request_adding_the_repository_gets_a_comment_that_mentions_and_links_nothing(built) -> None:
    """The comment a pull request adding every hostile file would get: GitHub makes no
    mention, issue reference or autolink of its text (names are code spans, paths inert)."""
    repo = built[0]
    added = compare(Snapshot([], {}, RepoGraph()), load_snapshot(repo.root / ".refdoc"), "main")
    comment = comment_markdown(added, "en", "https://example.org/pr-7/", max_lines=10_000)
    shown = outside_code_and_targets(comment)
    for path in MENTION_PATHS:
        assert path.rsplit("/", 1)[-1] in comment, path
    assert GITHUB_LINKS.findall(shown) == [], shown


def test_a_javascript_repo_url_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", {"app.py": "x = 1\n", "refdoc.yml": "repo_url: 'javascript:alert(1)'\n"})
    assert main(["build", str(repo), "--out", str(tmp_path / "out")]) != 0
    error = capsys.readouterr().err.strip()
    assert error == "refdoc-site: refdoc.yml: repo_url: expected an http:// or https:// URL, got 'javascript:alert(1)'"
    assert not (tmp_path / "out").exists()


# --- secrets, outside files and endpoints, with an LLM configured ---------------------------


def test_with_an_llm_no_secret_outside_file_or_request_leaves(server: OpenAIServer, tmp_path: Path, monkeypatch) -> None:
    """The CI's key and server in the environment; the repository names its own server for
    the LLM and the embedder, and a file of the machine as its Mermaid script."""
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_EMBEDDING_MODEL", "hash-bag-of-words")
    with OpenAIServer() as repositorys:
        endpoint = {"base_url": repositorys.base_url}
        repo, exit_code = build_hostile_site(tmp_path, tmp_path / "out", llm=endpoint, embedding=endpoint)
        assert exit_code == 0
        assert repositorys.requests == []
    assert server.chat_requests() and server.embedding_requests(), "the CI's server was asked nothing: the test proves nothing"

    store = repo.root / ".refdoc"
    written = [p for folder in (tmp_path / "out", store) for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    assert any(p.name == "index.jsonl" for p in written) and any(p.name == "chunks.json" for p in written)
    leaks = [(p, s) for p in written for s in repo.secrets + [OUTSIDE_TEXT] if s.encode() in p.read_bytes()]
    assert leaks == []
    requests = json.dumps([r.body for r in server.requests], ensure_ascii=False)
    assert [s for s in repo.secrets + [OUTSIDE_TEXT] if s in requests] == []
    assert MARKER in requests  # the code was sent, redacted

    reasons = Counter(s["reason"] for s in Store(store).read_json("discovery.json")["skipped"])
    for reason, count in repo.skip_reasons.items():
        assert reasons[reason] >= count, (reason, reasons)
    files = Store(store).load().files
    assert all(files[path].secrets_redacted > 0 for path in repo.redacted_in), {p: files[p].secrets_redacted for p in repo.redacted_in}
