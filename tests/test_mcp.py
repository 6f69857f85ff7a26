"""`refdoc-site mcp`: the MCP SDK's own client spawns `python -m refdoc_site mcp REPO` on the
built fixture repository, lists the tools and calls every one over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import OVERLOADED_SOURCES, built_shop, indexed_shop, write_repo
from openai_server import TEST_KEY, OpenAIServer

from refdoc_site.asking.library import Library
from refdoc_site.asking.mcp_server import (
    INSTALL_HINT,
    MAX_ITEMS,
    TOOL_DESCRIPTIONS,
    LibraryTools,
    bounded,
    mcp_server,
)
from refdoc_site.cli import main

mcp = pytest.importorskip("mcp", reason="the MCP SDK is in the test extra")

ROOT = Path(__file__).resolve().parents[1]
NORMALIZE = "app/util.py#normalize_name"
CREATE_USER = "app/service.py#UserService.create_user"
DELETE_USER = "app/service.py#UserService.delete_user"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return built_shop(tmp_path_factory.mktemp("mcp"))


def server_command(repo: Path) -> list[str]:
    return [sys.executable, "-m", "refdoc_site", "mcp", str(repo)]


def server_environment(**extra: str) -> dict[str, str]:
    """This checkout first on the path: the code under test is the one the server imports.
    The SDK passes the server only these and a few safe variables (no API key of ours)."""
    return {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep), **extra}


def session_calls(repo: Path, calls: list[tuple[str, dict]], **environment: str):
    """(the tools listed, each call's result) from one session over stdio."""

    async def run():
        command, *arguments = server_command(repo)
        parameters = mcp.StdioServerParameters(command=command, args=arguments, env=server_environment(**environment))
        async with mcp.stdio_client(parameters) as (read, write):
            async with mcp.ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                results = [await session.call_tool(name, arguments) for name, arguments in calls]
        return listed.tools, results

    return asyncio.run(asyncio.wait_for(run(), timeout=120))


def payload(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def test_every_tool_is_listed_and_answers_from_the_store(repo: Path) -> None:
    calls = [
        ("search", {"query": "normalize the user name", "top": 5}),
        ("definition", {"ref": "normalize_name"}),
        ("callers", {"ref": NORMALIZE}),
        ("callees", {"ref": "UserService.create_user"}),
        ("module_summary", {"name": "app"}),
        ("system_summary", {}),
        ("list_modules", {}),
        ("ask", {"question": "where is the order server written?"}),
        ("ask", {"question": "and who calls it?", "history": [{"question": "where is the order server?", "answer": "go/server/server.go"}]}),
    ]
    tools, results = session_calls(repo, calls)
    assert {tool.name for tool in tools} == set(TOOL_DESCRIPTIONS)
    assert all(tool.description and len(tool.description) > 40 for tool in tools)
    schema = next(tool for tool in tools if tool.name == "search").input_schema
    assert set(schema["properties"]) == {"query", "top"} and schema["required"] == ["query"]
    search, definition, callers, callees, module, system, modules, answer, followed = map(payload, results)

    hit = next(hit for hit in search["hits"] if hit["id"] == NORMALIZE)
    assert hit["url"] == "files/app/util.py/#chunk-normalize-name" and "Returns name.strip().lower()" in hit["summary"]["responsibility"]
    assert "return name.strip().lower()" in definition["source"]
    assert definition["id"] == NORMALIZE and sorted(definition["callers"]) == [CREATE_USER, DELETE_USER]
    # normalize_name is called from two places in service.py
    assert sorted(item["id"] for item in callers["callers"]) == [CREATE_USER, DELETE_USER]
    assert all(item["url"].startswith("files/app/service.py/#chunk-UserService") and "source" not in item for item in callers["callers"])
    assert callees["definition"] == CREATE_USER and NORMALIZE in [item["id"] for item in callees["callees"]]
    assert "app/service.py" in module["files"] and module["url"] == "modules/app/"
    assert system["text"].startswith("A tiny shop used to test refdoc-site")
    assert modules["modules"] == ["(root)", "app", "docs/adr", "go/server", "notes", "web/src"]
    assert answer["mode"] == "extractive" and answer["sources"]
    assert "[go/server/server.go:" in answer["text"] or "[docs/adr/0001-use-go-for-the-server.md:" in answer["text"]
    assert followed["question"] == "and who calls it?" and followed["mode"] in ("extractive", "not_found")


def test_with_an_llm_ask_answers_from_the_model_and_search_sends_nothing(repo: Path, server: OpenAIServer) -> None:
    question = "how does the service create a user?"
    calls = [("search", {"query": "create a user"}), ("ask", {"question": question})]
    _, (search, answer) = session_calls(repo, calls, OPENAI_API_KEY=TEST_KEY, OPENAI_BASE_URL=server.base_url)
    assert CREATE_USER in [hit["id"] for hit in payload(search)["hits"]]
    answer = payload(answer)
    assert answer["mode"] == "llm" and answer["text"].startswith(f"LLM text for Question: {question}")
    assert CREATE_USER in [source["id"] for source in answer["sources"]]
    asked = server.chat_requests("ask")
    assert len(asked) == 1 and question in asked[0].prompt and "def create_user" in asked[0].prompt
    assert len(server.chat_requests()) == len(asked) + len(server.chat_requests("expand"))  # search asked the model nothing


def test_bad_arguments_come_back_as_tool_errors_and_the_server_goes_on(repo: Path) -> None:
    calls = [
        ("definition", {"ref": "no_such_function"}),
        ("callers", {"ref": "(module)"}),
        ("search", {"query": "users", "top": 0}),
        ("search", {"query": "   "}),
        ("module_summary", {"name": "nowhere"}),
        ("ask", {"question": "x" * 5000}),
        ("ask", {"question": "users?", "history": [{"question": "only a question"}]}),
        ("list_modules", {}),
    ]
    _, results = session_calls(repo, calls)
    *errors, last = results
    messages = [result.content[0].text for result in errors]
    assert all(result.is_error for result in errors), messages
    assert "no definition 'no_such_function'" in messages[0]
    assert "'(module)' names 3 definitions; pass one id: app/__init__.py#(module)" in messages[1]
    assert "top: expected 1 to 25, got 0" in messages[2]
    assert "query: expected a non-empty text" in messages[3]
    assert "no module 'nowhere'; list_modules gives their names" in messages[4]
    assert "5000 characters" in messages[5]
    assert "history[0]: expected an object with the texts 'question' and 'answer'" in messages[6]
    assert "app" in payload(last)["modules"]


def test_stdout_carries_only_the_protocol(repo: Path) -> None:
    """Raw JSON-RPC lines in; every line out is a JSON-RPC message, and the logs go to stderr."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "arguments": {"question": "how are users created?"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "definition", "arguments": {"ref": "nothing"}}},
    ]
    process = subprocess.Popen(
        server_command(repo), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **server_environment()},
    )
    lines: list[str] = []
    try:
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            if "id" in message:  # wait for its reply before the next request
                while True:
                    line = process.stdout.readline()
                    assert line, process.stderr.read()
                    lines.append(line)
                    if json.loads(line).get("id") == message["id"]:
                        break
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        lines += process.stdout.readlines()
    finally:
        if process.poll() is None:
            process.kill()
    replies = [json.loads(line) for line in lines]
    assert all(reply["jsonrpc"] == "2.0" for reply in replies)
    by_id = {reply["id"]: reply for reply in replies if "id" in reply}
    assert by_id[2]["result"]["isError"] is False and "app/service.py" in by_id[2]["result"]["content"][0]["text"]
    assert by_id[3]["result"]["isError"] is True


def test_without_a_built_store_it_says_so_in_one_line(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    assert main(["mcp", str(repo)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "run `refdoc-site build` first" in captured.err


def test_without_the_sdk_it_gives_the_install_hint(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)  # an import of it fails, as when not installed
    assert main(["mcp", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"refdoc-site: {INSTALL_HINT}\n"


def test_a_failing_tool_is_a_tool_error_and_the_next_call_is_answered(tmp_path: Path, monkeypatch) -> None:
    """In process, through the SDK's client: the library failing unexpectedly gives the SDK's
    generic tool error (nothing of the exception reaches the agent), not a dead server."""
    workspace, _ = indexed_shop(tmp_path)
    library = Library.open(workspace)

    def broken(text: str, top: int = 10):
        raise RuntimeError("secret detail of a bug")

    monkeypatch.setattr(library, "site_search", broken)

    async def run():
        async with mcp.Client(mcp_server(LibraryTools(library))) as client:
            return await client.call_tool("search", {"query": "users"}), await client.call_tool("callers", {"ref": NORMALIZE})

    failed, answered = asyncio.run(asyncio.wait_for(run(), timeout=60))
    assert failed.is_error and failed.content[0].text == "Error executing tool search"
    assert sorted(item["id"] for item in payload(answered)["callers"]) == [CREATE_USER, DELETE_USER]




def test_an_overloaded_methods_id_from_search_or_ask_reads_its_definition(tmp_path: Path) -> None:
    """click's `Group.group` is three overloads: the search hit of the last carried the chunk
    id `core.py#Group.group@1906`, which `definition` refused, and the URL of an anchor no
    page has. Now the hit is the joined definition's id and URL, and the `@` id `ask`
    still lists is read as that definition too."""
    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace, index, summarize

    repo = write_repo(tmp_path / "repo", OVERLOADED_SOURCES)
    workspace = Workspace.create(repo, Config(), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    tools = LibraryTools(Library.open(workspace))
    hit = tools.search("fetch the item stored under key", 3)["hits"][0]
    assert (hit["id"], hit["start_line"], hit["url"]) == ("box.py#Box.get", 13, "files/box.py/#chunk-Box.get")
    read = tools.definition(hit["id"])
    assert (read["id"], read["start_line"], read["end_line"]) == ("box.py#Box.get", 7, 15)
    assert "Fetch the item" in read["source"]
    assert tools.definition("box.py#Box.get@13")["id"] == "box.py#Box.get"
    assert tools.callers("box.py#Box.get@13")["definition"] == "box.py#Box.get"


def test_results_are_bounded() -> None:
    result = bounded({"source": "x" * 20_000, "callers": [{"id": str(n)} for n in range(MAX_ITEMS + 7)]})
    assert len(result["source"]) == 8000 and result["source"].endswith("…")
    assert len(result["callers"]) == MAX_ITEMS and result["callers_more"] == 7
