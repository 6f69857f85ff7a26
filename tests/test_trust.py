"""The repository's refdoc.yml chooses no endpoint, tool or outside file unless trusted.

Two real local servers speak the OpenAI API: the environment's (OPENAI_BASE_URL, accepting
only TEST_KEY) and the repository's (named in its refdoc.yml, accepting anything and
recording every request with its headers). The commands run as CI runs them.
"""

from __future__ import annotations

import base64
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import SHOP_SOURCES, write_repo
from hostile import mermaid_like_script
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
    for name, value in (("OPENAI_PROVIDER", "azure"), ("AZURE_OPENAI_ENDPOINT", server.endpoint), ("AZURE_OPENAI_API_KEY", TEST_KEY),
                        ("OPENAI_SUMMARIZER_MODEL", "docs-mini")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    settings = f"llm:\n  provider: azure\n  base_url: {repository_server.endpoint}\n"
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


UNTRUSTED_MERMAID = (
    "refdoc.yml: mermaid_js: ignored: the site runs that file as a script on every page with a diagram, so the "
    "repository's configuration names one only with --trust-config or REFDOC_TRUST_CONFIG=1; or name the "
    "operator's copy in REFDOC_MERMAID_JS"
)


def refused(path: Path, reason: str) -> str:
    return f"{path}: ignored as the Mermaid script: {reason}; name the operator's copy in REFDOC_MERMAID_JS instead"


@pytest.fixture(autouse=True)
def _fresh_refusals():
    """site.py warns once per file and process; each test starts with none said."""
    site._refuse_once.cache_clear()


def test_a_mermaid_js_outside_the_repository_is_not_published(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": f"mermaid_js: {outside_file}\n"})
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET)
    assert warnings == [UNTRUSTED_MERMAID]

    out, warnings = build_site(repo, caplog, "--trust-config")  # trusted, and still no Mermaid
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET)
    assert warnings == [refused(outside_file, f"{len(SECRET) + 1} bytes, where a Mermaid script has 262144 to 33554432")]

    outside_file.write_text(mermaid_like_script(), encoding="utf-8")
    out, warnings = build_site(repo, caplog, "--trust-config")
    assert (out / ASSET).read_text(encoding="utf-8") == mermaid_like_script() and warnings == []


def test_etc_passwd_as_mermaid_js_is_not_published(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": "mermaid_js: /etc/passwd\n"})
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out, "root:x:0:0") and warnings == [UNTRUSTED_MERMAID]
    out, warnings = build_site(repo, caplog, "--trust-config")
    assert not (out / ASSET).exists() and not published_anywhere(out, "root:x:0:0")
    assert [w.split(": ignored as the Mermaid script: ")[0] for w in warnings] == ["/etc/passwd"]


def test_a_mermaid_js_linked_out_of_the_repository_is_not_published(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": "mermaid_js: vendor/mermaid.min.js\n"})
    (repo / "vendor").mkdir()
    (repo / "vendor" / "mermaid.min.js").symlink_to(outside_file)
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET)
    assert warnings == [UNTRUSTED_MERMAID]


def test_a_node_modules_mermaid_linked_out_of_the_repository_is_refused(outside_file: Path, tmp_path: Path, caplog) -> None:
    repo = write_repo(tmp_path / "repo", SHOP_SOURCES)
    link = repo / site.REPOSITORY_MERMAID
    link.parent.mkdir(parents=True)
    link.symlink_to(outside_file)
    for flags in ((), ("--trust-config",)):
        out, warnings = build_site(repo, caplog, *flags)
        assert not (out / ASSET).exists() and not published_anywhere(out, SECRET)
    assert warnings == [
        refused(link, "it resolves outside the repository, and only the repository's own files are published")
    ]


@pytest.mark.parametrize("where", ["refdoc.yml", "node_modules"])
def test_a_mermaid_script_inside_the_repository_is_published_only_when_trusted(where: str, outside_file: Path, tmp_path: Path, caplog) -> None:
    """A committed script runs on every page with a diagram: the repository's choice only
    with trust, and only one that looks like Mermaid."""
    script = mermaid_like_script("the repository's own")
    files = (
        {"tools/mermaid.min.js": script, "refdoc.yml": "mermaid_js: tools/mermaid.min.js\n"}
        if where == "refdoc.yml"
        else {str(site.REPOSITORY_MERMAID): script}
    )
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, **files})
    out, warnings = build_site(repo, caplog)
    assert not (out / ASSET).exists() and not published_anywhere(out / "assets", "the repository's own")  # its file page may show it
    assert warnings == ([UNTRUSTED_MERMAID] if where == "refdoc.yml" else [])
    out, warnings = build_site(repo, caplog, "--trust-config")
    assert (out / ASSET).read_text(encoding="utf-8") == script and warnings == []


