"""The API embedder's vectors in the store, and the search index ranking with them.

API vectors live beside index.jsonl in `api_vectors.npz`, not in the documents: every
phase and the site read index.jsonl, and a 1536-dimensional vector would make each line
ten times longer; the documents' `embedding` stays the static model's. The file is keyed
by a hash of each chunk's embedded text, so a rebuild sends only texts never embedded by
the same model and server, and a chunk changed since is never ranked with a stale vector.
It holds `digests` (sha256 hex), `vectors` (float16: ranking quantises to int8 anyway),
`model` and `source` (the embedder's name and server).
"""

from __future__ import annotations

import hashlib
import logging
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..core.config import EmbeddingConfig
from ..core.errors import ApiError
from ..core.store import atomic_file
from ..providers.openai_embed import OpenAIEmbedder
from .embed import document_text
from .ranking import quantize_rows

log = logging.getLogger("refdoc_site")

VECTORS_NAME = "api_vectors.npz"


@dataclass
class ApiVectors:
    """The store's `api_vectors.npz`: vectors by text digest, and who made them."""

    model: str
    source: str
    vectors: dict[str, np.ndarray]

    @classmethod
    def load(cls, directory: Path) -> ApiVectors | None:
        path = directory / VECTORS_NAME
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                digests, matrix = data["digests"], data["vectors"].astype(np.float32)
                model, source = str(data["model"]), str(data["source"])
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            log.warning("%s: unreadable; the API vectors will be made again", path)
            return None
        return cls(model, source, dict(zip((str(d) for d in digests), matrix)))

    def save(self, directory: Path) -> Path:
        path = directory / VECTORS_NAME
        digests = sorted(self.vectors)
        dim = len(next(iter(self.vectors.values()))) if self.vectors else 0
        matrix = np.asarray([self.vectors[d] for d in digests], dtype=np.float16).reshape(len(digests), dim)
        with atomic_file(path, binary=True) as handle:
            np.savez(handle, digests=np.asarray(digests, dtype="U64"), vectors=matrix, model=self.model, source=self.source)
        return path

    def made_by(self, embedder: OpenAIEmbedder) -> bool:
        return self.model == embedder.name and self.source == embedder.source


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def store_api_vectors(documents: Sequence, directory: Path, embedder: OpenAIEmbedder) -> list[str]:
    """Make the store's API vectors match `documents`; returns one line per chunk left without.

    Texts embedded before by the same model and server are reused; only the others are sent.
    """
    previous = ApiVectors.load(directory)
    known = previous.vectors if previous is not None and previous.made_by(embedder) else {}
    if known and not embedder.dim:
        embedder.dim = len(next(iter(known.values())))
    texts = [document_text(document) for document in documents]
    digests = [text_digest(text) for text in texts]
    wanted = list(dict.fromkeys(d for d in digests if d not in known))
    text_of = dict(zip(digests, texts))
    rows, failures = embedder.embed_batches([text_of[d] for d in wanted]) if wanted else ([], [])
    vectors = {d: known[d] for d in digests if d in known}
    vectors.update((digest, row) for digest, row in zip(wanted, rows) if row is not None)
    if previous is None or not previous.made_by(embedder) or set(previous.vectors) != set(vectors):
        ApiVectors(embedder.name, embedder.source, vectors).save(directory)
    for failure in failures:
        log.warning("API embedding: %d texts skipped (%s)", failure.end - failure.start, failure.reason)
    reasons = {wanted[i]: failure.reason for failure in failures for i in range(failure.start, failure.end)}
    return [
        f"{document.chunk.id}: API embedding failed ({reasons[digest]}); chunk has no API vector"
        for document, digest in zip(documents, digests)
        if digest in reasons
    ]


def api_search_index(search_index, directory: Path, config: EmbeddingConfig | None, embedder: OpenAIEmbedder | None = None):
    """`search_index` with its dense side on the stored API vectors, and the API embedder
    that embeds queries; chunks without an API vector score 0 there."""
    embedder = embedder or OpenAIEmbedder.from_config(config)
    stored = ApiVectors.load(directory)
    if stored is None or not stored.vectors:
        raise ApiError(
            f"{directory / VECTORS_NAME}: no API vectors; run `refdoc-site index --embedder api` "
            "(or set embedding: in refdoc.yml and index) first"
        )
    if not stored.made_by(embedder):
        made = f"{stored.model} at {stored.source or 'the OpenAI API'}"
        raise ApiError(
            f"{directory / VECTORS_NAME}: made by {made}, not {embedder.name} at {embedder.settings.where}; "
            "run `refdoc-site index --embedder api` again"
        )
    dim = len(next(iter(stored.vectors.values())))
    embedder.dim = embedder.dim or dim
    matrix = np.zeros((len(search_index.documents), dim), dtype=np.float32)
    missing = 0
    for position, document in enumerate(search_index.documents):
        vector = stored.vectors.get(text_digest(document_text(document)))
        if vector is None:
            missing += 1
        else:
            matrix[position] = vector
    if missing:
        log.warning("%d of %d chunks have no API vector; run `refdoc-site index --embedder api`", missing, len(matrix))
    rows, scales = quantize_rows(matrix)
    return replace(search_index, rows=rows, scales=scales), embedder
