"""A repository's prose docs as prose: reST sections at every title level (`~~~` included),
directives out of the text and the summaries, roles as words and links, hostile markup as
text; design docs as decisions; devDependencies never as decisions; docs code never in
the plan."""

from __future__ import annotations

import html
import json
import textwrap
from pathlib import Path

import markdown

from helpers import file_summary, hierarchy, stored_document

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.findings import DecisionKind
from refdoc_site.core.pages import chunk_anchor
from refdoc_site.core.records import ChunkKind, Metadata, SourceFile
from refdoc_site.core.store import FileEntry
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.indexing.doc_blocks import read_section
from refdoc_site.indexing.summarize import responsibility
from refdoc_site.rendering.doc_markdown import DocLinks, blocks_markdown, rst_labels
from refdoc_site.understanding.evidence import collect_decisions
from refdoc_site.understanding.graph import RepoGraph
from refdoc_site.understanding.milestones import plan_milestones

LIFECYCLE = textwrap.dedent(
    """\
    .. currentmodule:: flask

    .. _lifecycle:

    Application Structure and Lifecycle
    ===================================

    Flask makes it pretty easy to write a web application.

    Serving the Application
    -----------------------

    Flask is a WSGI application framework.

    Middleware
    ~~~~~~~~~~

    Middleware wraps another WSGI application.

    ~~~~~~~~~~~~~~~~~~~~~~~~
    How a Request is Handled
    ~~~~~~~~~~~~~~~~~~~~~~~~

    Uses :data:`app.config` and :meth:`~flask.Flask.wsgi_app` to handle it.

    .. include:: ../CHANGES.rst
    """
)


def chunks_of(text: str, path: str = "docs/lifecycle.rst", language: str = "restructuredtext"):
    return chunk_file(SourceFile(path, language, len(text), ""), text, ChunkSettings())


def test_rst_sections_are_found_at_every_title_level_including_tilde_underlines() -> None:
    symbols = [c.symbol for c in chunks_of(LIFECYCLE)]
    assert symbols == [
        "lifecycle.rst",
        "Application Structure and Lifecycle",
        "Application Structure and Lifecycle > Serving the Application",
        "Application Structure and Lifecycle > Serving the Application > Middleware",
        "Application Structure and Lifecycle > Serving the Application > Middleware > How a Request is Handled",
    ]


def test_directives_never_reach_a_summary_and_roles_read_as_words() -> None:
    summaries = {c.symbol.rsplit(" > ", 1)[-1]: responsibility(c, Metadata()) for c in chunks_of(LIFECYCLE)}
    assert summaries["lifecycle.rst"] == "", "a preamble of directives and labels says nothing"
    assert summaries["How a Request is Handled"] == "Uses app.config and wsgi_app to handle it."
    assert not any(".." in text or "include" in text for text in summaries.values())


def links(path: str = "docs/lifecycle.rst", pages: dict | None = None, names: dict | None = None) -> DocLinks:
    pages = pages or {"files/docs/lifecycle.rst.md": {chunk_anchor("Application Structure and Lifecycle")}}
    return DocLinks(
        path, pages, {"docs/quickstart": "docs/quickstart.rst"}, {}, lambda page, anchor: page + (f"#{anchor}" if anchor else ""),
        lambda name: (names or {}).get(name, ""),
    )


def html_of(text: str, language: str, **kwargs) -> str:
    body = blocks_markdown(read_section(text, language).blocks, links(**kwargs), {"versionadded": "New in version"})
    return markdown.markdown(body, extensions=["attr_list", "md_in_html", "admonition", "tables", "fenced_code"])


