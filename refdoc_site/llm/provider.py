"""The chat provider: one narrow protocol, and its implementation over the `openai` client.

The session (session.py) owns caching, concurrency, budgets and fallbacks; a provider only
sends one conversation and returns the reply, retrying what may pass later. OpenAI, Azure
OpenAI (deployment URLs with `api-version`) and any OpenAI-compatible server (vLLM,
Ollama, llama.cpp, through a base URL) all go through `OpenAIChat`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from ..core.errors import ApiError
from ..providers import openai_api
from ..providers.openai_api import ApiSettings, RetryPolicy

TEMPERATURE = 0.3
JSON_FORMAT = {"type": "json_object"}
PHASE_HEADER = "X-Refdoc-Phase"
"""Names the build phase of each request, for proxies, logs and the tests' server."""


@dataclass(frozen=True)
class Request:
    """What bounds one request besides its messages: how much it may write, how long it may take."""

    max_tokens: int
    """The output bound sent to the server (`max_tokens`), sized to what the request asks."""
    timeout: float
    """Seconds each try may take."""


@dataclass(frozen=True)
class ChatReply:
    content: str
    prompt_tokens: int
    completion_tokens: int
    """0 when the server did not report usage; the session then estimates."""
    attempts: int = 1
    """HTTP requests it took, retries included."""
    cut_off: bool = False
    """The server stopped at the output bound (`finish_reason` "length"): the text is cut."""


class ChatFailed(Exception):
    """Every try of a request failed with something a later build may not see (429, 5xx, timeouts)."""

    def __init__(self, reason: str, attempts: int, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts
        self.timed_out = timed_out
        """The last try ran out of time (rather than being refused)."""


class ChatProvider(Protocol):
    where: str
    """The server, as messages name it."""

    def chat(
        self, messages: list[dict], *, model: str, json_output: bool, phase: str, bounds: Request,
        on_text: Callable[[str], None] | None = None,
    ) -> ChatReply:
        """One conversation's reply, within `bounds`. Raises ApiError when no request can succeed (a rejected
        key, an unknown model), ChatFailed when this one did not. With `on_text` (passed
        only when a caller streams), the reply's pieces go to it as they arrive."""
        ...


MODEL_VARIABLES = {"summarizer": "OPENAI_SUMMARIZER_MODEL", "doc": "OPENAI_DOC_MODEL"}


class OpenAIChat:
    """Chat completions through the official client, temperature 0.3."""

    def __init__(self, settings: ApiSettings, policy: RetryPolicy, model_variables: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.policy = policy
        self.where = settings.where
        self.model_variables = model_variables or {}
        """Model → the variable that names it, so an unknown model's message says what to set."""
        self._client = None

    @property
    def client(self):
        if self._client is None:
            self._client = openai_api.make_client(self.settings, self.policy)
        return self._client

    def chat(
        self, messages: list[dict], *, model: str, json_output: bool, phase: str, bounds: Request,
        on_text: Callable[[str], None] | None = None,
    ) -> ChatReply:
        settings = replace(self.settings, model=model, model_variable=self.model_variables.get(model, self.settings.model_variable))
        attempts = openai_api.Attempts()

        def request() -> ChatReply:
            options = {"response_format": JSON_FORMAT} if json_output else {}
            params = dict(
                model=model, messages=messages, temperature=TEMPERATURE, max_tokens=bounds.max_tokens,
                timeout=bounds.timeout, extra_headers={PHASE_HEADER: phase}, **options,
            )
            if on_text is not None:
                return self._streamed(attempts, on_text, **params)
            response = openai_api.send(self.client.chat.completions.with_raw_response.create, attempts, **params)
            try:
                choice = response.choices[0]
                content = choice.message.content
            except (AttributeError, IndexError, TypeError):
                raise openai_api.MalformedResponse("no choices in the reply") from None
            if not isinstance(content, str):
                raise openai_api.MalformedResponse("a reply without text")
            usage = getattr(response, "usage", None)
            return ChatReply(
                content,
                int(getattr(usage, "prompt_tokens", 0) or 0),
                int(getattr(usage, "completion_tokens", 0) or 0),
                cut_off=getattr(choice, "finish_reason", None) == "length",
            )

        try:
            reply = openai_api.call_with_retries(request, settings, self.policy)
        except ApiError:
            raise
        except Exception as error:  # a failed request falls back, never fatal
            sent = attempts.sent
            reason = f"{openai_api.describe(error)}, after {sent} attempt{'s' if sent != 1 else ''}"
            raise ChatFailed(reason, sent, openai_api.is_timeout(error)) from None
        return replace(reply, attempts=attempts.sent)

    def _streamed(self, attempts: openai_api.Attempts, on_text: Callable[[str], None], **params) -> ChatReply:
        """A streamed reply, each piece passed on as it arrives. One that failed after a
        piece went out is not asked again (the pieces cannot be taken back)."""
        if self.settings.provider != "azure":  # Azure's older API versions refuse stream_options
            params["stream_options"] = {"include_usage": True}
        stream = openai_api.send(self.client.chat.completions.with_raw_response.create, attempts, stream=True, **params)
        pieces: list[str] = []
        usage = None
        finish = None
        try:
            for chunk in stream:
                usage = getattr(chunk, "usage", None) or usage
                for choice in getattr(chunk, "choices", None) or []:
                    finish = getattr(choice, "finish_reason", None) or finish
                    piece = getattr(getattr(choice, "delta", None), "content", None)
                    if isinstance(piece, str) and piece:
                        pieces.append(piece)
                        on_text(piece)
        except Exception as error:
            if pieces:
                raise StreamBroken(f"the stream broke after {len(pieces)} pieces ({openai_api.describe(error)})") from None
            raise
        if not pieces:
            raise openai_api.MalformedResponse("a streamed reply without text")
        return ChatReply(
            "".join(pieces),
            int(getattr(usage, "prompt_tokens", 0) or 0),
            int(getattr(usage, "completion_tokens", 0) or 0),
            cut_off=finish == "length",
        )


class StreamBroken(Exception):
    """A streamed reply failed after some of it was passed on: never asked again."""
