"""File pages: one section per definition (token windows merged back, members nested under
their class) and docstrings rendered as prose, tables and code, escaped like the rest."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import file_summary, hierarchy, stored_document, write_repo

from refdoc_site.cli import main
from refdoc_site.core.pages import chunk_anchor
from refdoc_site.core.records import ChunkKind, Document
from refdoc_site.core.store import Store
from refdoc_site.rendering.render import SiteData, render_pages
from refdoc_site.understanding.graph import RepoGraph
from refdoc_site.writing.sections import page_sections, whole_source

CHUNK_SIZE = 64
"""Small enough that the class below, members elided, needs three windows."""
FIELD_COUNT = 8
FIELDS = "\n".join(f"    field_{n} = {n}  # the setting number {n} of the registry" for n in range(FIELD_COUNT))
REGISTRY = f'''
class Registry:
    """Holds every plugin; see :meth:`lookup` and :class:`~app.registry.Registry`.

    Args:
        name (str): What the registry is called.
    """

{FIELDS}

    def lookup(self, key: str) -> int:
        """Find a plugin by ``key``."""
        return self.field_0


def outside() -> int:
    return Registry("x").lookup("y")
'''
HOSTILE_DOCSTRING = '''
def hostile(x):
    """Breaks out <script>alert(1)</script> and :class:`<img src=x onerror=alert(2)>`.

    Args:
        x (<img src=y onerror=alert(3)>): a | b {: onclick=alert(4) }

    Example::

        ```
        <img src=z onerror=alert(5)>
        ```

    .. note:: <b onmouseover=alert(6)>bold</b>

    .. admonition:: <img src=t onerror=alert(7)> "x" **y** !!! danger

        <i onclick=alert(8)>body</i>
    """
    return x
'''
FLASKISH = '''
class Flask:
    """The flask object implements a WSGI application.

    .. admonition:: About the First Parameter

        The idea of the first parameter is to give Flask an idea of what
        belongs to your application.  See :ref:`the callbacks <callbacks-and-errors>`.

        Create it with one of the two versions below::

            app = Flask('yourapplication')
            app = Flask(__name__.split('.')[0])

    .. versionchanged:: 1.0
        The ``host_matching`` parameter was added.
    """
'''


OVERLOADS = '''
from typing import overload


@overload
def locate(name: str) -> str: ...
@overload
def locate(name: int) -> int: ...
def locate(name):
    """Find an app by name or number."""
    return name


class Config:
    @property
    def debug(self) -> bool:
        """Whether debug mode is on."""
        return self._debug

    @debug.setter
    def debug(self, value: bool) -> None:
        self._debug = value
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("sections")
    repo = write_repo(work / "repo", {"app/registry.py": REGISTRY, "app/hostile.py": HOSTILE_DOCSTRING, "app/overloads.py": OVERLOADS, "app/flaskish.py": FLASKISH})
    out = work / "out"
    assert main(["build", str(repo), "--chunk-size", str(CHUNK_SIZE), "--overlap", "8", "--out", str(out)]) == 0
    return repo, out


def stored_windows(repo: Path, symbol: str) -> list[Document]:
    documents = Store(repo / ".refdoc").load().documents
    return sorted((d for d in documents if d.chunk.symbol == symbol), key=lambda d: d.chunk.part)


def test_a_three_window_class_is_one_section_with_its_members_under_it(site) -> None:
    repo, _ = site
    windows = stored_windows(repo, "Registry")
    assert [d.chunk.part for d in windows] == [1, 2, 3]
    markdown = (repo / ".refdoc" / "mkdocs" / "docs" / "files" / "app" / "registry.py.md").read_text(encoding="utf-8")
    headings = re.findall(r"^(#+) (.*)$", markdown, re.MULTILINE)
    assert [h for h in headings if "Registry" in h[1]] == [
        ("###", "`Registry` { #chunk-Registry }"),
        ("####", "`Registry.lookup` { #chunk-Registry.lookup }"),
    ]
    assert "(part" not in markdown
    source_lines = REGISTRY.strip("\n").splitlines()
    last = 1 + next(i for i, line in enumerate(source_lines) if line.strip() == "return self.field_0")
    assert f"Class, lines 1–{last}." in markdown
    for n in range(FIELD_COUNT):
        assert markdown.count(f"field_{n} = {n}  # the setting number {n} of the registry") == 1
    assert markdown.index("### `Registry`") < markdown.index("#### `Registry.lookup`") < markdown.index("### `outside`")


def test_search_rows_of_every_window_point_at_the_one_section(site) -> None:
    _, out = site
    rows = json.loads(next(out.rglob("chunks.json")).read_text(encoding="utf-8"))
    registry_rows = [row for row in rows if row["symbol"] == "Registry"]
    assert len(registry_rows) == 3
    assert {row["anchor"] for row in registry_rows} == {chunk_anchor("Registry")}
    html = (out / "files" / "app" / "registry.py" / "index.html").read_text(encoding="utf-8")
    assert html.count(f'id="{chunk_anchor("Registry")}"') == 1


def test_the_docstring_renders_with_links_and_a_table(site) -> None:
    repo, _ = site
    markdown = (repo / ".refdoc" / "mkdocs" / "docs" / "files" / "app" / "registry.py.md").read_text(encoding="utf-8")
    assert "see [`lookup`](registry.py.md#chunk-Registry.lookup) and [`Registry`](registry.py.md#chunk-Registry)" in markdown
    assert "| Name | Type | Description |" in markdown
    assert "| `name` | `str` | What the registry is called. |" in markdown
    assert "Find a plugin by `key`." in markdown


def test_methods_are_in_the_table_of_contents_under_their_class(site) -> None:
    _, out = site
    html = (out / "files" / "app" / "registry.py" / "index.html").read_text(encoding="utf-8")
    toc = html.split('data-md-component="toc"', 1)[1].split('class="md-content"', 1)[0]
    entries = re.findall(r'href="#(chunk-[^"]+)"', toc)
    assert entries == ["chunk-Registry", "chunk-Registry.lookup", "chunk-outside"]


def test_overloads_and_setters_get_anchors_of_their_own_and_links_land_on_the_first(site) -> None:
    _, out = site
    html = (out / "files" / "app" / "overloads.py" / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'\bid="(chunk-[^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted(ids)
    assert ids.count("chunk-locate") == 1 and ids.count("chunk-Config.debug") == 1
    assert len([i for i in ids if i.startswith("chunk-locate")]) == 3
    assert len([i for i in ids if i.startswith("chunk-Config.debug")]) == 2


class _ActiveMarkup(HTMLParser):
    """Elements a docstring could have smuggled in: event handlers, inline scripts, images."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("img", "b") or any(name.startswith("on") for name, _ in attrs):
            self.found.append(f"<{tag} {attrs}>")
        if tag == "script" and not dict(attrs).get("src"):
            self.found.append("inline script")


