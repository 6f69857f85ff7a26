"""The LLM session: what every phase that asks an LLM goes through.

One session serves one build. It turns a conversation into a usable reply or into None,
and never raises for a failed request: the caller then writes its extractive text, and
the session counts the fallback. In order, a request is

1. answered from the response cache when the same question was asked before (cache.py);
2. not sent in a dry run (its tokens and cost are estimated instead), once the budget
   (`--max-cost`) is spent, or after the key was rejected;
3. sent through the provider (provider.py), whose `openai` client retries 429, 5xx and
   timeouts with backoff and jitter, honouring Retry-After (each retry counted);
4. checked: JSON replies must parse to an object that `validate` accepts; one repair
   request shows the model its reply and the problem; a usable reply is cached.

Every request carries an output bound sized to what it asks (`output_bound`), and the
budget reserves that bound, so a model that rambles can neither run to its context limit
nor past `--max-cost`. A reply cut at the bound, one that restates the prompt's own
instructions (`restates_instructions`: a weak model echoing the schema) and one the
caller's `validate` refuses get one repair request, then the extractive text; each is
counted, none is cached or published.

At most `concurrency` requests are in flight, fewer while the server times out (pacing.py);
`map()` runs a phase's items on daemon threads, so SIGTERM stops a build with requests
in flight at once. Tokens (as the server reports them, else estimated) and cost (price
table in prices.json) are counted per phase in `report`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from ..core.config import Config, LlmConfig
from ..core.errors import ApiError
from ..core.progress import progress
from ..providers.openai_api import ApiSettings, RetryPolicy
from .cache import CachedReply, ResponseCache, request_key
from .costs import HOW_TO_PRICE, PriceTable, estimate_prompt_tokens
from .pacing import Throttle, ordered_map
from .provider import JSON_FORMAT, TEMPERATURE, ChatFailed, ChatProvider, OpenAIChat, Request

log = logging.getLogger("refdoc_site")

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_SUMMARIZER_MODEL = "gpt-4o-mini"
DEFAULT_DOC_MODEL = "gpt-4o"
SUMMARIZER_VARIABLE = "OPENAI_SUMMARIZER_MODEL"
DOC_VARIABLE = "OPENAI_DOC_MODEL"
TURNS_ON = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT")
"""Environment variables whose presence turns the LLM on (as does `llm:` in refdoc.yml)."""
HOW_TO_TURN_ON = (
    "llm: off, summaries are extractive; to have an LLM write them set OPENAI_API_KEY, or OPENAI_BASE_URL "
    "for a compatible server, or OPENAI_PROVIDER=azure with AZURE_OPENAI_API_KEY and AZURE_OPENAI_ENDPOINT"
)
REPAIR = (
    "Your reply could not be used: {problem}. Reply again with only the corrected JSON object, "
    "nothing before or after it."
)
GIVE_UP_AFTER = 5
"""Requests failed in a row (each after its retries) after which a build stops sending: the
server is down or overloaded, and every later request would cost its retries' waits too."""
NOT_SENT = "not sent: sending had stopped"
"""The fallback reason of the requests after a stop; the report names the stop's reason once."""
FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
OUTPUT_HEADROOM = 2
"""A request may write this many times the tokens its caller expects, plus `OUTPUT_SLACK`."""
OUTPUT_SLACK = 64
WORD = re.compile(r"[a-z0-9]+")
ECHO_SHARE = 0.5
"""A reply whose word triples are this much (or more) the instructions' own is an echo."""
INTERRUPTED = "the build was stopped"


def output_bound(expect_tokens: int) -> int:
    """The `max_tokens` of a request whose caller expects `expect_tokens`: room for a longer
    answer than usual, never the model's whole context."""
    return expect_tokens * OUTPUT_HEADROOM + OUTPUT_SLACK


def restates_instructions(reply: object, messages: list[dict]) -> bool:
    """Whether a reply (a text, or a JSON value whose texts count, not its keys) is mostly
    the system message's own words (the task, the schema's descriptions) rather than an
    answer: half or more of its word triples occur there."""
    instructions = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    said = set().union(*map(_triples, _texts(reply)))
    return len(said) >= 3 and len(said & _triples(instructions)) >= ECHO_SHARE * len(said)


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [text for item in value for text in _texts(item)] if isinstance(value, list) else []


def _triples(text: str) -> set[tuple[str, str, str]]:
    words = WORD.findall(text.lower())
    return set(zip(words, words[1:], words[2:]))


