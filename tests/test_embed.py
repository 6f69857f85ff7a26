"""The embedder: the WordPiece tokenizer (same ids as the teacher's tokenizer), the model
file format, and the shipped static model's behaviour.

The expected tokenizations below were produced by the `tokenizers` library with the
teacher's own `tokenizer.json` (all-MiniLM-L6-v2); `tools/embedder/check_tokenizer.py`
repeats that comparison on thousands of real code lines.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from refdoc_site.search.embed import (
    DEFAULT_MODEL,
    MAGIC,
    MODELS_DIR,
    StaticEmbedder,
    chunk_text,
    load_embedder,
    read_model,
    write_model,
)
from refdoc_site.search.wordpiece import UNK, WordPieceTokenizer, normalize, pre_tokenize

MODEL_DIR = MODELS_DIR / DEFAULT_MODEL


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer.from_file(MODEL_DIR / "vocab.txt")


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return load_embedder()


# --- tokenizer ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Café déjà vu, naïve FAÇADE!", ["cafe", "de", "##ja", "vu", ",", "naive", "facade", "!"]),
        (
            "def get_user(self) -> Dict[str, int]:",
            ["def", "get", "_", "user", "(", "self", ")", "-", ">", "di", "##ct", "[", "st", "##r", ",", "int", "]", ":"],
        ),
        ("認証トークン", ["[UNK]", "[UNK]", "ト", "##ー", "##ク", "##ン"]),
        ("检查 權限", ["[UNK]", "[UNK]", "[UNK]", "[UNK]"]),
        ("x\u200by\tz\x00w\ufffd", ["x", "##y", "z", "##w"]),
        ("a" * 101, ["[UNK]"]),
        ("HTTPServerError", ["https", "##er", "##vere", "##rro", "##r"]),
        ("\U0001f642 smile", ["[UNK]", "smile"]),
        ("über_cool", ["uber", "_", "cool"]),
        ("ΟΔΟΣ", ["ο", "##δ", "##ο", "##σ"]),
        ("¿qué?", ["¿", "que", "?"]),
        ("Straße", ["st", "##raße"]),
        ("\u0130stanbul", ["istanbul"]),
        ("\ufb01le", ["\ufb01", "##le"]),
    ],
)
def test_tokenizer_matches_the_teacher_tokenizer(tokenizer: WordPieceTokenizer, text: str, tokens: list[str]) -> None:
    assert tokenizer.tokenize(text) == tokens


def test_ids_are_vocabulary_positions(tokenizer: WordPieceTokenizer) -> None:
    lines = (MODEL_DIR / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert tokenizer.encode("Open the file") == [lines.index(t) for t in ["open", "the", "file"]]
    assert tokenizer.tokenize("parse") == ["par", "##se"]
    assert tokenizer.ids[UNK] == 100
    assert len(tokenizer) == 30522


def test_normalize_cleans_spaces_out_cjk_strips_accents_and_lowercases() -> None:
    assert normalize("Ünï\tcode\x07\n") == "uni code "
    assert normalize("a中b") == "a 中 b"
    assert normalize("\u00a0NBSP\u3000") == " nbsp "


def test_pre_tokenize_isolates_every_punctuation_character() -> None:
    assert pre_tokenize("foo.bar(baz)--x «y»") == ["foo", ".", "bar", "(", "baz", ")", "-", "-", "x", "«", "y", "»"]
    assert pre_tokenize("  ") == []


def test_word_of_exactly_100_characters_is_split_not_unknown(tokenizer: WordPieceTokenizer) -> None:
    assert UNK not in tokenizer.tokenize("b" * 100)
    assert tokenizer.tokenize("b" * 101) == [UNK]


def test_unmatchable_piece_makes_the_whole_word_unknown() -> None:
    small = WordPieceTokenizer(["[PAD]", "[UNK]", "ab", "##c"])
    assert small.tokenize("abc abd ab") == ["ab", "##c", UNK, "ab"]


def test_vocabulary_without_unk_is_refused() -> None:
    with pytest.raises(ValueError):
        WordPieceTokenizer(["a", "b"])


# --- model file -----------------------------------------------------------------------------


def test_model_file_round_trips_with_per_row_scales(tmp_path) -> None:
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(5, 8)).astype(np.float32)
    matrix[3] = 0.0
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "word"]
    path = write_model(tmp_path, matrix, vocab, "tiny", max_tokens=7, special_tokens=["[CLS]", "[SEP]"])
    data = path.read_bytes()
    assert data[:8] == MAGIC
    model = read_model(tmp_path)
    assert model.header["dim"] == 8 and model.header["vocab_size"] == 5 and model.header["max_tokens"] == 7
    assert model.header["scales_offset"] % 4 == 0
    assert len(data) == model.header["matrix_offset"] + 5 * 8
    restored = model.matrix.astype(np.float32) * model.scales[:, None]
    assert np.abs(restored - matrix).max() <= np.abs(matrix).max(axis=1).max() / 127 / 2 + 1e-6
    assert not restored[3].any()
    assert (tmp_path / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1] == vocab


def test_wrong_magic_is_refused(tmp_path) -> None:
    (tmp_path / "embeddings.bin").write_bytes(b"NOTAMODEL" + bytes(20))
    with pytest.raises(ValueError):
        read_model(tmp_path)


def test_shipped_model_is_small_and_described() -> None:
    model = read_model(MODEL_DIR)
    header = model.header
    assert header["vocab_size"] == 30522 and header["dim"] in (64, 96, 128, 192, 256)
    assert header["special_tokens"] == ["[CLS]", "[SEP]"]
    raw = (MODEL_DIR / "embeddings.bin").read_bytes() + (MODEL_DIR / "vocab.txt").read_bytes()
    assert len(gzip.compress(raw, 6)) < 5 * 1024 * 1024
    card = (MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "Apache-2.0" in card and "all-MiniLM-L6-v2" in card
    json.loads((MODEL_DIR / "training.json").read_text(encoding="utf-8"))


# --- embedder -------------------------------------------------------------------------------


def test_embeddings_are_normalised_float32(embedder: StaticEmbedder) -> None:
    vectors = embedder.embed(["open a file and read it", "def parse(text: str) -> Config", "x"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, embedder.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_text_embeds_to_zero(embedder: StaticEmbedder) -> None:
    vectors = embedder.embed(["", "   ", "ok"])
    assert not vectors[0].any() and not vectors[1].any() and vectors[2].any()
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_embedding_is_deterministic_and_independent_of_batch(embedder: StaticEmbedder) -> None:
    texts = ["read the configuration file", "send an HTTP request with retries", "sort users by name"]
    first = embedder.embed(texts)
    again = load_embedder().embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert np.array_equal(first, again)
    assert np.allclose(first, alone, atol=1e-6)


def test_similar_texts_are_closer_than_unrelated_ones(embedder: StaticEmbedder) -> None:
    query, near, far = embedder.embed(
        [
            "load settings from a YAML configuration file",
            chunk_text(
                "def load_config(path: Path) -> Config",
                "Reads the configuration file and parses its YAML into settings.",
                "Takes path: Path; returns Config.",
            ),
            chunk_text(
                "def draw_progress_bar(done: int, total: int) -> None",
                "Renders a progress bar on the terminal.",
                "Takes done: int, total: int; returns None.",
            ),
        ]
    )
    assert float(query @ near) > float(query @ far) + 0.05


def test_long_text_is_truncated_to_max_tokens(embedder: StaticEmbedder) -> None:
    long = "alpha " * 1000
    assert len(embedder.token_ids(long)) == embedder.max_tokens + 2
    assert np.allclose(embedder.embed([long]), embedder.embed(["alpha " * embedder.max_tokens]), atol=1e-6)


def test_chunk_text_is_signature_then_summary() -> None:
    assert chunk_text("def f()", "Does f.", "Takes nothing.") == "def f()\n\nDoes f.\nTakes nothing."
