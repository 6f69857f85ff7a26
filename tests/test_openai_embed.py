"""The API embedder against a real local server speaking the OpenAI API (tests/openai_server.py).

The real `openai` client is pointed at the server through its base URL (or the Azure
endpoint); nothing is patched. The client's waits before retries are read from when the
server received each try; failures that do not test the wait ask for 1 ms (NO_WAIT).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import SHOP_SOURCES as SOURCES
from helpers import write_repo
from openai_server import NO_WAIT, SLACK, OpenAIServer, vector_for, waits
from openai_server import TEST_KEY as KEY

from refdoc_site.cli import main
from refdoc_site.core.config import EmbeddingConfig, parse_config
from refdoc_site.core.errors import ApiError, ConfigError
from refdoc_site.core.store import Store
from refdoc_site.providers.openai_api import ApiSettings, RetryPolicy
from refdoc_site.providers.openai_embed import BatchFailure, OpenAIEmbedder
from refdoc_site.search.api_vectors import VECTORS_NAME, ApiVectors, text_digest
from refdoc_site.search.embed import document_text
from refdoc_site.search.ranking import SearchIndex

MODEL = "hash-bag-of-words"
def make_embedder(server: OpenAIServer, timeout: float = 5.0, **environ: str) -> OpenAIEmbedder:
    policy = RetryPolicy(attempts=3, timeout=timeout)
    environ = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url, "OPENAI_EMBEDDING_MODEL": MODEL, **environ}
    return OpenAIEmbedder.from_config(EmbeddingConfig(), policy, environ)


def texts(count: int) -> list[str]:
    return [f"text {i} about topic{i % 7}" for i in range(count)]


def test_texts_go_in_batches_of_100_and_come_back_normalised(server: OpenAIServer) -> None:
    embedder = make_embedder(server)
    given = texts(250)
    rows, failures = embedder.embed_batches(given)
    requests = server.embedding_requests()
    assert [len(r.inputs) for r in requests] == [100, 100, 50]
    assert failures == []
    assert {r.body["model"] for r in requests} == {MODEL}
    assert requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert embedder.dim == server.dim
    for text, row in zip(given, rows):
        assert row.dtype == np.float32
        np.testing.assert_allclose(row, vector_for(text, server.dim), atol=1e-6)
    assert embedder.tokens > 0


def test_default_model_is_text_embedding_3_small(server: OpenAIServer) -> None:
    server.dim = 1536
    environ = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    embedder = OpenAIEmbedder.from_config(EmbeddingConfig(), environ=environ)
    assert embedder.embed(["hello world"]).shape == (1, 1536)
    assert server.embedding_requests()[0].body["model"] == "text-embedding-3-small"
    assert embedder.name == "openai:text-embedding-3-small"


@pytest.mark.parametrize(("headers", "expected"), [({"retry-after": "1"}, 1.0), ({"retry-after-ms": "150"}, 0.15)])
def test_429_is_retried_after_the_wait_it_asks_for(server: OpenAIServer, headers: dict, expected: float) -> None:
    embedder = make_embedder(server)
    server.inject("status", status=429, headers=headers)
    started = time.monotonic()
    vectors = embedder.embed(texts(5))
    assert time.monotonic() - started >= expected
    (waited,) = waits(server.embedding_requests())
    assert expected <= waited < expected + SLACK
    assert [r.status for r in server.embedding_requests()] == [429, 200]
    assert vectors.shape == (5, server.dim)


def test_500_is_retried_with_exponential_backoff_and_jitter(server: OpenAIServer) -> None:
    embedder = make_embedder(server)
    server.inject("status", status=500, times=2)
    embedder.embed(texts(3))
    assert [r.status for r in server.embedding_requests()] == [500, 500, 200]
    first, second = waits(server.embedding_requests())
    assert 0.375 <= first < 0.5 + SLACK and 0.75 <= second < 1.0 + SLACK  # the client's: exponential, with jitter


def test_a_timeout_is_retried(server: OpenAIServer) -> None:
    embedder = make_embedder(server, timeout=0.3)
    server.inject("sleep", seconds=30.0)
    started = time.monotonic()
    assert embedder.embed(texts(2)).shape == (2, server.dim)
    assert len(server.embedding_requests()) == 2
    assert time.monotonic() - started < 15.0  # the client gave up on the sleeping request (a loaded machine took 1.7 s)


@pytest.mark.parametrize("kind", ["malformed", "wrong_dim", "short"])
def test_a_malformed_answer_is_retried(server: OpenAIServer, kind: str) -> None:
    embedder = make_embedder(server)
    server.inject(kind, when=lambda request: "text 120 about topic1" in request.inputs)
    rows, failures = embedder.embed_batches(texts(150))
    assert failures == []
    assert [len(r.inputs) for r in server.embedding_requests()] == [100, 50, 50]
    np.testing.assert_allclose(rows[120], vector_for("text 120 about topic1", server.dim), atol=1e-6)


@pytest.mark.parametrize(("kind", "settings", "reason"), [
    ("status", {"status": 500, "headers": NO_WAIT}, "HTTP 500: The server had an error., after 3 attempts"),
    ("wrong_dim", {}, "malformed response: 65-dimensional vectors, expected 64, after 3 attempts"),
])
def test_a_batch_that_keeps_failing_is_skipped_and_counted(server: OpenAIServer, kind: str, settings: dict, reason: str) -> None:
    embedder = make_embedder(server)
    server.inject(kind, times=None, when=lambda request: "text 150 about topic3" in request.inputs, **settings)
    given = texts(250)
    rows, failures = embedder.embed_batches(given)
    assert failures == [BatchFailure(100, 200, reason)]
    assert [len(r.inputs) for r in server.embedding_requests()] == [100, 100, 100, 100, 50]
    assert all(row is None for row in rows[100:200])
    assert all(row is not None for row in rows[:100] + rows[200:])


def test_after_three_failed_batches_the_rest_are_not_sent(server: OpenAIServer) -> None:
    embedder = make_embedder(server)
    server.inject("status", status=503, headers=NO_WAIT, times=None)
    rows, failures = embedder.embed_batches(texts(450))
    assert len(server.embedding_requests()) == 3 * 3
    assert [(f.start, f.end) for f in failures] == [(0, 100), (100, 200), (200, 300), (300, 400), (400, 450)]
    assert failures[-1].reason.startswith("not sent")
    assert rows == [None] * 450


def test_a_failed_query_is_one_clear_error(server: OpenAIServer) -> None:
    embedder = make_embedder(server)
    server.inject("status", status=500, headers=NO_WAIT, times=None)
    with pytest.raises(ApiError, match=r"embedding failed \(HTTP 500"):
        embedder.embed(["erase an account"])


def test_azure_mode_uses_the_deployment_url_and_api_version(server: OpenAIServer) -> None:
    environ = {
        "OPENAI_PROVIDER": "azure",
        "AZURE_OPENAI_ENDPOINT": server.endpoint,
        "AZURE_OPENAI_API_KEY": KEY,
        "OPENAI_API_VERSION": "2024-06-01",
        "OPENAI_EMBEDDING_MODEL": "team-embeddings",
        "OPENAI_API_KEY": "not-this-one",
    }
    embedder = OpenAIEmbedder.from_config(EmbeddingConfig(), environ=environ)
    vectors = embedder.embed(["hello azure"])
    (request,) = server.embedding_requests()
    assert request.path == "/openai/deployments/team-embeddings/embeddings"
    assert request.query["api-version"] == ["2024-06-01"]
    assert request.headers["api-key"] == KEY
    np.testing.assert_allclose(vectors[0], vector_for("hello azure", server.dim), atol=1e-6)
    assert embedder.name == "azure:team-embeddings"


def test_azure_without_api_version_uses_a_default(server: OpenAIServer) -> None:
    environ = {"OPENAI_PROVIDER": "azure", "AZURE_OPENAI_ENDPOINT": server.endpoint, "AZURE_OPENAI_API_KEY": KEY}
    OpenAIEmbedder.from_config(EmbeddingConfig(model="dep"), environ=environ).embed(["x"])
    assert server.embedding_requests()[0].query["api-version"]


def test_settings_prefer_refdoc_yml_over_the_environment() -> None:
    environ = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://env:1/v1", "OPENAI_EMBEDDING_MODEL": "env-model"}
    from_env = ApiSettings.resolve(model_variable="OPENAI_EMBEDDING_MODEL", default_model="d", environ=environ)
    assert (from_env.provider, from_env.model, from_env.base_url) == ("openai", "env-model", "http://env:1/v1")
    from_file = ApiSettings.resolve(
        "openai", "file-model", "http://file:2/v1", model_variable="OPENAI_EMBEDDING_MODEL", default_model="d", environ=environ
    )
    assert (from_file.model, from_file.base_url) == ("file-model", "http://file:2/v1")


@pytest.mark.parametrize(("environ", "message"), [
    ({}, "OpenAI: no API key; set OPENAI_API_KEY"),
    ({"OPENAI_PROVIDER": "azure", "AZURE_OPENAI_ENDPOINT": "http://x"}, "Azure OpenAI: no API key; set AZURE_OPENAI_API_KEY"),
    ({"OPENAI_PROVIDER": "azure", "AZURE_OPENAI_API_KEY": "k"}, "no endpoint; set AZURE_OPENAI_ENDPOINT"),
    ({"OPENAI_PROVIDER": "bedrock"}, "OPENAI_PROVIDER: expected one of openai, azure, got 'bedrock'"),
])
def test_missing_settings_say_what_to_set(environ: dict, message: str) -> None:
    with pytest.raises(ApiError, match=message):
        OpenAIEmbedder.from_config(None, environ=environ)


def test_a_compatible_server_may_need_no_key(server: OpenAIServer) -> None:
    server.api_key = None
    embedder = OpenAIEmbedder.from_config(EmbeddingConfig(base_url=server.base_url, model=MODEL), environ={})
    assert embedder.embed(["no key needed"]).shape == (1, server.dim)


def test_embedding_section_of_refdoc_yml_is_validated() -> None:
    config = parse_config({"embedding": {"provider": "azure", "model": "dep", "base_url": "https://x.example"}})
    assert config.embedding == EmbeddingConfig("azure", "dep", "https://x.example")
    assert parse_config({}).embedding is None
    with pytest.raises(ConfigError) as raised:
        parse_config({"embedding": {"provider": "bing", "modle": "x", "base_url": "localhost"}})
    assert raised.value.problems == [
        (
            "refdoc.yml: embedding: provider: expected one of openai, azure, got 'bing'; "
            "modle: unknown key; known are provider, model, base_url; "
            "base_url: expected an http:// or https:// URL, got 'localhost'"
        )
    ]
    with pytest.raises(ConfigError, match="refdoc.yml: embedding: expected a mapping with provider, model, base_url, got int 3"):
        parse_config({"embedding": 3})


# --- through the pipeline and the CLI -----------------------------------------------------



@pytest.fixture()
def api_environment(server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_EMBEDDING_MODEL", MODEL)
    return server


def one_error_line(capsys: pytest.CaptureFixture) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_a_rejected_key_is_one_clear_line(api_environment: OpenAIServer, tmp_path: Path, monkeypatch, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    assert main(["index", str(repo), "--embedder", "api"]) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"refdoc-site: {api_environment.base_url} rejected the API key (HTTP 401: Incorrect API key")
    assert line.endswith("set OPENAI_API_KEY to a valid key")
    assert len(api_environment.embedding_requests()) == 1  # not retried
    assert Store(repo / ".refdoc").load().documents  # the offline index was saved first


def test_a_missing_key_is_one_clear_line_before_any_work(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["index", str(repo), "--embedder", "api"]) == 2
    assert one_error_line(capsys).startswith("refdoc-site: OpenAI: no API key; set OPENAI_API_KEY")
    assert not (repo / ".refdoc").exists()


def test_index_stores_api_vectors_beside_the_static_ones(api_environment: OpenAIServer, tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["index", str(repo)]) == 0
    assert not api_environment.embedding_requests()  # the default path makes no API vectors
    plain = [d.embedding for d in Store(repo / ".refdoc").load().documents]

    assert main(["index", str(repo), "--embedder", "api"]) == 0
    state = Store(repo / ".refdoc").load()
    assert [d.embedding for d in state.documents] == plain  # the site's vectors are untouched
    stored = ApiVectors.load(repo / ".refdoc")
    assert stored is not None and (stored.model, stored.source) == (f"openai:{MODEL}", api_environment.base_url)
    for document in state.documents:
        text = document_text(document)
        vector = stored.vectors[text_digest(text)]
        np.testing.assert_allclose(vector, vector_for(text, api_environment.dim), atol=2e-3)  # float16


def test_a_rebuild_sends_only_changed_texts(api_environment: OpenAIServer, tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["index", str(repo), "--embedder", "api"]) == 0
    chunks = len(Store(repo / ".refdoc").load().documents)
    assert sum(len(r.inputs) for r in api_environment.embedding_requests()) == chunks
    api_environment.reset()
    assert main(["index", str(repo), "--embedder", "api"]) == 0
    assert api_environment.embedding_requests() == []
    write_repo(repo, {"billing/invoice.py": SOURCES["billing/invoice.py"].replace("PDF document", "PDF file")})
    assert main(["index", str(repo), "--embedder", "api"]) == 0
    (request,) = api_environment.embedding_requests()
    assert len(request.inputs) == 1 and "PDF file" in request.inputs[0]


def test_refdoc_yml_turns_the_api_embedder_on(api_environment: OpenAIServer, tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {**SOURCES, "refdoc.yml": "embedding:\n  model: other-model\n"})
    assert main(["index", str(repo)]) == 0
    assert {r.body["model"] for r in api_environment.embedding_requests()} == {"other-model"}
    assert (repo / ".refdoc" / VECTORS_NAME).exists()


def test_failed_batches_are_counted_in_the_index_report(api_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace, index

    repo = write_repo(tmp_path / "repo", SOURCES)
    api_environment.inject("status", status=500, headers=NO_WAIT, times=None)
    embedder = OpenAIEmbedder.from_config(EmbeddingConfig(), RetryPolicy(attempts=2))
    report = index(Workspace.create(repo, Config()), api_embedder=embedder)
    assert len(report.failed) == report.chunks
    assert all("API embedding failed (HTTP 500" in line for line in report.failed)


def api_ranking(repo: Path, query: str, dim: int) -> list[tuple[str, str]]:
    """The dense ranking the server's vectors give, one hit per symbol."""
    documents = SearchIndex.build(Store(repo / ".refdoc").load().documents).documents
    wanted = vector_for(query, dim)
    scored = sorted(documents, key=lambda d: -float(vector_for(document_text(d), dim) @ wanted))
    return list(dict.fromkeys((d.chunk.path, d.chunk.symbol) for d in scored))


