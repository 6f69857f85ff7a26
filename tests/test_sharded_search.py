"""A large site's search in pieces (site_shards.py, refdoc-shards.js): the JavaScript that
fetches only a query's pieces ranks as the Python `query` does over the whole index, the
keyword side exactly; the dense side reads the nearest clusters, as Python's
`approximate_probe` does, and stays close to the exhaustive answer."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import refdoc_site.search.ranking as ranking
from refdoc_site.search.site_search import DATA_DIR, write_search_data
from refdoc_site.search.site_shards import approximate_probe, key_name, name_bucket, read_partition, read_piece
from test_js_parity import JS_DIR, QUERIES, model_available, node_available

TYPO_QUERIES = ["konfiguration", "cnofiguration", "configuratoin", "summarise", "parse_argz", "lunrindex", "windows"]
ALL_QUERIES = QUERIES + TYPO_QUERIES
needs_node = pytest.mark.skipif(not node_available(), reason="needs node and `npm install` in tests/js (scripts/test.sh does it)")


@pytest.fixture(scope="module")
def sharded(search_data, tmp_path_factory) -> tuple[Path, ranking.SearchIndex]:
    """The parity fixture's chunks written in pieces, with shards small enough to be many."""
    from refdoc_site.search.embed import matching_embedder  # noqa: F401 (the fixture's model)

    whole_dir, python_index = search_data
    docs = tmp_path_factory.mktemp("sharded")
    shared = ranking.settings()
    small = {**shared, "shards": {**shared["shards"], "term_shard_bytes": 6000, "chunks_per_cluster": 32, "probe": 8}}
    patch = pytest.MonkeyPatch()
    patch.setattr(ranking, "settings", lambda: small)
    import refdoc_site.search.site_shards as site_shards

    patch.setattr(site_shards, "settings", lambda: small)
    try:
        config = json.loads((whole_dir / "config.json").read_text())
        model_dir = (whole_dir / "model") if config["model"] else None
        write_search_data(python_index.documents, docs, model_dir, shard_min_chunks=0)
    finally:
        patch.undo()
    return docs / DATA_DIR, python_index


from test_js_parity import search_data  # noqa: E402,F401 (the fixture, shared)


def rank(data_dir: Path, queries: list[str], mode: str) -> tuple[list, list]:
    queries_file = data_dir.parent / "queries.json"
    queries_file.write_text(json.dumps(queries), encoding="utf-8")
    result = subprocess.run(
        ["node", str(JS_DIR / "rank.js"), str(data_dir), str(queries_file), mode],
        capture_output=True, text=True, check=True, env={**os.environ, "FETCHED": "1"},
    )
    answer = json.loads(result.stdout)
    return answer["ranked"], answer["files"]


def test_the_site_is_written_in_pieces(sharded) -> None:
    data_dir, python_index = sharded
    config = json.loads((data_dir / "config.json").read_text())
    assert not (data_dir / "index.json").exists() and not (data_dir / "chunks.json").exists()
    shards = config["shards"]
    assert len(shards["keys"]) > 20 and shards["documents"] == len(python_index.documents)
    per, groups = shards["rowsPerBundle"], shards["rowRuns"][1::2]
    assert sum(shards["rowRuns"][0::2]) == len(python_index.documents)
    sizes = {}
    for position, document in enumerate(python_index.documents):  # a file's rows in one group, bundles of `per`
        sizes.setdefault(document.chunk.path, set()).add(groups[[i for i, s in enumerate(_starts(shards["rowRuns"])) if s <= position][-1]])
    assert all(len(found) == 1 for found in sizes.values())
    assert all(p.name.endswith(".json.gz") for p in (data_dir / "rows").iterdir()), "the JSON pieces are stored packed"
    rows_written = {p.name: len(read_piece(data_dir, f"rows/{p.name.removesuffix('.gz')}")) for p in (data_dir / "rows").iterdir()}
    assert sum(rows_written.values()) == len(python_index.documents) and max(rows_written.values()) <= per


