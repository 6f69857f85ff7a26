"""The site's map for language models (rendering/llms.py): `llms.txt` and the Markdown copy
of every page, from a real build of the fixture repository."""

from __future__ import annotations

import posixpath
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin
from urllib.request import urlopen

import markdown
import pytest
from helpers import SHOP_FIXTURE, built_shop, file_summary, hierarchy, served_folder, stored_document

from refdoc_site.cli import main
from refdoc_site.core.findings import Decision, DecisionKind
from refdoc_site.core.records import FileRole, ModuleSummary
from refdoc_site.rendering import llms
from refdoc_site.rendering.llms import MAX_FILES, llms_full_txt, llms_txt
from refdoc_site.rendering.render import SiteData
from refdoc_site.understanding.graph import RepoGraph

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
    assert files[0].startswith("- [`app/util.py`](md/files/app/util.py.md): Defines normalize_name")
    assert "- [Use Go for the order server](md/decisions.md): We write the order server in Go, with the standard library's net/http." in lines
    assert "[`notes/design notes é.md`](md/files/notes/design%20notes%20%C3%A9.md.md)" in text


def test_every_llms_txt_link_is_a_markdown_copy_in_the_site(site: Path) -> None:
    targets = link_targets((site / "llms.txt").read_text(encoding="utf-8"))
    assert len(targets) > 20
    assert targets[-3] == "llms-full.txt"  # the first of the Optional section
    for target in targets[:-3] + targets[-2:]:
        copy = site / unquote(target)
        assert target.startswith("md/") and copy.is_file(), target
        assert copy.read_text(encoding="utf-8").startswith("# "), target  # the page's heading, no front matter


def test_served_under_a_sub_path_every_link_reaches_its_copy(site: Path) -> None:
    """The site served at `/out/` (as a pull request preview is): llms.txt's links, and a
    copy's own relative links, resolve against their file's URL."""
    with served_folder(site.parent) as root:
        llms_url = urljoin(root, f"{site.name}/llms.txt")
        text = fetched(llms_url)
        for target in link_targets(text) + link_targets(fetched(urljoin(llms_url, "llms-full.txt"))):
            assert fetched(urljoin(llms_url, target)).startswith("# "), target
        copy_url = urljoin(llms_url, "md/files/app/util.py.md")
        caller = next(t for t in link_targets(fetched(copy_url)) if t.startswith("service.py.md#"))
        assert fetched(urljoin(copy_url, caller)).startswith("# app/service.py\n")


def fetched(url: str) -> str:
    with urlopen(url, timeout=30) as response:
        assert response.status == 200, url
        return response.read().decode("utf-8")


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


def assert_only_the_maps_markup(site: Path, name: str = "llms.txt") -> None:
    """Shared with the hostile build: the names are text, each entry one list item, each
    link a Markdown copy (or `llms-full.txt`) in the site."""
    text = (site / name).read_text(encoding="utf-8")
    parsed = llms_txt_markup(text)
    assert set(parsed.tags) <= {"h1", "h2", "h3", "p", "blockquote", "ul", "li", "a", "code"}, set(parsed.tags)
    assert {attribute for attribute, _ in parsed.attributes} == {"href"}
    entries = [line for line in text.splitlines() if line.startswith("- ")]
    assert parsed.tags.count("li") == len(entries)
    for _, href in parsed.attributes:
        assert href and (href.startswith("md/") or href == "llms-full.txt") and (site / unquote(href)).is_file(), href


def test_llms_txt_renders_to_nothing_but_headings_lists_links_and_code(site: Path) -> None:
    assert_only_the_maps_markup(site)
    assert_only_the_maps_markup(site, "llms-full.txt")


def test_llms_full_txt_holds_every_summary(site: Path) -> None:
    text = (site / "llms-full.txt").read_text(encoding="utf-8")
    assert text.startswith("# shop\n\n> A tiny shop used to test refdoc-site")
    assert "- Layer 1: `(root)`, `app`, `docs/adr`, `go/server`, `notes`, `web/src`" in text
    app = text.index("### `app`")
    assert text.index("3 files, 46 lines. Public API: `UserService`, `normalize_name`.", app) < text.index("### `", app + 1)
    assert "1 file, 26 lines. Public API: `Server`, `NewServer`, `Server.Handle`." in text
    assert "Context: The order server must handle many concurrent requests with little memory." in text
    files = [line for line in text.splitlines() if line.startswith("- [`")]
    assert len(files) == 10 and files[0].startswith("- [`app/util.py`](md/files/app/util.py.md)")


