"""Names first: a query that is a definition's name ranks that definition first, and public
definitions rank above private and dunder ones on equal scores."""

from __future__ import annotations

import pytest
from helpers import stored_document, write_repo

from refdoc_site.cli import main
from refdoc_site.core.records import ChunkKind
from refdoc_site.core.store import Store
from refdoc_site.search.embed import default_embedder
from refdoc_site.search.names import match_order, name_key, query_name
from refdoc_site.search.ranking import SearchIndex

# `Context` is named in many places; word scores alone put the helpers that repeat it
# (and its dunder method) above the class itself.
SOURCES = {
    "cli/core.py": '''
        class Context:
            """Holds the state of one invocation."""

            def __enter__(self):
                """Enter the context: push this context so nested context lookups find the context."""
                push_context(self)
                return self

            def invoke(self, callback):
                """Call a callback inside this context."""
                return callback(self)


        def push_context(context: Context) -> None:
            """Push a context on the context stack; the current context is the last pushed context."""
            CONTEXT_STACK.append(context)


        def make_context(name: str) -> Context:
            """Make a new context: a Context for the command, the context of every context lookup."""
            return Context()


        class Command:
            def invoke(self, context: Context):
                """Run the command's callback in a context."""
                return context.invoke(self.callback)
    ''',
    "cli/termui.py": '''
        def progressbar(items):
            """Show a bar that fills as the items are processed."""
            return ProgressBar(items)


        class ProgressBar:
            def __enter__(self):
                """Start drawing the progress bar: the bar, its progress and the progress label."""
                return self

            def _render_progress(self):
                """Draw the bar of the progress bar with the progress so far."""
    ''',
}


@pytest.fixture(scope="module")
def name_index(tmp_path_factory) -> SearchIndex:
    repo = write_repo(tmp_path_factory.mktemp("names") / "repo", SOURCES)
    assert main(["index", str(repo)]) == 0
    return SearchIndex.build(Store(repo / ".refdoc").load().documents)


def ranked(index: SearchIndex, query: str) -> list[str]:
    return [hit.symbol for hit in index.search(query, 10, "fused", default_embedder())]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("Context", "Context"),
        ("context", "Context"),
        ("  cli.Context  ", "Context"),
        ("core.Context", "Context"),
        ("Context.invoke", "Context.invoke"),
        ("cli.core.Context.invoke()", "Context.invoke"),
        ("progress bar", "progressbar"),
        ("ProgressBar", "ProgressBar"),
        ("make context", "make_context"),
    ],
)
def test_a_definitions_name_puts_it_first(name_index: SearchIndex, query: str, first: str) -> None:
    assert ranked(name_index, query)[0] == first


def test_a_name_shared_by_several_definitions_lists_them_all_before_the_rest(name_index: SearchIndex) -> None:
    hits = ranked(name_index, "invoke")
    assert set(hits[:2]) == {"Context.invoke", "Command.invoke"}


def test_the_class_comes_before_a_function_of_the_same_name_spelled_otherwise(name_index: SearchIndex) -> None:
    # progressbar and ProgressBar both spell `progress bar`; typed as the class, the class wins.
    assert ranked(name_index, "ProgressBar")[:2] == ["ProgressBar", "progressbar"]
    assert ranked(name_index, "progressbar")[:2] == ["progressbar", "ProgressBar"]


def test_a_description_is_no_name_lookup() -> None:
    assert query_name("push a context on the stack") is None
    assert query_name("設定ファイル") is None
    assert query_name("complete_var _COMPLETE") is None
    assert query_name("Context.invoke()") == ("Context", "invoke")
    assert query_name("progress bar") == ("progressbar",)


def test_names_compare_without_case_and_inner_underscores_but_keep_privacy() -> None:
    assert name_key("Pass_Context") == name_key("passcontext")
    assert name_key("_echo") != name_key("echo")
    assert name_key("__init__") == name_key("__INIT")


def test_match_order_needs_the_qualifiers_in_the_owners_or_the_path() -> None:
    assert match_order(("click", "Context"), "Context", "click/core.py", "class") == (0, 0, 0, 0)
    assert match_order(("flask", "Context"), "Context", "click/core.py", "class") is None
    assert match_order(("Context",), "Context", "click/core.py", "module") is None
    # `invoke` names Context.invoke only in part; a private owner ranks it later still.
    assert match_order(("invoke",), "Context.invoke", "click/core.py", "method") == (1, 0, 0, 2)
    assert match_order(("invoke",), "_Runner.invoke", "click/core.py", "method") == (1, 1, 0, 2)


@pytest.mark.parametrize("hidden", ["_cleanup", "__cleanup__"])
def test_on_equal_scores_public_ranks_above_private_and_dunder(hidden: str) -> None:
    body = "def {}(cache):\n    cache.evict_stale_entries()\n"
    # The private one comes first in the index, so only the tie-break can put it second.
    documents = [
        stored_document("store/a.py", hidden, 1, 2, content=body.format(hidden)),
        stored_document("store/b.py", "cleanup", 1, 2, content=body.format("cleanup")),
    ]
    hits = SearchIndex.build(documents).search("evict stale entries", 5, "sparse")
    assert hits[0].score == pytest.approx(hits[1].score)
    assert [hit.symbol for hit in hits] == ["cleanup", hidden]


def test_a_dotted_name_ranks_the_definition_above_code_that_only_uses_it() -> None:
    documents = [
        stored_document("pkg/a.py", "Widget", 1, 3, kind=ChunkKind.CLASS, content="class Widget:\n    pass\n"),
        stored_document("pkg/b.py", "draw", 1, 2, content="def draw():\n    pkg.Widget(pkg.Widget(pkg.Widget()))\n"),
    ]
    index = SearchIndex.build(documents)
    assert index.search("pkg.Widget", 5, "sparse")[0].symbol == "draw"
    assert [hit.symbol for hit in index.search("pkg.Widget", 5, "fused")] == ["Widget", "draw"]
