"""Parity: the site's JavaScript ranking (under node, with lunr.js 2.3.9) returns the same
top 10 as the Python `query`, on an index of this repository's own code."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, index
from refdoc_site.search.embed import matching_embedder
from refdoc_site.search.ranking import SearchIndex, phrase_terms, query_terms
from refdoc_site.search.site_search import DATA_DIR, write_search_data

ROOT = Path(__file__).resolve().parent.parent
JS_DIR = ROOT / "tests" / "js"
QUERIES = [
    "parse the configuration file",
    "split a file into token windows with overlap",
    "delete_user",
    "which files are ignored by gitignore",
    "chunkAnchor",
    "render markdown pages through jinja templates",
    "write atomically through a temporary file",
    "strongly connected components of the module graph",
    "summarize a function from its docstring",
    "mkdocs build strict",
    "escape html in docstrings",
    "progress bar eta",
    "No such command",
    "callers and callees",
    "detect binary files with a NUL byte",
    "reciprocal rank",
    "identifier_parts camelCase",
    "minified",
    "lunr index serialise",
    "hierarchy json system summary",
    "ドキュメント",
    "設定ファイルを読み込んでオプションの既定値を決める関数",
    "一時ファイルに書き込んでから置き換える処理",
    "認証トークンを検証するミドルウェア",
    # katakana the glossary lacks, read by sound against the index's own terms
    "ウィンドウのオーバーラップ",
    "ミニファイされたスクリプト",
    "ステミングのパイプライン",
    "🙂 絵文字のあとのファイル名 parse_args",
    "the of and",
    "not a labelled query",
    "Azure OpenAI: no endpoint; set AZURE_OPENAI_ENDPOINT",
    "base class for the analyzers",
    "the function that splits identifiers",
    "identifier_parts query_terms",
    # names first: whole, any case, dotted through owners and folders, spelled in words
    "SearchIndex",
    "searchindex",
    "ranking.SearchIndex",
    "search.ranking.SearchIndex.search()",
    "search index",
    "__init__",
    "to_dict",
    "_collapse",
    # messages: every word pair of the query in one chunk's string literals
    "not a directory; pass the repository folder to document",
    "no indexed files; run refdoc-site index first",
    "user exists",
    "order not found",
    "Failed to parse the glossary",
    # asides: a test file's definitions weigh less unless the query asks for tests
    "names first query name",
    "tests of names first",
    "splits identifiers into parts",
]


def node_available() -> bool:
    return shutil.which("node") is not None and (JS_DIR / "node_modules" / "lunr").is_dir()


@pytest.fixture(scope="module")
def search_data(tmp_path_factory) -> tuple[Path, SearchIndex]:
    work = tmp_path_factory.mktemp("parity")
    repo = work / "repo"
    shutil.copytree(ROOT / "refdoc_site", repo / "refdoc_site")
    shutil.copytree(ROOT / "tests" / "fixtures" / "golden_repo", repo / "shop")
    (repo / "tests").mkdir()  # a test file beside the code: an aside (asides.py)
    shutil.copyfile(ROOT / "tests" / "test_search_names.py", repo / "tests" / "test_search_names.py")
    workspace = Workspace.create(repo, Config(), work / "store", work / "site")
    index(workspace)
    documents = workspace.store.load().documents
    docs = work / "docs"
    embedder = matching_embedder(workspace.store.load())
    write_search_data(documents, docs, embedder.directory if embedder else None)
    return docs / DATA_DIR, SearchIndex.build(documents)


def rank_in_node(data_dir: Path, queries: list[str], mode: str) -> list:
    queries_file = data_dir / "queries.json"
    queries_file.write_text(json.dumps(queries), encoding="utf-8")
    result = subprocess.run(
        ["node", str(JS_DIR / "rank.js"), str(data_dir), str(queries_file), mode],
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout)


@pytest.mark.skipif(not node_available(), reason="needs node and `npm install` in tests/js (scripts/test.sh does it)")
def test_javascript_ranking_matches_python(search_data) -> None:
    data_dir, python_index = search_data
    javascript = rank_in_node(data_dir, QUERIES, "sparse")
    compared = 0
    for query, js_hits in zip(QUERIES, javascript):
        py_hits = python_index.search(query, 10, "sparse")
        assert [(h["path"], h["symbol"]) for h in js_hits] == [(h.path, h.symbol) for h in py_hits], query
        for js_hit, py_hit in zip(js_hits, py_hits):
            assert js_hit["score"] == pytest.approx(py_hit.score, rel=1e-9, abs=1e-12), query
        compared += len(py_hits)
    assert compared > 100


def test_query_terms_match_javascript_on_tricky_text() -> None:
    if shutil.which("node") is None:
        pytest.skip("needs node")
    texts = ["No such command {name!r}.", "the of and", "KELVIN \u212a sign", "complete_var _COMPLETE", " os.path\tgetItem ",
             "parse_HTTPResponse2 getEditor", "X.prototype.m", "été naïve café", "the AND of", "a_b__c", "ABCDef ghiJKL", "数字123abc"]
    script = (
        "const S = require(process.argv[1]); const stop = require('fs').readFileSync(process.argv[2], 'utf-8').split(/\\s+/)"
        ".filter(Boolean).reduce((o, w) => (o[w] = true, o), {});"
        "process.stdout.write(JSON.stringify(JSON.parse(process.argv[3]).map(t => [S.queryTerms(t, stop), S.phraseTerms(t, stop)])));"
    )
    result = subprocess.run(
        ["node", "-e", script, str(ROOT / "refdoc_site/search/browser/refdoc-search.js"), str(ROOT / "refdoc_site/search/browser/stopwords.txt"), json.dumps(texts)],
        capture_output=True, text=True, check=True,
    )
    assert json.loads(result.stdout) == [[query_terms(text), phrase_terms(text)] for text in texts]


def test_glossary_expansion_matches_javascript() -> None:
    if shutil.which("node") is None:
        pytest.skip("needs node")
    from refdoc_site.search.japanese import glossary, with_glossary

    texts = ["設定ファイルを読み込む", "🙂一時ファイル🙂を削除", "plain ascii", "ｘ認証", "", "ユーザー名とパスワード"]
    longest = max(map(len, glossary()))
    script = (
        "const S = require(process.argv[1]); const g = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        f"process.stdout.write(JSON.stringify(g.texts.map(t => S.withGlossary(t, g.glossary, {longest}))));"
    )
    result = subprocess.run(
        ["node", "-e", script, str(ROOT / "refdoc_site/search/browser/refdoc-search.js")],
        input=json.dumps({"texts": texts, "glossary": glossary()}), capture_output=True, text=True, check=True,
    )
    assert json.loads(result.stdout) == [with_glossary(text) for text in texts]


def model_available() -> bool:
    from refdoc_site.search.embed import default_embedder

    return default_embedder() is not None


@pytest.mark.skipif(not node_available() or not model_available(), reason="needs node, tests/js packages and the shipped model")
def test_javascript_tokenizer_gives_the_python_ids_on_real_source() -> None:
    from refdoc_site.search.embed import default_embedder

    embedder = default_embedder()
    lines = []
    for path in sorted((ROOT / "refdoc_site").rglob("*.py")) + sorted((ROOT / "tests").glob("*.py")):
        lines.extend(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    lines += ["Café déjà vu, naïve FAÇADE!", "認証トークンを検証する", "emoji 🙂 and tabs\tand\u00a0nbsp", "x" * 150, "ｆｕｌｌｗｉｄｔｈ"]
    assert len(lines) > 2000
    script = (
        "const E = require(process.argv[1]); const fs = require('fs');"
        "const t = E.WordPieceTokenizer.fromText(fs.readFileSync(process.argv[2], 'utf-8'));"
        "const lines = JSON.parse(fs.readFileSync(0, 'utf-8'));"
        "process.stdout.write(JSON.stringify(lines.map(l => t.encode(l))));"
    )
    result = subprocess.run(
        ["node", "-e", script, str(ROOT / "refdoc_site/search/browser/refdoc-embed.js"), str(embedder.directory / "vocab.txt")],
        input=json.dumps(lines), capture_output=True, text=True, check=True,
    )
    javascript = json.loads(result.stdout)
    mismatches = [line for line, ids in zip(lines, javascript) if ids != embedder.tokenizer.encode(line)]
    assert not mismatches, mismatches[:5]


@pytest.mark.skipif(not node_available() or not model_available(), reason="needs node, tests/js packages and the shipped model")
def test_fused_javascript_ranking_matches_python(search_data) -> None:
    from refdoc_site.search.embed import default_embedder

    data_dir, python_index = search_data
    embedder = default_embedder()
    assert python_index.has_vectors
    javascript = rank_in_node(data_dir, QUERIES, "fused")
    for query, js_hits in zip(QUERIES, javascript):
        py_hits = python_index.search(query, 10, "fused", embedder)
        js_scores = [hit["score"] for hit in js_hits]
        py_scores = [hit.score for hit in py_hits]
        assert js_scores == pytest.approx(py_scores, abs=1e-6), query
        for position, (js_hit, py_hit) in enumerate(zip(js_hits, py_hits)):
            if (js_hit["path"], js_hit["symbol"]) != (py_hit.path, py_hit.symbol):
                # Only a near-tie may swap: float32 (numpy) and float64 (JS) query vectors.
                assert abs(js_scores[position] - py_scores[position]) < 1e-6, query


@pytest.mark.skipif(not node_available(), reason="needs node and `npm install` in tests/js (scripts/test.sh does it)")
def test_common_terms_are_left_out_alike(search_data, tmp_path, monkeypatch) -> None:
    """Large indexes drop their most common terms from sparse queries, on both sides."""
    import refdoc_site.search.ranking as search

    _, python_index = search_data
    shared = search.settings()
    patched = {**shared, "clauses": {**shared["clauses"], "common_term_min_chunks": 0, "common_term_share": 0.05}}
    monkeypatch.setattr(search, "settings", lambda: patched)
    index = SearchIndex.build(python_index.documents)
    assert len(index.common_terms) > 5
    write_search_data(index.documents, tmp_path)
    data_dir = tmp_path / DATA_DIR
    assert json.loads((data_dir / "config.json").read_text())["commonTerms"] == sorted(index.common_terms)
    javascript = rank_in_node(data_dir, QUERIES, "sparse")
    for query, js_hits in zip(QUERIES, javascript):
        py_hits = index.search(query, 10, "sparse")
        assert [(h["path"], h["symbol"]) for h in js_hits] == [(h.path, h.symbol) for h in py_hits], query


@pytest.mark.skipif(not node_available(), reason="needs node and `npm install` in tests/js (scripts/test.sh does it)")
def test_message_matches_and_coverage_are_found_alike(search_data) -> None:
    """The chunks holding a query as a message (messages first) and the share of a
    description's words each chunk holds (coverage) are the same in node."""
    from refdoc_site.search.japanese import glossary_words, with_glossary

    data_dir, python_index = search_data
    javascript = rank_in_node(data_dir, QUERIES, "matches")
    loanwords = python_index.loanwords
    python = [python_index.sparse_matches(with_glossary(q, loanwords), q, glossary_words(q, loanwords)) for q in QUERIES]
    for query, js, py in zip(QUERIES, javascript, python):
        assert js["messages"] == sorted(py.messages), query
        if py.coverage:
            assert {int(k): v for k, v in js["coverage"].items()} == py.coverage, query
        else:
            assert js["coverage"] is None, query
    assert sum(bool(py.messages) for py in python) >= 3
    assert sum(bool(py.coverage) for py in python) >= 5
    assert any(py.coverage for query, py in zip(QUERIES, python) if not query.isascii())
    assert any(0 < share < 1 for py in python for share in py.coverage.values())


