"""The pages the doc model writes (decisions, milestones, plans) and query expansion, against
the real local server speaking the OpenAI API (tests/openai_server.py) with the real
`openai` client: structure, grounding, the plan's context, Japanese, fallbacks, the cache."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import SHOP_FIXTURE
from openai_server import HALLUCINATED, NO_WAIT, OpenAIServer
from openai_server import TEST_KEY as KEY

from refdoc_site.cli import main
from refdoc_site.core.config import Config, LlmConfig
from refdoc_site.core.serial import from_json
from refdoc_site.llm import LlmSession, open_session
from refdoc_site.pipeline import (
    WRITTEN_DECISIONS,
    WRITTEN_MILESTONES,
    Workspace,
    index,
    plan,
    publish,
    render,
    summarize,
)
from refdoc_site.providers.openai_api import RetryPolicy
from refdoc_site.rendering.llms import without_front_matter
from refdoc_site.writing.grounding import Citation
from refdoc_site.writing.written import WrittenDecisions


def shop(root: Path, language: str = "en", plans: tuple[str, ...] = ()) -> Workspace:
    """A copy of the golden fixture, indexed offline (chunk summaries stay extractive)."""
    repo = root / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    workspace = Workspace.create(repo, Config(site_name="Shop", language=language, plans=plans), root / "store", root / "site")
    index(workspace)
    return workspace


def session_for(server: OpenAIServer, workspace: Workspace) -> LlmSession:
    policy = RetryPolicy(attempts=2, timeout=5.0)
    environ = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    config = Config(language=workspace.config.language, llm=LlmConfig(concurrency=2))
    session, notice = open_session(config, workspace.store_dir, environ=environ, policy=policy)
    assert session is not None, notice
    return session


def page(workspace: Workspace, name: str) -> str:
    return (workspace.project_dir / "docs" / name).read_text(encoding="utf-8")


def test_decisions_and_milestones_are_written_in_adr_and_phase_form_with_grounded_links(server: OpenAIServer, tmp_path: Path) -> None:
    workspace = shop(tmp_path)
    session = session_for(server, workspace)
    summarize(workspace, session)
    render(workspace)
    assert server.chat_phases()["decisions"] == 1 and server.chat_phases()["milestones"] == 1
    (asked,) = server.chat_requests("decisions")
    assert asked.body["model"] == "gpt-4o"
    prompt = asked.prompt
    assert "[E1] adr: Use Go for the order server." in prompt and "[E3] dependency: Uses requests for HTTP requests." in prompt
    decisions = page(workspace, "decisions.md")
    assert "written by `gpt-4o`" in decisions
    for part in ("## 1. ", "**Context.** LLM context for", "**Decision.** LLM decision for", "**Consequences.** LLM consequences for"):
        assert part in decisions
    # The reply named `app` and cited [S1, E1, M1]: a linked name and links to each source.
    assert "It concerns [`app`](modules/app.md)" in decisions
    assert "([system summary](summaries/system.md); [docs/adr/0001-use-go-for-the-server.md](files/docs/adr/0001-use-go-for-the-server.md.md); [app](modules/app.md))" in decisions
    assert "**Evidence.** [docs/adr/0001-use-go-for-the-server.md](files/docs/adr/0001-use-go-for-the-server.md.md)" in decisions
    written = workspace.store.read_json(WRITTEN_DECISIONS)
    assert written["grounding"]["flagged_names"] == [] and written["grounding"]["citations"] > 0
    milestones = page(workspace, "plans/milestones.md")
    assert "## Phase 1: LLM title for" in milestones
    assert "1. LLM steps for" in milestones and "[app/util.py](../files/app/util.py.md)" in milestones
    assert session.report.total.fallbacks == 0
    publish(workspace)  # mkdocs --strict: every grounded link and anchor exists
    assert (workspace.out_dir / "decisions/index.html").exists()


def test_a_hallucinated_name_is_flagged_and_counted_while_real_names_stay_linked(server: OpenAIServer, tmp_path: Path) -> None:
    workspace = shop(tmp_path)
    server.inject("hallucinate", times=None, when=lambda request: request.phase in ("decisions", "milestones"))
    summarize(workspace, session_for(server, workspace))
    render(workspace)
    decisions = page(workspace, "decisions.md")
    assert f"`{HALLUCINATED}()` *(not found in the code)*" in decisions
    assert f"[`{HALLUCINATED}" not in decisions, "a name the index lacks is never linked"
    assert "It concerns [`app`](modules/app.md)" in decisions
    flagged = workspace.store.read_json(WRITTEN_DECISIONS)["grounding"]["flagged_names"]
    assert flagged and set(flagged) == {HALLUCINATED}
    assert f"names not found in the code are marked: `{HALLUCINATED}`." in decisions
    assert HALLUCINATED in workspace.store.read_json(WRITTEN_MILESTONES)["grounding"]["flagged_names"]
    server.inject("hallucinate", symbol="UserService.purge_all", times=None, when=lambda request: request.phase == "plans")
    record, written = plan(workspace, "delete a user", session_for(server, workspace))
    proposal = written.read_text(encoding="utf-8")
    assert "`UserService.purge_all()` *(not found in the code)*" in proposal
    assert "[app/service.py:26–28](../files/app/service.py.md#chunk-UserService.delete-user)" in proposal
    assert set(record.grounding.flagged_names) == {"UserService.purge_all"}
    publish(workspace)


def test_a_plan_is_drawn_from_the_top_chunks_framed_by_system_and_module_summaries(server: OpenAIServer, tmp_path: Path) -> None:
    workspace = shop(tmp_path)
    session = session_for(server, workspace)
    record, written = plan(workspace, "delete a user", session)
    assert written == workspace.project_dir / "docs/plans/delete-a-user.md"
    (expand,) = server.chat_requests("expand")
    assert expand.body["model"] == "gpt-4o-mini" and expand.messages[-1]["content"] == "delete a user"
    (asked,) = server.chat_requests("plans")
    prompt = asked.prompt
    hierarchy = workspace.store.read_json("summaries/hierarchy.json")
    system_at = prompt.index("[S1] System: " + hierarchy["system"]["text"][:60])
    module_at = prompt.index("[M1] Module `app`: " + hierarchy["modules"]["app"]["text"][:40])
    file_at = prompt.index("[F1] File `app/service.py`")
    chunk_at = prompt.index("[C1] method `UserService.delete_user` in `app/service.py` lines 26-28")
    assert system_at < module_at < file_at < chunk_at
    assert '"delete a user"' in prompt and "self.users.pop(key, None)" in prompt
    assert record.searched.startswith("delete a user ")  # the expansion's terms joined the search
    text = written.read_text(encoding="utf-8")
    assert "# Plan: delete a user" in text and "Proposed by `gpt-4o`" in text
    assert "## Proposed changes" in text and "### 1. LLM title for" in text
    assert "[app/service.py:26–28](../files/app/service.py.md#chunk-UserService.delete-user)" in text
    assert "1. [`UserService.delete_user`](../files/app/service.py.md#chunk-UserService.delete-user) (app/service.py:26–28)" in text
    assert session.report.total.fallbacks == 0
    publish(workspace)


def test_japanese_output(server: OpenAIServer, tmp_path: Path) -> None:
    workspace = shop(tmp_path, language="ja")
    session = session_for(server, workspace)
    summarize(workspace, session)
    plan(workspace, "ユーザーを削除する", session)
    (asked,) = server.chat_requests("decisions")
    assert "Write all prose in Japanese (日本語)." in asked.prompt
    decisions = page(workspace, "decisions.md")
    assert without_front_matter(decisions).splitlines()[0] == "# 設計判断の記録"
    assert "**背景：** contextの説明です。" in decisions and "**決定：**" in decisions and "**結果：**" in decisions
    assert "対象は[`app`](modules/app.md)です ([システムの概要](summaries/system.md); " in decisions
    assert "# リファクタリング計画" in page(workspace, "plans/milestones.md")
    proposal = page(workspace, "plans/ユーザーを削除する.md")
    assert "# 計画: ユーザーを削除する" in proposal and "## 変更案" in proposal
    publish(workspace)
    assert (workspace.out_dir / "plans/ユーザーを削除する/index.html").exists()


def stored_documents(workspace) -> list[dict]:
    """The store's records, without the call graph the summarize phase writes into them."""
    records = [json.loads(line) for line in (workspace.store_dir / "index.jsonl").read_text(encoding="utf-8").splitlines()]
    for record in records:
        for name in ("callers", "callees", "unresolvedCalls"):
            record["metadata"].pop(name)
    return records


