"""The repository's refdoc.yml chooses no endpoint, tool or outside file unless trusted.

Two real local servers speak the OpenAI API: the environment's (OPENAI_BASE_URL, accepting
only TEST_KEY) and the repository's (named in its refdoc.yml, accepting anything and
recording every request with its headers). The commands run as CI runs them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import SHOP_SOURCES, write_repo
from openai_server import TEST_KEY, OpenAIServer

from refdoc_site.cli import main
from refdoc_site.core.trust import TRUST_VARIABLE, load_repository_config, trusted_by_operator
from refdoc_site.rendering import site
from refdoc_site.search.api_vectors import VECTORS_NAME

EMBEDDING_MODEL = "hash-bag-of-words"
ENDPOINT_WARNING = (
    "endpoints in the repository's configuration are used only with --trust-config or REFDOC_TRUST_CONFIG=1"
)
SECRET = "root:x:0:0:the-machine's-own-file"
"""What a file outside the repository holds; it must appear nowhere in the site."""
ASSET = Path("assets/javascripts/mermaid.min.js")


@pytest.fixture()
def repository_server() -> Iterator[OpenAIServer]:
    """The server a pull request names in refdoc.yml: it takes any key and records it."""
    with OpenAIServer() as running:
        yield running


@pytest.fixture()
def environment(server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    """The CI's settings: its key, its server, its embedding model; no trust given."""
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_EMBEDDING_MODEL", EMBEDDING_MODEL)
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    return server


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "ignored" in r.getMessage()]


