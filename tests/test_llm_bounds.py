"""What keeps a slow or weak model from stalling a build or publishing filler: an output
bound on every request, replies that echo the prompt or name nothing of the code refused,
timeouts that slow the session down instead of piling retries up, and SIGTERM honoured
with requests in flight. Real HTTP against the tests' OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from openai_server import TEST_KEY as KEY
from openai_server import OpenAIServer
from test_llm_session import SCHEMA, ask, session_for

from refdoc_site.core.config import LlmConfig
from refdoc_site.core.records import Chunk, ChunkKind, ChunkSummary, Document, Metadata
from refdoc_site.indexing.llm_chunks import CHUNK_FIELDS, CHUNK_REPLY_TOKENS, chunk_words, names_the_chunk, summarize_chunks
from refdoc_site.llm.pacing import MAX_TIMEOUT_FACTOR, Throttle
from refdoc_site.llm.session import output_bound, restates_instructions

ROOT = Path(__file__).resolve().parent.parent


def test_every_request_carries_an_output_bound_sized_to_what_it_asks(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    ask(session)
    session.complete_text("system", [{"role": "user", "content": "describe"}], model=session.doc_model, expect_tokens=600)
    short, long = server.chat_requests()
    assert short.body["max_tokens"] == output_bound(200) < long.body["max_tokens"] == output_bound(600)


def test_a_reply_cut_at_the_bound_is_asked_again_once_then_falls_back_uncached(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    server.inject("cut_off", times=None)
    assert ask(session) is None
    first, repair = server.chat_requests()
    assert "cut off at" in repair.messages[-1]["content"]
    assert session.report.fallback_reasons == {
        f"chunk: unusable reply twice (the reply was cut off at {output_bound(200)} tokens; answer within that)": 1
    }
    server.reset()
    assert ask(session_for(server, tmp_path)) is not None  # nothing of the cut replies was cached
    assert len(server.chat_requests()) == 1


def test_a_reply_that_echoes_the_schema_is_refused_and_never_cached(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    echo = {"answer": "...", "detail": "..."}
    server.inject("reply", content=json.dumps({"answer": "Reply with a JSON object", "detail": "Reply with a JSON object"}), times=None)
    assert ask(session) is None
    assert session.report.phases["chunk"].repairs == 1
    assert "restates the instructions" in next(iter(session.report.fallback_reasons))
    assert not restates_instructions(echo, [{"role": "system", "content": SCHEMA}])  # too short to judge
    server.reset()
    assert ask(session_for(server, tmp_path)) is not None and len(server.chat_requests()) == 1


def test_the_prompts_own_schema_echoed_back_by_a_chunk_reply_is_an_echo() -> None:
    system = 'Reply with a JSON object with exactly these keys: {"responsibility": "what it is for and what it does", ' \
             '"inputOutput": "what it takes and what it returns or produces"}'
    echoed = {"responsibility": "what it is for and what it does", "inputOutput": "what it takes and what it returns or produces"}
    answer = {"responsibility": "Parses the header line into a name and a value.", "inputOutput": "Takes one line, returns a pair."}
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "code"}]
    assert restates_instructions(echoed, messages)
    assert not restates_instructions(answer, messages)


def _document(symbol: str, signature: str, calls: list[str]) -> Document:
    chunk = Chunk(f"app/headers.py#{symbol}", "app/headers.py", "python", ChunkKind.FUNCTION, symbol, symbol,
                  signature, 1, 3, f"{signature}:\n    return 1\n")
    extractive = ChunkSummary("Reads a header.", "", "", "", "")
    return Document(chunk, extractive, Metadata(calls=calls), [], "2026-01-01T00:00:00Z")


def test_a_chunk_reply_must_name_something_of_its_code() -> None:
    check = names_the_chunk(chunk_words(_document("parse_header", "def parse_header(line: str)", ["split"])))
    said = {key: "Handles an input and produces an output for the caller." for key in CHUNK_FIELDS}
    assert check(said) == "the reply names nothing of the code (no name, call or import of it)"
    assert check(said | {"responsibility": "Parses one header line into its name and value."}) is None
    assert check(said | {"notes": "Relies on split()."}) is None
    assert "return" not in chunk_words(_document("f", "def f(x) -> return", []))  # words every chunk has


def test_filler_from_the_model_leaves_the_chunk_its_extractive_summary(server: OpenAIServer, tmp_path: Path) -> None:
    filler = json.dumps({key: "This code performs its task as intended by the author." for key in CHUNK_FIELDS})
    server.inject("reply", content=filler, times=None)
    session = session_for(server, tmp_path)
    document = _document("parse_header", "def parse_header(line: str)", [])
    assert summarize_chunks(session, [document]) == []
    assert session.report.phases["chunk"].fallbacks == 1
    assert server.chat_requests()[0].body["max_tokens"] == output_bound(CHUNK_REPLY_TOKENS)


def test_timeouts_halve_the_requests_in_flight_and_lengthen_the_patience() -> None:
    throttle = Throttle(concurrency=4, timeout=10.0)
    throttle.timed_out()
    assert (throttle.limit, throttle.timeout) == (2, 20.0)
    for _ in range(3):
        throttle.timed_out()
    assert (throttle.limit, throttle.timeout) == (1, 10.0 * MAX_TIMEOUT_FACTOR)
    for _ in range(100):
        throttle.answered()
    assert throttle.limit == 4 and throttle.timeout == 10.0 * MAX_TIMEOUT_FACTOR


def test_a_server_slower_than_the_timeout_gets_one_request_at_a_time_and_more_time(server: OpenAIServer, tmp_path: Path) -> None:
    session = session_for(server, tmp_path, timeout=0.4, config=LlmConfig(concurrency=4))
    server.inject("sleep", seconds=1.0, times=3)  # the first request and its client retries run out of time
    assert ask(session, "slow") is None
    assert session.throttle.limit == 2 and session.throttle.timeout == pytest.approx(0.8)
    server.reset()
    server.inject("sleep", seconds=0.6, times=1)  # now within the longer patience
    assert ask(session, "slow again") is not None
    assert len(server.chat_requests()) == 1


def test_sigterm_stops_a_build_with_requests_in_flight_at_once(server: OpenAIServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for n in range(12):
        (repo / f"m{n}.py").write_text(f"def work_{n}(x):\n    return x + {n}\n", encoding="utf-8")
    server.inject("sleep", seconds=300, times=None)
    env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "refdoc_site", "build", str(repo), "--out", str(tmp_path / "site")]
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while server.active < 2 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        assert server.active >= 2, "the build never had requests in flight"
        sent = time.monotonic()
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=120)
        stopped_in = time.monotonic() - sent
    finally:
        child.kill()
    assert child.returncode == 128 + signal.SIGTERM, err
    assert "terminated; the store keeps what was written before" in err
    assert stopped_in < 60, f"took {stopped_in:.1f} s"  # not the requests' 300 s (11.6 s at a load of 30)
