"""Fuzz tests of every place a repository's names land: page paths, Markdown text, code spans
and fences, Mermaid labels, page titles and the YAML of `mkdocs.yml`.

Markdown is rendered with the extensions and settings of the generated `mkdocs.yml`, and
HTML is read back with Python's parser: a name must come back as exactly its text.
"""

from __future__ import annotations

import html
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import markdown
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mkdocs.structure.files import File, _default_exclude
from mkdocs.utils import meta
from mkdocs.utils.yaml import yaml_load

import refdoc_site
from refdoc_site.core.config import parse_config
from refdoc_site.core.errors import ConfigError
from refdoc_site.core.pages import (
    INDEX_STEMS,
    KEPT_PUNCTUATION,
    ROOT_MODULE,
    file_page,
    module_page,
    page_url,
    path_segment,
)
from refdoc_site.core.store import atomic_file
from refdoc_site.core.text import INVISIBLE
from refdoc_site.rendering.render import (
    code_fence,
    code_span,
    diagram_block,
    escape_text,
    front_matter,
    html_text,
    link_target,
    one_line,
    yaml_string,
)
from refdoc_site.rendering.site import write_project

FUZZ = settings(max_examples=250, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
TRICKY = [".", "..", "...", ".github", "index", "README", "_root", "~", "~7E", "~u0041", "#", "?", "%", "%2F", "\\",
          "\n", "\r", " ", "`", "```", "<", "</title>", "&amp;", '"', "'", "é", "e\u0301", "日本", "😀", "\udcff", "\x7f"]
segments = st.one_of(
    st.sampled_from(TRICKY),
    st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=10),
    st.lists(st.sampled_from(TRICKY), min_size=1, max_size=4).map("".join),
)
paths = st.lists(segments, min_size=1, max_size=4).map("/".join)
names = st.one_of(paths, st.text(max_size=40), st.lists(st.sampled_from(TRICKY), max_size=8).map("".join))
ESCAPED = re.compile(r"~(?:u([0-9A-F]{4})|U([0-9A-F]{8})|([0-9A-F]{2}))")
LONG_NAME_END = re.compile(r"~h[0-9a-f]{16}$")
"""How a segment cut to fit a file system ends: no escape starts `~h`."""


def decode_segment(segment: str) -> str:
    """The inverse of `path_segment`: proves that no two names share a segment."""
    return ESCAPED.sub(lambda m: chr(int(next(g for g in m.groups() if g), 16)), segment)


def assert_safe_page(page: str) -> None:
    """Every segment MkDocs keeps and a URL carries as it is, and no index page by accident."""
    assert not _default_exclude.match_file(page), page
    for segment in page.removesuffix(".md").split("/"):
        assert segment and not segment.startswith("."), page
        for character in ESCAPED.sub("", LONG_NAME_END.sub("", segment)):
            assert character.isalnum() or character in KEPT_PUNCTUATION or not character.isascii(), (page, character)
            assert character.isascii() or character.isprintable(), (page, character)
    stem = page.removesuffix(".md").rsplit("/", 1)[-1]
    assert stem not in INDEX_STEMS, page


def dest(page: str) -> str:
    return File(page, src_dir=None, dest_dir="/site", use_directory_urls=True).dest_uri


@FUZZ
@given(st.lists(paths, min_size=1, max_size=6, unique=True))
def test_file_pages_are_distinct_safe_and_decode_to_their_path(file_paths: list[str]) -> None:
    pages = [file_page(path) for path in file_paths]
    for path, page in zip(file_paths, pages):
        assert_safe_page(page)
        encoded = page.removeprefix("files/").removesuffix(".md")
        assert "/".join(decode_segment(s) for s in encoded.split("/")) == path
    assert len({dest(page) for page in pages}) == len(pages)


@FUZZ
@given(st.lists(st.one_of(paths, st.just("_root"), st.just(ROOT_MODULE)), min_size=1, max_size=6, unique=True))
def test_module_pages_never_collide_with_the_root_modules(modules: list[str]) -> None:
    pages = [module_page(name) for name in modules]
    for page in pages:
        assert_safe_page(page)
    assert len({dest(page) for page in pages}) == len(pages)


@settings(max_examples=400, deadline=None, database=None)
@given(segments)
def test_a_segment_decodes_to_its_name(name: str) -> None:
    assert decode_segment(path_segment(name, INDEX_STEMS)) == name


def test_ordinary_paths_keep_their_pages() -> None:
    assert file_page("src/app.py") == "files/src/app.py.md"
    assert file_page("notes/design notes é.md") == "files/notes/design notes é.md.md"
    assert file_page("app/[id]/page (1).tsx") == "files/app/[id]/page (1).tsx.md"
    assert module_page("go/server") == "modules/go/server.md"
    assert module_page(ROOT_MODULE) == "modules/_root.md"
    assert module_page("_root") == "modules/~5Froot.md"
    assert file_page(".github/workflows/ci.yml") == "files/~2Egithub/workflows/ci.yml.md"
    assert file_page("docs/README") == "files/docs/~52EADME.md"
    assert file_page("a#b?/100%.py") == "files/a~23b~3F/100~25.py.md"


