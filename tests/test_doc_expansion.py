"""Build-time text for search: a class reads its members, a chunk gets the model's words.

Both are computed once when the chunks are embedded and stored with them; the browser
reads the same index, so nothing changes at query time.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from helpers import stored_document, write_repo

from refdoc_site.cli import main
from refdoc_site.core.records import ChunkKind
from refdoc_site.core.serial import from_json, to_json
from refdoc_site.core.store import Store
from refdoc_site.search.embed import default_embedder, document_text, embed_documents
from refdoc_site.search.members import first_sentence, member_sentences
from refdoc_site.search.model_words import MODEL_WORDS, nearest_words, word_table
from refdoc_site.search.ranking import SearchIndex, sparse_fields, stem, terms

RUNNER = (
    'class Runner:\n    """Holds settings for tests."""\n\n'
    '    def invoke(self, cli):\n        """Invokes a command in-process and captures its output. Returns a result."""\n        return cli()\n\n'
    '    def isolation(self):\n        """Swaps the standard streams for buffers."""\n        return None\n'
)


@pytest.fixture(scope="module")
def embedder():
    model = default_embedder()
    if model is None:
        pytest.skip("the embedding model is not shipped in this checkout")
    return model


def documented(path: str, symbol: str, kind: ChunkKind, docstring: str):
    document = stored_document(path, symbol, 1, 2, kind=kind)
    return dataclasses.replace(document, chunk=dataclasses.replace(document.chunk, docstring=docstring))


def runner_documents() -> list:
    invoke = "Invokes a command in-process and captures its output.\n\nReturns a result."
    return [
        documented("runner.py", "Runner", ChunkKind.CLASS, "Holds settings for tests."),
        documented("runner.py", "Runner.invoke", ChunkKind.METHOD, invoke),
        documented("runner.py", "Runner.isolation", ChunkKind.METHOD, "Swaps the standard streams\nfor buffers."),
        documented("runner.py", "Runner.invoke", ChunkKind.METHOD, invoke),
        documented("other.py", "Runner.close", ChunkKind.METHOD, "Lives in another file."),
        documented("runner.py", "run", ChunkKind.FUNCTION, "Runs."),
    ]


def test_first_sentence_is_one_line_up_to_the_first_full_stop() -> None:
    assert first_sentence("Opens the\nfile. Then reads it.") == "Opens the file."
    assert first_sentence("No full stop\n  at all") == "No full stop at all"


def test_a_class_gets_its_members_first_sentences_once_in_the_documents_order() -> None:
    runner, invoke, isolation = runner_documents()[:3]
    sentences = member_sentences(runner_documents())
    assert sentences == {("runner.py", "Runner"): "Invokes a command in-process and captures its output. Swaps the standard streams for buffers."}
    assert member_sentences([runner, isolation, invoke])[("runner.py", "Runner")].startswith("Swaps")


def copies(documents: list) -> list:
    return [dataclasses.replace(d) for d in documents]


def test_a_class_vector_moves_toward_its_members_even_embedded_alone(embedder) -> None:
    documents = runner_documents()
    whole, alone, bare = copies(documents), copies(documents[:1]), copies(documents[:1])
    embed_documents(whole, embedder)
    embed_documents(alone, embedder, context=documents)
    embed_documents(bare, embedder)
    assert np.allclose(alone[0].embedding, whole[0].embedding)
    assert not np.allclose(bare[0].embedding, whole[0].embedding)
    assert np.isclose(np.linalg.norm(whole[0].embedding), 1.0, atol=1e-4)
    members = embedder.embed(["Invokes a command in-process and captures its output. Swaps the standard streams for buffers."])[0]
    assert float(np.dot(whole[0].embedding, members)) > float(np.dot(bare[0].embedding, members))
    method_alone = copies(documents[1:2])
    embed_documents(method_alone, embedder)
    assert np.allclose(method_alone[0].embedding, whole[1].embedding), "only classes read their members"


def test_model_words_are_near_the_vector_absent_from_the_text_and_deterministic(embedder) -> None:
    table = word_table(embedder)
    assert all(word.isalpha() and word.isascii() and len(word) >= 3 for word in table.words)
    text = "def read_config(path)\n\nRead the settings file and return its values."
    vector = embedder.embed([text])[0]
    words = nearest_words(table, vector, text)
    assert len(words) == MODEL_WORDS and len(set(words)) == MODEL_WORDS
    assert not set(words) & set(terms(text))
    scores = {word: float(np.dot(table.vectors[table.words.index(word)], vector)) for word in words}
    assert [scores[w] for w in words] == sorted(scores.values(), reverse=True)
    assert words == nearest_words(table, vector, text)
    assert nearest_words(table, np.zeros_like(vector), text) == []


def test_stored_model_words_are_indexed_in_the_notes_and_survive_the_store(embedder) -> None:
    documents = copies(runner_documents())
    embed_documents(documents, embedder)
    invoke = documents[1]
    assert invoke.model_words == nearest_words(word_table(embedder), np.asarray(embedder.embed([document_text(invoke)])[0]), document_text(invoke))
    assert {stem(w) for w in invoke.model_words} <= set(sparse_fields(invoke)["notes"])
    assert from_json(type(invoke), to_json(invoke)).model_words == invoke.model_words
    written = to_json(invoke)
    del written["modelWords"]
    assert from_json(type(invoke), written).model_words == [], "a store written before keeps loading"
    assert "modelWords" not in to_json(documented("a.py", "f", ChunkKind.FUNCTION, "")), "none written when empty"


def test_a_class_is_found_by_its_members_words_the_same_on_every_build(tmp_path: Path, embedder) -> None:
    repo = write_repo(tmp_path / "repo", {"runner.py": RUNNER, "other.py": 'class Settings:\n    """Holds settings for tests."""\n'})
    assert main(["index", str(repo)]) == 0
    documents = Store(repo / ".refdoc").load().documents
    query = "test helper class that swaps the standard streams and captures output"
    first = SearchIndex.build(documents).search(query, 5, "dense", embedder)
    symbols = [hit.symbol for hit in first]
    assert symbols.index("Runner") < symbols.index("Settings"), first
    assert main(["index", str(repo), "--store", str(tmp_path / "again")]) == 0
    rebuilt = Store(tmp_path / "again").load().documents
    assert [d.model_words for d in rebuilt] == [d.model_words for d in documents]
    again = SearchIndex.build(rebuilt).search(query, 5, "fused", embedder)
    assert [(h.symbol, h.score) for h in again] == [(h.symbol, h.score) for h in SearchIndex.build(documents).search(query, 5, "fused", embedder)]


def test_nearest_words_keep_ties_in_table_order_past_the_skipped_words() -> None:
    """Only the best scores are sorted (issue 21): words tied at the cut and words the text
    already has must still give the whole ranking's answer."""
    from refdoc_site.search.model_words import WordTable

    words = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
    vectors = np.array([[0.5, 0], [1, 0], [0.5, 0], [0.9, 0], [0.5, 0], [0.1, 0]], dtype=np.float32)
    table = WordTable(words, vectors)
    vector = np.array([1, 0], dtype=np.float32)
    assert nearest_words(table, vector, "bravo", count=2) == ["delta", "alpha"]
    assert nearest_words(table, vector, "bravo delta", count=3) == ["alpha", "charlie", "echo"]
    assert nearest_words(table, vector, "", count=4) == ["bravo", "delta", "alpha", "charlie"]


