"""`ask` with a model, against the real local server speaking the OpenAI API
(tests/openai_server.py) through the real `openai` client: the answer streams and cites
only what was retrieved; a citation of something not in the context is caught and marked;
the conversation's history reaches the model; the threshold keeps unrelated chunks out of
the context; a failed call falls back to the search results; the answer is cached."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import markdown
from helpers import HOSTILE_SOURCES, write_repo
from openai_server import HALLUCINATED, NO_WAIT, OpenAIServer
from openai_server import TEST_KEY as KEY

from refdoc_site.asking import retrieval
from refdoc_site.asking.answer import Turn, ask
from refdoc_site.asking.grounded import FLAG
from refdoc_site.asking.library import Library
from refdoc_site.asking.records import FILE_SUMMARY, MODULE_SUMMARY
from refdoc_site.cli import main
from refdoc_site.core.config import Config, LlmConfig
from refdoc_site.core.tokens import count_tokens
from refdoc_site.llm import LlmSession, open_session
from refdoc_site.pipeline import Workspace, index
from refdoc_site.providers.openai_api import RetryPolicy

QUESTION = "how does placing an order charge the card?"


def session_for(server: OpenAIServer, cache_dir: Path) -> LlmSession:
    """A session whose response cache is the test's own (so no test answers from another's)."""
    environ = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    session, notice = open_session(Config(llm=LlmConfig()), cache_dir, environ=environ, policy=RetryPolicy(attempts=2, timeout=5.0))
    assert session is not None, notice
    return session


def test_the_answer_streams_and_cites_only_the_retrieved_context(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    pieces: list[str] = []
    answer = ask(QUESTION, ask_library, session_for(server, tmp_path), on_text=pieces.append)
    assert answer.mode == "llm" and answer.flagged == []
    (request,) = server.chat_requests("ask")
    assert request.body["stream"] is True and request.streamed and len(pieces) > 5
    prompt = request.messages[-1]["content"]
    assert prompt.startswith(f"Question: {QUESTION}\n\nSources:\n[C1] ")
    context = {source.id: source for source in answer.sources}
    assert answer.cited and set(answer.cited) <= set(context)
    for source_id in answer.cited:
        source = context[source_id]
        assert f"[{source.label}]({source.url})" in answer.text  # the citation, as a link
        assert f"`{source.path}` lines {source.start_line}-{source.end_line}" in prompt or source.kind in (FILE_SUMMARY, MODULE_SUMMARY)
    first = answer.sources[0]
    assert first.reason == "retrieved" and first.id == answer.cited[0]
    assert f"[{first.label}]({first.url})" in "".join(pieces), "citations are links already in the stream"
    assert "[C1" not in answer.text and "[C1" not in "".join(pieces)


def test_a_files_top_level_code_is_a_chunk_not_a_module_summary(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    question = "which module imports charge_card from the payments?"
    top_level = [s for s in retrieval.context_sources(ask_library, retrieval.retrieve(question, ask_library)) if s.kind == "module"]
    assert top_level and top_level[0].id.endswith("#(module)") and top_level[0].reason == "retrieved"
    assert ask(question, ask_library, session_for(server, tmp_path)).mode == "llm"
    prompt = server.chat_requests("ask")[0].messages[-1]["content"].splitlines()
    assert any(line.startswith("[C") and f"module `(module)` in `{top_level[0].path}` lines 1-" in line for line in prompt)
    assert all("(module)" not in line for line in prompt if line.startswith("[M")), "module summaries are the M sources"


def test_the_context_is_widened_through_the_graph_within_the_budget(ask_library: Library) -> None:
    retrieved = retrieval.retrieve("place an order", ask_library)
    sources = retrieval.context_sources(ask_library, retrieved)
    reasons = {source.reason.split(" ")[0] for source in sources}
    assert {"retrieved", "callee", "file", "module"} <= reasons
    callee = next(s for s in sources if s.reason == "callee of place_order" and s.id == "shop/payments.py#charge_card")
    assert callee.url == ask_library.page_url(callee.id)
    spent = sum(count_tokens(retrieval.prompt_text(ask_library, s)) for s in sources)
    assert spent <= retrieval.TOKEN_BUDGET
    small = retrieval.context_sources(ask_library, retrieved, budget=spent // 2)
    assert 0 < len(small) < len(sources) and sum(count_tokens(retrieval.prompt_text(ask_library, s)) for s in small) <= spent // 2


def test_a_citation_outside_the_context_is_caught_and_marked(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    reply = (
        "Placing an order charges the card [C1]. The stock is checked first [C42]. "
        "The courier is paid in `shop/courier.py:3-9`, and the card in `shop/payments.py:400-420`."
    )
    server.inject("reply", content=reply, when=lambda request: request.phase == "ask")
    answer = ask(QUESTION, ask_library, session_for(server, tmp_path))
    assert answer.mode == "llm"
    assert answer.flagged == ["[C42]", "shop/courier.py:3-9", "shop/payments.py:400-420"]
    assert f"[C42] {FLAG}" in answer.text and f"`shop/courier.py:3-9` {FLAG}" in answer.text
    assert f"`shop/payments.py:400-420` {FLAG}" in answer.text, "a real file, but not those lines of the context"
    assert answer.cited == [answer.sources[0].id] and answer.sources[0].citation() in answer.text


def test_a_path_the_model_cites_itself_links_when_the_context_holds_it(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    place = ask_library.definition("place_order")
    cite = f"shop/orders.py:{place.start_line}-{place.end_line}"
    server.inject("reply", content=f"The order is placed by `place_order` in {cite}.", when=lambda request: request.phase == "ask")
    answer = ask(QUESTION, ask_library, session_for(server, tmp_path))
    assert answer.flagged == [] and answer.cited == ["shop/orders.py#place_order"]
    assert f"[{cite}]({place.url})" in answer.text and f"[`place_order`]({place.url})" in answer.text


def test_a_name_the_index_does_not_know_is_flagged(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    server.inject("hallucinate", when=lambda request: request.phase == "ask")
    answer = ask(QUESTION, ask_library, session_for(server, tmp_path))
    assert answer.mode == "llm" and answer.flagged == [HALLUCINATED]
    assert f"`{HALLUCINATED}()` {FLAG}" in answer.text and answer.cited


def test_the_history_is_passed_to_the_model(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    session = session_for(server, tmp_path)
    first = ask(QUESTION, ask_library, session)
    second = ask("and what if the card is refused?", ask_library, session, history=[Turn(first.question, first.text)])
    assert second.mode == "llm"
    earlier, later = server.chat_requests("ask")
    assert [m["role"] for m in earlier.messages] == ["system", "user"]
    assert later.messages[1:3] == [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": first.text}]
    assert later.messages[3]["content"].startswith("Question: and what if the card is refused?")


def test_the_threshold_keeps_unrelated_chunks_out_of_the_context(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    question = "how is a refund given back to the card?"
    ranked = retrieval.ranked(question, ask_library)
    dropped = [r.hit.chunk_id for r in ranked if not r.relevant]
    kept = [r.hit.chunk_id for r in ranked if r.relevant]
    assert dropped and kept, "the search ranks every chunk; some must fall below the threshold"
    answer = ask(question, ask_library, session_for(server, tmp_path))
    retrieved = [s.id for s in answer.sources if s.reason == "retrieved"]
    assert retrieved == [ask_library.definition(k).id for k in kept][: len(retrieved)]
    assert not {ask_library.definition(d).id for d in dropped} & set(retrieved)
    # A question about nothing in the repository never reaches the model: nothing to answer from.
    server.reset()
    nothing = ask("what temperature should sourdough bread be baked at?", ask_library, session_for(server, tmp_path))
    assert nothing.mode == "not_found" and server.chat_requests("ask") == []


def test_a_failed_call_falls_back_to_the_search_results_and_says_so(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    server.inject("status", status=500, headers=NO_WAIT, times=None, when=lambda request: request.phase == "ask")
    pieces: list[str] = []
    session = session_for(server, tmp_path)
    answer = ask(QUESTION, ask_library, session, on_text=pieces.append)
    assert answer.mode == "extractive" and "failed" in answer.notice
    assert answer.text.startswith("(the model's answer failed, so these are the search results)\n\n`place_order` ([shop/orders.py:")
    assert "\n\nSearch results (no model wrote this answer" in answer.text
    assert "".join(pieces) == answer.text.rstrip() + "\n" or "".join(pieces).rstrip() == answer.text.rstrip()
    assert len(server.chat_requests("ask")) == 2 and session.report.phase("ask").fallbacks == 1


def test_a_stream_broken_halfway_is_not_asked_again_and_falls_back(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    server.inject("broken_stream", when=lambda request: request.phase == "ask")
    pieces: list[str] = []
    session = session_for(server, tmp_path)
    answer = ask(QUESTION, ask_library, session, on_text=pieces.append)
    assert answer.mode == "extractive" and "failed" in answer.notice
    streamed = "".join(pieces)
    assert streamed.startswith("LLM text for Question:"), "the first half reached the reader"
    assert streamed.endswith("\n\n" + answer.text), "then the search results, apart"
    assert len(server.chat_requests("ask")) == 1, "pieces already shown cannot be taken back: no retry"
    assert any("stream broke" in reason for reason in session.report.fallback_reasons)


def test_the_answer_is_cached_like_every_request(server: OpenAIServer, ask_library: Library, tmp_path: Path) -> None:
    first = ask(QUESTION, ask_library, session_for(server, tmp_path))
    pieces: list[str] = []
    again = ask(QUESTION, ask_library, session_for(server, tmp_path), on_text=pieces.append)
    assert again.text == first.text and again.cited == first.cited
    assert len(server.chat_requests("ask")) == 1, "the second answer came from the cache"
    assert first.sources[0].citation() in "".join(pieces), "a cached answer is streamed too, its citations rewritten"


def test_chat_and_history_file_on_the_command_line(server: OpenAIServer, ask_workspace: Workspace, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    history = tmp_path / "talk.jsonl"
    command = ["ask", "-", str(ask_workspace.repo), "--store", str(ask_workspace.store_dir), "--chat", "--json", "--history", str(history)]
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(f"{QUESTION}\n\nand what if the card is refused?\n"))
    assert main(command) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [a["mode"] for a in answers] == ["llm", "llm"]
    turns = [json.loads(line) for line in history.read_text(encoding="utf-8").splitlines()]
    assert turns == [{"question": a["question"], "answer": a["text"]} for a in answers]
    asked = server.chat_requests("ask")
    assert asked[1].messages[1:3] == [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": answers[0]["text"]}]
    # A later run continues the saved conversation.
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(""))
    assert main(["ask", "which file holds the refund?", str(ask_workspace.repo), "--store", str(ask_workspace.store_dir), "--history", str(history)]) == 0
    out = capsys.readouterr().out
    assert "context:" in out and len(history.read_text(encoding="utf-8").splitlines()) == 3
    assert [m["content"] for m in server.chat_requests("ask")[-1].messages if m["role"] == "user"][:2] == [QUESTION, "and what if the card is refused?"]
    history.write_text("not json\n", encoding="utf-8")
    assert main(["ask", "refund", str(ask_workspace.repo), "--store", str(ask_workspace.store_dir), "--history", str(history)]) == 2
    assert f"--history {history}:1: not a turn" in capsys.readouterr().err


def test_a_model_answers_citations_keep_the_repositorys_paths_as_text(server: OpenAIServer, tmp_path: Path) -> None:
    """The model cites the hostile sources by number; each citation becomes a link whose
    label is the path as text: rendered, no HTML element comes out of a path, and a path's
    newline does not break the answer's paragraph."""
    workspace = Workspace.create(write_repo(tmp_path / "repo", HOSTILE_SOURCES), Config(), tmp_path / "store")
    index(workspace)
    server.inject("reply", content="The widget spins [C1] [C2] [C3].", when=lambda request: request.phase == "ask")
    answer = ask("spin the widget", Library.open(workspace), session_for(server, tmp_path))
    assert answer.mode == "llm" and len(answer.cited) == 3, answer.text
    assert any("<img" in source.path for source in answer.sources), "the hostile paths were in the context"
    assert len(answer.text.strip().splitlines()) == 1, answer.text
    html = markdown.markdown(answer.text)
    assert "<img" not in html and len(re.findall(r'<a href="files/', html)) == 3, html
