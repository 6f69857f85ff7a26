"""`refdoc-site serve`: the site and the Ask endpoint over real HTTP on loopback, answering
from a real build of the shop fixture (extractively, or through the tests' OpenAI server):
the answer streamed, the input and the rate bounded, nothing outside the site served, the
API key in no response, a change rebuilt, and the process stopped cleanly by a signal."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import SHOP_FIXTURE, running, without_heartbeats
from openai_server import OpenAIServer

from refdoc_site.asking.answer import MAX_QUESTION_CHARS
from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.core.workspace import Workspace
from refdoc_site.llm import open_session
from refdoc_site.serving.answering import LibraryAnswering
from refdoc_site.serving.app import Served, ServeOptions
from refdoc_site.serving.limits import (
    MAX_BODY_BYTES,
    MAX_HISTORY_TURNS,
    MAX_TURN_CHARS,
    RateLimiter,
    Refused,
    ask_request,
)
from refdoc_site.serving.watch import Watcher

SECRET = "sk-refdoc-serve-do-not-leak-7f3a9c"
EARLIER = "which table keeps the invoices?"
ROOT = Path(__file__).resolve().parents[1]


def shop_copy(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    return repo


def served_shop(repo: Path, llm=None, **options) -> Served:
    """The shop's site built and a server for it, on a free loopback port."""
    workspace = Workspace.create(repo, Config())
    settings = ServeOptions(**{"port": 0, "watch": False, **options})
    return Served(workspace, llm, LibraryAnswering(workspace, llm), settings, say=lambda line: None)


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    served = served_shop(shop_copy(tmp_path_factory.mktemp("serve")), per_minute=600, burst=100)
    site = served.workspace.out_dir
    (site / "escape").symlink_to(served.workspace.repo / "app")  # a link inside the site to the sources
    with running(served):
        yield served


@pytest.fixture()
def shop_url(shop) -> str:
    return shop.url


def request(url: str, method: str = "GET", path: str = "/", body: bytes | None = None, headers: dict | None = None):
    """One raw request (the path sent as given, unnormalised); returns (status, headers, body)."""
    port = int(re.search(r":(\d+)/", url).group(1))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.putrequest(method, path, skip_accept_encoding=True, skip_host="Host" in (headers or {}))
    sent = {"Content-Type": "application/json", **(headers or {})} if body is not None else dict(headers or {})
    if body is not None:
        sent.setdefault("Content-Length", str(len(body)))
    for name, value in sent.items():
        connection.putheader(name, value)
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), data


def ask(url: str, question: str, history=()) -> tuple[int, dict, list[dict]]:
    body = json.dumps({"question": question, "history": list(history)}).encode()
    status, headers, data = request(url, "POST", "/ask", body)
    events = [json.loads(line) for line in data.decode().splitlines() if line.strip()] if status == 200 else [json.loads(data)]
    return status, headers, events


def test_ask_streams_pieces_then_the_answer_whose_links_land_on_the_site(shop_url) -> None:
    status, headers, events = ask(shop_url, "how is a user deleted?")
    assert status == 200 and headers["Content-Type"].startswith("application/x-ndjson")
    texts = [event["text"] for event in events if event["type"] == "text"]
    assert len(texts) >= 2, events  # extractive: a piece per source
    assert [event["type"] for event in events][-1] == "answer"
    answer = events[-1]["answer"]
    assert answer["mode"] == "extractive"
    assert "".join(texts).strip() == answer["text"].strip()
    assert any(source["symbol"].endswith("delete_user") for source in answer["sources"])
    for source in answer["sources"][:3]:
        page, _, anchor = source["url"].partition("#")
        assert not page.startswith(("/", "http")), source["url"]
        status, _, html = request(shop_url, path="/" + page)
        assert status == 200 and f'id="{anchor}"' in html.decode(), source["url"]


def test_the_conversation_is_passed_on(shop_url) -> None:
    first = ask(shop_url, "how is a user deleted?")[2][-1]["answer"]
    status, _, events = ask(shop_url, "and exported?", [{"question": "how is a user deleted?", "answer": first["text"]}])
    assert status == 200 and events[-1]["type"] == "answer"
    status, _, events = ask(shop_url, "x", [{"question": 1}])
    assert status == 400 and "history" in events[0]["error"]