def test_failures_fall_back_to_the_offline_pages_and_keep_what_was_built(server: OpenAIServer, tmp_path: Path) -> None:
    offline = shop(tmp_path / "offline")
    summarize(offline)
    render(offline)
    workspace = shop(tmp_path / "llm")
    documents_before = stored_documents(workspace)
    server.inject("status", status=500, headers=NO_WAIT, times=None, when=lambda request: request.phase == "decisions")
    server.inject("invalid_json", times=None, when=lambda request: request.phase == "milestones")
    session = session_for(server, workspace)
    plan(workspace, "export users", session)
    first_plan = page(workspace, "plans/export-users.md")
    assert "Proposed by `gpt-4o`" in first_plan
    assert page(workspace, "decisions.md") == page(offline, "decisions.md")
    assert page(workspace, "plans/milestones.md") == page(offline, "plans/milestones.md")
    phases = session.report.phases
    assert phases["decisions"].fallbacks == 1 and phases["decisions"].retries == 1
    assert phases["milestones"].fallbacks == 1 and phases["milestones"].repairs == 1
    server.inject("status", status=503, headers=NO_WAIT, times=None, when=lambda request: request.phase == "plans")
    record, _ = plan(workspace, "normalize names", session)
    assert record.model == "" and "no changes are proposed" in page(workspace, "plans/normalize-names.md")
    assert page(workspace, "plans/export-users.md") == first_plan, "a plan built before is kept"
    assert stored_documents(workspace) == documents_before
    # What fell back is asked again by the next run (the summarize phase was not recorded as done).
    assert phases["decisions"].fallbacks == 2 and phases["milestones"].fallbacks == 2
    assert phases["plans"].fallbacks == 1 and phases["plans"].requests == 3
    assert any("plans" in reason for reason in session.report.fallback_reasons)
    publish(workspace)