def test_a_japanese_site_s_llms_full_txt_labels_its_decisions_in_japanese() -> None:
    decision = Decision("Go を使う", DecisionKind.ADR, "採用", "同時接続が多い。", "Go で書く。", "メモリが少なくて済む。")
    data = SiteData("shop", [], hierarchy(files=[file_summary("app/util.py")]), RepoGraph(), decisions=[decision], language="ja")
    text = llms_full_txt(data)
    assert "## 設計判断の記録\n\n### Go を使う\n\n背景: 同時接続が多い。\n\n決定: Go で書く。\n\n結果: メモリが少なくて済む。\n" in text
    for english in ("Decisions", "Context", "Decision:", "Consequences"):
        assert english not in text, english


def test_a_big_repositorys_map_is_bounded_and_keeps_the_most_used_files(tmp_path: Path) -> None:
    """500 files: the 200 entries are the project's own files, the one other files call
    first, then the rest by public definitions and size; a line links to the full list."""
    files = [file_summary(f"pkg/m{n:03}.py", lines=n) for n in range(480)]
    files += [file_summary(f"tests/test_{n:02}.py", lines=10_000) for n in range(20)]
    files[1] = file_summary("pkg/m001.py", lines=1, public_api=("a", "b"))
    for test_file in files[480:]:
        test_file.file_role = FileRole.TEST
    called = stored_document("pkg/m000.py", "used", 1, 2)
    called.metadata.callers = [f"pkg/m{n:03}.py#caller" for n in range(2, 5)] + ["pkg/m000.py#self_caller"]
    documents = [called, *(stored_document(f"pkg/m{n:03}.py", "caller", 1, 2) for n in range(2, 5))]
    data = SiteData("big", documents, hierarchy(files=files), RepoGraph())
    text = llms_txt(data, ["index.md", "summaries/files.md"])
    entries = [line for line in text.splitlines() if line.startswith("- [`")]
    assert len(entries) == MAX_FILES
    assert entries[0].startswith("- [`pkg/m000.py`]")  # called from three other files
    assert entries[1].startswith("- [`pkg/m001.py`]")  # two public definitions
    assert entries[2].startswith("- [`pkg/m479.py`]")  # then the biggest
    assert not any("tests/" in entry for entry in entries)
    assert "- [300 more files](md/summaries/files.md): every file's one-line summary" in text
    assert len(text.encode("utf-8")) < 20_000


def test_a_name_in_a_description_reads_as_written_and_stays_text(tmp_path: Path) -> None:
    """A model reads llms.txt as it is: `open_stream`, not `open\\_stream`. An underscore that
    could open or close emphasis (`__init__`, `_private`, `*`) stays escaped, so the file
    still renders to the same words with no emphasis."""
    described = file_summary("pkg/compat.py")
    described.text = "Defines open_stream, get_best_encoding and _private_helper: wraps __init__ and *args, 2_000 tries."
    data = SiteData("compat", [], hierarchy(files=[described]), RepoGraph())
    text = llms_txt(data, ["index.md"])
    line = next(line for line in text.splitlines() if line.startswith("- [`pkg/compat.py`]"))
    assert line.endswith(": Defines open_stream, get_best_encoding and \\_private_helper: wraps \\_\\_init\\_\\_ and \\*args, 2_000 tries."), line
    parsed = llms_txt_markup(line)
    assert parsed.tags == ["ul", "li", "a", "code"], parsed.tags
    assert "".join(parsed.text).strip().endswith(": Defines open_stream, get_best_encoding and _private_helper: wraps __init__ and *args, 2_000 tries.")


