"""The API embedder: OpenAI-compatible embeddings as an extra, CLI-side dense ranking.

The site always ships the static model's vectors, because the browser embeds the query
with that model. When an API embedder is configured (`embedding:` in refdoc.yml, or
`--embedder api`), the index phase also stores an API vector per chunk, and
`refdoc-site query|eval --embedder api` ranks the dense side with them, the query embedded
through the same API.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..core.config import EmbeddingConfig
from ..core.errors import ApiError
from ..core.progress import progress
from ..core.store import atomic_file
from ..search.embed import document_text
from .openai_api import (
    ApiSettings,
    Attempts,
    MalformedResponse,
    RetryPolicy,
    call_with_retries,
    describe,
    make_client,
    send,
)

log = logging.getLogger("refdoc_site")

DEFAULT_MODEL = "text-embedding-3-small"
MODEL_VARIABLE = "OPENAI_EMBEDDING_MODEL"
BATCH_SIZE = 100
MAX_TEXT_CHARS = 6000
"""Longer texts are cut: well under the 8,192-token input limit, and 100 of them under
the 300,000 tokens a request may carry."""
GIVE_UP_AFTER = 3
"""Consecutive failed batches after which the rest are skipped without being sent."""
KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
VECTORS_NAME = "api_vectors.npz"


@dataclass(frozen=True)
class BatchFailure:
    """Texts `start` to `end` (exclusive) got no vector, and why."""

    start: int
    end: int
    reason: str


class OpenAIEmbedder:
    """The `Embedder` protocol over the embeddings endpoint, in batches of 100."""

    def __init__(self, settings: ApiSettings, policy: RetryPolicy | None = None, batch_size: int = BATCH_SIZE) -> None:
        self.settings = settings
        self.policy = policy or RetryPolicy()
        self.batch_size = batch_size
        self.name = f"{settings.provider}:{settings.model}"
        self.source = settings.base_url
        """The server the vectors come from (empty: OpenAI's own)."""
        self.dim = KNOWN_DIMS.get(settings.model, 0)
        """0 until the first answer tells, for a model not in KNOWN_DIMS."""
        self.tokens = 0
        """Tokens the API reported using."""
        self._client = None

    @classmethod
    def from_config(
        cls, config: EmbeddingConfig | None, policy: RetryPolicy | None = None, environ: Mapping[str, str] | None = None
    ) -> OpenAIEmbedder:
        """From refdoc.yml's `embedding:` and the environment; raises ApiError (one line) when unusable."""
        config = config or EmbeddingConfig()
        settings = ApiSettings.resolve(
            config.provider, config.model, config.base_url,
            model_variable=MODEL_VARIABLE, default_model=DEFAULT_MODEL, environ=environ,
        )
        return cls(settings, policy)

    @property
    def client(self):
        if self._client is None:
            self._client = make_client(self.settings, self.policy)
        return self._client

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Every text's vector, or ApiError when any batch fails (used for queries)."""
        rows, failures = self.embed_batches(texts, label="")
        if failures:
            raise ApiError(f"{self.settings.where}: embedding failed ({failures[0].reason}); try again later")
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_batches(self, texts: Sequence[str], label: str = "embed (API)") -> tuple[list[np.ndarray | None], list[BatchFailure]]:
        """One row per text (None where its batch failed) and the failed batches.

        A batch is retried per the policy, then skipped; after GIVE_UP_AFTER failed
        batches in a row the rest are skipped unsent. A rejected key or unknown model
        raises ApiError at once: every other batch would fail the same way.
        """
        rows: list[np.ndarray | None] = [None] * len(texts)
        failures: list[BatchFailure] = []
        starts = range(0, len(texts), self.batch_size)
        batches = progress(starts, len(starts), label, unit="batches") if label else starts
        failed_in_a_row = 0
        for start in batches:
            end = min(start + self.batch_size, len(texts))
            if failed_in_a_row >= GIVE_UP_AFTER:
                failures.append(BatchFailure(start, end, f"not sent: the {GIVE_UP_AFTER} batches before it failed"))
                continue
            batch = [text[:MAX_TEXT_CHARS] for text in texts[start:end]]
            attempts = Attempts()
            try:
                vectors = call_with_retries(lambda: self._request(batch, attempts), self.settings, self.policy)
            except ApiError:
                raise
            except Exception as error:  # a failed batch is skipped and counted, never fatal
                failed_in_a_row += 1
                reason = f"{describe(error)}, after {attempts.sent} attempts"
                failures.append(BatchFailure(start, end, reason))
                continue
            failed_in_a_row = 0
            rows[start:end] = list(vectors)
        return rows, failures

    def _request(self, texts: list[str], attempts: Attempts) -> np.ndarray:
        """One embeddings call (the client retries its HTTP failures): checked, ordered by
        index, rows L2-normalised."""
        response = send(
            self.client.embeddings.with_raw_response.create, attempts,
            input=texts, model=self.settings.model, encoding_format="float",
        )
        try:
            items = sorted(response.data, key=lambda item: item.index)
            lengths = {len(item.embedding) for item in items}
            matrix = np.asarray([item.embedding for item in items], dtype=np.float32) if len(lengths) == 1 else None
        except (TypeError, ValueError, AttributeError) as error:
            raise MalformedResponse(f"unexpected shape ({type(error).__name__})") from None
        if len(items) != len(texts):
            raise MalformedResponse(f"{len(items)} vectors for {len(texts)} texts")
        if matrix is None:
            raise MalformedResponse("vectors of different lengths")
        if self.dim and matrix.shape[1] != self.dim:
            raise MalformedResponse(f"{matrix.shape[1]}-dimensional vectors, expected {self.dim}")
        if not np.isfinite(matrix).all():
            raise MalformedResponse("values that are not finite numbers")
        self.dim = matrix.shape[1]
        usage = getattr(response, "usage", None)
        self.tokens += int(getattr(usage, "total_tokens", 0) or 0)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix


# --- API vectors in the store -------------------------------------------------------------


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
    from ..search.ranking import quantize_rows

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