def test_a_second_run_sends_no_request(server: OpenAIServer, tmp_path: Path) -> None:
    workspace = shop(tmp_path, plans=("delete a user",))
    summarize(workspace, session_for(server, workspace))
    render(workspace)
    sent = len(server.chat_requests())
    phases = server.chat_phases()
    assert {name: phases[name] for name in ("decisions", "expand", "milestones", "plans")} == {"decisions": 1, "expand": 1, "milestones": 1, "plans": 1}
    pages = {name: page(workspace, name) for name in ("decisions.md", "plans/milestones.md", "plans/delete-a-user.md")}
    (workspace.store_dir / "facts.json").unlink()
    again = session_for(server, workspace)
    summarize(workspace, again)
    render(workspace)
    assert len(server.chat_requests()) == sent
    assert again.report.total.requests == 0
    assert [again.report.phases[name].cache_hits for name in ("decisions", "expand", "milestones", "plans")] == [1, 1, 1, 1]
    assert {name: page(workspace, name) for name in pages} == pages


def test_the_stored_records_hold_segments_not_markdown(server: OpenAIServer, tmp_path: Path) -> None:
    workspace = shop(tmp_path)
    summarize(workspace, session_for(server, workspace))
    entry = workspace.store.read_json(WRITTEN_DECISIONS)["entries"][0]
    kinds = {next(iter(segment)) for segment in entry["decision"]}
    assert kinds <= {"text", "code", "cite"} and "cite" in kinds
    record = from_json(WrittenDecisions, workspace.store.read_json(WRITTEN_DECISIONS))
    assert any(isinstance(segment, Citation) for segment in record.entries[0].decision)
    json.dumps(entry)  # JSON-able as stored