def run(caplog: pytest.LogCaptureFixture, *argv: str) -> list[str]:
    """`refdoc-site ARGV`, which must succeed; the warnings about ignored settings."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        assert main(list(argv)) == 0
    return warnings_of(caplog)


TRUST = {
    "no trust": ((), {}),
    "the flag": (("--trust-config",), {}),
    "the environment": ((), {TRUST_VARIABLE: "1"}),
}


def trusted(monkeypatch: pytest.MonkeyPatch, how: str) -> tuple[str, ...]:
    """Give trust the way `how` names; the flags to pass."""
    flags, variables = TRUST[how]
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return flags


# --- endpoints ------------------------------------------------------------------------------


@pytest.mark.parametrize("how", TRUST)
def test_the_llm_goes_to_the_repositorys_server_only_when_trusted(
    how: str, environment: OpenAIServer, repository_server: OpenAIServer, tmp_path: Path, monkeypatch, caplog
) -> None:
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": f"llm:\n  base_url: {repository_server.base_url}\n"})
    warnings = run(caplog, "index", str(repo), *trusted(monkeypatch, how))
    if how == "no trust":
        assert repository_server.requests == []
        assert environment.chat_requests("chunk")  # the build went on with the environment's server
        assert warnings == [f"refdoc.yml: llm.base_url: ignored: {ENDPOINT_WARNING}"]
    else:
        assert environment.requests == []
        assert repository_server.chat_requests("chunk")
        assert {r.headers["authorization"] for r in repository_server.requests} == {f"Bearer {TEST_KEY}"}
        assert warnings == []


@pytest.mark.parametrize("how", TRUST)
def test_the_embedder_goes_to_the_repositorys_server_only_when_trusted_even_with_no_llm(
    how: str, environment: OpenAIServer, repository_server: OpenAIServer, tmp_path: Path, monkeypatch, caplog
) -> None:
    settings = f"embedding:\n  base_url: {repository_server.base_url}\n"
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": settings})
    warnings = run(caplog, "index", str(repo), "--no-llm", *trusted(monkeypatch, how))
    assert (repo / ".refdoc" / VECTORS_NAME).exists()
    if how == "no trust":
        assert repository_server.requests == []
        assert environment.embedding_requests() and not environment.chat_requests()
        assert warnings == [f"refdoc.yml: embedding.base_url: ignored: {ENDPOINT_WARNING}"]
    else:
        assert environment.requests == []
        assert repository_server.embedding_requests()
        assert {r.headers["authorization"] for r in repository_server.requests} == {f"Bearer {TEST_KEY}"}


def test_a_keyless_endpoint_in_the_repository_is_not_asked_and_the_build_stays_offline(
    repository_server: OpenAIServer, tmp_path: Path, monkeypatch, caplog, capsys
) -> None:
    """A local Ollama named by the repository: the environment names nothing, so no server
    is asked at all, and the build goes on offline."""
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    url = repository_server.base_url
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": f"llm:\n  base_url: {url}\nembedding:\n  base_url: {url}\n"})
    warnings = run(caplog, "build", str(repo), "--out", str(tmp_path / "site"))
    assert repository_server.requests == []
    assert warnings == [
        f"refdoc.yml: llm.base_url: ignored: {ENDPOINT_WARNING}",
        f"refdoc.yml: embedding.base_url: ignored: {ENDPOINT_WARNING}; the API embedder is off, "
        "as the environment names no server for it",
    ]
    assert "llm: OpenAI: no API key" in capsys.readouterr().err
    assert (tmp_path / "site" / "index.html").exists()
    assert not (repo / ".refdoc" / VECTORS_NAME).exists()


def test_an_azure_endpoint_in_the_repository_gets_no_request_and_no_key(
    server: OpenAIServer, repository_server: OpenAIServer, tmp_path: Path, monkeypatch, caplog
) -> None:
    for name, value in (("OPENAI_PROVIDER", "azure"), ("AZURE_OPENAI_ENDPOINT", server.endpoint), ("AZURE_OPENAI_API_KEY", TEST_KEY)):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    settings = f"llm:\n  provider: azure\n  base_url: {repository_server.endpoint}\n  summarizer_model: docs-mini\n"
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": settings})
    assert run(caplog, "index", str(repo)) == [f"refdoc.yml: llm.base_url: ignored: {ENDPOINT_WARNING}"]
    assert repository_server.requests == []
    assert {r.path for r in server.chat_requests()} == {"/openai/deployments/docs-mini/chat/completions"}


def test_a_config_file_outside_the_repository_is_the_operators_and_one_inside_is_not(
    environment: OpenAIServer, repository_server: OpenAIServer, tmp_path: Path, caplog
) -> None:
    settings = f"llm:\n  base_url: {repository_server.base_url}\n"
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "ci/refdoc.yml": settings})
    inside = run(caplog, "index", str(repo), "--config", str(repo / "ci" / "refdoc.yml"))
    assert inside == [f"{repo / 'ci' / 'refdoc.yml'}: llm.base_url: ignored: {ENDPOINT_WARNING}"]
    assert repository_server.requests == []

    operators = write_repo(tmp_path / "ops", {"refdoc.yml": settings}) / "refdoc.yml"
    assert run(caplog, "index", str(repo), "--config", str(operators), "--store", str(tmp_path / "store")) == []
    assert repository_server.chat_requests("chunk")


def test_a_refdoc_yml_linked_from_outside_the_repository_is_not_read(tmp_path: Path, monkeypatch, caplog) -> None:
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    outside = write_repo(tmp_path / "elsewhere", {"settings.yml": "site_name: 12\n"}) / "settings.yml"
    repo = write_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    (repo / "refdoc.yml").symlink_to(outside)
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        assert load_repository_config(repo).site_name == ""  # and no error quoting the file's values
    assert warnings_of(caplog) == [
        "refdoc.yml: ignored: a link to a file outside the repository; such a file is used only with "
        "--trust-config or REFDOC_TRUST_CONFIG=1"
    ]


def test_the_repository_turns_language_servers_on_only_when_trusted(tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", {"a.py": "x = 1\n", "refdoc.yml": "lsp: on\nlsp_budget: 45\n"})
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        untrusted = load_repository_config(repo, environ={})
    assert (untrusted.lsp, untrusted.lsp_budget) == ("off", 45)
    (warning,) = warnings_of(caplog)
    assert warning.startswith("refdoc.yml: lsp: ignored: language servers run tools over the repository's code")
    caplog.clear()
    assert load_repository_config(repo, command_line={"lsp"}, environ={}).lsp == "on"  # --lsp: the operator's
    assert load_repository_config(repo, trust_flag=True, environ={}).lsp == "on"
    assert load_repository_config(repo, environ={TRUST_VARIABLE: "1"}).lsp == "on"
    assert warnings_of(caplog) == []


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("true", True), ("YES", True), ("0", False), ("", False), ("no", False)])
def test_trust_from_the_environment(value: str, expected: bool) -> None:
    assert trusted_by_operator(False, {TRUST_VARIABLE: value}) is expected
    assert trusted_by_operator(True, {TRUST_VARIABLE: value})


# --- files published ------------------------------------------------------------------------


@pytest.fixture()
def outside_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file of the building machine, outside the repository; no Mermaid of the operator's."""
    monkeypatch.setattr(site, "CACHED_MERMAID", tmp_path / "no-cache" / "mermaid.min.js")
    monkeypatch.delenv(site.MERMAID_ENV, raising=False)
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    path = tmp_path / "machine" / "passwd"
    path.parent.mkdir()
    path.write_text(SECRET + "\n", encoding="utf-8")
    return path


def build_site(repo: Path, caplog: pytest.LogCaptureFixture, *flags: str) -> tuple[Path, list[str]]:
    out = repo.parent / "site"
    return out, run(caplog, "build", str(repo), "--out", str(out), *flags)


def published_anywhere(out: Path, text: str) -> bool:
    return any(text in path.read_text(encoding="utf-8", errors="replace") for path in out.rglob("*") if path.is_file())


def test_a_mermaid_js_outside_the_repository_is_not_published(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": f"mermaid_js: {outside_file}\n"})
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET)
    assert warnings == [
        f"refdoc.yml: mermaid_js: ignored: '{outside_file}' lies outside the repository; files outside it are "
        "used only with --trust-config or REFDOC_TRUST_CONFIG=1, or name the script in REFDOC_MERMAID_JS"
    ]

    out, warnings = build_site(repo, caplog, "--trust-config")
    assert (out / ASSET).read_text(encoding="utf-8").startswith(SECRET) and warnings == []


