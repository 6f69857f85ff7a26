"""The overview's four answers on small inline repositories: the flow rule, the entry points,
the reading order, counts that agree with each other, and every sentence the tool writes in
the configured language."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import built_overview

from refdoc_site.rendering.component_map import chain_svg
from refdoc_site.understanding.flows import declared_scripts, name_words
from refdoc_site.understanding.orientation import Orientation, guide_kind, lead_paragraph

WEB_APP = {
    "pyproject.toml": """
        [project]
        name = "tinyweb"
        description = "A tiny web framework."

        [project.scripts]
        tinyweb = "tinyweb.cli:main"
    """,
    "README.md": """
        # tinyweb

        [![build](https://ci.example/badge.svg)](https://ci.example)

        .. image:: logo.png

        tinyweb turns a request into a response through one application object and its views.
    """,
    "docs/quickstart.md": "# Quickstart\n\nMake an app, add a view, and run the server from the command line.\n",
    "docs/design.md": "# Design decisions\n\nOne application object holds the configuration, so that every view can reach it.\n",
    "CONTRIBUTING.md": "# Contributing\n\nRun the tests with pytest before you send a change for review.\n",
    "docs/changes.md": "# Changes\n\nVersion 1.0 came out with the first views.\n",
    "src/tinyweb/__init__.py": '"""A tiny web framework."""\nfrom .app import App\n',
    "src/tinyweb/app.py": '''
        """The application object."""
        from .routing import Router


        class App:
            """The application: a WSGI callable."""

            def __init__(self):
                self.router = Router()

            def __call__(self, environ, start_response):
                """Called by the WSGI server."""
                return self.wsgi_app(environ, start_response)

            def wsgi_app(self, environ, start_response):
                """The WSGI application proper."""
                try:
                    response = self.full_dispatch_request(environ)
                except Exception as error:
                    response = self.handle_exception(error)
                return response

            def full_dispatch_request(self, environ):
                """Dispatch and finish the request."""
                self.preprocess_request(environ)
                value = self.dispatch_request(environ)
                return self.finalize(value)

            def preprocess_request(self, environ):
                return None

            def dispatch_request(self, environ):
                """Match the URL and call the view."""
                return self.router.match(environ)

            def finalize(self, value):
                return value

            def handle_exception(self, error):
                """Turn an error into a response."""
                self.log_error(error)
                self.report_error(error)
                self.render_error(error)
                return self.render_error(error)

            def log_error(self, error):
                return self.report_error(error)

            def report_error(self, error):
                return self.render_error(error)

            def render_error(self, error):
                return str(error)
    ''',
    "src/tinyweb/routing.py": '''
        """URL routing."""


        class Router:
            """Matches a URL to a view."""

            def match(self, environ):
                return environ.get("PATH_INFO")
    ''',
    "src/tinyweb/cli.py": '''
        """The command line."""
        from .app import App


        def main():
            """Run the development server."""
            serve(App())


        def serve(app: App):
            return app
    ''',
    "tests/test_app.py": '''
        from tinyweb.app import App
        from tinyweb.routing import Router


        def test_app():
            assert App() and Router() and App() and Router()


        def test_router():
            assert Router()
    ''',
}


def built(tmp_path: Path, files: dict[str, str], language: str = "en") -> tuple[Orientation, str]:
    return built_overview(tmp_path, files, "Tiny", language)


def steps(flow) -> list[str]:
    return [step.definition.symbol for step in flow.steps]


def test_the_request_flow_follows_the_success_path_and_the_shared_name(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, WEB_APP)
    flows = {flow.entry.definition.symbol: steps(flow) for flow in orientation.flows}
    # handle_exception reaches more code than full_dispatch_request, but is the error path;
    # dispatch_request shares two words with full_dispatch_request, finalize none; the
    # router is called through an attribute whose name shares no word: the flow ends there
    assert flows["App.__call__"] == ["App.__call__", "App.wsgi_app", "App.full_dispatch_request", "App.dispatch_request"]
    told = re.findall(r"^\d+\. \[`([^`]+)`\]\(files/src/tinyweb/\w+\.py\.md#chunk-[^)]+\)", page, re.MULTILINE)
    assert told[:4] == ["App.__call__", "App.wsgi_app", "App.full_dispatch_request", "App.dispatch_request"]
    # a request handler's flow is headed by what starts it, in the reader's words
    drawn = page.split("### When a request comes in: from `App.__call__`", 1)[1].split("1. ", 1)[0]
    assert re.findall(r"<text[^>]*>([^<]+)</text>", drawn) == told[:4]  # an SVG, no script
    assert "```mermaid" not in page


def test_a_console_script_s_flow_is_headed_by_the_command(tmp_path: Path) -> None:
    files = {**WEB_APP, "src/tinyweb/cli.py": '''
        """The command line."""


        def main():
            """Run the development server."""
            start_server(8000)


        def start_server(port: int):
            """Listen on the port."""
            return bind_server_socket(port)


        def bind_server_socket(port: int):
            """Open the socket."""
            return port
    '''}
    orientation, page = built(tmp_path, files)
    assert [(flow.entry.kind.value, flow.entry.label) for flow in orientation.flows][:1] == [("script", "tinyweb")]
    assert "\n### When `tinyweb` runs: from `main`\n" in page


def test_a_flow_s_drawing_keeps_a_hostile_name_as_text() -> None:
    svg = chain_svg(['<img src=x onerror=alert(1)>', 'x" onload="alert(2)'], 'How "it" works')
    assert "<img" not in svg and 'onload="' not in svg and "&lt;img src=x onerror=alert(1)&gt;" in svg
    assert 'aria-label="How &quot;it&quot; works"' in svg


def test_entry_points_come_from_the_manifest_and_the_handler_signature(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, WEB_APP)
    kinds = {entry.definition.symbol: (entry.kind.value, entry.label) for entry in orientation.entry_points}
    assert kinds["main"] == ("script", "tinyweb")
    assert kinds["App.__call__"] == ("handler", "wsgi")
    assert "App.wsgi_app" not in kinds, "called by __call__: a step of its flow, not an entry point of its own"
    assert not [symbol for symbol in kinds if symbol.startswith("test_")]
    assert "console script `tinyweb`" in page


def test_the_reading_order_puts_the_readme_first_and_contributing_last(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, WEB_APP)
    assert [guide.path for guide in orientation.guides] == ["README.md", "docs/quickstart.md", "docs/design.md", "CONTRIBUTING.md"]
    assert [a.definition.symbol for a in orientation.abstractions] == ["App", "Router"], "ranked by use from own code: the tests' many uses of Router do not count"
    start = page.split("## Where to start", 1)[1].split("## At a glance", 1)[0]
    assert start.index("README.md") < start.index("docs/quickstart.md") < start.index("CONTRIBUTING.md") < start.index("[`App`]")


def test_what_it_is_quotes_the_description_the_readme_s_prose_and_the_design_doc(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, WEB_APP)
    assert orientation.description == "A tiny web framework."
    assert orientation.readme is not None
    assert orientation.readme.text == "tinyweb turns a request into a response through one application object and its views."
    assert [quote.path for quote in orientation.design] == ["docs/design.md"]
    what = page.split("## What it is", 1)[1].split("## Its parts", 1)[0]
    assert "badge" not in what and "image::" not in what
    assert "[Design decisions](files/docs/design.md.md)" in what


def test_every_count_on_the_overview_agrees(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, WEB_APP)
    counts = orientation.counts
    assert sum(counts.by_role.values()) == sum(counts.languages.values()) == counts.files
    opening = page.split("## What it is", 1)[0]
    assert f"{counts.files} files indexed in {counts.modules} modules" in opening
    assert f"- **Files indexed:** {counts.files} (" in page and f"- **Modules:** {counts.modules}\n" in page
    languages = re.search(r"^- \*\*Languages:\*\* (.*)$", page, re.MULTILINE).group(1)
    assert sum(int(n) for n in re.findall(r"\((\d+)\)", languages)) == counts.files
    assert counts.code_lines and list(counts.code_lines) == ["python"] and counts.mostly
    assert "mostly python" in opening
    assert re.search(r"\b1 tests?\b", opening) and "1 tests" not in opening, "one test file is 1 test"


def test_documents_do_not_make_a_system_mostly_a_documentation_language(tmp_path: Path) -> None:
    files = {f"docs/page{n}.md": f"# Page {n}\n\nA page of the manual that explains a part of the tool.\n" for n in range(6)}
    files["tool.py"] = 'def run():\n    """Run the tool."""\n    return 1\n'
    orientation, page = built(tmp_path, files)
    assert orientation.counts.main_languages == ["python"] and orientation.counts.by_role == {"code": 1, "docs": 6}
    assert "mostly markdown" not in page and "mostly python" in page


def test_a_japanese_overview_writes_its_own_sentences_in_japanese(tmp_path: Path) -> None:
    _, page = built(tmp_path, {**WEB_APP, ".env": "SECRET=1\n"}, language="ja")
    opening = page.split("\n## ", 1)[0].split("# Tiny\n", 1)[1]
    assert "個のファイルをインデックスしました" in opening and "files" not in opening
    for english in ("What it is", "Its parts", "How it works", "Where to start", "Entry points", "console script", "files indexed", "mostly", "secret:", "used in"):
        assert english not in page, english
    assert "秘密情報: 1" in page
    assert "\n### リクエストが届いたとき: `App.__call__` から\n" in page and "When a request" not in page


def test_name_words_split_snake_and_camel_case() -> None:
    assert name_words("full_dispatch_request") == {"full", "dispatch", "request"}
    assert name_words("Command.ExecuteC") == {"execute", "c"}


def test_scripts_and_main_files_are_read_from_each_manifest_kind() -> None:
    scripts, mains = declared_scripts({
        "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    tool = tool.cli:run\n",
        "pkg/package.json": '{"name": "pkg", "bin": "./bin/pkg.js", "main": "lib/index"}',
        "x.dist-info/entry_points.txt": "[console_scripts]\nhass = homeassistant.__main__:main\n",
        "broken/pyproject.toml": "[project\n",
    })
    assert scripts == {"tool": "tool.cli:run", "pkg": "pkg/bin/pkg.js", "hass": "homeassistant.__main__:main"}
    assert mains == ["pkg/lib/index.js"]


def test_guides_are_known_by_their_stem_or_their_folder() -> None:
    assert guide_kind("README.rst") == "readme" and guide_kind("docs/tutorial/index.rst") == "tutorial"
    assert guide_kind("site/content/user_guide.md") == "tutorial" and guide_kind("docs/README.md") == ""
    assert guide_kind("docs/lifecycle.rst") == "architecture" and guide_kind("docs/changes.rst") == ""


def test_the_lead_paragraph_skips_badges_headings_directives_and_code() -> None:
    text = "# Title\n\n[![ci](b.svg)](x)\n\n.. toctree::\n\n```\ncode here is not prose at all\n```\n\nThe [tool](https://x) documents a repository as a static site."
    assert lead_paragraph(text, 200) == "The tool documents a repository as a static site."


def test_a_component_lists_its_code_files_with_their_docstrings(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, WEB_APP)
    package = next(c for c in orientation.components if c.name.endswith("tinyweb"))
    assert [unit.path.rsplit("/", 1)[-1] for unit in package.units][:3] == ["app.py", "cli.py", "routing.py"], "largest first"
    assert "    - [app.py](files/src/tinyweb/app.py.md) (" in page and "): The application object." in page
    assert not [c for c in orientation.components if c.kind == "source" and c.name == "tests"]


def test_a_name_after_a_dot_is_not_a_use_of_the_project_s_class(tmp_path: Path) -> None:
    files = {**WEB_APP, "src/tinyweb/hints.py": '''
        import typing as t


        def one() -> t.Router:
            return None


        def two() -> t.Router:
            return None


        def three() -> t.Router:
            return None
    '''}
    orientation, _ = built(tmp_path, files)
    assert [(a.definition.symbol, a.files) for a in orientation.abstractions] == [("App", 1), ("Router", 1)]


def test_entry_points_of_the_declared_package_come_before_the_scripts_beside_it(tmp_path: Path) -> None:
    files = {**WEB_APP, "benchmarks/bench.py": '''
        """Time the app."""
        from tinyweb.app import App


        def main():
            """Call the app a thousand times."""
            for _ in range(1000):
                App()({}, None)


        if __name__ == "__main__":
            main()
    '''}
    orientation, _ = built(tmp_path, files)
    order = [(entry.definition.path, entry.definition.symbol) for entry in orientation.entry_points]
    assert order[:2] == [("src/tinyweb/cli.py", "main"), ("src/tinyweb/app.py", "App.__call__")]
    assert ("benchmarks/bench.py", "main") not in order[:2]


def test_a_japanese_site_s_offline_summaries_are_japanese_and_count_as_the_overview(tmp_path: Path) -> None:
    """summaries/system.md and the module and file texts: the sentences the tool writes
    ("N files in M modules, mostly …", "Defines …", "Uses …", the layers) follow `language`,
    and the system's size is the overview's (every indexed file and module)."""
    orientation, page = built(tmp_path, WEB_APP, language="ja")
    docs = next((tmp_path / "store").rglob("summaries/system.md")).parent.parent
    system = (docs / "summaries" / "system.md").read_text(encoding="utf-8")
    modules = (docs / "summaries" / "modules.md").read_text(encoding="utf-8")
    files = (docs / "summaries" / "files.md").read_text(encoding="utf-8")
    counts = orientation.counts
    assert f"{counts.modules} 個のモジュールにある {counts.files} 個のファイル" in system
    for text in (system, modules, files):
        for english in (" files in ", " module", "mostly", "Entry layer", "Foundation", "Uses ", "Defines ", " lines."):
            assert english not in text.split("\n", 1)[1].replace("modules.md", ""), (english, text[:600])
    assert "使うもの" in files or "使うもの" in modules


def test_an_english_site_s_system_summary_counts_as_the_overview(tmp_path: Path) -> None:
    orientation, _ = built(tmp_path, WEB_APP)
    system = next((tmp_path / "store").rglob("summaries/system.md")).read_text(encoding="utf-8")
    assert f"{orientation.counts.files} files in {orientation.counts.modules} modules" in system