FUZZY_QUERIES = [
    "aB" * 499,
    "klass_configuration",
    "parse the configuraton",
    "x" * 33 + " summarise",
    "documentationgeneratorconfigurations",
]


@pytest.mark.skipif(not node_available(), reason="needs node and `npm install` in tests/js (scripts/test.sh does it)")
def test_typo_matching_skips_long_terms_alike(search_data, monkeypatch) -> None:
    """Lunr's typo matching costs about the square of a term's length (a 1000-letter term,
    seconds of CPU in the server and the browser): both sides send it only terms of at most
    `fuzzy_max_length` letters, the same ones."""
    from lunr.query import Query

    import refdoc_site.search.ranking as search

    data_dir, python_index = search_data
    cap = search.settings()["clauses"]["fuzzy_max_length"]
    fuzzed: list[str] = []
    term = Query.term

    def recording(self, value, *args, **kwargs):
        if kwargs.get("edit_distance"):
            fuzzed.append(str(value))
        return term(self, value, *args, **kwargs)

    monkeypatch.setattr(Query, "term", recording)
    python = []
    for query in FUZZY_QUERIES:
        fuzzed.clear()
        python_index.search(query, 10, "sparse")
        python.append(sorted(set(fuzzed)))
    assert rank_in_node(data_dir, FUZZY_QUERIES, "fuzzy") == python
    assert all(len(fuzzy) <= cap for terms in python for fuzzy in terms), python
    assert "configuraton" in python[2] and "klass" in python[1] and python[3] == ["summarise"], python
