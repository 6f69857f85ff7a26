"""Messages first: a query whose words a chunk's string literal holds verbatim ranks that
chunk above what the vectors prefer (ranking.py `sparse_matches`, matches.py `messages_first`)."""

from __future__ import annotations

import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core.store import Store
from refdoc_site.search.embed import default_embedder
from refdoc_site.search.ranking import SearchIndex

SOURCES = {
    "views/finder.py": '''
        def lookup_view(name, folders):
            """Look up a view: find the view file for a name in the view folders."""
            for folder in folders:
                view = folder.find_view(name)
                if view:
                    return view
            return None


        def view_lookup_table(folders):
            """Map each view name to the view file that a lookup of it finds."""
            return {name: lookup_view(name, folders) for name in names(folders)}
    ''',
    "app/render.py": '''
        def render(app, name, options):
            """Render a template with the application's options."""
            template = app.cache.get(name) or app.load(name)
            if template is None:
                raise LookupError("Failed to lookup view " + repr(name) + " in the views directory")
            return template.render(options)
    ''',
}


@pytest.fixture(scope="module")
def message_index(tmp_path_factory) -> SearchIndex:
    repo = write_repo(tmp_path_factory.mktemp("messages") / "repo", SOURCES)
    assert main(["index", str(repo)]) == 0
    return SearchIndex.build(Store(repo / ".refdoc").load().documents)


def symbols(index: SearchIndex, positions: set[int]) -> list[str]:
    return sorted(index.documents[p].chunk.symbol for p in positions)


def test_the_chunk_holding_every_word_pair_of_the_query_is_a_message_match(message_index: SearchIndex) -> None:
    assert symbols(message_index, message_index.sparse_matches("Failed to lookup view").messages) == ["render"]
    assert symbols(message_index, message_index.sparse_matches("failed to LOOKUP view.").messages) == ["render"]


@pytest.mark.parametrize("query", [
    "Failed to find view",  # a pair the literal does not hold
    "lookup view",  # a single pair: too short to tell a message from two words
    "view lookup failed",  # the words, not in the literal's order
])
def test_a_query_the_literal_does_not_hold_in_order_is_no_message_match(message_index: SearchIndex, query: str) -> None:
    assert message_index.sparse_matches(query).messages == set()


def test_a_pasted_message_puts_the_code_that_says_it_first(message_index: SearchIndex, monkeypatch) -> None:
    import refdoc_site.search.ranking as ranking

    embedder = default_embedder()
    if embedder is None:
        pytest.skip("the embedding model is not shipped in this checkout")
    query = "Failed to lookup view"
    assert message_index.search(query, 5, "fused", embedder)[0].symbol == "render"
    # Without the rule the fusion puts the functions named after a view lookup first: the
    # test holds only because of it.
    shared = ranking.settings()
    patched = {**shared, "clauses": {**shared["clauses"], "message_min_pairs": 99}}
    monkeypatch.setattr(ranking, "settings", lambda: patched)
    assert message_index.search(query, 5, "fused", embedder)[0].symbol != "render"
    # The BM25 baseline is left as it is.
    monkeypatch.undo()
    sparse = message_index.search(query, 5, "sparse")
    assert [h.score for h in sparse] == sorted((h.score for h in sparse), reverse=True)