def test_a_hostile_docstring_reaches_the_page_as_text(site) -> None:
    _, out = site
    html = (out / "files" / "app" / "hostile.py" / "index.html").read_text(encoding="utf-8")
    content = html.split('<article', 1)[1].split("</article>", 1)[0]
    parser = _ActiveMarkup()
    parser.feed(content)
    assert parser.found == []
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    assert "onerror=alert(5)" in content  # inside the example's code block, as text
    assert "onclick=alert(4)" in content
    assert "onerror=alert(7)" in content and "onclick=alert(8)" in content  # the admonition's title and body


def test_docstring_admonitions_are_admonitions_with_their_prose_and_code(site) -> None:
    _, out = site
    html = (out / "files" / "app" / "flaskish.py" / "index.html").read_text(encoding="utf-8")
    content = html.split('<article', 1)[1].split("</article>", 1)[0]
    admonition = content.split('<div class="admonition note">', 1)[1].split("</div>", 1)[0]
    assert '<p class="admonition-title">About the First Parameter</p>' in admonition
    assert "belongs to your application." in admonition
    code = admonition.split("<pre", 1)[1].split("</pre>", 1)[0]
    assert "Flask" in code and "yourapplication" in code  # a code block, not prose
    assert "the callbacks" in admonition and "callbacks-and-errors" not in admonition
    assert "<code>admonition</code>" not in content
    assert '<p class="admonition-title">Changed in version 1.0</p>' in content