def _starts(runs: list[int]) -> list[int]:
    return [sum(runs[0:i:2]) for i in range(0, len(runs), 2)]


def test_every_term_is_in_the_shard_its_longest_key_names(sharded) -> None:
    """The rule the browser looks a term up by: the longest key the term starts with;
    a prefix clause reads that key's shard and every key under the prefix."""
    data_dir, python_index = sharded
    shards = json.loads((data_dir / "config.json").read_text())["shards"]
    keys = shards["keys"]
    found: dict[str, int] = {}
    for number in range(len(keys)):
        for entry in read_piece(data_dir, f"terms/k{key_name(keys[number])}.json"):
            assert entry[0] not in found, entry[0]
            found[entry[0]] = number
    terms = {term for term, _ in python_index.serialized["invertedIndex"]}
    assert set(found) == terms
    for term, number in found.items():
        assert keys[number] == max((key for key in keys if term.startswith(key)), key=len), term
    typo_lists = {side: [] for side in ("prefix", "suffix")}
    for side, side_keys in shards["fuzzy"].items():
        for key in side_keys:
            typo_lists[side] += read_piece(data_dir, f"fuzzy/{side[0]}-{key_name(key)}.json")
    assert set(typo_lists["prefix"]) == set(typo_lists["suffix"]) == {t for t in terms if len(t) >= 4}


@needs_node
def test_sharded_keyword_ranking_is_the_python_ranking(sharded) -> None:
    """Exact, score for score: the terms a query's clauses reach are all fetched (typos at
    the first letters included, found through the word lists by last letters)."""
    data_dir, python_index = sharded
    javascript, _ = rank(data_dir, ALL_QUERIES, "sparse")
    compared = 0
    for query, js_hits in zip(ALL_QUERIES, javascript):
        py_hits = python_index.search(query, 10, "sparse")
        assert [(h["path"], h["symbol"]) for h in js_hits] == [(h.path, h.symbol) for h in py_hits], query
        assert [h["score"] for h in js_hits] == pytest.approx([h.score for h in py_hits], rel=1e-9, abs=1e-12), query
        compared += len(py_hits)
    assert compared > 100


@needs_node
def test_sharded_matches_and_typo_terms_are_the_python_ones(sharded) -> None:
    from refdoc_site.search.japanese import glossary_words, with_glossary

    data_dir, python_index = sharded
    javascript, _ = rank(data_dir, ALL_QUERIES, "matches")
    loanwords = python_index.loanwords
    for query, js in zip(ALL_QUERIES, javascript):
        py = python_index.sparse_matches(with_glossary(query, loanwords), query, glossary_words(query, loanwords))
        assert js["messages"] == sorted(py.messages), query
        assert ({int(k): v for k, v in js["coverage"].items()} if js["coverage"] else None) == (py.coverage or None), query


@needs_node
def test_a_query_fetches_only_its_pieces(sharded) -> None:
    data_dir, _ = sharded
    config = json.loads((data_dir / "config.json").read_text())
    _, files = rank(data_dir, ["summarise", "parse the configuration file", "SearchIndex"], "sparse")
    shards = len(config["shards"]["keys"])
    for fetched in files:
        terms = [name for name in fetched if name.startswith("terms/")]
        assert 0 < len(terms) <= shards // 4, fetched
        assert not any(name.startswith(("clusters/", "model/")) for name in fetched)
        assert len([name for name in fetched if name.startswith("rows/")]) <= 10


