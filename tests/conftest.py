"""Every test starts without the API environment: a key on the developer's machine or in CI
must not turn the LLM or the API embedder on for tests that build offline. The `server`
fixture is the local OpenAI API server of the API tests, accepting the key `TEST_KEY`."""

from __future__ import annotations

import pytest
from helpers import ASK_SOURCES, launched_chromium, write_repo
from openai_server import TEST_KEY, OpenAIServer

from refdoc_site.asking.library import Library
from refdoc_site.core import progress
from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, index, summarize

API_VARIABLES = (
    "OPENAI_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_EMBEDDING_MODEL", "OPENAI_API_VERSION",
    "OPENAI_SUMMARIZER_MODEL", "OPENAI_DOC_MODEL", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
)


@pytest.fixture(autouse=True)
def no_api_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in API_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def quiet_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """No heartbeat line in a test's output: the heartbeat counts silence from the process's
    last line, so in a long test run a build printed "index: 1s so far" at once, and on a
    loaded machine whenever a phase took 5 s, into the stderr a test reads whole.
    tests/test_progress.py sets its own quick one."""
    monkeypatch.setattr(progress, "HEARTBEAT_SILENCE", 1e9)


@pytest.fixture()
def server():
    with OpenAIServer(api_key=TEST_KEY) as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for a browser test module (which calls require_chromium first)."""
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="session")
def ask_workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """`ASK_SOURCES` indexed and summarized (offline), for the tests of `ask`."""
    root = tmp_path_factory.mktemp("ask")
    workspace = Workspace.create(write_repo(root / "repo", ASK_SOURCES), Config(), root / "store", root / "site")
    index(workspace)
    summarize(workspace)
    return workspace


@pytest.fixture(scope="session")
def ask_library(ask_workspace: Workspace) -> Library:
    return Library.open(ask_workspace)


@pytest.fixture()
def tab(browser):
    """A page that records every request it and its workers make (`page.requests`); none may
    leave 127.0.0.1."""
    context = browser.new_context()
    page = context.new_page()
    page.requests = []
    context.on("request", lambda request: page.requests.append(request.url))
    yield page
    foreign = [url for url in page.requests if not url.startswith("http://127.0.0.1:")]
    context.close()
    assert foreign == []