def test_query_with_the_api_embedder_ranks_by_api_vectors(api_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["index", str(repo), "--embedder", "api"]) == 0
    capsys.readouterr()
    api_environment.reset()
    query = "email a payment reminder to the customer"
    assert main(["query", query, str(repo), "--embedder", "api", "--mode", "dense", "--json", "--top", "3"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [(h["path"], h["symbol"]) for h in hits] == api_ranking(repo, query, api_environment.dim)[:3]
    assert hits[0]["symbol"] == "send_reminder"
    (request,) = api_environment.embedding_requests()
    assert request.inputs == [query]

    api_environment.reset()
    assert main(["query", query, str(repo), "--json"]) == 0  # the default stays offline
    assert not api_environment.requests


def test_query_with_the_api_embedder_needs_api_vectors(api_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["index", str(repo)]) == 0
    capsys.readouterr()
    assert main(["query", "invoice", str(repo), "--embedder", "api"]) == 2
    assert "no API vectors; run `refdoc-site index --embedder api`" in one_error_line(capsys)


def test_query_refuses_vectors_of_another_model(api_environment: OpenAIServer, tmp_path: Path, monkeypatch, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["index", str(repo), "--embedder", "api"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("OPENAI_EMBEDDING_MODEL", "another-model")
    assert main(["query", "invoice", str(repo), "--embedder", "api"]) == 2
    assert f"made by openai:{MODEL} at {api_environment.base_url}, not openai:another-model" in one_error_line(capsys)


def test_eval_scores_the_api_embedder(api_environment: OpenAIServer, tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        json.dumps({"id": "q1", "query": "email a payment reminder", "kind": "meaning",
                    "relevant": [{"path": "billing/invoice.py", "symbol": "send_reminder"}]}) + "\n"
    )
    assert main(["eval", str(queries), "--corpus", str(repo), "--embedder", "api", "--modes", "dense"]) == 0
    table = capsys.readouterr().out
    assert "dense   overall        1    1.000" in table
    assert api_environment.embedding_requests()[-1].inputs == ["email a payment reminder"]