@pytest.mark.parametrize("name, shown", [
    ("invoice\u202egpj.py", "invoice⟨U+202E⟩gpj.py"),
    ("zero\u200bwidth\ufeff.py", "zero⟨U+200B⟩width⟨U+FEFF⟩.py"),
    ("\u2067isolated\u2069.py", "⟨U+2067⟩isolated⟨U+2069⟩.py"),
    ("cafe\u0301.py", "cafe⟨U+0301⟩.py"),  # NFD: the twin of café.py
    ("caf\u00e9.py", "caf\u00e9.py"),
    ("日本語/한국.py", "日本語/한국.py"),
])
def test_names_that_show_as_something_else_are_written_out_wherever_they_land(site_markdown, name: str, shown: str) -> None:
    """A bidi override, zero-width or isolate character, or the combining mark of an NFD
    name, shows as `⟨U+XXXX⟩` in text, code, HTML titles and diagram labels."""
    assert one_line(name) == shown
    assert "".join(read_html(site_markdown.reset().convert(escape_text(name))).text) == shown
    assert "".join(read_html(site_markdown.reset().convert(code_span(name))).text) == shown
    assert html.unescape(html_text(name)) == shown
    label = re.sub(r"#(\d+);", lambda m: chr(int(m[1])), mermaid_label(name))
    assert label == shown


LONG_NAMES = ["#" * 120 + ".py", "a" * 252 + ".py", "a" * 252 + ".pz", "b" * 255, "é" * 127 + ".py", "日" * 84 + ".md",
              "~" * 90, "." + "x" * 254]


@pytest.mark.parametrize("folder", ["", "#" * 100 + "/"])
def test_a_long_name_gets_a_page_every_file_system_can_write(tmp_path: Path, folder: str) -> None:
    """A name escaped three characters a byte, or given `.md`, outgrows 255 bytes: its
    segment is cut and ends in a hash, so each name still has a page of its own, the same
    in every build, that a file system takes (with the temporary name written beside it)."""
    pages = [file_page(folder + name) for name in LONG_NAMES]
    assert len(set(pages)) == len(pages) and pages == [file_page(folder + name) for name in LONG_NAMES]
    for page in pages:
        assert_safe_page(page)
        assert all(len(segment.encode("utf-8")) <= 200 for segment in page.removesuffix(".md").split("/")), page
        target = tmp_path / "docs" / page
        with atomic_file(target) as handle:
            handle.write("# page\n")
        assert target.read_text(encoding="utf-8") == "# page\n"
    assert module_page("#" * 120) != module_page("#" * 121) and len(module_page("#" * 120).encode()) < 255
    assert file_page("x" * 197 + ".py") == "files/" + "x" * 197 + ".py.md"  # under the bound: as it was


def test_a_pages_url_is_where_mkdocs_serves_it() -> None:
    """One rule for every link to a page (the search data, ask's sources, mcp): an index
    page is its folder's; a file named index has a page of its own."""
    assert page_url("files/src/app.py.md") == "files/src/app.py/"
    assert page_url("files/a b/100~25.py.md") == "files/a%20b/100~25.py/"
    assert page_url("index.md") == "./"
    assert page_url("guide/index.md") == "guide/"
    assert page_url(file_page("docs/index")) == "files/docs/~69ndex/"


class _Reader(HTMLParser):
    """The tags and the text of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def read_html(fragment: str) -> _Reader:
    reader = _Reader()
    reader.feed(fragment)
    reader.close()
    return reader


@pytest.fixture(scope="module")
def site_markdown():
    """A Markdown converter configured as the generated `mkdocs.yml` configures MkDocs'."""
    from mkdocs.config import load_config

    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory)
        (project / "docs").mkdir()
        config_path = write_project(project, project / "site", site_name="x", site_url="", language="en", modules=[], mermaid_script=None)
        config = load_config(config_file=str(config_path))
        yield markdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"])


@FUZZ
@given(names)
def test_escaped_text_renders_as_exactly_its_text(site_markdown, value: str) -> None:
    rendered = read_html(site_markdown.reset().convert(escape_text(value)))
    expected = one_line(value)
    assert rendered.tags == (["p"] if expected else [])
    assert "".join(rendered.text) == expected


@FUZZ
@given(names)
def test_a_code_span_holds_exactly_its_text(site_markdown, value: str) -> None:
    expected = one_line(value)
    rendered = read_html(site_markdown.reset().convert(f"a {code_span(value)} b"))
    assert rendered.tags == (["p", "code"] if expected else ["p"])
    assert "".join(rendered.text) == (f"a {expected} b" if expected else "a  b")


