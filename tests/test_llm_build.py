"""LLM summaries through the whole build, against the local OpenAI API server.

The build runs as a user runs it (`refdoc-site build`, the environment naming the server);
the server's replies are deterministic and name the question they answer, so a page's text
tells which request wrote it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from helpers import SHOP_SOURCES, without_heartbeats, write_repo
from openai_server import NO_WAIT, TEST_KEY, OpenAIServer

from refdoc_site.cli import main
from refdoc_site.core import pages
from refdoc_site.core.store import Store
from refdoc_site.indexing.llm_chunks import CHUNK_FIELDS, check_chunk_summary, chunk_summary
from refdoc_site.search.embed import default_embedder, document_text

SOURCES = {
    **SHOP_SOURCES,
    "billing/tax.py": '''
        RATE = 0.2


        def tax_of(amount: float) -> float:
            """The tax due on an amount."""
            return amount * RATE
    ''',
}


@pytest.fixture()
def llm_environment(server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    return server


def build(repo: Path, capsys, *flags: str) -> tuple[int, str, str]:
    code = main(["build", str(repo), "--out", str(repo.parent / "site"), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def page(repo: Path, name: str) -> str:
    """A rendered page's Markdown, without the backslashes that escape `_` and `[`."""
    return (repo / ".refdoc" / "mkdocs" / "docs" / name).read_text(encoding="utf-8").replace("\\", "")


def file_page(repo: Path, path: str) -> str:
    return page(repo, pages.file_page(path))


def counts(repo: Path) -> dict[str, int]:
    """The requests a full build sends, by phase: one per chunk, file, module, the system and the overview."""
    store = Store(repo / ".refdoc")
    state = store.load()
    modules = store.read_json("summaries/hierarchy.json")["modules"]
    return {"chunk": len(state.documents), "file": len(state.files), "module": len(modules), "system": 1, "overview": 1}


