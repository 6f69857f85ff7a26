"""The site's map for language models (rendering/llms.py): `llms.txt` and the Markdown copy
of every page, from a real build of the fixture repository."""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import markdown
import pytest
from helpers import built_shop

LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("llms")
    built_shop(work)
    return work / "out"


def link_targets(text: str) -> list[str]:
    return LINK.findall(text)


def test_llms_txt_follows_the_convention_and_ranks_files(site: Path) -> None:
    text = (site / "llms.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# shop"
    assert lines[2].startswith("> A tiny shop used to test refdoc-site")
    headings = [line for line in lines if line.startswith("## ")]
    assert headings == ["## Overview", "## Modules", "## Decisions", "## Files", "## Optional"]
    files = lines[lines.index("## Files") + 2 :]
    # app/util.py's normalize_name is called from service.py twice: the most called file comes first
    assert files[0].startswith("- [`app/util.py`](md/files/app/util.py.md): Defines normalize\\_name")
    assert "- [Use Go for the order server](md/decisions.md): We write the order server in Go, with the standard library's net/http." in lines
    assert "[`notes/design notes é.md`](md/files/notes/design%20notes%20%C3%A9.md.md)" in text


def test_every_llms_txt_link_is_a_markdown_copy_in_the_site(site: Path) -> None:
    targets = link_targets((site / "llms.txt").read_text(encoding="utf-8"))
    assert len(targets) > 20
    for target in targets:
        copy = site / unquote(target)
        assert target.startswith("md/") and copy.is_file(), target
        assert copy.read_text(encoding="utf-8").startswith("# "), target  # the page's heading, no front matter


def test_a_copy_is_the_pages_markdown_and_its_links_reach_other_copies(site: Path) -> None:
    copy = (site / "md/files/app/util.py.md").read_text(encoding="utf-8")
    assert copy.startswith("# app/util.py\n")
    assert "def normalize_name(name: str) -> str:" in copy
    assert "[UserService.create\\_user](service.py.md#chunk-UserService.create-user)" in copy
    copies = sorted((site / "md").rglob("*.md"))
    assert len(copies) == len(list(site.rglob("index.html")))  # one copy a page
    checked = 0
    for path in copies:
        for target in link_targets(path.read_text(encoding="utf-8")):
            if target.startswith(("http:", "https:", "#")) or not target.split("#")[0].endswith(".md"):
                continue
            resolved = posixpath.normpath(posixpath.join(path.parent.as_posix(), unquote(target.split("#")[0])))
            assert Path(resolved).is_file(), (path, target)
            checked += 1
    assert checked > 50


class Tags(HTMLParser):
    def __init__(self, convert_charrefs: bool = True) -> None:
        super().__init__(convert_charrefs=convert_charrefs)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def llms_txt_markup(text: str) -> Tags:
    """What `llms.txt` becomes through a Markdown renderer: its tags and attributes."""
    parsed = Tags(convert_charrefs=True)
    parsed.feed(markdown.markdown(text))
    return parsed


def assert_only_the_maps_markup(site: Path) -> None:
    """Shared with the hostile build: the names are text, each entry one list item."""
    text = (site / "llms.txt").read_text(encoding="utf-8")
    parsed = llms_txt_markup(text)
    assert set(parsed.tags) <= {"h1", "h2", "p", "blockquote", "ul", "li", "a", "code"}, set(parsed.tags)
    assert {name for name, _ in parsed.attributes} == {"href"}
    entries = [line for line in text.splitlines() if line.startswith("- [")]
    assert parsed.tags.count("li") == len(entries) == parsed.tags.count("a")
    for _, href in parsed.attributes:
        assert href and href.startswith("md/") and (site / unquote(href)).is_file(), href


def test_llms_txt_renders_to_nothing_but_headings_lists_links_and_code(site: Path) -> None:
    assert_only_the_maps_markup(site)
