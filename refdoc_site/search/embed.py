"""Embed stage: texts become L2-normalised float32 vectors.

Embedders sit behind the `Embedder` protocol. The default is `StaticEmbedder`: a static
(token-vector) model shipped with the package, with no dependency beyond numpy, that the
browser can run too: the site ships the same model file and vocabulary, and its
JavaScript embeds the user's query exactly as the build embedded the chunks.

A static model is a table of one vector per WordPiece token. A text's vector is the sum
of its tokens' vectors (the per-token weights are folded into their lengths), normalised
to unit length. The table is stored as int8 with one float32 scale per row.

Model file (`embeddings.bin`), little-endian:

    bytes 0–7    magic  b"RDEMB\\x00\\x01\\x00"
    bytes 8–11   uint32 H, the length of the JSON header
    bytes 12…    the JSON header (UTF-8, padded with spaces to a multiple of 4 bytes)
    then         float32[vocab_size]              per-row scales, at header["scales_offset"]
    then         int8[vocab_size × dim], row-major  the token matrix, at header["matrix_offset"]

The header names the format, `vocab_size`, `dim`, `max_tokens` (word pieces kept per
text), `pooling` ("sum"; normalised afterwards), `special_tokens` (tokens whose rows are
added to every non-empty text: [CLS] and [SEP], a learnt bias) and the model's name. A
text with no word piece embeds to the zero vector. The vocabulary is
the BERT `vocab.txt` beside it, read by `refdoc_site.search.wordpiece`.
"""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

import numpy as np

from ..core.progress import progress
from ..core.records import VECTOR_DECIMALS, vector
from .members import member_sentences, members_text
from .model_words import batch_nearest_words, word_table
from .ranking import code_words
from .wordpiece import WordPieceTokenizer

log = logging.getLogger("refdoc_site")

MAGIC = b"RDEMB\x00\x01\x00"
FORMAT = "refdoc-static-embedding"
MODEL_FILE = "embeddings.bin"
VOCAB_FILE = "vocab.txt"
MODELS_DIR = Path(__file__).parent / "models"
DEFAULT_MODEL = "minilm-code-static-128"


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of `dim` dimensions."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A `(len(texts), dim)` float32 array; each row has unit length (or is zero)."""
        ...


def chunk_text(signature: str, responsibility: str, input_output: str) -> str:
    """The text the build embeds for a chunk."""
    return signature + "\n\n" + responsibility + "\n" + input_output


@dataclass(frozen=True)
class StaticModelData:
    """A static model as stored: header, int8 matrix and per-row scales."""

    header: dict
    scales: np.ndarray
    """float32, one per vocabulary row."""
    matrix: np.ndarray
    """int8, `(vocab_size, dim)`."""