def test_the_llm_writes_every_summary_level_and_the_pages_show_it(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    code, out, err = build(repo, capsys)
    assert code == 0, err
    assert llm_environment.chat_phases() == counts(repo)
    state = Store(repo / ".refdoc").load()
    assert {d.summary.source for d in state.documents} == {"gpt-4o-mini"}
    invoice = file_page(repo, "billing/invoice.py")
    assert "LLM responsibility for Chunk: billing/invoice.py function send_reminder" in invoice
    assert "LLM summary for File: billing/invoice.py" in invoice
    assert "LLM summary for Module: billing (2 files)" in page(repo, "modules/billing.md")
    assert "LLM summary for Repository: 3 files in 2 modules" in page(repo, "summaries/system.md")
    assert "LLM system for" in page(repo, "index.md")  # the doc model's overview, told from the system summary and more
    assert (tmp_path / "site" / "index.html").exists()
    table = out[out.index("llm: gpt-4o-mini (summaries), gpt-4o (documents)"):].splitlines()
    rows = {line.split()[0]: line.split() for line in table[2:] if line.startswith("  ")}
    assert {phase: int(rows[phase][1]) for phase in counts(repo)} == counts(repo)
    assert rows["total"][1] == str(sum(counts(repo).values())) and rows["total"][-1] == "0"


def test_an_unchanged_rebuild_sends_nothing_and_one_changed_file_only_what_depends_on_it(
    llm_environment: OpenAIServer, tmp_path: Path, capsys
) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert build(repo, capsys)[0] == 0
    first = file_page(repo, "billing/invoice.py")
    llm_environment.reset()
    assert build(repo, capsys)[0] == 0
    assert llm_environment.chat_requests() == []
    assert file_page(repo, "billing/invoice.py") == first

    changed = SOURCES["billing/invoice.py"].replace("Email a payment reminder", "Send a payment reminder by email")
    write_repo(repo, {"billing/invoice.py": changed})
    code, out, _ = build(repo, capsys)
    assert code == 0
    assert llm_environment.chat_phases() == {"chunk": 1, "file": 1, "module": 1, "system": 1, "overview": 1}
    (chunk_request,) = llm_environment.chat_requests("chunk")
    assert "send_reminder" in chunk_request.messages[1]["content"].splitlines()[0]
    assert "Module: billing" in llm_environment.chat_requests("module")[0].prompt
    chunk_row = next(line for line in out.splitlines() if line.strip().startswith("chunk")).split()
    siblings = [d for d in Store(repo / ".refdoc").load().documents if d.chunk.path == "billing/invoice.py"]
    assert chunk_row[1:3] == ["1", str(len(siblings) - 1)]  # the file's unchanged chunks: answered by the cache


def test_a_failed_request_falls_back_and_the_next_build_asks_only_for_it(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    tax_of = "Chunk: billing/tax.py function tax_of"
    llm_environment.inject("status", status=500, headers=NO_WAIT, times=None, when=lambda r: tax_of in r.prompt)
    code, out, err = build(repo, capsys)
    assert code == 0, err
    state = Store(repo / ".refdoc").load()
    tax = next(d for d in state.documents if d.chunk.symbol == "tax_of")
    assert tax.summary.source == "extractive" and tax.summary.responsibility == "The tax due on an amount."
    assert "extractive instead (1): chunk: HTTP 500: The server had an error., after 4 attempts" in out
    assert "The tax due on an amount." in file_page(repo, "billing/tax.py")
    assert "LLM summary for File: billing/tax.py" in file_page(repo, "billing/tax.py")  # the levels above still asked

    llm_environment.reset()
    code, out, _ = build(repo, capsys)
    assert llm_environment.chat_phases() == {"chunk": 1, "file": 1, "module": 1, "system": 1, "overview": 1}
    assert "LLM responsibility for Chunk: billing/tax.py function tax_of" in file_page(repo, "billing/tax.py")
    tax = next(d for d in Store(repo / ".refdoc").load().documents if d.chunk.symbol == "tax_of")
    (vector,) = default_embedder().embed([document_text(tax)])  # embedded again with the model's text
    assert tax.embedding == pytest.approx(vector.tolist(), abs=1e-3)
    llm_environment.reset()
    assert build(repo, capsys)[0] == 0 and llm_environment.chat_requests() == []


def test_a_dead_server_loses_nothing_an_earlier_build_got(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert build(repo, capsys)[0] == 0
    members_before = file_page(repo, "accounts/members.py")
    write_repo(repo, {"billing/tax.py": SOURCES["billing/tax.py"].replace("tax due", "tax owed")})
    llm_environment.reset()
    llm_environment.inject("status", status=503, headers=NO_WAIT, times=None)
    assert build(repo, capsys)[0] == 0
    assert file_page(repo, "accounts/members.py") == members_before  # the cache answers the unchanged file
    assert "LLM summary for Module: accounts" in page(repo, "modules/accounts.md")
    assert "LLM responsibility for Chunk: billing/invoice.py function send_reminder" in file_page(repo, "billing/invoice.py")
    assert "The tax owed on an amount." in file_page(repo, "billing/tax.py")  # only what changed is extractive
    assert (tmp_path / "site" / "index.html").exists()


def test_without_a_key_the_build_is_offline_and_says_once_how_to_turn_the_llm_on(server: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    code, out, err = build(repo, capsys)
    assert code == 0 and without_heartbeats(err) == ""
    assert out.count("llm: off, summaries are extractive; to have an LLM write them set OPENAI_API_KEY") == 1
    assert "LLM " not in file_page(repo, "billing/invoice.py")
    assert {d.summary.source for d in Store(repo / ".refdoc").load().documents} == {"extractive"}


def test_a_rejected_key_is_one_line_and_the_site_is_built_extractively(
    llm_environment: OpenAIServer, tmp_path: Path, monkeypatch, capsys, caplog
) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        code, out, err = build(repo, capsys)
    assert code == 0
    assert "Traceback" not in err
    (line,) = [record.getMessage() for record in caplog.records]
    assert line.startswith(f"llm: {llm_environment.base_url} rejected the API key (HTTP 401: Incorrect API key")
    assert line.endswith("set OPENAI_API_KEY to a valid key; the rest of this build uses extractive text")
    assert f"stopped sending: {llm_environment.base_url} rejected the API key (HTTP 401" in out
    assert len(llm_environment.chat_requests()) <= 4  # the requests already in flight, never retried
    assert (tmp_path / "site" / "index.html").exists()
    assert "LLM " not in file_page(repo, "billing/invoice.py")


def test_azure_mode_sends_every_request_to_its_deployment(server: OpenAIServer, tmp_path: Path, monkeypatch, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    for name, value in (("OPENAI_PROVIDER", "azure"), ("AZURE_OPENAI_ENDPOINT", server.endpoint),
                        ("AZURE_OPENAI_API_KEY", TEST_KEY), ("OPENAI_API_VERSION", "2024-10-21"),
                        ("OPENAI_SUMMARIZER_MODEL", "docs-mini")):
        monkeypatch.setenv(name, value)
    assert build(repo, capsys)[0] == 0
    requests = server.chat_requests()
    assert len(requests) == sum(counts(repo).values())
    deployments = {r.phase: r.path for r in requests}
    assert {tuple(r.query["api-version"]) for r in requests} == {("2024-10-21",)}
    assert {deployments[phase] for phase in ("chunk", "file", "module", "system")} == {"/openai/deployments/docs-mini/chat/completions"}
    assert deployments["overview"] == "/openai/deployments/gpt-4o/chat/completions"  # the doc model's own deployment
    assert "LLM summary for File: billing/invoice.py" in file_page(repo, "billing/invoice.py")


def test_a_missing_azure_endpoint_is_one_line_and_the_build_goes_on(tmp_path: Path, monkeypatch, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    monkeypatch.setenv("OPENAI_PROVIDER", "azure")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    code, _, err = build(repo, capsys)
    assert code == 0
    assert without_heartbeats(err) == "llm: Azure OpenAI: no endpoint; set AZURE_OPENAI_ENDPOINT (https://NAME.openai.azure.com); summaries are extractive"


def test_a_dry_run_sends_nothing_and_estimates_what_the_build_sends(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    code, out, _ = build(repo, capsys, "--dry-run")
    assert code == 0
    assert llm_environment.requests == []
    assert not (tmp_path / "site").exists()
    assert "llm dry run, nothing sent; estimate" in out and "dry run: no request sent, no site built" in out
    estimated = {line.split()[0]: int(line.split()[1]) for line in out.splitlines() if line.startswith("  ") and line.split()[0] in counts(repo)}
    assert estimated == counts(repo)
    total = next(line for line in out.splitlines() if line.strip().startswith("total")).split()
    assert float(total[-2]) > 0  # an estimated cost in USD: gpt-4o-mini has a price

    assert build(repo, capsys)[0] == 0
    assert llm_environment.chat_phases() == estimated


def test_max_cost_stops_sending_the_site_still_builds_and_the_next_build_resumes(
    llm_environment: OpenAIServer, tmp_path: Path, capsys
) -> None:
    repo = write_repo(tmp_path / "repo", {**SOURCES, "refdoc.yml": "llm:\n  concurrency: 1\n  prices: {gpt-4o-mini: [1000, 1000]}\n"})
    code, out, _ = build(repo, capsys, "--max-cost", "1.5", "--trust-config")  # the prices are the operator's here
    assert code == 0
    assert "stopped sending: the budget of 1.5 USD is reached (max_cost)" in out
    first = [r for r in llm_environment.chat_requests() if r.status == 200]
    assert 1 <= len(first) < sum(counts(repo).values())
    assert (tmp_path / "site" / "index.html").exists()

    llm_environment.reset()
    assert build(repo, capsys)[0] == 0
    second = llm_environment.chat_requests()
    assert len(first) + len(second) == sum(counts(repo).values())
    asked_before = {json.dumps(r.messages) for r in first}
    assert not any(json.dumps(r.messages) in asked_before for r in second)


def test_a_build_whose_server_dies_half_way_resumes_from_the_cache(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", {**SOURCES, "refdoc.yml": "llm:\n  concurrency: 1\n"})
    answered = []
    dead = llm_environment.inject(
        "status", status=503, headers=NO_WAIT, times=None, when=lambda r: len(answered) >= 4 or answered.append(r) is not None
    )
    code, out, _ = build(repo, capsys)
    assert code == 0 and "extractive instead" in out
    sources = [d.summary.source for d in Store(repo / ".refdoc").load().documents]
    assert sources.count("gpt-4o-mini") == 4  # what was answered before the server died is kept
    assert "stopped sending: 5 requests in a row failed (the last: HTTP 503: Error., after 4 attempts)" in out
    assert len(llm_environment.chat_requests()) == 4 + 5 * 4  # the dead server was not asked for every item
    llm_environment.faults.remove(dead)
    assert (tmp_path / "site" / "index.html").exists()
    llm_environment.reset()
    assert build(repo, capsys)[0] == 0
    resent = {json.dumps(r.messages) for r in answered} & {json.dumps(r.messages) for r in llm_environment.chat_requests()}
    assert resent == set()
    assert {d.summary.source for d in Store(repo / ".refdoc").load().documents} == {"gpt-4o-mini"}


def test_japanese_output_is_asked_for_and_shown(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", {**SOURCES, "refdoc.yml": "language: ja\n"})
    assert build(repo, capsys)[0] == 0
    asked = [r.messages[0]["content"] for r in llm_environment.chat_requests()]
    assert asked and all("Write in Japanese." in text or "Write all prose in Japanese (日本語)." in text for text in asked)
    invoice = file_page(repo, "billing/invoice.py")
    assert "responsibilityの説明です。対象は「Chunk: billing/invoice.py function send_reminder」" in invoice
    assert "summaryの説明です。対象は「File: billing/invoice.py」" in invoice


def test_no_llm_keeps_the_build_offline(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert build(repo, capsys)[0] == 0
    llm_environment.reset()
    code, _, _ = build(repo, capsys, "--no-llm")
    assert code == 0 and llm_environment.requests == []
    assert "LLM " not in file_page(repo, "billing/invoice.py")


def test_overlong_fields_are_cut_at_a_sentence_and_lists_joined() -> None:
    long = "First sentence that says what it does. " * 4 + "A last one that no longer fits in two hundred characters."
    value = {key: long for key in CHUNK_FIELDS} | {"mainDependencies": ["mail.send", "pdf.render"]}
    assert check_chunk_summary(value) is None
    summary = chunk_summary(value, "m")
    assert summary.responsibility == ("First sentence that says what it does. " * 4).strip()
    assert summary.mainDependencies == "mail.send, pdf.render" and summary.source == "m"
    assert check_chunk_summary({"responsibility": "", "inputOutput": 3}) == (
        "responsibility: empty; inputOutput: expected a string, got int; sideEffects: expected a string, got NoneType; "
        "mainDependencies: expected a string, got NoneType; notes: expected a string, got NoneType"
    )


def test_the_llm_writes_no_summary_over_a_maintainers_correction(llm_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    """The model summarizes tax_of as it does every chunk; the page and the search data show
    the maintainer's summary instead, marked, and the model's text nowhere."""
    corrected = "Twenty per cent of the amount, rounded by the caller."
    repo = write_repo(tmp_path / "repo", {**SOURCES, "refdoc-corrections.yml": f"- definition: billing/tax.py#tax_of\n  summary: {corrected}\n"})
    code, _, err = build(repo, capsys)
    assert code == 0, err
    stored = {d.chunk.symbol: d.summary for d in Store(repo / ".refdoc").load().documents if d.chunk.path == "billing/tax.py"}
    assert stored["tax_of"].source == "gpt-4o-mini", "the store keeps what the model wrote"
    tax = file_page(repo, "billing/tax.py")
    assert f"Responsibility:** {corrected}" in tax and "Written by a maintainer" in tax
    assert "LLM responsibility for Chunk: billing/tax.py function tax_of" not in tax
    chunks = (repo / ".refdoc/mkdocs/docs/search/refdoc/chunks.json").read_text(encoding="utf-8")
    assert corrected in chunks and "LLM responsibility for Chunk: billing/tax.py function tax_of" not in chunks