def test_health_says_the_mode_and_the_bound(shop_url) -> None:
    status, headers, data = request(shop_url, path="/ask/health")
    assert status == 200
    assert json.loads(data) == {"mode": "extractive", "maxQuestionChars": MAX_QUESTION_CHARS, "epoch": 1}


def test_an_oversized_body_or_question_is_refused_with_413(shop_url) -> None:
    status, _, data = request(shop_url, "POST", "/ask", b"{" + b" " * MAX_BODY_BYTES + b"}")
    assert status == 413 and str(MAX_BODY_BYTES) in json.loads(data)["error"]
    status, _, events = ask(shop_url, "why " * (MAX_QUESTION_CHARS // 4 + 1))
    assert status == 413 and "characters" in events[0]["error"]
    status, _, _ = ask(shop_url, "why " * (MAX_QUESTION_CHARS // 4 - 1))
    assert status == 200


def test_a_bad_request_gets_one_line(shop_url) -> None:
    status, _, data = request(shop_url, "POST", "/ask", b"not json")
    assert status == 400 and "not JSON" in json.loads(data)["error"]
    status, _, data = request(shop_url, "POST", "/ask", b'{"question": "x"}', {"Content-Type": "text/plain"})
    assert status == 415
    status, _, _ = ask(shop_url, "   ")
    assert status == 400


def test_the_rate_is_bounded_per_client_with_retry_after(tmp_path: Path) -> None:
    with running(served_shop(shop_copy(tmp_path), per_minute=2, burst=2)) as url:
        assert [ask(url, "delete user")[0] for _ in range(2)] == [200, 200]
        status, headers, events = ask(url, "delete user")
        assert status == 429
        assert 1 <= int(headers["Retry-After"]) <= 30
        assert "ask again" in events[0]["error"]
        assert request(url, path="/")[0] == 200  # the site itself is not rate-limited


@pytest.mark.parametrize(
    "path",
    [
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/assets/..%2f..%2f..%2f..%2fetc/passwd",
        "/assets/..%5c..%5c..%5cetc%5cpasswd",
        "/.refdoc-site.json",
        "/index.html%00.js",
        "/%ff%fe",
        "/escape/",
        "/escape/service.py",
        "/ask/../../app/service.py",
    ],
)
def test_nothing_outside_the_site_is_served(shop_url, path: str) -> None:
    status, _, data = request(shop_url, path=path)
    assert status == 404, (path, status)
    assert b"root:" not in data and b"class UserService" not in data and b'"kind"' not in data


def test_requests_for_another_host_or_from_another_site_are_refused(shop_url) -> None:
    assert request(shop_url, path="/", headers={"Host": "attacker.example:80"})[0] == 421
    body = json.dumps({"question": "delete user"}).encode()
    assert request(shop_url, "POST", "/ask", body, {"Origin": "http://attacker.example"})[0] == 403
    port = re.search(r":(\d+)/", shop_url).group(1)
    assert request(shop_url, "POST", "/ask", body, {"Origin": f"http://127.0.0.1:{port}"})[0] == 200
    assert request(shop_url, "PUT", "/index.html")[0] == 501


def test_html_pages_carry_the_serve_mark_and_other_files_do_not(shop_url) -> None:
    status, headers, _ = request(shop_url, path="/")
    assert status == 200 and headers["Server-Timing"] == 'refdoc-serve;desc="1"'
    assert "ETag" not in headers  # a page is always sent whole, with its mark
    status, headers, _ = request(shop_url, path="/search/refdoc/config.json")
    assert status == 200 and "Server-Timing" not in headers
    status, _, data = request(shop_url, path="/search/refdoc/config.json", headers={"If-None-Match": headers["ETag"]})
    assert status == 304 and data == b""  # unchanged since: not sent again
    status, headers, _ = request(shop_url, path="/files")
    assert status == 301 and headers["Location"] == "/files/"
    status, headers, data = request(shop_url, path="/no/such/page/")
    assert status == 404 and b"<html" in data  # the site's 404 page


def test_the_api_key_is_in_no_response(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIServer(api_key=SECRET) as api:
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("OPENAI_BASE_URL", api.base_url)
        repo = shop_copy(tmp_path)
        workspace = Workspace.create(repo, Config())
        llm, _ = open_session(workspace.config, workspace.store_dir)
        assert llm is not None
        try:
            with running(served_shop(repo, llm, per_minute=1, burst=3)) as url:
                responses = [
                    request(url, path="/"),
                    request(url, path="/ask/health"),
                    request(url, path="/no/such/page"),
                    request(url, path="/../../.refdoc/llm-cache"),
                    request(url, "POST", "/ask", b"{" + b" " * MAX_BODY_BYTES + b"}"),
                    request(url, "POST", "/ask", json.dumps({"question": "how is a user deleted?"}).encode()),
                    request(url, "POST", "/ask", json.dumps({"question": "what does the server do?", "history": [{"question": EARLIER, "answer": "a"}]}).encode()),
                    *[request(url, "POST", "/ask", json.dumps({"question": "and then?"}).encode()) for _ in range(3)],
                ]
                site_files = [path.read_bytes() for path in workspace.out_dir.rglob("*") if path.is_file()]
        finally:
            llm.close()
        assert api.requests, "the answers went through the configured LLM"
    statuses = [status for status, _, _ in responses]
    assert statuses[:5] == [200, 200, 404, 404, 413] and 429 in statuses[7:]
    assert json.loads(responses[1][2])["mode"] == "llm"
    assert json.loads(responses[5][2].splitlines()[-1])["answer"]["mode"] == "llm"
    assert responses[5][2].count(b'"type": "text"') >= 2  # the model's answer streamed in pieces
    assert any(EARLIER in json.dumps(recorded.body) for recorded in api.requests)  # the history reached the model
    for status, headers, body in responses:
        assert SECRET not in json.dumps(headers) and SECRET.encode() not in body, status
    assert not any(SECRET.encode() in data for data in site_files)


def test_a_change_in_the_repository_is_rebuilt_and_open_pages_told(tmp_path: Path) -> None:
    repo = shop_copy(tmp_path)
    with running(served_shop(repo, watch=True)) as url:
        status, _, page = request(url, path="/files/app/util.py/")
        assert status == 200 and b"refund_total" not in page
        with (repo / "app" / "util.py").open("a", encoding="utf-8") as source:
            source.write('\n\ndef refund_total(amounts: list[float]) -> float:\n    """Sum the refunds of an order."""\n    return sum(amounts)\n')
        deadline = time.monotonic() + 60
        while b"refund_total" not in page and time.monotonic() < deadline:
            time.sleep(0.3)
            page = request(url, path="/files/app/util.py/")[2]
        assert b"refund_total" in page
        status, _, data = request(url, path="/ask/changes?since=1")
        assert status == 200 and json.loads(data)["epoch"] >= 2
        answer = ask(url, "sum the refunds of an order")[2][-1]["answer"]
        assert any(source["symbol"] == "refund_total" for source in answer["sources"]), answer["sources"]


def test_a_change_the_build_ignores_leaves_the_pages_alone(tmp_path: Path) -> None:
    repo = shop_copy(tmp_path)
    served = served_shop(repo)
    (repo / "debug.log").write_text("another line\n", encoding="utf-8")
    assert served.rebuild() is False
    assert served.server.epoch == 1


def test_a_host_off_loopback_needs_its_flag(tmp_path: Path, capsys) -> None:
    repo = shop_copy(tmp_path)
    assert ServeOptions().host == "127.0.0.1"
    assert main(["serve", str(repo), "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--allow-remote" in err
    assert not (repo / ".refdoc").exists()  # refused before anything was built


def test_a_busy_port_or_a_missing_site_is_one_line(tmp_path: Path, capsys) -> None:
    repo = shop_copy(tmp_path)
    assert main(["serve", str(repo), "--no-build", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no site built" in err
    with running(served_shop(repo)) as url:
        port = re.search(r":(\d+)/", url).group(1)
        # built through the library, so not stamped as this machine's by the CLI: named with --store
        assert main(["serve", str(repo), "--no-build", "--store", str(repo / ".refdoc"), "--port", port]) == 2
        err = without_heartbeats(capsys.readouterr().err)  # the site's build printed before it
        assert len(err.splitlines()) == 1 and f"--port {port}: cannot listen" in err
    assert main(["serve", str(repo), "--port", "70000"]) == 2
    assert "not a port" in capsys.readouterr().err


@contextmanager
def serve_process(repo: Path, *flags: str):
    """`refdoc-site serve` as its own process; yields (process, url)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "refdoc_site", "serve", str(repo), "--port", "0", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )
    try:
        for line in process.stdout:
            found = re.search(r"serve: (http://\S+/)", line)
            if found:
                yield process, found.group(1)
                break
        else:
            raise AssertionError(process.stderr.read())
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_the_process_listens_on_loopback_and_stops_cleanly_on_a_signal(tmp_path: Path, stop: signal.Signals) -> None:
    repo = shop_copy(tmp_path)
    with serve_process(repo) as (process, url):
        assert url.startswith("http://127.0.0.1:")
        assert request(url, path="/ask/health")[0] == 200
        process.send_signal(stop)
        assert process.wait(30) == 0
        rest = process.stdout.read()
    assert "serve: stopped" in rest
    assert not (repo / ".refdoc" / "lock").exists()


def test_the_watcher_sees_sources_and_new_folders_but_not_the_store(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    (repo / ".refdoc" / "site").mkdir(parents=True)
    rebuilds = []
    watcher = Watcher(repo, [repo / ".refdoc"], lambda: rebuilds.append(time.monotonic()), quiet_seconds=0.2)
    watcher.start()
    try:
        (repo / ".refdoc" / "site" / "index.html").write_text("built", encoding="utf-8")
        (repo / ".git").mkdir()
        (repo / ".git" / "HEAD").write_text("ref", encoding="utf-8")
        time.sleep(1.0)
        assert rebuilds == []
        (repo / "app" / "a.py").write_text("x = 1\n", encoding="utf-8")
        wait_until(lambda: len(rebuilds) == 1)
        (repo / "lib").mkdir()
        time.sleep(0.5)  # the new folder is watched from its creation on
        wait_until(lambda: len(rebuilds) == 2)
        (repo / "lib" / "b.py").write_text("y = 2\n", encoding="utf-8")
        wait_until(lambda: len(rebuilds) == 3)
    finally:
        watcher.stop()


def wait_until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_history_is_bounded_and_each_turn_cut() -> None:
    turns = [{"question": f"q{n}", "answer": "a" * (MAX_TURN_CHARS + 50)} for n in range(MAX_HISTORY_TURNS + 5)]
    request = ask_request(json.dumps({"question": "  why?  ", "history": turns}).encode(), 100)
    assert request.question == "why?"
    assert [question for question, _ in request.history] == [f"q{n}" for n in range(5, MAX_HISTORY_TURNS + 5)]
    assert {len(answer) for _, answer in request.history} == {MAX_TURN_CHARS}


def test_a_bucket_refills_at_its_rate_and_clients_are_apart() -> None:
    now = [0.0]
    limiter = RateLimiter(per_minute=6, burst=2, clock=lambda: now[0])  # a token every 10 s
    limiter.take("a")
    limiter.take("a")
    with pytest.raises(Refused) as refused:
        limiter.take("a")
    assert refused.value.status == 429 and refused.value.headers == {"Retry-After": "10"}
    limiter.take("b")  # another client has its own bucket
    now[0] = 6.0
    with pytest.raises(Refused) as refused:
        limiter.take("a")
    assert refused.value.headers == {"Retry-After": "4"}
    now[0] = 10.5
    limiter.take("a")


def test_questions_at_once_are_all_answered(shop_url) -> None:
    """24 clients at once: none is reset at the door (the listen queue), and the library,
    shared by the answering threads, answers each."""
    questions = ["how is a user deleted?", "format a price", "start the server", "get an order"] * 6
    results: list = [None] * len(questions)

    def one(number: int) -> None:
        status, _, events = ask(shop_url, questions[number])
        results[number] = (status, events[-1]["type"])

    threads = [threading.Thread(target=one, args=(number,)) for number in range(len(questions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results == [(200, "answer")] * len(questions)