def document(symbol: str, kind: ChunkKind, start: int, end: int, content: str, **fields) -> Document:
    return stored_document("a.py", symbol, start, end, kind, content=content, **fields)


def test_function_windows_join_on_their_line_numbers() -> None:
    lines = [f"line {n}" for n in range(1, 11)]
    windows = [
        document("run", ChunkKind.FUNCTION, 1, 5, "\n".join(lines[0:5]), part=1),
        document("run", ChunkKind.FUNCTION, 4, 8, "\n".join(lines[3:8]), part=2, responsibility="Runs."),
        document("run", ChunkKind.FUNCTION, 7, 10, "\n".join(lines[6:10]), part=3),
    ]
    [section] = page_sections(windows)
    assert (section.chunk.start_line, section.chunk.end_line, section.chunk.part) == (1, 10, 0)
    assert section.chunk.content == "\n".join(lines)
    assert section.summary.responsibility == "Runs."
    assert section.chunk_ids == ["a.py#run~1", "a.py#run~2", "a.py#run~3"]


def test_elided_class_windows_join_on_their_repeated_lines() -> None:
    text = ["class A:", "    x = 1", "    def f(self):", "        ...", "    y = 2"]
    first = document("A", ChunkKind.CLASS, 1, 40, "\n".join(text[0:4]), part=1)
    second = document("A", ChunkKind.CLASS, 1, 40, "\n".join(text[2:5]), part=2)
    assert whole_source([first.chunk, second.chunk]) == "\n".join(text)
    method = document("A.f", ChunkKind.METHOD, 3, 30, "def f(self): pass", parent="A")
    [section] = page_sections([second, method, first])
    assert [m.chunk.symbol for m in section.members] == ["A.f"]


def test_a_merged_section_shows_every_windows_calls_and_no_empty_summary_line(tmp_path: Path) -> None:
    windows = [
        document("run", ChunkKind.FUNCTION, 1, 5, "\n".join(["def run():"] + ["    step()"] * 4), part=1, responsibility="Runs."),
        document("run", ChunkKind.FUNCTION, 4, 8, "\n".join(["    step()"] * 4 + ["    finish()"]), part=2),
    ]
    finish = document("finish", ChunkKind.FUNCTION, 10, 11, "def finish():\n    pass")
    step = document("step", ChunkKind.FUNCTION, 13, 14, "def step():\n    pass")
    graph = RepoGraph(calls={"a.py#run~1": ["a.py#step"], "a.py#run~2": ["a.py#step", "a.py#finish"]})
    graph.callers = {"a.py#step": ["a.py#run~1", "a.py#run~2"], "a.py#finish": ["a.py#run~2"]}
    data = SiteData("s", [*windows, finish, step], hierarchy([file_summary("a.py")]), graph)
    render_pages(data, tmp_path)
    page = (tmp_path / "files" / "a.py.md").read_text(encoding="utf-8")
    run = page.split("### `run`", 1)[1].split("### ", 1)[0]
    assert "- **Calls:** [step](a.py.md#chunk-step), [finish](a.py.md#chunk-finish)" in run
    for callee in ("step", "finish"):
        section = page.split(f"### `{callee}`", 1)[1].split("### ", 1)[0]
        assert "- **Called by:** [run](a.py.md#chunk-run)\n" in section
    assert "- **Responsibility:** Runs." in run
    assert "Input/output" not in page and "- **Notes:**" not in page
