"""OpenAI, Azure OpenAI and OpenAI-compatible servers: settings, the client, retries.

Settings come from refdoc.yml's section first, then from the seed's environment variables:

- `OPENAI_PROVIDER` — `openai` (default; also any OpenAI-compatible server) or `azure`;
- `OPENAI_API_KEY` — the key for `openai`; a compatible server given by a base URL may
  need none;
- `OPENAI_BASE_URL` — an OpenAI-compatible server (vLLM, Ollama, llama.cpp), `…/v1`;
- `AZURE_OPENAI_API_KEY`, `AZURE_OPENAI_ENDPOINT`, `OPENAI_API_VERSION` — for `azure`,
  where the model name is the deployment's name and requests go to
  `{endpoint}/openai/deployments/{deployment}/…?api-version=…`;
- a model variable per use (`OPENAI_EMBEDDING_MODEL` for the embedder).

The client's own retries are off: `call_with_retries` retries what may succeed later (429,
5xx, timeouts, connection errors, malformed responses) with exponential backoff and
jitter, honouring `Retry-After`, and turns what no retry fixes (a missing or rejected
key, an unknown model) into one clear `ApiError` line.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from json import JSONDecodeError
from typing import TypeVar

from ..core.api_settings import ApiSettings
from ..core.errors import ApiError, ApiKeyError

T = TypeVar("T")
RETRYABLE_STATUS = (408, 409, 429)


def make_client(settings: ApiSettings, timeout: float):
    """An `openai.OpenAI` (or `openai.AzureOpenAI`) client with its own retries off."""
    try:
        import openai  # lazy: ~0.45 s to import; only a build with an API configured loads it
    except ImportError:
        raise ApiError("the `openai` package is not installed; install refdoc-site with its dependencies") from None
    if settings.provider == "azure":
        return openai.AzureOpenAI(
            azure_endpoint=settings.base_url,
            api_key=settings.api_key,
            api_version=settings.api_version,
            timeout=timeout,
            max_retries=0,
        )
    return openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url or None, timeout=timeout, max_retries=0)


class MalformedResponse(Exception):
    """A 200 answer of the wrong shape (count, dimension, values); may be right next time."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a request is tried."""

    attempts: int = 4
    """Tries per request, the first included."""
    base_delay: float = 1.0
    """Backoff before the second try; doubled each time, with jitter (×0.5–1)."""
    max_delay: float = 30.0
    max_retry_after: float = 60.0
    """The longest `Retry-After` obeyed; a longer one is cut to this."""
    timeout: float = 60.0
    """Seconds one request may take."""
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int, error: BaseException) -> float:
        """Seconds to wait after failed try number `attempt` (0-based)."""
        asked = retry_after(error)
        if asked is not None:
            return min(asked, self.max_retry_after)
        return min(self.max_delay, self.base_delay * 2**attempt) * random.uniform(0.5, 1.0)


def retry_after(error: BaseException) -> float | None:
    """The wait a response asked for: `retry-after-ms`, or `Retry-After` in seconds or as a date."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            pass
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    return None


def call_with_retries(request: Callable[[], T], settings: ApiSettings, policy: RetryPolicy) -> T:
    """`request()`, tried again on failures that may pass, up to `policy.attempts` tries.

    Raises `ApiError` for what no retry fixes (a rejected key, an unknown model or
    deployment) and otherwise the last error; `describe()` makes a line of it.
    """
    for attempt in range(policy.attempts):
        try:
            return request()
        except Exception as error:
            _raise_if_fatal(error, settings)
            if not is_retryable(error) or attempt + 1 >= policy.attempts:
                raise
            policy.sleep(policy.delay(attempt, error))
    raise AssertionError("unreachable: attempts must be at least 1")


def _raise_if_fatal(error: Exception, settings: ApiSettings) -> None:
    import openai  # lazy: as in make_client (loaded by then)

    if isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
        raise ApiKeyError(
            f"{settings.where} rejected the API key ({describe(error)}); set {settings.key_variable} to a valid key"
        ) from None
    if isinstance(error, openai.NotFoundError):
        raise ApiError(
            f"{settings.where} has no model {settings.model!r} ({describe(error)}); "
            f"set {settings.model_variable} (or the model in refdoc.yml) and check the base URL"
        ) from None


def is_retryable(error: Exception) -> bool:
    """True for failures that may pass on a later try."""
    import openai  # lazy: as in make_client (loaded by then)

    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return isinstance(error, (openai.APIConnectionError, openai.APIResponseValidationError, MalformedResponse, JSONDecodeError))


def describe(error: Exception) -> str:
    """A short reason for a message line: `HTTP 500: …`, `timed out`, …"""
    import openai  # lazy: as in make_client (loaded by then)

    if isinstance(error, openai.APIStatusError):
        body = error.body if isinstance(error.body, dict) else {}
        return f"HTTP {error.status_code}: {body.get('message') or error.message}"
    if isinstance(error, openai.APITimeoutError):
        return "timed out"
    if isinstance(error, openai.APIConnectionError):
        return "connection failed"
    if isinstance(error, MalformedResponse):
        return f"malformed response: {error}"
    if isinstance(error, JSONDecodeError):
        return "malformed response: not JSON"
    return f"{type(error).__name__}: {error}"
