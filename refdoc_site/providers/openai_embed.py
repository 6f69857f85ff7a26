"""The API embedder: OpenAI-compatible embeddings as an extra, CLI-side dense ranking.

The site always ships the static model's vectors, because the browser embeds the query
with that model. When an API embedder is configured (`embedding:` in refdoc.yml, or
`--embedder api`), the index phase also stores an API vector per chunk, and
`refdoc-site query|eval --embedder api` ranks the dense side with them, the query embedded
through the same API.

Where the vectors are stored and how ranking uses them: `search/api_vectors.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.config import EmbeddingConfig
from ..core.errors import ApiError
from ..core.progress import progress
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

BATCH_SIZE = 100
MAX_TEXT_CHARS = 6000
"""Longer texts are cut: well under the 8,192-token input limit, and 100 of them under
the 300,000 tokens a request may carry."""
GIVE_UP_AFTER = 3
"""Consecutive failed batches after which the rest are skipped without being sent."""
KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


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
        return cls((config or EmbeddingConfig()).api_settings(environ), policy)

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