@pytest.mark.parametrize(
    ("path", "setup", "reason"),
    [
        (".git/config", None, "it lies in .git/, whose files are never published"),
        ("vendor/config.js", "link", "it lies in .git/, whose files are never published"),
        (".env.local", None, "it is named like a secret (.env.*)"),
        ("build/mermaid.min.js", "ignored", "a .gitignore of the repository ignores it, so it is no file of the repository's"),
        (".refdoc/mermaid.min.js", None, "it lies in the store"),
    ],
)
def test_a_trusted_mermaid_js_still_passes_the_rules_for_the_repositorys_files(
    path: str, setup: str | None, reason: str, outside_file: Path, tmp_path: Path, caplog
) -> None:
    """CI's layout: actions/checkout keeps its token in `.git/config`. With trust given, no
    file git would not publish (or named like a secret, or in the store) becomes the script,
    though it looks like Mermaid."""
    token = "ghp_" + "T0kenOfTheCheckout" * 2
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": f"mermaid_js: {path}\n"})
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "http.https://github.com/.extraheader",
                    "AUTHORIZATION: basic " + base64.b64encode(f"x-access-token:{token}".encode()).decode()], check=True)
    mermaid = mermaid_like_script(token)
    target = repo / (".git/config" if setup == "link" else path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("a", encoding="utf-8") as file:
        file.write(mermaid)  # the file is as big as Mermaid and holds its words
    if setup == "link":
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).symlink_to(os.path.relpath(target, (repo / path).parent))
    if setup == "ignored":
        (repo / ".gitignore").write_text("build/\n", encoding="utf-8")
    out, warnings = build_site(repo, caplog, "--trust-config")
    assert not (out / ASSET).exists()
    assert warnings == [refused(repo / path, reason)]
    written = [p for folder in (out, repo / ".refdoc") for p in folder.rglob("*") if p.is_file() and p != target]
    assert [p for p in written if token.encode() in p.read_bytes() or b"extraheader" in p.read_bytes()] == []


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
    entry = 'import "./chunks/mermaid.esm.min/flowDiagram.mjs"; export default "mermaid";\n' + "//\n" * 600
    files = {
        str(site.REPOSITORY_MERMAID): mermaid_like_script(),
        str(dist / site.MERMAID_MODULE): entry,
        str(chunks / "flowDiagram.mjs"): "export const flow = 1;\n",
        str(chunks / "flowDiagram.mjs.map"): "{}\n",
        str(chunks / ".env.mjs"): "export const key = 'named like a secret';\n",
    }
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, **files})
    (repo / chunks / "chunk-secret.mjs").symlink_to(outside_file)
    out, warnings = build_site(repo, caplog, "--trust-config")
    published = out / site.MERMAID_MODULE_DIR
    assert sorted(p.relative_to(published).as_posix() for p in published.rglob("*") if p.is_file()) == [
        f"{site.MERMAID_MODULE_CHUNKS.as_posix()}/flowDiagram.mjs",
        site.MERMAID_MODULE.as_posix(),
    ]
    assert not (out / ASSET).exists() and not published_anywhere(out, SECRET) and warnings == []


# --- the operator's money -------------------------------------------------------------------


BILLED = "the models and their prices decide what the operator's key is billed, so they are used only with --trust-config or REFDOC_TRUST_CONFIG=1; the environment's models (OPENAI_SUMMARIZER_MODEL, OPENAI_DOC_MODEL) and the built-in prices apply"


