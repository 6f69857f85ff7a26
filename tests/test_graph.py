"""The repository graph: imports resolved to files, cycles between modules, callers."""

from __future__ import annotations

import pytest
from helpers import dedent, source_file

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.records import ChunkSummary, Document
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.languages import language_for
from refdoc_site.languages.imports import module_roots
from refdoc_site.understanding.graph import RepoGraph, build_graph, strongly_connected


def graph_of(
    files: dict[str, str], module_depth: int | None = 1, roots: dict[str, dict[str, str]] | None = None
) -> RepoGraph:
    """Chunk and analyze inline files as the index phase would, then build the graph."""
    languages: dict[str, str] = {}
    imports: dict[str, list[str]] = {}
    documents: list[Document] = []
    analyzer = SyntaxAnalyzer()
    for path, text in files.items():
        text = dedent(text)
        language = language_for(path, text).name
        source = source_file(path, language, text)
        chunks = chunk_file(source, text, ChunkSettings())
        analysis = analyzer.analyze(source, text, chunks)
        languages[path] = language
        imports[path] = analysis.imports
        summary = ChunkSummary("r.", "io.", "none.", "deps.", "notes.")
        documents += [Document(c, summary, analysis.metadata[c.id], [], "t", source.sha256) for c in chunks]
    return build_graph(languages, imports, documents, module_depth, roots)


def test_python_relative_and_absolute_imports_resolve_to_files():
    graph = graph_of(
        {
            "pkg/__init__.py": "",
            "pkg/core.py": "from .util import helper\nfrom . import models\n",
            "pkg/util.py": "def helper():\n    return 1\n",
            "pkg/models.py": "class User:\n    pass\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/deep.py": "from ..util import helper\nimport pkg.models\nimport os.path\nimport requests\n",
            "main.py": "from pkg.core import run\nimport pkg.sub.deep\n",
        }
    )
    # `from . import models` also names the package itself (pkg/__init__.py)
    assert set(graph.file_imports["pkg/core.py"]) >= {"pkg/util.py", "pkg/models.py"}
    assert "pkg/core.py" not in graph.file_imports["pkg/core.py"]
    assert set(graph.file_imports["pkg/sub/deep.py"]) == {"pkg/util.py", "pkg/models.py"}
    assert set(graph.file_imports["main.py"]) == {"pkg/core.py", "pkg/sub/deep.py"}
    assert graph.external_imports["pkg/sub/deep.py"] == ["os", "requests"]
    assert graph.external_imports["main.py"] == []


def test_js_relative_imports_resolve_with_extensions_and_index_files():
    graph = graph_of(
        {
            "web/app.js": """
                import { format } from './format';
                import api from './api/index.js';
                import { Widget } from './widgets';
                import React from 'react';
                const lodash = require('lodash/fp');
            """,
            "web/format.ts": "export function format(x) { return String(x); }\n",
            "web/api/index.js": "export default {};\n",
            "web/widgets/index.ts": "export class Widget {}\n",
        }
    )
    assert set(graph.file_imports["web/app.js"]) == {"web/format.ts", "web/api/index.js", "web/widgets/index.ts"}
    assert "react" in graph.external_imports["web/app.js"]
    assert not any(name.startswith(".") for name in graph.external_imports["web/app.js"])


def test_typescript_imports_written_with_the_emitted_js_extension_resolve_to_the_ts_file():
    graph = graph_of(
        {
            "test/main.ts": "import ky from '../source/index.js';\nimport {x} from './helpers/util.js';\n",
            "source/index.ts": "export default function ky() {}\n",
            "test/helpers/util.ts": "export const x = 1;\n",
        }
    )
    assert graph.file_imports["test/main.ts"] == ["source/index.ts", "test/helpers/util.ts"]


MANIFEST_CASES = {
    "go.mod": (
        "go",
        "module github.com/spf13/cobra\n\ngo 1.15\n",
        {"github.com/spf13/cobra": ""},
        {
            "root.go": "package cobra\n\nfunc Execute() {}\n",
            "doc/man.go": 'package doc\n\nimport (\n\t"fmt"\n\t"github.com/spf13/cobra"\n\t"github.com/spf13/cobra/internal/util"\n)\n',
            "internal/util/util.go": "package util\n\nfunc Clean() {}\n",
        },
        ("doc/man.go", ["root.go", "internal/util/util.go"], "fmt"),
    ),
    "Cargo.toml": (
        "rust",
        '[package]\nname = "my-crate"\nversion = "1.0.0"\n\n[dependencies]\nserde = "1"\n',
        {"my_crate": "src"},
        {
            "src/lib.rs": "pub mod error;\npub fn run() {}\n",
            "src/error.rs": "pub struct Error;\n",
            "tests/test_run.rs": "use my_crate::error::Error;\nuse my_crate::run;\nuse serde::Serialize;\n",
        },
        ("tests/test_run.rs", ["src/error.rs", "src/lib.rs"], "serde"),
    ),
}