def test_private_files_come_after_public_ones(tmp_path: Path) -> None:
    """click's map began with `_compat.py`, the file most called from the others: an agent
    reading the map should meet the public files first, however much the private are called."""
    paths = ["click/_compat.py", "click/_impl/bar.py", "click/core.py", "click/__init__.py", "click/__main__.py"]
    files = [file_summary(path) for path in paths]
    called = stored_document("click/_compat.py", "isatty", 1, 2)
    called.metadata.callers = ["click/core.py#Context.run", "click/_impl/bar.py#render"]
    data = SiteData("click", [called], hierarchy(files=files), RepoGraph())
    text = llms_txt(data, ["index.md"])
    listed = [line.split("`")[1] for line in text.splitlines() if line.startswith("- [`")]
    assert listed == ["click/__init__.py", "click/__main__.py", "click/core.py", "click/_compat.py", "click/_impl/bar.py"], listed


def test_an_empty_decision_log_is_left_out_of_the_map(tmp_path: Path) -> None:
    """click has no decision evidence: its decisions page only says so, and the map listed it
    as "the design decisions the code shows". It is listed only when it holds a decision."""
    data = SiteData("click", [], hierarchy(files=[file_summary("click/core.py")]), RepoGraph())
    pages = ["index.md", "decisions.md", "plans/milestones.md"]
    text = llms_txt(data, pages)
    assert "md/decisions.md" not in text
    assert "- [Refactoring plan](md/plans/milestones.md)" in text


def copies_site(work: Path, setting: str | None, monkeypatch=None, budget: int | None = None) -> Path:
    """The golden fixture built with refdoc.yml's `markdown_copies: setting` (None: the default)."""
    repo = work / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    if setting is not None:
        with (repo / "refdoc.yml").open("a", encoding="utf-8") as config:
            config.write(f"\nmarkdown_copies: {setting}\n")
    if budget is not None:
        monkeypatch.setattr(llms, "MARKDOWN_COPIES_BUDGET", budget)
    assert main(["build", str(repo), "--out", str(work / "out")]) == 0
    return work / "out"


def assert_links_reach_html_pages(site: Path) -> None:
    for name in ("llms.txt", "llms-full.txt"):
        targets = link_targets((site / name).read_text(encoding="utf-8"))
        assert len(targets) > 10
        for target in targets:
            assert not target.startswith("md/"), (name, target)
            page = site / unquote(target.split("#")[0])
            assert (page / "index.html").is_file() or page.is_file(), (name, target)


def test_markdown_copies_none_leaves_them_out_and_links_the_html_pages(tmp_path: Path) -> None:
    site = copies_site(tmp_path, "none")
    assert not (site / "md").exists()
    assert "Each link is the HTML page of the site." in (site / "llms.txt").read_text(encoding="utf-8")
    assert_links_reach_html_pages(site)


def test_by_default_a_site_whose_copies_pass_the_budget_carries_none(tmp_path: Path, monkeypatch) -> None:
    """`auto`: the copies while they total at most the budget (the golden site's are ~60 KB)."""
    site = copies_site(tmp_path, None, monkeypatch, budget=1_000)
    assert not (site / "md").exists()
    assert_links_reach_html_pages(site)


def test_markdown_copies_all_keeps_them_past_the_budget(tmp_path: Path, monkeypatch) -> None:
    site = copies_site(tmp_path, "all", monkeypatch, budget=1_000)
    assert (site / "md/files/app/util.py.md").is_file()
    assert all(target.startswith(("md/", "llms-full")) for target in link_targets((site / "llms.txt").read_text(encoding="utf-8")))


def test_llms_full_txt_is_bounded_however_many_modules(monkeypatch) -> None:
    """3,000 modules of 2,000 characters each would be 6 MB; the file stops at its bound and
    names where the rest is."""
    monkeypatch.setattr(llms, "FULL_MAX_CHARS", 200_000)
    modules = [ModuleSummary(f"pkg/m{n:04}", "word " * 400, [f"pkg/m{n:04}/a.py"], [], [], [], 10) for n in range(3000)]
    files = [file_summary(f"pkg/m{n:04}/a.py") for n in range(3000)]
    data = SiteData("big", [], hierarchy(files=files, modules=modules), RepoGraph())
    text = llms.llms_full_txt(data)
    assert len(text) < 200_000 * 1.1
    assert re.search(r"- \[\d+ more modules\]\(md/summaries/modules\.md\)", text)
    assert re.search(r"- \[\d+ more files\]\(md/summaries/files\.md\)", text)