@pytest.mark.parametrize("how", TRUST)
def test_the_repository_chooses_no_model_price_or_number_of_plans_unless_trusted(
    how: str, environment: OpenAIServer, tmp_path: Path, monkeypatch, caplog, capsys
) -> None:
    """Finding 4's repro: the repository names the dearest model at a price of 0, so that
    --max-cost never stops, and asks for seven plans."""
    monkeypatch.setenv("OPENAI_SUMMARIZER_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("OPENAI_DOC_MODEL", "gpt-4o-mini")
    plans = "".join(f"  - add feature number {n}\n" for n in range(7))
    settings = f"llm:\n  summarizer_model: o1-pro\n  doc_model: o1-pro\n  prices:\n    o1-pro: [0, 0]\nplans:\n{plans}"
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": settings})
    warnings = run(caplog, "build", str(repo), "--out", str(tmp_path / "site"), "--max-cost", "5", *trusted(monkeypatch, how))
    models = {request.body["model"] for request in environment.chat_requests()}
    planned = sorted(path.name for path in (tmp_path / "site" / "plans").iterdir() if path.name != "milestones")
    if how == "no trust":
        assert models == {"gpt-4o-mini"}
        assert warnings == [f"refdoc.yml: llm.{key}: ignored: {BILLED}" for key in ("summarizer_model", "doc_model", "prices")] + [
            "refdoc.yml: plans: 2 of 7 ignored: each plan costs LLM requests on the operator's key, so the repository's "
            "configuration asks for at most 5 unless trusted (--trust-config or REFDOC_TRUST_CONFIG=1)"
        ]
        assert len(planned) == 5
        assert "llm: gpt-4o-mini (summaries), gpt-4o-mini (documents)" in capsys.readouterr().out
    else:
        assert models == {"o1-pro"} and warnings == [] and len(planned) == 7


def test_a_budget_without_the_repositorys_prices_stops_and_says_where_the_operator_gives_one(
    environment: OpenAIServer, tmp_path: Path, monkeypatch, caplog, capsys
) -> None:
    monkeypatch.setenv("OPENAI_SUMMARIZER_MODEL", "in-house-model")
    repo = write_repo(tmp_path / "repo", {**SHOP_SOURCES, "refdoc.yml": "llm:\n  prices:\n    in-house-model: [0, 0]\n"})
    run(caplog, "build", str(repo), "--out", str(tmp_path / "site"), "--max-cost", "0.01")
    assert environment.chat_requests() == []
    said = capsys.readouterr()
    assert (
        "max_cost: no price known for in-house-model; give its [input, output] USD per million tokens under llm: "
        "prices: in the operator's configuration (a --config FILE outside the repository, or refdoc.yml with "
        "--trust-config); the repository's own prices count only when trusted"
    ) in said.out + said.err
    operators = write_repo(tmp_path / "ops", {"refdoc.yml": "llm:\n  prices:\n    in-house-model: [1, 2]\n"}) / "refdoc.yml"
    run(caplog, "build", str(repo), "--out", str(tmp_path / "site2"), "--max-cost", "0.01", "--config", str(operators), "--store", str(tmp_path / "store"))
    assert environment.chat_requests()


# --- links and the canonical address ----------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "url", "problem"),
    [
        ("repo_url", "https://github.com.login-verify.example:8443/o/r?session=1", "has a port and a query"),
        ("repo_url", "https://user:pw@github.com/o/r", "has a user name"),
        ("repo_url", "https://github.com/o/r#top", "has a fragment"),
        ("repo_url", "https://github.com.login-verify.example/o/r", "is on no known forge"),
        ("site_url", "https://docs.evil.example/", "is on no forge's pages domain"),
        ("site_url", "https://acme.github.io:444/shop/", "has a port"),
    ],
)
def test_a_repo_or_site_url_of_the_repository_must_be_a_plain_forge_url_unless_trusted(
    key: str, url: str, problem: str, tmp_path: Path, monkeypatch, caplog
) -> None:
    monkeypatch.delenv(TRUST_VARIABLE, raising=False)
    repo = write_repo(tmp_path / "repo", {"a.py": "x = 1\n", "refdoc.yml": f"{key}: '{url}'\n"})
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        assert getattr(load_repository_config(repo, environ={}), key) == ""
        (warning,) = warnings_of(caplog)
        assert warning.startswith(f"refdoc.yml: {key}: ignored: {url!r} {problem}")
        assert warning.endswith("such a URL is used only with --trust-config or REFDOC_TRUST_CONFIG=1")
        caplog.clear()
        assert getattr(load_repository_config(repo, trust_flag=True, environ={}), key) == url
        assert load_repository_config(repo, command_line={key}, environ={}) is not None and warnings_of(caplog) == []


def test_plain_forge_urls_of_the_repository_are_kept(tmp_path: Path, caplog) -> None:
    settings = "repo_url: https://github.com/acme/shop\nsite_url: https://acme.github.io/shop/\n"
    repo = write_repo(tmp_path / "repo", {"a.py": "x = 1\n", "refdoc.yml": settings})
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        config = load_repository_config(repo, environ={})
    assert (config.repo_url, config.site_url) == ("https://github.com/acme/shop", "https://acme.github.io/shop/")
    assert warnings_of(caplog) == []
    enterprise = write_repo(tmp_path / "ghe", {"refdoc.yml": "repo_url: https://git.acme.example/o/r\nsite_url: https://git.acme.example/pages/o/r/\n"})
    config = load_repository_config(enterprise, environ={"GITHUB_SERVER_URL": "https://git.acme.example"})
    assert (config.repo_url, config.site_url) == ("https://git.acme.example/o/r", "https://git.acme.example/pages/o/r/")