def write_model(
    directory: Path, matrix: np.ndarray, vocab: Sequence[str], name: str, max_tokens: int = 256, **extra: object
) -> Path:
    """Quantise a float token matrix to int8 with per-row scales and write it with its vocab."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.shape[0] != len(vocab):
        raise ValueError(f"matrix has {matrix.shape[0]} rows for {len(vocab)} tokens")
    peaks = np.abs(matrix).max(axis=1)
    scales = np.where(peaks > 0, peaks / 127.0, 1.0).astype(np.float32)
    quantised = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
    scales = np.where(peaks > 0, scales, 0.0).astype("<f4")
    directory.mkdir(parents=True, exist_ok=True)
    header = {
        "format": FORMAT,
        "version": 1,
        "name": name,
        "vocab_size": int(matrix.shape[0]),
        "dim": int(matrix.shape[1]),
        "dtype": "int8",
        "scale": "per-row float32",
        "pooling": "sum",
        "normalize": True,
        "max_tokens": int(max_tokens),
        "tokenizer": "bert-wordpiece-uncased",
        "vocab": VOCAB_FILE,
        **extra,
    }
    # Offsets depend on the header length, which depends on the offsets' digits: settle it.
    header["scales_offset"] = header["matrix_offset"] = 0
    for _ in range(3):
        raw = json.dumps(header, sort_keys=True).encode("utf-8")
        raw += b" " * (-(12 + len(raw)) % 4)
        scales_offset = 12 + len(raw)
        header["scales_offset"] = scales_offset
        header["matrix_offset"] = scales_offset + 4 * matrix.shape[0]
    raw = json.dumps(header, sort_keys=True).encode("utf-8")
    raw += b" " * (-(12 + len(raw)) % 4)
    if 12 + len(raw) != header["scales_offset"]:
        raise AssertionError("header length did not settle")
    path = directory / MODEL_FILE
    with path.open("wb") as out:
        out.write(MAGIC)
        out.write(struct.pack("<I", len(raw)))
        out.write(raw)
        out.write(scales.tobytes())
        out.write(quantised.tobytes())
    (directory / VOCAB_FILE).write_text("".join(token + "\n" for token in vocab), encoding="utf-8")
    return path


def read_header(directory: Path) -> dict:
    """The JSON header of a model file, read without the matrix behind it."""
    with (Path(directory) / MODEL_FILE).open("rb") as handle:
        start = handle.read(12)
        if start[:8] != MAGIC:
            raise ValueError(f"{directory / MODEL_FILE}: not a refdoc static embedding model")
        (length,) = struct.unpack("<I", start[8:12])
        header = json.loads(handle.read(length).decode("utf-8"))
    if header.get("format") != FORMAT or header.get("dtype") != "int8":
        raise ValueError(f"{directory / MODEL_FILE}: unsupported format {header.get('format')!r}")
    return header


def read_model(directory: Path) -> StaticModelData:
    data = (Path(directory) / MODEL_FILE).read_bytes()
    header = read_header(directory)
    rows, dim = header["vocab_size"], header["dim"]
    scales = np.frombuffer(data, dtype="<f4", count=rows, offset=header["scales_offset"])
    matrix = np.frombuffer(data, dtype=np.int8, count=rows * dim, offset=header["matrix_offset"])
    return StaticModelData(header, scales.astype(np.float32), matrix.reshape(rows, dim))


class StaticEmbedder:
    """Sum of token vectors, normalised; numpy only.

    The name and size come from the model file's header at once; the matrix and the
    vocabulary load on first use, so a rebuild that embeds nothing never reads them.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory else MODELS_DIR / DEFAULT_MODEL
        self.header = read_header(self.directory)
        self.name = str(self.header.get("name") or self.directory.name)
        self.dim = int(self.header["dim"])
        self.max_tokens = int(self.header.get("max_tokens", 256))

    @cached_property
    def vectors(self) -> np.ndarray:
        model = read_model(self.directory)
        vectors = model.matrix.astype(np.float32) * model.scales[:, None]
        if len(self.tokenizer) != vectors.shape[0]:
            raise ValueError(f"{self.directory}: vocab has {len(self.tokenizer)} tokens, matrix {vectors.shape[0]} rows")
        return vectors

    @cached_property
    def tokenizer(self) -> WordPieceTokenizer:
        return WordPieceTokenizer.from_file(self.directory / self.header.get("vocab", VOCAB_FILE))

    @cached_property
    def special_ids(self) -> list[int]:
        return [self.tokenizer.ids[token] for token in self.header.get("special_tokens", [])]

    def token_ids(self, text: str) -> list[int]:
        """The rows summed for `text`: its word pieces (truncated) and the special tokens."""
        pieces = self.tokenizer.encode(text, self.max_tokens)
        return pieces + self.special_ids if pieces else []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            ids = self.token_ids(text)
            if ids:
                out[row] = self.vectors[ids].sum(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


def load_embedder(name: str = DEFAULT_MODEL) -> StaticEmbedder:
    """A shipped model by name (a folder under `refdoc_site/search/models/`), or a folder path."""
    path = Path(name)
    return StaticEmbedder(path if path.is_dir() else MODELS_DIR / name)


# --- the embed stage of the pipeline ------------------------------------------------------

CODE_WORDS = 200
"""Words of the code appended to a chunk's text (the model reads 256 word pieces at most)."""


def document_text(document) -> str:
    """What the build embeds for a chunk: the seed's text, then what the code says itself.

    The seed's text (signature, blank line, responsibility, input/output) comes first; the
    qualified name, the whole docstring and the code's identifiers split into words follow.
    Measured on three labelled sets, the additions lift dense-only MRR@10 from 0.28 to 0.44
    (click), 0.44 to 0.63 (requests) and 0.46 to 0.58 (koa).
    """
    chunk, summary = document.chunk, document.summary
    words = " ".join(code_words(document, CODE_WORDS))
    return f"{chunk_text(chunk.signature, summary.responsibility, summary.inputOutput)}\n{chunk.symbol}\n{chunk.docstring}\n{words}"


BATCH_SIZE = 256


def default_embedder() -> Embedder | None:
    """The shipped browser-side model, or None (with one notice) when it is missing."""
    try:
        return load_embedder()
    except FileNotFoundError:
        log.warning("no embedding model in %s; search ranks by keywords only", MODELS_DIR / DEFAULT_MODEL)
        return None


def matching_embedder(state) -> StaticEmbedder | None:
    """The shipped model when it made the stored vectors: queries must use that model."""
    if not state.embedder or not state.documents or not state.documents[0].embedding:
        return None
    embedder = default_embedder()
    return embedder if embedder is not None and embedder.name == state.embedder else None


MEMBERS_WEIGHT = 0.5
"""How far a class's vector moves toward its members' sentences (`members.py`), its own
text counting 1: of 0.3, 0.5 and 1.0, 0.5 ranked best on the tuned sets (click, requests)."""


def embed_documents(
    documents: Sequence, embedder: Embedder, batch_size: int = BATCH_SIZE, context: Sequence | None = None
) -> list[str]:
    """Set each document's embedding, batch by batch; returns one line per skipped item.

    A class's members' sentences come from `context` (default: `documents`), so that a
    class embedded without its methods still reads them. With the static model, each
    document also gets the words nearest its vector (`model_words.py`). A batch that
    fails is tried item by item, so one bad text costs only itself.
    """
    sentences = member_sentences(documents if context is None else context)
    table = word_table(embedder) if isinstance(embedder, StaticEmbedder) else None
    failed: list[str] = []
    batches = range(0, len(documents), batch_size)
    for start in progress(batches, len(batches), "embed", unit="batches"):
        batch = documents[start : start + batch_size]
        texts = [document_text(d) for d in batch]
        members = [members_text(d, sentences) for d in batch]
        try:
            vectors = embed_with_members(embedder, texts, members)
        except Exception:
            vectors = None
        if vectors is not None:
            _store_vectors(batch, vectors, table, texts, members)
            continue
        for offset, document in enumerate(batch):  # the batch failed: each item alone
            one = slice(offset, offset + 1)
            try:
                vector = embed_with_members(embedder, texts[one], members[one])
            except Exception as error:
                failed.append(f"{document.chunk.id}: embedding failed ({error}); chunk has no vector")
                continue
            _store_vectors(batch[one], vector, table, texts[one], members[one])
    return failed


def _store_vectors(documents: Sequence, vectors: np.ndarray, table, texts: Sequence[str], members: Sequence[str]) -> None:
    """Each document's stored vector (rounded) and, with a word table, its model words."""
    rounded = np.round(np.asarray(vectors, dtype=np.float64), VECTOR_DECIMALS).tolist()
    words = batch_nearest_words(table, vectors, [t + "\n" + m for t, m in zip(texts, members)]) if table is not None else None
    for offset, document in enumerate(documents):
        document.embedding = vector(rounded[offset])  # held as a reload holds it
        if words is not None:
            document.model_words = words[offset]


def embed_with_members(embedder: Embedder, texts: Sequence[str], members: Sequence[str]) -> np.ndarray:
    """Each text's unit vector; one with members' sentences moved toward theirs, then normalised."""
    vectors = np.array(embedder.embed(list(texts)), dtype=np.float32)
    rows = [row for row, sentences in enumerate(members) if sentences]
    if rows:
        mixed = vectors[rows] + MEMBERS_WEIGHT * embedder.embed([members[row] for row in rows])
        norms = np.linalg.norm(mixed, axis=1, keepdims=True)
        vectors[rows] = np.divide(mixed, norms, out=np.zeros_like(mixed), where=norms > 0)
    return vectors