fence_pieces = st.sampled_from(["`", "```", "~~~", "\n", "\r", " ", "    ", "\t", "!!! note", "??? x", "<b>", "&amp;"])
fence_text = st.lists(st.one_of(fence_pieces, st.characters()), max_size=40).map("".join)


@FUZZ
@given(fence_text, st.sampled_from(["python", "markdown", "", "mermaid"]))
def test_a_code_fence_is_one_block_its_content_cannot_close(site_markdown, value: str, language: str) -> None:
    block = diagram_block(value, drawn=True) if language == "mermaid" else code_fence(value, language)
    rendered = read_html(site_markdown.reset().convert(f"before\n\n{block}\n\nafter"))
    assert rendered.tags[0] == "p" and rendered.tags.count("p") == 2 and rendered.tags.count("pre") == 1
    assert rendered.tags[-1] == "p" and "pre" not in rendered.tags[-1:]
    shown = "".join(rendered.text)
    assert "".join(shown.split()) == "before" + "".join(value.replace("\x02", "").replace("\x03", "").split()) + "after"


@FUZZ
@given(names)
def test_a_title_is_html_text_that_yaml_and_front_matter_carry_exactly(value: str) -> None:
    title = html_text(value)
    rendered = read_html(f"<title>{title}</title><p>{title}</p>")
    assert rendered.tags == ["title", "p"]
    assert "".join(rendered.text) == one_line(value) * 2
    assert yaml_load(yaml_string(title)) == title
    document, data = meta.get_data(front_matter(value) + "# Heading\n")
    assert data == {"search": {"exclude": True}, "title": title}
    assert document == "# Heading\n"


@settings(max_examples=60, deadline=None, database=None)
@given(names, st.lists(names, max_size=3, unique=True), st.lists(names, max_size=2, unique=True))
def test_the_navigation_and_site_name_reach_mkdocs_as_escaped_text(site_name: str, modules: list[str], plans: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory)
        config_path = write_project(
            project, project / "site", site_name=site_name, site_url="https://example.org/docs/", language="en",
            modules=[(name, module_page(name)) for name in modules], mermaid_script=None,
            plans=[(query, f"plans/p{index}.md") for index, query in enumerate(plans)],
        )
        config = yaml_load(config_path.read_text(encoding="utf-8"))
    assert config["site_name"] == html_text(site_name)
    sections = {next(iter(entry)): next(iter(entry.values())) for entry in config["nav"]}
    if modules:
        entries = list(_nav_entries(sections["Modules"]))
        assert sorted(page for _, page in entries) == sorted(module_page(name) for name in modules)
        assert all(html_text(html.unescape(title)) == title for title, _ in entries)
    assert sections["Plans"][1:] == [{html_text(query): f"plans/p{index}.md"} for index, query in enumerate(plans)]


def _nav_entries(items: list[dict]):
    """(title, page) of every page of a navigation section, at any depth of its folders."""
    for item in items:
        ((title, target),) = item.items()
        if isinstance(target, list):
            yield from _nav_entries(target)
        else:
            yield title, target


@pytest.mark.parametrize("key", ["repo_url", "site_url"])
@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "JavaScript://x/%0Aalert(1)", "data:text/html,<b>", "//example.org", "https://",
     'https://example.org/"onmouseover="x', "https://example.org/<b>", "https://example.org/a b", "https://x/\\evil"],
)
def test_configured_urls_are_http_with_nothing_that_ends_a_link(key: str, url: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config({key: url})
    assert str(raised.value).startswith(f"refdoc.yml: {key}: expected ")
    assert "\n" not in str(raised.value)


url_paths = st.text(st.characters(blacklist_categories=["Cs"]), max_size=30)


@FUZZ
@given(st.sampled_from(["http://", "https://"]), st.sampled_from(["example.org", "[::1]:8000", "a.b"]), url_paths)
def test_an_accepted_url_is_one_link_to_itself(site_markdown, scheme: str, host: str, path: str) -> None:
    url = f"{scheme}{host}/{path}"
    try:
        parse_config({"repo_url": url})
    except ConfigError:
        return
    rendered = site_markdown.reset().convert(f"[{escape_text(url)}]({link_target(url)})")
    links = [html.unescape(href) for href in re.findall(r'<a href="([^"]*)">', rendered)]
    assert len(links) == 1 and unquote(links[0]) == unquote(url), rendered
    assert read_html(rendered).tags == ["p", "a"]
    assert "".join(read_html(rendered).text) == one_line(url)  # an invisible character of it written out


def test_the_search_box_writes_out_the_characters_the_pages_do() -> None:
    """Search results show names through the worker's escapeHtml: it writes out the same
    invisible characters as `visible_text` (one list, in core/text.py and the worker)."""
    worker = Path(refdoc_site.__file__).parent / "search" / "browser" / "search-worker.js"
    listed = re.search(r"var INVISIBLE = /\[(.*?)\]/g;", worker.read_text(encoding="utf-8"))
    assert listed and listed[1].encode("ascii").decode("unicode_escape") == INVISIBLE
