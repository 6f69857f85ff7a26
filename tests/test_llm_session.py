"""The LLM session against a real local server speaking the OpenAI API (tests/openai_server.py).

The real `openai` client talks to the server through its base URL (or the Azure endpoint);
nothing is patched. The client's waits before retries are read from when the server
received each try; failures that do not test the wait ask for 1 ms (NO_WAIT).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from openai_server import HALLUCINATED, NO_WAIT, SLACK, OpenAIServer, waits
from openai_server import TEST_KEY as KEY

from refdoc_site.core.config import Config, LlmConfig, parse_config
from refdoc_site.core.errors import ConfigError
from refdoc_site.llm import HOW_TO_TURN_ON, LlmSession, open_session
from refdoc_site.llm.cache import CACHE_DIR, CACHE_FILE, ResponseCache
from refdoc_site.llm.costs import PriceTable
from refdoc_site.llm.session import output_bound
from refdoc_site.providers.openai_api import RetryPolicy

SCHEMA = 'Reply with a JSON object: {"answer": "...", "detail": "..."}'


def session_for(
    server: OpenAIServer, store: Path, *, timeout: float = 5.0,
    config: LlmConfig | None = None, language: str = "en", **options,
) -> LlmSession:
    environ = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    policy = RetryPolicy(attempts=3, timeout=timeout)
    session, notice = open_session(Config(language=language, llm=config or LlmConfig()), store, environ=environ, policy=policy, **options)
    assert session is not None, notice
    return session


def ask(session: LlmSession, subject: str = "question one", phase: str = "chunk", validate=lambda value: None):
    messages = [{"role": "system", "content": SCHEMA}, {"role": "user", "content": subject}]
    return session.complete_json(phase, messages, model=session.summarizer_model, validate=validate)


def test_a_json_call_sends_the_model_temperature_format_and_phase(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    reply = ask(session)
    assert set(reply) == {"answer", "detail"} and reply["answer"].startswith("LLM answer for question one")
    (request,) = server.chat_requests()
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "gpt-4o-mini"
    assert request.body["temperature"] == 0.3
    assert request.body["response_format"] == {"type": "json_object"}
    assert request.phase == "chunk"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    stats = session.report.phases["chunk"]
    assert (stats.requests, stats.cache_hits, stats.fallbacks) == (1, 0, 0)
    assert stats.prompt_tokens > 0 and stats.completion_tokens > 0
    assert stats.cost == pytest.approx(PriceTable().cost("gpt-4o-mini", stats.prompt_tokens, stats.completion_tokens))


def test_a_text_call_has_no_response_format(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    text = session.complete_text("system", [{"role": "user", "content": "describe"}], model=session.doc_model)
    assert text.startswith("LLM text for describe")
    (request,) = server.chat_requests()
    assert "response_format" not in request.body and request.body["model"] == "gpt-4o"


def test_the_same_question_is_answered_from_the_cache_even_in_a_new_session(server: OpenAIServer, tmp_path: Path) -> None:
    first = ask(session_for(server, tmp_path))
    session = session_for(server, tmp_path)
    assert ask(session) == first
    assert ask(session, "question two") != first
    assert len(server.chat_requests()) == 2
    assert session.report.phases["chunk"].cache_hits == 1
    lines = (tmp_path / CACHE_DIR / CACHE_FILE).read_text().splitlines()
    assert len(lines) == 2 and {json.loads(line)["phase"] for line in lines} == {"chunk"}


def test_a_changed_model_or_prompt_is_asked_again(server: OpenAIServer, tmp_path: Path) -> None:
    ask(session_for(server, tmp_path))
    ask(session_for(server, tmp_path, config=LlmConfig(summarizer_model="other-model")))
    assert [r.body["model"] for r in server.chat_requests()] == ["gpt-4o-mini", "other-model"]


@pytest.mark.parametrize(("headers", "expected"), [({"retry-after": "1"}, 1.0), ({"retry-after-ms": "200"}, 0.2)])
def test_429_is_retried_after_the_wait_it_asks_for(server: OpenAIServer, tmp_path: Path, headers: dict, expected: float) -> None:
    session = session_for(server, tmp_path)
    server.inject("status", status=429, headers=headers)
    assert ask(session) is not None
    (waited,) = waits(server.chat_requests())
    assert expected <= waited < expected + SLACK
    assert [r.status for r in server.chat_requests()] == [429, 200]
    stats = session.report.phases["chunk"]
    assert (stats.requests, stats.retries, stats.fallbacks) == (2, 1, 0)


def test_500_then_success(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    server.inject("status", status=500, times=2)
    assert ask(session) is not None
    assert [r.status for r in server.chat_requests()] == [500, 500, 200]
    first, second = waits(server.chat_requests())
    assert 0.375 <= first < 0.5 + SLACK and 0.75 <= second < 1.0 + SLACK  # the client's: exponential, with jitter


def test_a_timeout_is_retried(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path, timeout=0.3)
    server.inject("sleep", seconds=1.0)
    assert ask(session) is not None
    assert len(server.chat_requests()) == 2
    assert session.report.phases["chunk"].retries == 1


def test_a_request_that_keeps_failing_falls_back_and_is_counted(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    server.inject("status", status=503, headers=NO_WAIT, times=None, when=lambda r: "question one" in r.prompt)
    assert ask(session) is None
    assert ask(session, "question two") is not None
    stats = session.report.phases["chunk"]
    assert (stats.requests, stats.fallbacks) == (4, 1)
    assert list(session.report.fallback_reasons) == ["chunk: HTTP 503: Error., after 3 attempts"]
    assert any("extractive instead (1): chunk: HTTP 503" in line for line in session.report.lines())


def test_invalid_json_is_repaired_once(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    server.inject("invalid_json")
    reply = ask(session)
    assert reply is not None and reply["answer"].startswith("LLM answer for Your reply could not be used")
    first, repair = server.chat_requests()
    assert repair.messages[:2] == first.messages
    assert repair.messages[2] == {"role": "assistant", "content": '{"responsibility": "cut short'}
    assert "not valid JSON" in repair.messages[3]["content"]
    assert session.report.phases["chunk"].repairs == 1
    server.reset()
    assert session_for(server, tmp_path) and ask(session_for(server, tmp_path)) == reply  # cached under the question
    assert server.chat_requests() == []


def test_a_reply_validate_rejects_is_repaired(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    server.inject("reply", content='{"answer": 3}')
    reply = ask(session, validate=lambda value: None if isinstance(value.get("answer"), str) else "answer: expected a string")
    assert isinstance(reply["answer"], str)
    assert "answer: expected a string" in server.chat_requests()[1].messages[-1]["content"]


def test_invalid_twice_falls_back_and_is_not_cached(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    server.inject("invalid_json", times=2)
    assert ask(session) is None
    stats = session.report.phases["chunk"]
    assert (stats.requests, stats.repairs, stats.fallbacks) == (2, 1, 1)
    assert "unusable reply twice (the reply is not valid JSON)" in next(iter(session.report.fallback_reasons))
    assert ask(session_for(server, tmp_path)) is not None  # asked again next time
    assert len(server.chat_requests()) == 3


def test_a_hallucinated_symbol_can_be_injected(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    server.inject("hallucinate", symbol="no_such_function")
    assert "no_such_function()" in ask(session)["answer"]
    server.inject("hallucinate")
    assert HALLUCINATED in ask(session, "question two")["detail"]


def test_a_rejected_key_is_one_line_and_stops_sending(server: OpenAIServer, tmp_path: Path, caplog) -> None:
    server.api_key = "the-right-key"
    session = session_for(server, tmp_path)
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        results = session.map(lambda n: ask(session, f"question {n}"), range(6))
    assert results == [None] * 6
    assert 1 <= len(server.chat_requests()) <= session.settings.concurrency  # the ones already in flight
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"llm: {server.base_url} rejected the API key (HTTP 401")
    assert line.endswith("set OPENAI_API_KEY to a valid key; the rest of this build uses extractive text")
    assert session.report.phases["chunk"].fallbacks == 6


def test_map_keeps_order_within_the_concurrency_limit(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path, config=LlmConfig(concurrency=3))
    server.inject("sleep", seconds=0.2, times=None)
    replies = session.map(lambda n: ask(session, f"question {n}"), range(8))
    assert [r["answer"].split(" [")[0] for r in replies] == [f"LLM answer for question {n}" for n in range(8)]
    assert server.most_active == 3


def test_a_dry_run_sends_nothing_and_estimates(server: OpenAIServer, tmp_path: Path) -> None:
    ask(session_for(server, tmp_path))
    server.reset()
    session = session_for(server, tmp_path, dry_run=True)
    assert ask(session) is not None  # cached answers are free
    assert ask(session, "question two") is None
    assert server.requests == []
    stats = session.report.phases["chunk"]
    assert (stats.requests, stats.cache_hits, stats.fallbacks) == (1, 1, 0)
    # the estimate is the output bound: what the request may cost at most
    assert stats.prompt_tokens > 0 and stats.completion_tokens == output_bound(200) and stats.cost > 0
    assert session.report.lines()[0].startswith("llm dry run, nothing sent; estimate")


def test_the_budget_stops_sending(server: OpenAIServer, tmp_path: Path, caplog) -> None:
    # about 0.1 USD a request here, and 0.5 reserved for each: what its output bound may cost
    prices = {"gpt-4o-mini": (1000.0, 1000.0)}
    session = session_for(server, tmp_path, config=LlmConfig(prices=prices, concurrency=1), max_cost=0.7)
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        replies = [ask(session, f"question {n}") for n in range(6)]
    sent = len(server.chat_requests())
    assert 1 <= sent < 6 and replies[:sent] == [r for r in replies if r is not None]
    assert session.report.total.cost <= 0.7
    assert session.report.stopped == "the budget of 0.7 USD is reached (max_cost)"
    assert session.report.phases["chunk"].fallbacks == 6 - sent
    assert session.report.fallback_reasons == {"chunk: not sent: sending had stopped": 6 - sent}
    assert len(caplog.records) == 1
    server.reset()
    resumed = session_for(server, tmp_path)
    assert [ask(resumed, f"question {n}") for n in range(6)][:sent] == replies[:sent]
    assert len(server.chat_requests()) == 6 - sent  # the answers bought before are kept


def test_a_budget_needs_a_price(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path, config=LlmConfig(summarizer_model="local-model"), max_cost=1.0)
    assert ask(session) is None and server.requests == []
    assert "no price known for local-model; give its [input, output] USD per million tokens under llm: prices: in the operator's configuration" in session.report.stopped


def test_azure_uses_the_deployment_url_and_api_version(server: OpenAIServer, tmp_path: Path) -> None:
    environ = {
        "OPENAI_PROVIDER": "azure", "AZURE_OPENAI_ENDPOINT": server.endpoint, "AZURE_OPENAI_API_KEY": KEY,
        "OPENAI_API_VERSION": "2024-06-01", "OPENAI_SUMMARIZER_MODEL": "team-mini", "OPENAI_API_KEY": "not-this-one",
    }
    session, _ = open_session(Config(), tmp_path, environ=environ)
    assert ask(session) is not None
    (request,) = server.chat_requests()
    assert request.path == "/openai/deployments/team-mini/chat/completions"
    assert request.query["api-version"] == ["2024-06-01"]
    assert request.headers["api-key"] == KEY


@pytest.mark.parametrize(("config", "environ", "notice"), [
    (Config(), {}, HOW_TO_TURN_ON),
    (Config(llm=LlmConfig()), {}, "llm: OpenAI: no API key; set OPENAI_API_KEY"),
    (Config(), {"OPENAI_PROVIDER": "azure", "AZURE_OPENAI_API_KEY": "k"}, "llm: Azure OpenAI: no endpoint; set AZURE_OPENAI_ENDPOINT"),
    (Config(llm=LlmConfig(enabled=False)), {"OPENAI_API_KEY": "k"}, ""),
])
def test_without_usable_settings_the_build_is_offline_and_says_why(tmp_path: Path, config: Config, environ: dict, notice: str) -> None:
    session, line = open_session(config, tmp_path, environ=environ)
    assert session is None
    assert line.startswith(notice) and (line.endswith("summaries are extractive") or line in (HOW_TO_TURN_ON, ""))


def test_the_environment_turns_the_llm_on_and_names_the_models(tmp_path: Path) -> None:
    environ = {"OPENAI_API_KEY": "k", "OPENAI_SUMMARIZER_MODEL": "small", "OPENAI_DOC_MODEL": "large"}
    session, _ = open_session(Config(language="ja"), tmp_path, environ=environ)
    assert (session.summarizer_model, session.doc_model, session.language) == ("small", "large", "ja")
    from_file, _ = open_session(Config(llm=LlmConfig(summarizer_model="s2", doc_model="d2")), tmp_path, environ=environ)
    assert (from_file.summarizer_model, from_file.doc_model) == ("s2", "d2")
    assert from_file.identity != session.identity


def test_a_line_cut_short_is_skipped_and_compacted(tmp_path: Path) -> None:
    path = tmp_path / CACHE_DIR / CACHE_FILE
    path.parent.mkdir()
    good = {"key": "k1", "phase": "chunk", "model": "m", "content": "{}", "prompt_tokens": 1, "completion_tokens": 1}
    path.write_text(json.dumps(good) + "\n" + '{"key": "k2", "pha')
    cache = ResponseCache(tmp_path)
    assert len(cache) == 1 and cache.get("k1").content == "{}" and cache.get("k2") is None
    cache.compact()
    assert path.read_text() == json.dumps(good) + "\n"


def test_the_llm_section_of_refdoc_yml_is_validated() -> None:
    config = parse_config({"llm": {"provider": "azure", "summarizer_model": "dep", "max_cost": 2, "prices": {"dep": [1, 2]}}})
    assert config.llm == LlmConfig(provider="azure", summarizer_model="dep", max_cost=2.0, prices={"dep": (1.0, 2.0)})
    with pytest.raises(ConfigError) as raised:
        parse_config({"llm": {"provider": "bing", "concurrency": 0, "modle": "x", "enabled": "yes", "prices": {"m": 1}}})
    (line,) = raised.value.problems
    assert line.startswith("refdoc.yml: llm: provider: expected one of openai, azure, got 'bing'; ")
    for part in ("concurrency: expected a whole number of at least 1, got int 0", "modle: unknown key",
                 "enabled: expected true or false", "prices: expected model: [input, output] USD per million tokens"):
        assert part in line
