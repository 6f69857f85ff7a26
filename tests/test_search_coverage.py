"""Coverage: the sparse side of a description is scaled by the share of its words a chunk
holds (matches.py `SparseMatches`), so one rare word repeated does not outrank a chunk that
says most of what was asked."""

from __future__ import annotations

import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core.store import Store
from refdoc_site.search.matches import SparseMatches
from refdoc_site.search.ranking import SearchIndex

SOURCES = {
    "sessions/purge.py": '''
        def purge(store):
            """Remove old entries from the session cache."""
            for key in list(store):
                if store.is_stale(key):
                    del store[key]
    ''',
    "sessions/stale.py": '''
        def stale(entry):
            """Stale: whether the entry is stale."""
            return entry.stale
    ''',
    # Many chunks say the other words of the query, so that "stale" is its one rare word.
    **{
        f"sessions/cache_{n}.py": f'''
            def remove_entries_{n}(session_cache, entries):
                """Remove the given entries from the session cache, number {n}."""
                for entry in entries:
                    session_cache.remove(entry)
        '''
        for n in range(24)
    },
}


@pytest.fixture(scope="module")
def coverage_index(tmp_path_factory) -> SearchIndex:
    repo = write_repo(tmp_path_factory.mktemp("coverage") / "repo", SOURCES)
    assert main(["index", str(repo)]) == 0
    return SearchIndex.build(Store(repo / ".refdoc").load().documents)


def position(index: SearchIndex, symbol: str) -> int:
    return next(p for p, d in enumerate(index.documents) if d.chunk.symbol == symbol)


def test_a_description_is_scored_by_the_share_of_its_words_a_chunk_holds(coverage_index: SearchIndex, monkeypatch) -> None:
    matches = coverage_index.sparse_matches("remove stale entries from the session cache")
    purge, stale = position(coverage_index, "purge"), position(coverage_index, "stale")
    # remove, stale, entri, session, cach: the purge function holds all five
    assert matches.coverage[purge] == 1.0
    assert 0 < matches.coverage[stale] < 1
    # BM25 alone prefers the chunk that repeats the one word; scaled, the one that says it all wins.
    assert matches.scores[stale] > matches.scores[purge]
    covered = matches.covered(1)
    assert covered[purge] > covered[stale]
    assert coverage_index.search("remove stale entries from the session cache", 3, "fused")[0].symbol == "purge"
    # Switched off, the fusion follows BM25 and the one-word chunk comes first.
    import refdoc_site.search.ranking as ranking

    shared = ranking.settings()
    monkeypatch.setattr(ranking, "settings", lambda: {**shared, "fusion": {**shared["fusion"], "coverage_power": 0}})
    assert coverage_index.search("remove stale entries from the session cache", 3, "fused")[0].symbol == "stale"


@pytest.mark.parametrize("query", ["stale entries", "session cache purge", "stale clock"])
def test_a_short_query_matched_by_prefix_and_typo_is_not_scaled(coverage_index: SearchIndex, query: str) -> None:
    assert coverage_index.sparse_matches(query).coverage == {}


def test_covered_leaves_the_scores_when_there_is_nothing_to_scale() -> None:
    scores = {0: 2.0, 1: 1.0}
    assert SparseMatches(scores, set(), {}).covered(1) is scores
    assert SparseMatches(scores, set(), {0: 0.5, 1: 1.0}).covered(0) is scores
    assert SparseMatches(scores, set(), {0: 0.5, 1: 1.0}).covered(2) == {0: 0.5, 1: 1.0}


def test_a_japanese_word_counts_once_held_by_any_of_its_english_words(coverage_index: SearchIndex) -> None:
    typed = "古い項目をセッションの cache から消す"
    alternatives = [["stale", "old"], ["entries", "items"], ["session"], ["remove", "delete", "purge"]]
    text = typed + " " + " ".join(word for words in alternatives for word in words)
    purge = position(coverage_index, "purge")
    # the typed `cache` and the four Japanese words: the purge function holds each of them
    assert coverage_index.sparse_matches(text, typed, alternatives).coverage[purge] == 1.0
    # counted word by word, the synonyms it does not use (items, delete) would count against it
    assert coverage_index.sparse_matches(text, typed).coverage[purge] < 1.0