def test_the_plan_command_uses_the_configured_llm_and_prints_the_account(server: OpenAIServer, tmp_path: Path, monkeypatch, capsys) -> None:
    workspace = shop(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    assert main(["plan", "export users", str(workspace.repo), "--store", str(workspace.store_dir)]) == 0
    out = capsys.readouterr().out
    assert f"plan: {workspace.project_dir / 'docs/plans/export-users.md'}" in out
    assert "no LLM configured" not in out
    assert any(line.split()[:2] == ["plans", "1"] for line in out.splitlines() if line.startswith("  plans"))
    assert "Proposed by `gpt-4o`" in page(workspace, "plans/export-users.md")
    assert main(["plan", "export users", str(workspace.repo), "--store", str(workspace.store_dir), "--no-llm"]) == 0
    assert "no LLM configured" in capsys.readouterr().out
    assert "no changes are proposed" in page(workspace, "plans/export-users.md")


def test_query_expand_feeds_the_llm_terms_to_the_same_ranking_and_caches_them(server: OpenAIServer, tmp_path: Path, monkeypatch, capsys) -> None:
    workspace = shop(tmp_path)
    command = ["query", "認証", str(workspace.repo), "--store", str(workspace.store_dir), "--mode", "sparse", "--json"]
    assert main([*command, "--expand"]) == 0
    captured = capsys.readouterr()
    # The words alone find other chunks (the model words indexed with each chunk), not this one.
    unexpanded = json.loads(captured.out)
    assert "--expand needs an LLM" in captured.err and [hit["symbol"] for hit in unexpanded[:1]] != ["UserService.create_user"]
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.inject("reply", content='{"terms": ["register", "billing", "users"]}', times=None, when=lambda request: request.phase == "expand")
    for _ in range(2):
        assert main([*command, "--expand"]) == 0
        captured = capsys.readouterr()
        assert captured.err.strip() == "expanded: register, billing, users"
        assert json.loads(captured.out)[0]["symbol"] == "UserService.create_user"
    (asked,) = server.chat_requests("expand")  # the second run was answered from the cache
    assert asked.messages[-1]["content"] == "認証" and asked.body["model"] == "gpt-4o-mini"
    assert main(command) == 0 and json.loads(capsys.readouterr().out) == unexpanded
    assert len(server.chat_requests()) == 1, "no expansion unless asked for"


def test_the_overview_opens_each_of_its_four_answers_with_the_models_grounded_paragraph(server: OpenAIServer, tmp_path: Path) -> None:
    """The doc model tells the overview's own facts (its parts, flows, guides): each answer
    cites them and links the names it uses; an invented name is marked on the page and
    counted; offline the overview is what it was, and a failed request keeps it so."""
    offline = shop(tmp_path / "offline")
    summarize(offline)
    render(offline)
    assert "was written by" not in page(offline, "index.md")
    workspace = shop(tmp_path / "llm")
    server.inject("hallucinate", times=None, when=lambda request: request.phase == "overview")
    summarize(workspace, session_for(server, workspace))
    render(workspace)
    (asked,) = server.chat_requests("overview")
    assert "[D1] Document `README.md` (Shop): A tiny shop" in asked.prompt and "[M1] Module `app` (3 files, 46 lines)" in asked.prompt
    assert "[C2] class `Server` in `go/server/server.go`" in asked.prompt  # a central abstraction
    overview = page(workspace, "index.md")
    assert "*The paragraph that opens each section was written by `gpt-4o`" in overview
    for heading, label in (("## What it is", "system"), ("## Its parts", "parts"), ("## How it works", "flow"), ("## Where to start", "start")):
        opening = overview.split(heading + "\n", 1)[1].lstrip("\n").split("\n## ", 1)[0]
        assert f"LLM {label} for" in opening.split("\n\n")[1 if label == "system" else 0], (heading, opening)
    assert "It concerns [`app`](modules/app.md)" in overview or "It concerns [`" in overview
    assert f"`{HALLUCINATED}()` *(not found in the code)*" in overview
    record = workspace.store.read_json("written/overview.json")
    assert record["grounding"]["flagged_names"] and set(record["grounding"]["flagged_names"]) == {HALLUCINATED}
    publish(workspace)  # mkdocs --strict: every grounded link resolves

    failing = shop(tmp_path / "failing")
    server.reset()
    server.inject("status", status=500, headers=NO_WAIT, times=None, when=lambda request: request.phase == "overview")
    session = session_for(server, failing)
    summarize(failing, session)
    render(failing)
    assert session.report.phases["overview"].fallbacks == 1
    assert "was written by" not in page(failing, "index.md") and "## How it works" in page(failing, "index.md")