@pytest.mark.skipif(not node_available() or not model_available(), reason="needs node, tests/js packages and the shipped model")
def test_sharded_fused_ranking_is_the_python_ranking_over_the_same_clusters(sharded) -> None:
    from refdoc_site.search.embed import default_embedder

    data_dir, python_index = sharded
    config = json.loads((data_dir / "config.json").read_text())
    part = read_partition(data_dir, config["shards"])
    probe, rerank = config["shards"]["vectors"]["probe"], config["shards"]["vectors"]["rerank"]
    approximate = ranking.SearchIndex(python_index.documents, python_index.serialized, python_index.rows, python_index.scales, python_index.fields)
    approximate.dense_probe = approximate_probe(python_index, part, probe, rerank)
    embedder = default_embedder()
    javascript, files = rank(data_dir, ALL_QUERIES, "fused")
    overlap = []
    for query, js_hits, fetched in zip(ALL_QUERIES, javascript, files):
        py_hits = approximate.search(query, 10, "fused", embedder)
        js_scores, py_scores = [h["score"] for h in js_hits], [h.score for h in py_hits]
        assert js_scores == pytest.approx(py_scores, abs=1e-6), query
        for position, (js_hit, py_hit) in enumerate(zip(js_hits, py_hits)):
            if (js_hit["path"], js_hit["symbol"]) != (py_hit.path, py_hit.symbol):
                assert abs(js_scores[position] - py_scores[position]) < 1e-6, query
        assert len([name for name in fetched if name.startswith("clusters/")]) <= probe, query  # new ones: others cached
        assert len([name for name in fetched if name.startswith("exact/")]) <= rerank, query
        exhaustive = {(h.path, h.symbol) for h in python_index.search(query, 10, "fused", embedder)}
        if exhaustive:
            overlap.append(len(exhaustive & {(h.path, h.symbol) for h in py_hits}) / len(exhaustive))
    assert len([name for name in files[0] if name.startswith("clusters/")]) == probe
    # 8 of the fixture's clusters of 32 chunks: most of the exhaustive top 10 stays.
    assert sum(overlap) / len(overlap) > 0.8, overlap


def test_name_buckets_and_key_names_are_made_as_javascript_makes_them() -> None:
    if not node_available():
        pytest.skip("needs node")
    keys = ["searchindex", "_collapse", "__init__", "設定", "🙂x", ""]
    script = "const S = require(process.argv[1]); process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map(k => S.nameBucket(k, 97))));"
    result = subprocess.run(
        ["node", "-e", script, str(Path(ranking.ASSETS / "refdoc-shards.js")), json.dumps(keys)], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == [name_bucket(key, 97) for key in keys]
    script = "const S = require(process.argv[1]); process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map(S.keyName)));"
    result = subprocess.run(
        ["node", "-e", script, str(Path(ranking.ASSETS / "refdoc-shards.js")), json.dumps(keys)], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == [key_name(key) for key in keys]  # the names of the term shards and typo lists


def test_vocabulary_shards_are_keyed_as_javascript_keys_them(sharded, search_data) -> None:
    """Every word piece is in the shard its key names, with its own id."""
    if not node_available():
        pytest.skip("needs node")
    from refdoc_site.search.site_shards import vocab_key

    data_dir, _ = sharded
    model = json.loads((data_dir / "config.json").read_text())["shards"]["model"]
    if model is None:
        pytest.skip("the fixture has no model")
    pieces = ["the", "##ing", "##", "[UNK]", "é", "9x", "Zed", ""]
    script = "const S = require(process.argv[1]); process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map(S.vocabKey)));"
    result = subprocess.run(
        ["node", "-e", script, str(Path(ranking.ASSETS / "refdoc-shards.js")), json.dumps(pieces)], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == [vocab_key(piece) for piece in pieces] == ["t", "##", "##", "other", "other", "9", "other", "other"]
    ids = {}
    for number, key in enumerate(model["vocabShards"]):
        token_id = -1
        for line in (data_dir / f"model/vocab/{number}.txt").read_text(encoding="utf-8").splitlines():
            gap, piece = line.split("\t", 1)
            token_id += int(gap) + 1
            assert vocab_key(piece) == key
            ids.setdefault(piece, token_id)
    whole = (search_data[0] / "model" / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert len(ids) == len(set(whole)) and all(whole[ids[piece]] == piece for piece in ids)
