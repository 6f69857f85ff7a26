"""A rebuild resolves only the calls a change can reach (understanding/call_changes.py), and
its graph is the one resolving every call gives: edits of each kind, on small repositories
and on this package's own code."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import dedent, source_file

import refdoc_site.understanding.call_graph as call_graph
from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.records import ChunkSummary, Document
from refdoc_site.core.store import FileEntry
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.languages import language_for
from refdoc_site.understanding.call_changes import CallInputs, KnownCalls, call_inputs, chunks_to_resolve
from refdoc_site.understanding.graph import RepoGraph, build_graph

PACKAGE = Path(call_graph.__file__).resolve().parent.parent
ANALYZER = SyntaxAnalyzer()


def indexed(files: dict[str, str]) -> tuple[dict[str, FileEntry], list[Document]]:
    """Chunk and analyze inline files as the index phase would."""
    entries: dict[str, FileEntry] = {}
    documents: list[Document] = []
    for path, text in sorted(files.items()):
        language = language_for(path, text).name
        source = source_file(path, language, text)
        chunks = chunk_file(source, text, ChunkSettings())
        analysis = ANALYZER.analyze(source, text, chunks)
        entries[path] = FileEntry(path, language, source.sha256, len(text), text.count("\n"), analysis.imports, [], [c.id for c in chunks])
        summary = ChunkSummary("r.", "io.", "none.", "deps.", "notes.")
        documents += [Document(c, summary, analysis.metadata[c.id], [], "t", source.sha256) for c in chunks]
    return entries, documents


def graph(entries: dict[str, FileEntry], documents: list[Document], last: KnownCalls | None = None) -> RepoGraph:
    return build_graph(
        {p: e.language for p, e in entries.items()}, {p: e.imports for p, e in entries.items()}, documents, last=last
    )


def rebuilt(before: dict[str, str], after: dict[str, str]) -> tuple[RepoGraph, RepoGraph, set[str] | None]:
    """The graph of `after` resolved whole, and resolved from `before`'s, with the chunks
    the second resolved again."""
    old_entries, old_documents = indexed(before)
    old = graph(old_entries, old_documents)
    entries, documents = indexed(after)
    last = KnownCalls(old.calls, old.unresolved_calls, old.file_imports, call_inputs("s", old_entries), call_inputs("s", entries))
    whole = graph(entries, documents)
    again = chunks_to_resolve(last, documents, whole.file_imports)
    return whole, graph(entries, documents, last), again


def same(a: RepoGraph, b: RepoGraph) -> bool:
    return (a.calls, a.callers, a.unresolved_calls) == (b.calls, b.callers, b.unresolved_calls) and list(a.callers) == list(b.callers)


BASE = {
    "pkg/__init__.py": "from .models import Model\n",
    "pkg/mixin.py": "class Mixin:\n    def ping(self):\n        return 1\n",
    "pkg/base.py": "class Base:\n    def run(self):\n        return 2\n",
    "pkg/models.py": dedent(
        """
        from .base import Base


        class Model(Base):
            def save(self):
                return self.run()
        """
    ),
    "pkg/transport.py": "class Wire:\n    def send(self):\n        return 3\n\n\nclass Radio:\n    def send(self):\n        return 4\n",
    "pkg/client.py": dedent(
        """
        from .transport import Wire


        class Client:
            def __init__(self):
                self.link = Wire()
        """
    ),
    "pkg/use.py": dedent(
        """
        from .models import Model
        from .client import Client


        def go():
            m = Model()
            m.ping()
            m.save()
            return m.run()


        def talk():
            c = Client()
            return c.link.send()
        """
    ),
    "main.py": dedent(
        """
        import pkg


        def start():
            pkg.Model().save()
            return helper()


        def helper_user():
            return unrelated()
        """
    ),
    "tools.py": "def helper():\n    return 5\n\n\ndef unrelated():\n    return 6\n",
    "pkg/other.py": "class Model:\n    def load(self):\n        return 9\n",
}

EDITS = {
    "a base class gains a base": {"pkg/base.py": "from .mixin import Mixin\n\n\nclass Base(Mixin):\n    def run(self):\n        return 2\n"},
    "a method is removed": {"pkg/base.py": "class Base:\n    pass\n"},
    "an attribute's class changes": {"pkg/client.py": BASE["pkg/client.py"].replace("Wire", "Radio")},
    "a re-export moves": {"pkg/__init__.py": "from .other import Model\n"},
    "a second definition of a name": {"extra.py": "def helper():\n    return 7\n"},
    "a file goes": {"tools.py": None},
    "a function is added": {"tools.py": BASE["tools.py"] + "\n\ndef added():\n    return go()\n"},
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_rebuild_resolves_what_resolving_everything_does(edit: str) -> None:
    after = {**BASE, **EDITS[edit]}
    after = {path: text for path, text in after.items() if text is not None}
    whole, kept, again = rebuilt(BASE, after)
    assert same(whole, kept)
    assert again is not None


def test_an_edit_resolves_its_file_and_what_names_its_definitions() -> None:
    after = {**BASE, "pkg/mixin.py": BASE["pkg/mixin.py"] + "\n\ndef lonely():\n    return 8\n"}
    whole, kept, again = rebuilt(BASE, after)
    assert same(whole, kept)
    own = {d.chunk.id for d in indexed({"pkg/mixin.py": after["pkg/mixin.py"]})[1]}
    assert again == own | {"pkg/use.py#go"}  # `m.ping()`: the name of a definition there


def test_the_edits_change_the_graph() -> None:
    """Each edit above changes some answer: the tests compare graphs that differ from the last."""
    old = graph(*indexed(BASE))
    for edit, files in EDITS.items():
        after = {path: text for path, text in {**BASE, **files}.items() if text is not None}
        new = graph(*indexed(after))
        assert (new.calls, new.unresolved_calls) != (old.calls, old.unresolved_calls), edit


def test_other_settings_resolve_everything() -> None:
    entries, documents = indexed(BASE)
    old = graph(entries, documents)
    last = KnownCalls(old.calls, old.unresolved_calls, old.file_imports, call_inputs("a", entries), call_inputs("b", entries))
    assert chunks_to_resolve(last, documents, old.file_imports) is None
    none_kept = KnownCalls(old.calls, old.unresolved_calls, old.file_imports, CallInputs(), call_inputs("a", entries))
    assert chunks_to_resolve(none_kept, documents, old.file_imports) is None


def test_edits_of_this_package_rebuild_the_whole_graph() -> None:
    """On real code (this package's understanding/ and search/): a definition added where
    many names mean it, a class renamed, a file removed."""
    files = {
        file.relative_to(PACKAGE.parent).as_posix(): file.read_text(encoding="utf-8")
        for file in sorted(PACKAGE.glob("understanding/*.py")) + sorted(PACKAGE.glob("search/*.py"))
    }
    calls = "refdoc_site/understanding/calls.py"
    gone = "refdoc_site/search/members.py"
    edits = [
        {"refdoc_site/understanding/roles.py": files["refdoc_site/understanding/roles.py"] + "\n\ndef resolve_call(x):\n    return x\n"},
        {calls: files[calls].replace("class CallResolver(", "class CallFinder(")},
        {gone: None},
    ]
    for edit in edits:
        after = {path: text for path, text in {**files, **edit}.items() if text is not None}
        whole, kept, again = rebuilt(files, after)
        assert same(whole, kept)
        assert again is not None and whole.calls != graph(*indexed(files)).calls