@dataclass(frozen=True)
class LlmSettings:
    """Who answers, with which models, in which language, how fast and for how much."""

    api: ApiSettings
    """The server and key; its model is the summarizer model."""
    summarizer_model: str
    doc_model: str
    language: str = "en"
    concurrency: int = 4
    max_cost: float = 0.0
    """USD; 0 for no limit."""
    prices: PriceTable = field(default_factory=PriceTable)
    timeout: float = LlmConfig.timeout
    """Seconds a request may take at first (it grows while the server times out)."""

    @classmethod
    def resolve(
        cls, config: LlmConfig | None, language: str = "en", max_cost: float | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> LlmSettings:
        """From refdoc.yml's `llm:` and the environment; raises ApiError (one line) when unusable."""
        config = config or LlmConfig()
        env = os.environ if environ is None else environ
        api = ApiSettings.resolve(
            config.provider, config.summarizer_model, config.base_url,
            model_variable=SUMMARIZER_VARIABLE, default_model=DEFAULT_SUMMARIZER_MODEL, environ=env,
        )
        doc_model = config.doc_model or env.get(DOC_VARIABLE, "") or DEFAULT_DOC_MODEL
        return cls(
            api, api.model, doc_model, language, config.concurrency,
            config.max_cost if max_cost is None else max_cost, PriceTable(dict(config.prices)), config.timeout,
        )

    @property
    def identity(self) -> str:
        """What shapes the replies besides the prompts: a part of the build's digests."""
        return f"{self.api.provider}|{self.summarizer_model}|{self.doc_model}|{self.language}"


@dataclass
class PhaseStats:
    """One phase's account. In a dry run, requests, tokens and cost are estimates."""

    requests: int = 0
    """HTTP requests sent (or, in a dry run, that would be), retries and repairs included."""
    cache_hits: int = 0
    """Questions the cache answered: nothing sent."""
    retries: int = 0
    """Requests sent again after a 429, a 5xx or a timeout."""
    repairs: int = 0
    """Replies that were not usable and were asked again once."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    """USD, from the price table."""
    unpriced: bool = False
    """Some reply came from a model without a known price: `cost` is a lower bound."""
    fallbacks: int = 0
    """Items that got extractive text instead of the model's."""


@dataclass
class LlmReport:
    where: str
    models: tuple[str, str]
    dry_run: bool = False
    phases: dict[str, PhaseStats] = field(default_factory=dict)
    fallback_reasons: Counter = field(default_factory=Counter)
    stopped: str = ""
    """Why the session stopped sending (budget, rejected key), or empty."""

    def phase(self, name: str) -> PhaseStats:
        return self.phases.setdefault(name, PhaseStats())

    @property
    def total(self) -> PhaseStats:
        total = PhaseStats()
        for stats in self.phases.values():
            for name in ("requests", "cache_hits", "retries", "repairs", "prompt_tokens", "completion_tokens", "cost", "fallbacks"):
                setattr(total, name, getattr(total, name) + getattr(stats, name))
            total.unpriced = total.unpriced or stats.unpriced
        return total

    def lines(self) -> list[str]:
        """The table the build prints at its end."""
        title = "llm dry run, nothing sent; estimate" if self.dry_run else "llm"
        lines = [f"{title}: {self.models[0]} (summaries), {self.models[1]} (documents) at {self.where}"]
        header = ("phase", "requests", "cached", "retries", "repairs", "prompt tok", "compl. tok", "cost USD", "fallbacks")
        rows = [header]
        for name, stats in [*sorted(self.phases.items()), ("total", self.total)]:
            cost = f"{stats.cost:.4f}" + ("+?" if stats.unpriced else "") if stats.cost or not stats.unpriced else "?"
            rows.append((
                name, str(stats.requests), str(stats.cache_hits), str(stats.retries), str(stats.repairs),
                f"{stats.prompt_tokens:,}", f"{stats.completion_tokens:,}", cost, str(stats.fallbacks),
            ))
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        for row in rows:
            lines.append("  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if self.stopped:
            lines.append(f"  stopped sending: {self.stopped}")
        for reason, count in self.fallback_reasons.most_common(5):
            lines.append(f"  extractive instead ({count}): {reason}")
        return lines


class LlmSession:
    """Cached, concurrent, budgeted LLM calls for one build; see the module docstring."""

    def __init__(
        self, provider: ChatProvider, cache: ResponseCache, settings: LlmSettings, *, dry_run: bool = False
    ) -> None:
        self.provider = provider
        self.cache = cache
        self.settings = settings
        self.summarizer_model = settings.summarizer_model
        """Writes the chunk, file and module summaries."""
        self.doc_model = settings.doc_model
        """Writes the system summary and the documents (decisions, plans)."""
        self.language = settings.language
        """Output language of the prose: `en` or `ja` (refdoc.yml's `language`)."""
        self.identity = settings.identity
        """What shapes replies besides the prompts; goes into the digests of what depends on them."""
        self.dry_run = dry_run
        self.report = LlmReport(provider.where, (settings.summarizer_model, settings.doc_model), dry_run)
        self._lock = threading.Lock()
        self.throttle = Throttle(settings.concurrency, settings.timeout)
        self._reserved = 0.0
        self._spent = 0.0
        self._failed_in_a_row = 0

    # --- what callers use -------------------------------------------------------------------

    def complete_json(
        self, phase: str, messages: list[dict], *, model: str,
        validate: Callable[[dict], str | None], expect_tokens: int = 200,
    ) -> dict | None:
        """The reply as a JSON object that `validate` accepts (it returns a problem or None),
        or None: the caller writes extractive text, and the fallback is counted."""

        def parse(content: str) -> tuple[dict | None, str | None]:
            match = FENCE.match(content.strip())
            try:
                value = json.loads(match.group(1) if match else content)
            except ValueError:
                return None, "the reply is not valid JSON"
            if not isinstance(value, dict):
                return None, f"expected a JSON object, got {type(value).__name__}"
            return value, validate(value)

        return self._complete(phase, messages, model, True, parse, expect_tokens)

    def complete_text(
        self, phase: str, messages: list[dict], *, model: str,
        validate: Callable[[str], str | None] | None = None, expect_tokens: int = 200,
        on_text: Callable[[str], None] | None = None,
    ) -> str | None:
        """The reply's text (stripped, not empty, accepted by `validate` if given), or None.

        With `on_text`, the reply is streamed: `on_text` gets its pieces as they arrive (a
        cached reply: whole, at once). A reply `validate` refuses has been streamed already.
        """

        def parse(content: str) -> tuple[str | None, str | None]:
            text = content.strip()
            if not text:
                return None, "the reply is empty"
            return text, validate(text) if validate else None

        return self._complete(phase, messages, model, False, parse, expect_tokens, on_text)

    def map(self, fn: Callable[[T], R], items: Iterable[T], label: str = "") -> list[R]:
        """`[fn(item) for item in items]`, up to `concurrency` at a time, in order; with a
        `label`, a progress bar (or progress lines in CI logs) shows how far along it is."""
        items = list(items)
        results: Iterable[R] = map(fn, items) if len(items) <= 1 else ordered_map(fn, items, self.throttle.most)
        try:
            return list(progress(results, len(items), label, unit="items") if label else results)
        except BaseException:
            self._stop(INTERRUPTED)  # the workers still busy send nothing more
            raise

    def note_fallback(self, phase: str, reason: str, count: int = 1) -> None:
        """Count items that got extractive text for a reason of the caller's own."""
        with self._lock:
            self.report.phase(phase).fallbacks += count
            self.report.fallback_reasons[f"{phase}: {reason}"] += count

    def close(self) -> None:
        self.cache.compact()

    # --- inside -----------------------------------------------------------------------------

    def _complete(self, phase: str, messages: list[dict], model: str, json_output: bool, parse, expect_tokens: int,
                  on_text: Callable[[str], None] | None = None):
        key = request_key(model, messages, TEMPERATURE, JSON_FORMAT if json_output else None)
        cached = self.cache.get(key)
        if cached is not None:
            value, problem = parse(cached.content)
            if problem is None:
                with self._lock:
                    self.report.phase(phase).cache_hits += 1
                if on_text is not None:
                    on_text(cached.content)
                return value
        prompt_estimate = estimate_prompt_tokens(messages)
        bound = output_bound(expect_tokens)
        if self.dry_run:
            self._account(phase, model, prompt_estimate, bound, requests=1)
            return None
        refusal = self._reserve(model, prompt_estimate, bound)
        if refusal:
            self.note_fallback(phase, refusal)
            return None

        def judged(reply) -> tuple[object, str | None]:
            value, problem = parse(reply.content)
            if problem is not None and reply.cut_off:
                return None, f"the reply was cut off at {bound} tokens; answer within that"
            if problem is None and restates_instructions(value, messages):
                return None, "the reply restates the instructions instead of answering them"
            return value, problem

        try:
            reply = self._send(phase, messages, model, json_output, bound, on_text)
            if reply is None:
                return None
            value, problem = judged(reply)
            if problem is not None:
                with self._lock:
                    self.report.phase(phase).repairs += 1
                repair = [*messages, {"role": "assistant", "content": reply.content}, {"role": "user", "content": REPAIR.format(problem=problem)}]
                reply = self._send(phase, repair, model, json_output, bound)
                if reply is None:
                    return None
                value, problem = judged(reply)
                if problem is not None:
                    self.note_fallback(phase, f"unusable reply twice ({problem})")
                    return None
            self.cache.put(CachedReply(key, phase, model, reply.content, reply.prompt_tokens, reply.completion_tokens))
            return value
        finally:
            with self._lock:
                self._reserved -= self._price(model, prompt_estimate, bound) or 0.0

    def _send(
        self, phase: str, messages: list[dict], model: str, json_output: bool, bound: int,
        on_text: Callable[[str], None] | None = None,
    ):
        """The provider's reply, accounted; None (counted) when it failed or may not be sent."""
        with self._lock:
            stopped = self.report.stopped
        if stopped:
            self.note_fallback(phase, NOT_SENT)
            return None
        try:
            with self.throttle:
                streamed = {"on_text": on_text} if on_text is not None else {}
                bounds = Request(bound, self.throttle.timeout)
                reply = self.provider.chat(messages, model=model, json_output=json_output, phase=phase, bounds=bounds, **streamed)
        except ChatFailed as failure:
            if failure.timed_out:
                self.throttle.timed_out()
            self._account(phase, model, 0, 0, requests=failure.attempts, retries=failure.attempts - 1)
            self.note_fallback(phase, failure.reason)
            with self._lock:
                self._failed_in_a_row += 1
                if self._failed_in_a_row >= GIVE_UP_AFTER:
                    self._stop_locked(f"{self._failed_in_a_row} requests in a row failed (the last: {failure.reason})")
            return None
        except ApiError as error:  # a rejected key or an unknown model: no other request would pass
            self._stop(str(error))
            self._account(phase, model, 0, 0, requests=1)
            self.note_fallback(phase, "the key or model was refused")
            return None
        self.throttle.answered()
        with self._lock:
            self._failed_in_a_row = 0
        prompt = reply.prompt_tokens or estimate_prompt_tokens(messages)
        completion = reply.completion_tokens or estimate_prompt_tokens([{"content": reply.content}])
        self._account(phase, model, prompt, completion, requests=reply.attempts, retries=reply.attempts - 1)
        return reply

    def _account(self, phase: str, model: str, prompt: int, completion: int, *, requests: int, retries: int = 0) -> None:
        cost = self._price(model, prompt, completion)
        with self._lock:
            stats = self.report.phase(phase)
            stats.requests += requests
            stats.retries += retries
            stats.prompt_tokens += prompt
            stats.completion_tokens += completion
            if cost is None:
                stats.unpriced = stats.unpriced or bool(prompt or completion)
            else:
                stats.cost += cost
                self._spent += cost

    def _price(self, model: str, prompt: int, completion: int) -> float | None:
        return self.settings.prices.cost(model, prompt, completion)

    def _reserve(self, model: str, prompt: int, completion: int) -> str:
        """Empty when a request may be sent within the budget (its estimate is reserved)."""
        estimate = self._price(model, prompt, completion)
        with self._lock:
            if self.report.stopped:
                return NOT_SENT
            if self.settings.max_cost > 0 and estimate is None:
                self._stop_locked(f"max_cost: no price known for {model}; {HOW_TO_PRICE}")
                return NOT_SENT
            if self.settings.max_cost > 0 and self._spent + self._reserved + estimate > self.settings.max_cost:
                self._stop_locked(f"the budget of {self.settings.max_cost:g} USD is reached (max_cost)")
                return NOT_SENT
            self._reserved += estimate or 0.0
            return ""

    def _stop(self, reason: str) -> None:
        with self._lock:
            self._stop_locked(reason)

    def _stop_locked(self, reason: str) -> None:
        if not self.report.stopped:
            self.report.stopped = reason
            log.warning("llm: %s; the rest of this build uses extractive text", reason)


def open_session(
    config: Config,
    store_dir: Path,
    *,
    enabled: bool = True,
    dry_run: bool = False,
    max_cost: float | None = None,
    environ: Mapping[str, str] | None = None,
    policy: RetryPolicy | None = None,
) -> tuple[LlmSession | None, str]:
    """The build's LLM session, or None and the one line to show why the build is offline.

    The LLM is on when refdoc.yml has `llm:` or the environment has a key, a base URL or an
    Azure endpoint. Settings that cannot work (a missing key, no Azure endpoint) keep the
    build offline and say what to set; they never stop the build.
    """
    env = os.environ if environ is None else environ
    llm = config.llm
    if not enabled or (llm is not None and not llm.enabled):
        return None, ""
    wanted = llm is not None or any(env.get(name) for name in TURNS_ON) or env.get("OPENAI_PROVIDER", "").lower() == "azure"
    if not wanted:
        return None, HOW_TO_TURN_ON
    try:
        settings = LlmSettings.resolve(llm, config.language, max_cost, env)
    except ApiError as error:
        return None, f"llm: {error}; summaries are extractive"
    policy = policy or RetryPolicy(timeout=settings.timeout)
    settings = replace(settings, timeout=policy.timeout)
    variables = {settings.summarizer_model: SUMMARIZER_VARIABLE, settings.doc_model: DOC_VARIABLE}
    provider = OpenAIChat(settings.api, policy, variables)
    return LlmSession(provider, ResponseCache(store_dir), settings, dry_run=dry_run), ""
