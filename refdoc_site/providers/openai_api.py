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

The client retries what may succeed later (408, 409, 429, 5xx, timeouts, connection
errors) with exponential backoff and jitter, honouring `Retry-After` and `retry-after-ms`;
`RetryPolicy` sets its `max_retries` and timeout. `send` counts the HTTP requests each call
took (the client's `retries_taken`, or the `x-stainless-retry-count` header of the last
request a failure names), for the build's retry accounting. `call_with_retries` asks again
only when a 200 answer has the wrong shape (the client does not look inside), and turns
what no retry fixes (a rejected key, an unknown model) into one clear `ApiError` line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from json import JSONDecodeError
from typing import Any, TypeVar

from ..core.api_settings import ApiSettings
from ..core.errors import ApiError, ApiKeyError

T = TypeVar("T")
RETRY_COUNT_HEADER = "x-stainless-retry-count"
"""The retries before a request, as the client writes it into each request it sends."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a request is tried: the client's `max_retries` and timeout."""

    attempts: int = 4
    """Tries per request, the first included."""
    timeout: float = 60.0
    """Seconds one request may take."""


def make_client(settings: ApiSettings, policy: RetryPolicy):
    """An `openai.OpenAI` (or `openai.AzureOpenAI`) client retrying per `policy`."""
    try:
        import openai  # lazy: the client loads in about 0.45 s, and only a configured API needs it
    except ImportError:
        raise ApiError("the `openai` package is not installed; install refdoc-site with its dependencies") from None
    retries = {"timeout": policy.timeout, "max_retries": max(0, policy.attempts - 1)}
    if settings.provider == "azure":
        return openai.AzureOpenAI(
            azure_endpoint=settings.base_url, api_key=settings.api_key, api_version=settings.api_version, **retries
        )
    return openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url or None, **retries)


class MalformedResponse(Exception):
    """A 200 answer of the wrong shape (count, dimension, values); may be right next time."""


@dataclass
class Attempts:
    """The HTTP requests one call has sent so far, the client's retries included."""

    sent: int = 0


def send(create: Callable[..., Any], attempts: Attempts, **params: Any) -> Any:
    """The parsed answer of `create` (a client method's `with_raw_response` form), adding
    the HTTP requests it took to `attempts`, also when it fails."""
    try:
        raw = create(**params)
    except Exception as error:
        request = getattr(error, "request", None)
        retries = getattr(request, "headers", {}).get(RETRY_COUNT_HEADER, "0")
        attempts.sent += (1 + int(retries)) if retries.isdigit() else 1
        raise
    attempts.sent += 1 + raw.retries_taken
    return raw.parse()


def call_with_retries(request: Callable[[], T], settings: ApiSettings, policy: RetryPolicy) -> T:
    """`request()`, asked again at once when its answer was malformed, up to
    `policy.attempts` tries (the client has already retried the HTTP failures).

    Raises `ApiError` for what no retry fixes (a rejected key, an unknown model or
    deployment) and otherwise the last error; `describe()` makes a line of it.
    """
    for attempt in range(policy.attempts):
        try:
            return request()
        except Exception as error:
            _raise_if_fatal(error, settings)
            if not is_malformed(error) or attempt + 1 >= policy.attempts:
                raise
    raise AssertionError("unreachable: attempts must be at least 1")


def _raise_if_fatal(error: Exception, settings: ApiSettings) -> None:
    import openai  # lazy: the client loads in about 0.45 s, and only a configured API needs it

    if isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
        raise ApiKeyError(
            f"{settings.where} rejected the API key ({describe(error)}); set {settings.key_variable} to a valid key"
        ) from None
    if isinstance(error, openai.NotFoundError):
        raise ApiError(
            f"{settings.where} has no model {settings.model!r} ({describe(error)}); "
            f"set {settings.model_variable} (or the model in refdoc.yml) and check the base URL"
        ) from None


def is_malformed(error: Exception) -> bool:
    """True for a 200 answer that could not be used: a later try may get a good one."""
    import openai  # lazy: the client loads in about 0.45 s, and only a configured API needs it

    return isinstance(error, (openai.APIResponseValidationError, MalformedResponse, JSONDecodeError))


def is_timeout(error: Exception) -> bool:
    """True when the request ran out of time: the server is slower than the timeout allows."""
    import openai  # lazy: the client loads in about 0.45 s, and only a configured API needs it

    return isinstance(error, openai.APITimeoutError)


def describe(error: Exception) -> str:
    """A short reason for a message line: `HTTP 500: …`, `timed out`, …"""
    import openai  # lazy: the client loads in about 0.45 s, and only a configured API needs it

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