@pytest.mark.parametrize("manifest", sorted(MANIFEST_CASES))
def test_imports_of_the_repositorys_own_module_or_crate_resolve_through_its_manifest(manifest):
    """Go's module path (go.mod) and Rust's crate name (Cargo.toml), as tests and other
    packages of the repository import them."""
    language, text, roots, files, (importer, expected, external) = MANIFEST_CASES[manifest]
    assert module_roots({manifest: text}) == {language: roots}
    graph = graph_of(files, roots={language: roots})
    assert graph.file_imports[importer] == expected
    assert external in graph.external_imports[importer]
    # Without the manifest the repository's own name is out of reach of the suffix match.
    assert expected[0] not in graph_of(files).file_imports[importer]


def test_cycle_between_two_modules_is_detected():
    graph = graph_of(
        {
            "alpha/a.py": "from beta.b import second\n\ndef first():\n    return second()\n",
            "beta/b.py": "from alpha.a import first\n\ndef second():\n    return 1\n",
            "gamma/c.py": "from alpha.a import first\n",
        }
    )
    assert graph.module_of == {"alpha/a.py": "alpha", "beta/b.py": "beta", "gamma/c.py": "gamma"}
    assert graph.module_deps["alpha"] == ["beta"]
    assert graph.module_deps["beta"] == ["alpha"]
    assert graph.module_deps["gamma"] == ["alpha"]
    assert graph.cycles == [["alpha", "beta"]]


def test_no_cycle_without_a_back_edge():
    assert strongly_connected({"a": ["b"], "b": ["c"], "c": []}) == []
    assert strongly_connected({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]


def test_callers_are_built_from_callees_across_files():
    graph = graph_of(
        {
            "lib/text.py": """
                def slugify(title):
                    return title.lower().replace(" ", "-")
            """,
            "app/views.py": """
                from lib.text import slugify


                def page_url(title):
                    return "/" + slugify(title)


                def other():
                    return page_url("x")
            """,
            "app/unrelated.py": """
                def noop():
                    return None
            """,
        }
    )
    slug = "lib/text.py#slugify"
    page = "app/views.py#page_url"
    other = "app/views.py#other"
    assert {slug, page, other} <= set(graph.calls), sorted(graph.calls)
    assert slug in graph.calls[page]
    assert page in graph.callers[slug]
    assert other in graph.callers[page]
    assert graph.callers.get("app/unrelated.py#noop", []) == []
    # every caller edge mirrors a callee edge
    for target, sources in graph.callers.items():
        for source in sources:
            assert target in graph.calls[source]


def test_same_file_definition_wins_over_a_name_clash_elsewhere():
    graph = graph_of(
        {
            "a/one.py": "def helper():\n    return 1\n\ndef use():\n    return helper()\n",
            "b/two.py": "def helper():\n    return 2\n",
        }
    )
    assert graph.calls["a/one.py#use"] == ["a/one.py#helper"]
    assert graph.callers.get("b/two.py#helper", []) == []


def test_automatic_modules_split_large_folders_past_folders_without_files():
    from refdoc_site.understanding.graph import SPLIT_MODULE_OVER, assign_modules

    main = [f"lib/src/main/java/org/x/internal/C{i}.java" for i in range(SPLIT_MODULE_OVER)]
    main += ["lib/src/main/java/org/x/Api.java", "lib/pom.xml", "README.md"]
    tests = [f"lib/src/test/java/org/x/T{i}.java" for i in range(5)]
    small = [f"tools/t{i}.py" for i in range(3)]
    modules = assign_modules(sorted(main + tests + small), None)
    assert modules["lib/src/main/java/org/x/internal/C0.java"] == "lib/src/main/java/org/x/internal"
    assert modules["lib/src/main/java/org/x/Api.java"] == "lib/src/main/java/org/x"
    assert modules["lib/src/test/java/org/x/T0.java"] == "lib/src/test/java/org/x"
    assert modules["lib/pom.xml"] == "lib"  # a module's own files stay in it
    assert modules["tools/t0.py"] == "tools"  # small modules are not split
    assert modules["README.md"] == "(root)"
    # A fixed depth names modules by that many folder levels instead.
    assert assign_modules(sorted(main + tests), 1)["lib/src/main/java/org/x/Api.java"] == "lib"
