"""Search in the CLI: query terms, sparse ranking, JSON hits, errors, evaluation metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace
from refdoc_site.search.evaluate import LabelledQuery, Scores, evaluate
from refdoc_site.search.ranking import (
    SearchIndex,
    identifier_parts,
    phrase_terms,
    query_terms,
    with_glossary,
)

SOURCES = {
    "accounts/users.py": '''
        def delete_user(user_id: int) -> None:
            """Erase an account and every session it owns."""
            sessions.drop(user_id)


        def create_user(name: str) -> int:
            """Register a new account."""
            return store.insert(name)
    ''',
    "billing/invoice.py": '''
        class InvoicePrinter:
            """Formats invoices as PDF."""

            def render_pdf(self, invoice) -> bytes:
                raise NotImplementedError("No such renderer")
    ''',
}


@pytest.fixture()
def indexed_repo(tmp_path: Path) -> Path:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["index", str(repo)]) == 0
    return repo


def test_identifiers_split_into_words() -> None:
    assert identifier_parts("parse_HTTPResponse2") == ["parse", "http", "response", "2"]
    assert query_terms("Delete the userAccount") == ["delete", "useraccount", "user", "account"]


def test_the_words_that_frame_a_question_are_no_terms(tmp_path: Path) -> None:
    """"How", "what happens when": a question's frame names nothing in the code, so a
    docstring that says "this happens when…" is no match for it (flask's
    `FormDataRoutingRedirect` was first for "what happens when a request comes in")."""
    assert query_terms("what happens when a request comes in") == ["request", "comes"]
    assert query_terms("How does the router match a path?") == ["router", "match", "path"]
    repo = write_repo(tmp_path / "repo", {"app.py": '''
        def redirect_warning(request):
            """This happens when a redirect would drop the form data."""


        def handle_request(request):
            """Dispatch an incoming request to its view."""
    '''})
    assert main(["index", str(repo)]) == 0
    index = SearchIndex.build(Workspace.create(repo, Config()).store.load().documents)
    assert index.search("what happens when a request comes in", 2, "sparse")[0].symbol == "handle_request"


def test_japanese_terms_gain_their_english_words_longest_entry_first() -> None:
    # 設定ファイル is one entry, longer than 設定 + ファイル; particles have none.
    assert with_glossary("設定ファイルを読み込む") == "設定ファイルを読み込む config configuration file read load"
    assert with_glossary("delete the user") == "delete the user"
    assert with_glossary("ほげほげ") == "ほげほげ"


def test_a_japanese_query_finds_english_code_by_keyword(indexed_repo: Path, capsys) -> None:
    assert main(["query", "ユーザーを削除する関数", str(indexed_repo), "--json", "--mode", "sparse"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["symbol"] == "delete_user"


def test_query_json_lists_hits_with_symbol_and_lines(indexed_repo: Path, capsys) -> None:
    assert main(["query", "delete_user", str(indexed_repo), "--json", "--top", "3"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["symbol"] == "delete_user"
    assert hits[0]["path"] == "accounts/users.py"
    assert set(hits[0]) == {"path", "symbol", "kind", "start_line", "end_line", "score"}
    assert hits[0]["start_line"] == 1 and hits[0]["end_line"] == 3


def test_error_message_text_finds_the_method(indexed_repo: Path, capsys) -> None:
    assert main(["query", "No such renderer", str(indexed_repo), "--json", "--mode", "sparse"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["symbol"] == "InvoicePrinter.render_pdf"


def test_no_match_is_said_plainly(indexed_repo: Path, capsys) -> None:
    assert main(["query", "zebra quantum", str(indexed_repo), "--mode", "sparse"]) == 0
    assert "no matches for 'zebra quantum'" in capsys.readouterr().out
    assert main(["query", "zebra quantum", str(indexed_repo)]) == 0
    out = capsys.readouterr().out
    if "nearest by meaning" not in out:  # without the shipped model the ranking is keyword-only
        assert "no matches for 'zebra quantum'" in out


@pytest.mark.parametrize("text, message", [("   ", "query: empty"), ("x" * 1001, "more than 1000")])
def test_empty_or_huge_query_is_refused(indexed_repo: Path, capsys, text: str, message: str) -> None:
    assert main(["query", text, str(indexed_repo)]) == 2
    assert message in capsys.readouterr().err


def test_query_before_index_says_what_to_run(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "empty", {"a.py": "x = 1\n"})
    assert main(["query", "anything", str(repo)]) == 2
    assert "run `refdoc-site index` first" in capsys.readouterr().err


def test_windows_of_one_function_collapse_into_one_hit(tmp_path: Path) -> None:
    body = "\n".join(f"    total += compute_{i}(value)" for i in range(120))
    repo = write_repo(tmp_path / "repo", {"long.py": f"def long_function(value):\n    total = 0\n{body}\n    return total\n"})
    assert main(["index", str(repo), "--chunk-size", "100", "--overlap", "10"]) == 0
    from refdoc_site.core.store import Store

    documents = Store(repo / ".refdoc").load().documents
    assert sum(d.chunk.symbol == "long_function" for d in documents) > 1
    hits = SearchIndex.build(documents).search("compute total value", top=10, mode="sparse")
    assert [h.symbol for h in hits].count("long_function") == 1


def test_metrics_count_rank_of_first_relevant_hit(indexed_repo: Path) -> None:
    from refdoc_site.core.store import Store

    index = SearchIndex.build(Store(indexed_repo / ".refdoc").load().documents)
    queries = [
        LabelledQuery("q1", "delete_user", "keyword", frozenset({("accounts/users.py", "delete_user")})),
        LabelledQuery("q2", "zebra quantum", "keyword", frozenset({("accounts/users.py", "create_user")})),
    ]
    scores = evaluate(index, queries, "sparse")["overall"]
    assert (scores.count, scores.mrr, scores.recall_1, scores.recall_10) == (2, 0.5, 0.5, 0.5)


def test_scores_average_reciprocal_ranks() -> None:
    scores = Scores()
    for rank in (1, 2, None, 11):
        scores.add(rank)
    assert scores.mrr == pytest.approx((1 + 0.5) / 4)
    assert scores.recall_10 == 0.5


def test_on_equal_evidence_a_function_outranks_a_markdown_section(tmp_path: Path) -> None:
    from refdoc_site.search.embed import default_embedder

    embedder = default_embedder()
    if embedder is None:
        pytest.skip("the embedding model is not shipped in this checkout")
    repo = write_repo(tmp_path / "repo", {
        "notes.md": "# Purging\n\nPurge stale sessions from the cache.\n",
        "store/cache.py": 'def evict(cache):\n    """Purge stale sessions from the cache."""\n    cache.clear()\n',
    })
    assert main(["index", str(repo)]) == 0
    from refdoc_site.core.store import Store

    documents = Store(repo / ".refdoc").load().documents
    hits = SearchIndex.build(documents).search("purge stale sessions from the cache", 5, "fused", embedder)
    assert [h.kind for h in hits[:2]] == ["function", "section"], hits


def test_a_quoted_message_finds_the_code_that_says_it(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", {
        "files.py": (
            'def open_file(path):\n    """Open a file path for reading, or say it cannot."""\n    return open(path)\n\n\n'
            'def load(name):\n    if not name:\n        raise ValueError("cannot open a file without a name")\n    return name\n'
        ),
    })
    assert phrase_terms("Cannot open a file") == ["cannot_open", "open_a", "a_file"]
    assert main(["index", str(repo)]) == 0
    capsys.readouterr()
    assert main(["query", "cannot open a file without a name", str(repo), "--json", "--mode", "sparse"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["symbol"] == "load"


@pytest.mark.parametrize(("query", "kind"), [("the class that renders pages", "class"), ("the function that renders pages", "function")])
def test_a_query_that_names_a_kind_lifts_chunks_of_that_kind(tmp_path: Path, query: str, kind: str) -> None:
    from refdoc_site.core.store import Store
    from refdoc_site.search.embed import default_embedder

    embedder = default_embedder()
    if embedder is None:
        pytest.skip("the embedding model is not shipped in this checkout")
    repo = write_repo(tmp_path / "repo", {
        "pages.py": (
            # The function is no member of the class: a class's vector reads its members' docstrings.
            'class PageRenderer:\n    """Renders pages."""\n\n    style = "plain"\n\n\n'
            'def render_pages(pages):\n    """Render each of the pages and return the rendered pages."""\n    return [p.upper() for p in pages]\n'
        ),
    })
    assert main(["index", str(repo)]) == 0
    hits = SearchIndex.build(Store(repo / ".refdoc").load().documents).search(query, 5, "fused", embedder)
    assert hits[0].kind == kind, hits