def test_etc_passwd_as_mermaid_js_is_not_published(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": "mermaid_js: /etc/passwd\n"})
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out, "root:x:0:0")
    assert [w.split(":")[1].strip() for w in warnings] == ["mermaid_js"]


def test_a_mermaid_js_linked_out_of_the_repository_is_not_published(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": "mermaid_js: vendor/mermaid.min.js\n"})
    (repo / "vendor").mkdir()
    (repo / "vendor" / "mermaid.min.js").symlink_to(outside_file)
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET)
    assert [w.split(":")[1].strip() for w in warnings] == ["mermaid_js"]


def test_a_node_modules_mermaid_linked_out_of_the_repository_is_refused(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", SHOP_SOURCES)
    link = repo / site.REPOSITORY_MERMAID
    link.parent.mkdir(parents=True)
    link.symlink_to(outside_file)
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET)
    assert warnings == [
        f"{link}: ignored: it resolves outside the repository, and only the repository's own files are published"
    ]


@pytest.mark.parametrize("where", ["refdoc.yml", "node_modules"])
def test_a_mermaid_script_inside_the_repository_is_published(where: str, outside_file: Path, tmp_path: Path, caplog) -> None:
    script = "/* the repository's own mermaid */ window.mermaid = {};\n"
    files = (
        {"tools/mermaid.min.js": script, "refdoc.yml": "mermaid_js: tools/mermaid.min.js\n"}
        if where == "refdoc.yml"
        else {str(site.REPOSITORY_MERMAID): script}
    )
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, **files})
    out, warnings = build_site(repo, caplog)
    assert (out / ASSET).read_text(encoding="utf-8") == script and warnings == []


def test_the_environments_mermaid_is_published_wherever_it_lies(outside_file: Path, tmp_path: Path, monkeypatch, caplog) -> None:
    monkeypatch.setenv(site.MERMAID_ENV, str(outside_file))
    out, warnings = build_site(write_repo(tmp_path / "repo", SHOP_SOURCES), caplog)
    assert (out / ASSET).read_text(encoding="utf-8").startswith(SECRET) and warnings == []


@pytest.mark.parametrize("linked", [False, True])
def test_a_root_manifest_linked_out_of_the_repository_is_not_read(linked: bool, outside_file: Path, tmp_path: Path, caplog) -> None:
    """Discovery skips the link; the dependency decisions must not read it either."""
    outside_file.write_text("leakedpackagename==6.6.6\n", encoding="utf-8")
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "billing/pdf_export.py": "import leakedpackagename\n"})
    if linked:
        (repo / "requirements.txt").symlink_to(outside_file)
    else:
        (repo / "requirements.txt").write_text(outside_file.read_text(encoding="utf-8"), encoding="utf-8")
    run(caplog, "index", str(repo))
    run(caplog, "summarize", str(repo))
    decisions = (repo / ".refdoc" / "decisions.json").read_text(encoding="utf-8")
    assert ("==6.6.6" in decisions) is not linked


@pytest.mark.parametrize("dangling", [False, True])
def test_a_default_store_linked_out_of_the_repository_is_refused(dangling: bool, tmp_path: Path, monkeypatch, caplog, capsys) -> None:
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    elsewhere = tmp_path / "elsewhere"
    if not dangling:
        elsewhere.mkdir()
    repo = write_repo(tmp_path / "repo", SHOP_SOURCES)
    (repo / ".refdoc").symlink_to(elsewhere, target_is_directory=True)
    assert main(["index", str(repo)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f"refdoc-site: {repo / '.refdoc'}: a link out of the repository, where the build would write its store; "
        "pass --store DIR (or --trust-config when the link is yours)"
    )
    assert not elsewhere.exists() or not any(elsewhere.iterdir())
    run(caplog, "index", str(repo), "--store", str(tmp_path / "store"))
    assert not elsewhere.exists() or not any(elsewhere.iterdir())
    run(caplog, "index", str(repo), "--trust-config")
    assert (elsewhere / "index.jsonl").exists()


def test_mermaids_module_build_is_published_without_its_links_out(outside_file: Path, tmp_path: Path, caplog) -> None:
    dist = site.REPOSITORY_MERMAID.parent
    chunks = dist / site.MERMAID_MODULE_CHUNKS
    files = {
        str(site.REPOSITORY_MERMAID): "/* classic */\n",
        str(dist / site.MERMAID_MODULE): "export default {};\n",
        str(chunks / "flowDiagram.mjs"): "export const flow = 1;\n",
        str(chunks / "flowDiagram.mjs.map"): "{}\n",
    }
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, **files})
    (repo / chunks / "chunk-secret.mjs").symlink_to(outside_file)
    out, warnings = build_site(repo, caplog)
    published = out / site.MERMAID_MODULE_DIR
    assert sorted(p.relative_to(published).as_posix() for p in published.rglob("*") if p.is_file()) == [
        f"{site.MERMAID_MODULE_CHUNKS.as_posix()}/flowDiagram.mjs",
        site.MERMAID_MODULE.as_posix(),
    ]
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET) and warnings == []