def _exhaustive_nearest(table, vector, text: str, count: int) -> list[str]:
    """The ranking the batch must give: every word scored in float64, sorted whole."""
    present = set(terms(text))
    scores = np.round(table.vectors.astype(np.float64) @ np.asarray(vector, dtype=np.float64), 9)
    ranked = sorted(range(len(table.words)), key=lambda row: (-scores[row], row))
    return [table.words[row] for row in ranked if table.words[row] not in present][:count] if np.any(vector) else []


def test_batch_nearest_words_are_the_exhaustive_ranking_whatever_the_batch() -> None:
    """Issue 21: float32 scores pick the candidates and float64 ones order them; words
    whose float32 scores misorder them (near-duplicate vectors) still come out exactly."""
    from refdoc_site.search.model_words import WordTable, batch_nearest_words

    generator = np.random.default_rng(21)
    base = generator.standard_normal((40, 128))
    near = base[generator.integers(0, 40, 360)] + 1e-7 * generator.standard_normal((360, 128))
    matrix = np.vstack([base, near]).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    words = tuple(f"word{chr(97 + row % 26)}{chr(97 + row // 26)}" for row in range(len(matrix)))
    table = WordTable(words, matrix)
    vectors = matrix[generator.integers(0, len(matrix), 12)] + 0.05 * generator.standard_normal((12, 128)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[3] = 0
    texts = [" ".join(words[row] for row in generator.integers(0, len(words), 30)) + " getWordab_wordac" for _ in vectors]
    expected = [_exhaustive_nearest(table, vector, text, 15) for vector, text in zip(vectors, texts)]
    assert batch_nearest_words(table, vectors, texts) == expected
    assert [batch_nearest_words(table, vectors[row : row + 1], texts[row : row + 1])[0] for row in range(12)] == expected
    assert expected[3] == [] and all(len(words) == 15 for row, words in enumerate(expected) if row != 3)
    assert not {"wordab", "wordac"} & set(expected[0]), "identifier parts count as present"
    assert batch_nearest_words(table, vectors[:2], texts[:2], count=len(words)) == [
        _exhaustive_nearest(table, vector, text, len(words)) for vector, text in zip(vectors[:2], texts[:2])
    ]
