"""The overview's counts, read in headless Chromium as a reader sees them: the opening
sentence, "At a glance", the languages, the parts and the system summary say the same
numbers, and the module and file pages they link to hold just as many files."""

from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest
from helpers import require_chromium, served_build, write_repo

require_chromium()

SUB_PATH = "docs-preview"


def _repository() -> dict[str, str]:
    files = {
        "pyproject.toml": '[project]\nname = "shelf"\ndescription = "Keeps books on shelves."\n',
        "README.md": "# shelf\n\nshelf keeps books on shelves and finds them again by title.\n",
        "docs/guide.md": "# Guide\n\nPut a book on a shelf, then find it by its title.\n",
        "docs/design.md": "# Design\n\nOne shelf object holds the books, so every finder reads the same list.\n",
        "shelf/__init__.py": '"""Keeps books on shelves."""\nfrom .core import Shelf\n',
        "shelf/core.py": '"""The shelf."""\nfrom .store.memory import Memory\n\n\nclass Shelf:\n    """Books by title."""\n\n    def __init__(self):\n        self.memory = Memory()\n\n    def put(self, title):\n        """Put a book."""\n        return self.memory.save(title)\n',
        "shelf/find.py": '"""Finding books."""\nfrom .core import Shelf\n\n\ndef find(shelf: Shelf, title):\n    """Find a book by title."""\n    return title in shelf.memory.items\n',
        "shelf/store/__init__.py": '"""Where books are kept."""\n',
        "shelf/store/memory.py": '"""Books in memory."""\n\n\nclass Memory:\n    def __init__(self):\n        self.items = []\n\n    def save(self, title):\n        self.items.append(title)\n        return title\n',
        "shelf/store/disk.py": '"""Books on disk."""\nfrom .memory import Memory\n\n\nclass Disk(Memory):\n    def save(self, title):\n        return super().save(title)\n',
        "tests/test_shelf.py": "from shelf.core import Shelf\n\n\ndef test_put():\n    assert Shelf().put('a') == 'a'\n",
        "examples/demo.py": "from shelf.core import Shelf\n\nShelf().put('Dune')\n",
        "scripts/release.sh": "#!/bin/sh\necho release\n",
    }
    return files


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    work = tmp_path_factory.mktemp("browser-counts")
    with served_build(write_repo(work / "shelf", _repository()), work / "served", SUB_PATH) as url:
        yield url


OVERVIEW_TEXTS = """() => {
  const content = document.querySelector("article") || document.body;
  const paragraphs = [...content.querySelectorAll("p")].map(p => p.innerText);
  const items = [...content.querySelectorAll("li")].map(li => li.innerText);
  const heading = [...content.querySelectorAll("h2")].find(h => h.innerText.trim().startsWith("Its parts"));
  const parts = [];
  for (let node = heading && heading.nextElementSibling; node && node.tagName !== "H2"; node = node.nextElementSibling) {
    if (node.tagName === "UL") {
      for (const li of node.children) {
        const a = li.querySelector(":scope > a, :scope > p > a");
        if (a) parts.push([a.innerText, a.getAttribute("href"), li.innerText.split("\\n")[0]]);
      }
    }
  }
  return {paragraphs, items, parts};
}"""
FILE_TABLE_LINKS = """() => [...document.querySelectorAll("article table a, .md-content table a")].map(a => a.getAttribute("href"))"""
CONTENT_TEXT = """() => (document.querySelector("article") || document.body).innerText"""


def _number(pattern: str, texts: list[str]) -> int:
    for text in texts:
        found = re.search(pattern, text)
        if found:
            return int(found.group(1))
    raise AssertionError(f"{pattern!r} in none of {texts[:12]}")


def test_every_count_agrees_with_the_others_and_with_the_pages_they_link(browser, site_url) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    assert page.goto(site_url).ok
    overview = page.evaluate(OVERVIEW_TEXTS)
    opening_files = _number(r"^(\d+) files indexed in \d+ modules", overview["paragraphs"])
    opening_modules = _number(r"^\d+ files indexed in (\d+) modules", overview["paragraphs"])
    glance_files = _number(r"^Files indexed: (\d+)", overview["items"])
    glance_modules = _number(r"^Modules: (\d+)", overview["items"])
    languages = next(item for item in overview["items"] if item.startswith("Languages:"))
    by_language = sum(int(n) for n in re.findall(r"\((\d+)\)", languages))
    assert opening_files == glance_files == by_language, (opening_files, glance_files, languages)
    assert opening_modules == glance_modules
    kinds = next(text for text in overview["paragraphs"] if re.match(r"^\d+ files indexed in", text))
    outside_brackets = re.sub(r"\([^)]*\)", "", kinds.split(":", 1)[1])  # "7 files of its own code (42 lines, …), 3 documents"
    assert sum(int(n) for n in re.findall(r"\b(\d+) ", outside_brackets)) == glance_files, kinds

    assert page.goto(urljoin(site_url, "summaries/system/")).ok
    assert f"{glance_files} files in {glance_modules} modules" in page.evaluate(CONTENT_TEXT)

    assert page.goto(urljoin(site_url, "summaries/modules/")).ok
    modules = page.evaluate("""() => [...document.querySelectorAll("article a, .md-content a")]
        .filter(a => a.innerText.trim() === "Module page").map(a => a.href)""")
    assert len(set(modules)) == glance_modules, modules
    files_on_module_pages: dict[str, int] = {}
    every_file: set[str] = set()
    for address in sorted(set(modules)):
        assert page.goto(address).ok, address
        said = _number(r"(\d+) files?, \d+ lines\.", page.evaluate(CONTENT_TEXT).split("\n"))
        listed = {urljoin(address, href) for href in page.evaluate(FILE_TABLE_LINKS)}
        assert said == len(listed), (address, said, listed)
        files_on_module_pages[address] = said
        every_file |= listed
    assert sum(files_on_module_pages.values()) == len(every_file) == glance_files

    components = [(name, href, re.search(r"\((\d+) files?\)", line)) for name, href, line in overview["parts"]]
    components = [(name, href, int(found.group(1))) for name, href, found in components if found]  # not the docs and tests kept apart
    assert components, overview["parts"]
    for name, href, told in components:
        address = urljoin(site_url, href)
        assert page.goto(address).ok, address
        said = _number(r"(\d+) files?, \d+ lines\.", page.evaluate(CONTENT_TEXT).split("\n"))
        assert told == said, (name, told, said)
    for address in sorted(every_file):
        response = page.goto(address)
        assert response is not None and response.ok, address
    page.close()