def test_an_rst_section_renders_as_prose_with_code_lists_notes_and_linked_names() -> None:
    text = textwrap.dedent(
        """\
        Title
        =====

        Call :meth:`Flask.wsgi_app` or read :doc:`quickstart`. See `the spec <https://peps.python.org/pep-3333/>`_.

        - one
        - two

        .. code-block:: python

            app = Flask(__name__)

        .. versionadded:: 2.0
           Added *this*.

        Run it::

            $ flask run
        """
    )
    page = html_of(text, "restructuredtext", names={"Flask.wsgi_app": "files/app.py.md#chunk-Flask.wsgi-app"})
    assert '<a href="files/app.py.md#chunk-Flask.wsgi-app"><code>Flask.wsgi_app</code></a>' in page
    assert '<a href="files/docs/quickstart.rst.md">quickstart</a>' in page
    assert '<a href="https://peps.python.org/pep-3333/">the spec</a>' in page
    assert "<li>one</li>" in page
    assert '<code class="language-python">app = Flask(__name__)' in page
    assert '<code class="language-text">$ flask run' in page, "a :: block that is no Python is plain text"
    assert '<p class="admonition-title">New in version 2.0</p>' in html.unescape(page) and "<em>this</em>" in page
    assert "code-block" not in page and "::" not in page


HOSTILE_RST = textwrap.dedent(
    """\
    Title
    =====

    Text <img src=x onerror=alert(1)> and `x <javascript:alert(2)>`_ and {: onclick=alert(3) }.

    .. raw:: html

       <script>alert(4)</script>

    .. include:: /etc/passwd
    """
)
HOSTILE_MARKDOWN = textwrap.dedent(
    """\
    # Title

    Text <img src=x onerror=alert(1)> and [x](javascript:alert(2)) {: onclick=alert(3) }

    <script>alert(4)</script>

    <div markdown="1">**bold** <iframe src="https://example.org"></iframe></div>

    !!! note
        admonition text

    --8<-- "/etc/passwd"
    """
)


def test_hostile_markup_in_a_doc_stays_text() -> None:
    for text, language in ((HOSTILE_RST, "restructuredtext"), (HOSTILE_MARKDOWN, "markdown")):
        page = html_of(text, language)
        assert "<img" not in page and "<script" not in page and "<iframe" not in page, page
        assert "javascript:" not in page.replace("&lt;javascript:alert(2)&gt;", ""), page
        assert "onclick" not in page.replace("{: onclick=alert(3) }", ""), page
        assert 'class="admonition' not in page, "a doc writes no markup of the site's own"
        assert "root:" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in html_of(HOSTILE_RST, "restructuredtext")


def write(repo: Path, files: dict[str, FileEntry], path: str, text: str, language: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text, encoding="utf-8")
    files[path] = FileEntry(path, language, "0" * 64, len(text), text.count("\n") + 1)


DESIGN = textwrap.dedent(
    """\
    Design Decisions in Flask
    =========================

    If you are curious why Flask does certain things the way it does, this is for you.

    The Explicit Application Object
    -------------------------------

    A web application based on WSGI has to have one central callable object.

    One Template Engine
    -------------------

    Flask decides on one template engine: Jinja2.

    Why not pluggable?
    ~~~~~~~~~~~~~~~~~~

    Because the engines differ too much.
    """
)


def test_a_design_doc_gives_a_decision_per_section_linked_to_it(tmp_path: Path) -> None:
    files: dict[str, FileEntry] = {}
    write(tmp_path, files, "docs/design.rst", DESIGN, "restructuredtext")
    write(tmp_path, files, "docs/other.md", "# Guide\n\n## Why a queue\n\nIt keeps writes ordered.\n\n## Usage\n\nRun it.\n", "markdown")
    entries = collect_decisions(tmp_path, files, RepoGraph())
    design = [e for e in entries if e.kind is DecisionKind.DESIGN]
    assert [e.title for e in design] == ["The Explicit Application Object", "One Template Engine", "Why a queue"]
    assert design[1].decision == "Flask decides on one template engine: Jinja2."
    assert design[1].context == "Design Decisions in Flask (docs/design.rst)"
    [evidence] = design[1].evidence
    assert (evidence.path, evidence.anchor) == ("docs/design.rst", chunk_anchor("Design Decisions in Flask > One Template Engine"))
    anchors = {chunk_anchor(c.symbol) for c in chunks_of(DESIGN, "docs/design.rst")}
    assert evidence.anchor in anchors, "the evidence links to the section's anchor on the doc's page"


