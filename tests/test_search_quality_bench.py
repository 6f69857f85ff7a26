"""The labelled sets `benchmarks/search_quality.py` scores, and how it pools them."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from search_quality import EVAL_DIR, PACKAGES, SETS, pooled

from refdoc_site.search.evaluate import Scores, load_queries

FULL_MIX = {"paraphrase": 15, "keyword": 10, "concept": 10, "japanese": 5}


def test_every_set_loads_and_is_about_a_pinned_package() -> None:
    ids: list[str] = []
    for labelled in SETS:
        queries = load_queries(EVAL_DIR / labelled.file)
        assert queries, labelled.file
        package = PACKAGES[labelled.corpus]
        assert len(package.sha256) == (40 if package.registry == "git" else 64)
        ids += [query.id for query in queries]
    assert len(ids) == len(set(ids))


REPOSITORY_SETS = {"gin", "cobra", "ky", "semver"}
"""Written for issue 23 (eval/README.md): 20 to 40 queries of all four kinds each."""


QUESTION_SETS = {"chi-questions"}
"""Questions as a newcomer asks them (session 21): mostly `question`, a few Japanese."""


def test_the_general_sets_have_the_standard_mix_of_kinds() -> None:
    for labelled in SETS:
        kinds = Counter(query.kind for query in load_queries(EVAL_DIR / labelled.file))
        if labelled.name in QUESTION_SETS:
            assert set(kinds) == {"question", "japanese"} and kinds["question"] >= 30, labelled.name
        elif labelled.name in REPOSITORY_SETS:
            assert set(kinds) == set(FULL_MIX) and 20 <= sum(kinds.values()) <= 40, labelled.name
        elif labelled.name != "httpx-ja":
            assert kinds == FULL_MIX, labelled.name


def test_held_out_sets_cover_python_javascript_and_typescript() -> None:
    held_out = {labelled.language for labelled in SETS if not labelled.tuned}
    assert {"Python", "JavaScript", "TypeScript", "Go", "Rust"} <= held_out


def test_pooled_scores_weigh_each_query_once() -> None:
    def scores(ranks: list[int | None]) -> Scores:
        total = Scores()
        for rank in ranks:
            total.add(rank)
        return total

    results = {
        "a": {"fused": {"keyword": scores([1, 1])}, "bm25": {"keyword": scores([2, None])}},
        "b": {"fused": {"keyword": scores([None, 4])}, "bm25": {"keyword": scores([1, 1])}},
    }
    both = pooled(results, ["a", "b"])
    assert both["fused"]["keyword"].count == 4
    assert both["fused"]["keyword"].mrr == (1 + 1 + 0 + 0.25) / 4
    assert both["bm25"]["keyword"].recall_1 == 0.5