def test_a_dev_dependency_is_no_decision(tmp_path: Path) -> None:
    files: dict[str, FileEntry] = {}
    manifest = {"name": "express", "dependencies": {"body-parser": "1.20.3"}, "devDependencies": {"ejs": "3.1.10", "eslint": "8", "mocha": "10"}}
    (tmp_path / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    write(tmp_path, files, "lib/express.js", "var bodyParser = require('body-parser');\n", "javascript")
    graph = RepoGraph(external_imports={"lib/express.js": ["body-parser"]})
    titles = " ".join(e.title for e in collect_decisions(tmp_path, files, graph))
    assert "body-parser" in titles
    assert not any(name in titles for name in ("ejs", "eslint", "mocha")), titles


def test_the_plan_leaves_docs_code_out() -> None:
    documents = [stored_document("docs/conf.py", "setup", 1, 200), stored_document("src/app.py", "run", 1, 10)]
    files = [
        file_summary("docs/conf.py", lines=900, has_docs=False, public_api=("setup",)),
        file_summary("src/app.py", lines=20, has_docs=True),
    ]
    plan = plan_milestones(documents, hierarchy(files), RepoGraph())
    assert not any("docs/conf.py" in item.label for phase in plan for item in phase.items), plan
    assert ChunkKind.FUNCTION  # the docs' own function is no long definition either


def test_a_markdown_heading_link_leads_to_its_sections_anchor_or_to_nothing() -> None:
    here = links("Readme.md", pages={"files/Readme.md.md": {"chunk-Installation", "chunk-Docs-Community"}, "files/docs/guide.md.md": set()})
    assert here.url("#installation") == "files/Readme.md.md#chunk-Installation"
    assert here.url("#docs--community") == "files/Readme.md.md#chunk-Docs-Community"
    assert here.url("#nowhere") == "", "a link to a heading the page lacks is dropped"
    assert here.url("docs/guide.md#nowhere") == "files/docs/guide.md.md"
    assert here.url("docs/missing.md") == "" and here.url("javascript:alert(1)") == ""
    assert here.url('https://example.org/o"w(n)') == "https://example.org/o%22w%28n%29"


def test_a_ref_links_to_the_section_its_label_stands_before_and_shows_its_title() -> None:
    proxies = "Contexts\n========\n\nText.\n\n.. _notes-on-proxies:\n\nNotes On Proxies\n----------------\n\nSome.\n"
    labels = rst_labels("docs/reqcontext.rst", chunks_of(proxies, "docs/reqcontext.rst"))
    anchor = chunk_anchor("Contexts > Notes On Proxies")
    assert labels == {"notes-on-proxies": ("files/docs/reqcontext.rst.md", anchor, "Notes On Proxies")}
    here = DocLinks("docs/api.rst", {"files/docs/reqcontext.rst.md": {anchor}}, {}, labels, lambda page, a: f"{page}#{a}", lambda name: "")
    section = read_section("API\n===\n\nSee :ref:`notes-on-proxies` and :ref:`the notes <notes-on-proxies>` and :ref:`gone`.\n", "restructuredtext")
    body = blocks_markdown(section.blocks, here, {})
    assert body == (
        f"See [Notes On Proxies](files/docs/reqcontext.rst.md#{anchor}) and "
        f"[the notes](files/docs/reqcontext.rst.md#{anchor}) and gone."
    )


def test_an_autodoc_directive_names_the_definition_it_documents() -> None:
    section = read_section("API\n===\n\n.. autoclass:: Flask\n   :members:\n\n.. autofunction:: url_for(endpoint)\n", "restructuredtext")
    body = blocks_markdown(section.blocks, links(names={"Flask": "files/app.py.md#chunk-Flask"}), {})
    assert body == "[`Flask`](files/app.py.md#chunk-Flask)\n\n`url_for`"
