"""A real local HTTP server that speaks the OpenAI API, for tests of the API providers.

The tests point the real `openai` client at it through `base_url` (or, for Azure, the
endpoint); nothing in the client is patched. It answers on 127.0.0.1:

- `POST /v1/embeddings` and `POST /v1/chat/completions` (OpenAI and compatible servers), a
  chat request with `stream=True` answered as server-sent events, a word a chunk;
- `POST /openai/deployments/{deployment}/embeddings|chat/completions?api-version=...` (Azure).

Vectors are deterministic: a hashed bag of words (`vector_for`), so texts that share
words point the same way and a test can rank by them itself. Chat replies are
deterministic too (`chat_reply`): asked for JSON, the server answers an object with the
keys of the JSON example in the prompt, each value naming the key, the first line of the
last user message and a digest of the whole conversation, so a test can tell which
question a page's text answers and a changed question gets a changed answer. Asked for
text about numbered sources (`Sources:` then `[C1] …` lines: a question `ask` passes), it
cites the first source of every kind and names the first code name they show. A prompt whose
JSON example nests lists (a page's schema, refdoc_site/writers.py) gets an object of that
shape whose texts follow the writers' rules: each names the first code name of the listed
sources in backticks and cites the first source of every kind (`[S1, M1, C1]`). A prompt
that asks for Japanese gets Japanese. Every request is recorded (`requests`), and faults can be
injected (`inject`): an HTTP status with headers (429 with Retry-After, 500, ...), a sleep
longer than the client's timeout, a malformed body, vectors of the wrong dimension or too
few of them; for chat, a reply that is not JSON (`invalid_json`), a given reply
(`reply`, with `content`), and a reply that names a symbol that does not exist
(`hallucinate`, with `symbol`).

To add an endpoint, add its path to the dispatch in `_Handler.do_POST` and a method like
`_embeddings`: it gets the recorded request (path, query, headers, parsed JSON body) and
the fault chosen for it, if any.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

DEFAULT_DIM = 64
TEST_KEY = "test-key"
"""The key the tests' server accepts (the `server` fixture in conftest.py)."""
WORD_RE = re.compile(r"[a-z0-9]+")
AZURE_PATH = re.compile(r"^/openai/deployments/(?P<deployment>[^/]+)/(?P<endpoint>embeddings|chat/completions)$")
JSON_KEY = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"\s*:')
PHASE_HEADER = "x-refdoc-phase"
HALLUCINATED = "frobnicate_the_widgets"
STREAM_PIECE = re.compile(r"\s*\S+|\s+$")
"""A streamed reply's pieces: each word with the whitespace before it."""


def vector_for(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """The server's embedding of `text`: hashed bag of lower-cased words, unit length."""
    vector = np.zeros(dim, dtype=np.float64)
    for word in WORD_RE.findall(text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        index = int.from_bytes(digest[:4], "little") % dim
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = np.linalg.norm(vector)
    if norm == 0:
        vector[0] = 1.0
        return vector
    return vector / norm


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    status: int = 0
    streamed: bool = False
    """Answered as server-sent events (the request asked `stream=True`)."""
    received: float = field(default_factory=time.monotonic)
    """When the server read it (`time.monotonic()`): the gaps between tries are the client's waits."""

    @property
    def phase(self) -> str:
        """The build phase the client named in its header (chat requests)."""
        return self.headers.get(PHASE_HEADER, "")

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", []) if isinstance(self.body, dict) else []

    @property
    def prompt(self) -> str:
        """Every message's text, joined."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)

    @property
    def inputs(self) -> list[str]:
        value = self.body.get("input", []) if isinstance(self.body, dict) else []
        return [value] if isinstance(value, str) else list(value)


@dataclass
class Fault:
    """A misbehaviour for requests that `when` matches, `times` times (None: for ever).

    kind: `status` (answer `status` with `headers` and an OpenAI error body), `sleep`
    (wait `seconds`, then answer normally), `malformed` (200 with a body that is not
    JSON), `wrong_dim` (vectors one longer than asked), `short` (one vector too few);
    chat only: `invalid_json` (message text that is not JSON), `reply` (message text
    `content`), `hallucinate` (the usual reply, naming `symbol` in every text),
    `broken_stream` (a streamed reply whose connection closes halfway), `cut_off` (the
    first half of the usual reply with `finish_reason` "length", as a server stopped at
    the request's `max_tokens` answers).
    """

    kind: str
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    content: str = ""
    symbol: str = HALLUCINATED
    times: int | None = 1
    when: Callable[[Recorded], bool] = lambda request: True


class OpenAIServer:
    """Start with `with OpenAIServer() as server:`; `server.base_url` is the client's base URL."""

    def __init__(self, dim: int = DEFAULT_DIM, api_key: str | None = None) -> None:
        self.dim = dim
        self.api_key = api_key
        """When set, requests carrying another key (Bearer or `api-key`) get 401."""
        self.requests: list[Recorded] = []
        self.faults: list[Fault] = []
        self.active = 0
        self.most_active = 0
        """The most requests the server was answering at once."""
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.owner = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def endpoint(self) -> str:
        """Scheme, host and port: the Azure endpoint."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """The OpenAI client's base URL (`…/v1`)."""
        return self.endpoint + "/v1"

    def inject(self, kind: str, **settings: Any) -> Fault:
        fault = Fault(kind, **settings)
        with self._lock:
            self.faults.append(fault)
        return fault

    def embedding_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/embeddings")]

    def chat_requests(self, phase: str | None = None) -> list[Recorded]:
        """Chat requests, of one phase when given."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions") and (phase is None or r.phase == phase)]

    def chat_phases(self) -> dict[str, int]:
        """Chat requests per phase."""
        counts: dict[str, int] = {}
        for request in self.chat_requests():
            counts[request.phase] = counts.get(request.phase, 0) + 1
        return dict(sorted(counts.items()))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.faults.clear()

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # --- used by the handler ------------------------------------------------------------

    def _record(self, request: Recorded) -> Fault | None:
        with self._lock:
            self.requests.append(request)
            for fault in self.faults:
                if fault.times != 0 and fault.when(request):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    def _authorised(self, headers: dict[str, str]) -> bool:
        if self.api_key is None:
            return True
        bearer = headers.get("authorization", "")
        return bearer == f"Bearer {self.api_key}" or headers.get("api-key") == self.api_key


NO_WAIT = {"retry-after-ms": "1"}
"""A failing answer asking for a 1 ms wait keeps the client's retries in tests fast (the
client honours a positive wait; for none it backs off from half a second)."""


SLACK = 0.15
"""Seconds a retry may arrive later than the client's wait: the failed answer's round trip."""


def waits(requests: list[Recorded]) -> list[float]:
    """Seconds between consecutive requests: what the client waited before each retry."""
    return [later.received - earlier.received for earlier, later in zip(requests, requests[1:])]


def chat_reply(request: Recorded, symbol: str = "") -> str:
    """The server's answer to a chat request; `symbol`, when given, is named in every text."""
    messages = request.messages
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    subject = (users[-1].strip().splitlines() or [""])[0][:80] if users else ""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:8]
    japanese = "Japanese" in request.prompt
    extra = f" It relies on {symbol}()." if symbol else ""

    def text(label: str) -> str:
        if japanese:
            return f"{label}の説明です。対象は「{subject}」で、この応答の識別子は{digest}です。{extra}".strip()
        return f"LLM {label} for {subject} [{digest}]. This sentence pads the text so that it reads like prose.{extra}"

    if request.body.get("response_format", {}).get("type") != "json_object":
        cited, name = _first_sources(users[-1] if users else "")
        if cited:  # a question with numbered sources (an answer): cite them as the rules ask
            return f"{text('text').replace(extra, '').strip()} It concerns `{name}` [{cited}].{extra}"
        return text("text")
    system = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    example = _nested_example(system)
    if example is not None:
        return json.dumps(_page_reply(example, users[-1] if users else "", japanese, extra, text), ensure_ascii=False)
    keys = list(dict.fromkeys(JSON_KEY.findall(system))) or ["answer"]
    return json.dumps({key: text(key) for key in keys}, ensure_ascii=False)


SOURCE_ID = re.compile(r"^\[([A-Z]\d+)\]", re.MULTILINE)
BACKTICKED = re.compile(r"`([^`\n]+)`")


def _nested_example(system: str) -> dict | None:
    """The JSON example of a page's schema: the first object in the prompt that nests lists."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", system):
        try:
            value, _ = decoder.raw_decode(system, match.start())
        except ValueError:
            continue
        if isinstance(value, dict) and any(isinstance(v, (list, dict)) for v in value.values()):
            return value
    return None


def _first_sources(user: str) -> tuple[str, str]:
    """The first source id of every kind listed after `Sources:` (`C1, F1, M1`), and the
    first code name they show; empty without sources."""
    if "Sources:" not in user:
        return "", ""
    sources = user.split("Sources:", 1)[-1]
    firsts: dict[str, str] = {}
    for source_id in SOURCE_ID.findall(sources):
        firsts.setdefault(source_id[0], source_id)
    return ", ".join(firsts.values()), next(iter(BACKTICKED.findall(sources)), "")


def _page_reply(example: Any, user: str, japanese: bool, extra: str, text: Callable[[str], str]) -> Any:
    """A reply shaped like the example (lists of one item) whose texts follow a writer's rules:
    each names the first code name of the sources in backticks and cites the first source of
    every kind (`[S1, E1, M1]`), then `extra` (a hallucinated name, when injected)."""
    cited, name = _first_sources(user)

    def shaped(value: Any, key: str) -> Any:
        if isinstance(value, dict):
            return {k: shaped(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [shaped(value[0], key)] if value else []
        if not cited:  # no sources: a short word (a search term)
            return f"{key}{hashlib.sha256(user.encode()).hexdigest()[:4]}"
        base = text(key).replace(extra, "").strip()
        if japanese:
            return f"{base}対象は`{name}`です［{cited}］。{extra}".strip()
        return f"{base} It concerns `{name}` [{cited}].{extra}"

    return shaped(example, "answer")


def _error_body(message: str, kind: str, code: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "openai-test-server"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        owner: OpenAIServer = self.server.owner  # type: ignore[attr-defined]
        with owner._lock:
            owner.active += 1
            owner.most_active = max(owner.most_active, owner.active)
        try:
            self._answer(owner)
        finally:
            with owner._lock:
                owner.active -= 1

    def _answer(self, owner: OpenAIServer) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = None
        headers = {key.lower(): value for key, value in self.headers.items()}
        request = Recorded("POST", parts.path, parse_qs(parts.query), headers, body)
        fault = owner._record(request)
        if not owner._authorised(headers):
            message = "Incorrect API key provided. You can find your API key in your account settings."
            return self._json(request, 401, _error_body(message, "invalid_request_error", "invalid_api_key"))
        if body is None:
            return self._json(request, 400, _error_body("We could not parse the JSON body of your request.", "invalid_request_error"))
        azure = AZURE_PATH.match(parts.path)
        if azure and not request.query.get("api-version"):
            return self._json(request, 404, _error_body("Resource not found", "invalid_request_error", "404"))
        if parts.path == "/v1/chat/completions" or (azure and azure["endpoint"] == "chat/completions"):
            return self._chat(request, fault)
        if parts.path == "/v1/embeddings" or azure:
            return self._embeddings(request, fault, owner)
        self._json(request, 404, _error_body(f"Unknown path {parts.path}", "invalid_request_error"))

    def _common_fault(self, request: Recorded, fault: Fault | None) -> bool:
        """Answers `status` and `malformed` faults and sleeps `sleep` ones; True when answered."""
        if fault is not None and fault.kind == "status":
            message = {429: "Rate limit reached.", 500: "The server had an error."}.get(fault.status, "Error.")
            self._json(request, fault.status, _error_body(message, "server_error"), fault.headers)
            return True
        if fault is not None and fault.kind == "sleep":
            time.sleep(fault.seconds)
        if fault is not None and fault.kind == "malformed":
            self._send(request, 200, b'{"object": "list", "data": [', {"content-type": "application/json"})
            return True
        return False

    def _chat(self, request: Recorded, fault: Fault | None) -> None:
        if self._common_fault(request, fault):
            return None
        messages = request.messages
        if not messages or not all(isinstance(m, dict) and m.get("role") and isinstance(m.get("content"), str) for m in messages):
            return self._json(request, 400, _error_body("'messages' must be role/content objects", "invalid_request_error"))
        kind = fault.kind if fault is not None else ""
        if kind == "invalid_json":
            content = '{"responsibility": "cut short'
        elif kind == "reply":
            content = fault.content
        else:
            content = chat_reply(request, fault.symbol if kind == "hallucinate" else "")
        if kind == "cut_off":
            content = content[: len(content) // 2]
        prompt_tokens = len(WORD_RE.findall(request.prompt.lower()))
        completion_tokens = len(WORD_RE.findall(content.lower()))
        if request.body.get("stream"):
            return self._stream(request, content, prompt_tokens, completion_tokens, broken=kind == "broken_stream")
        self._json(request, 200, {
            "id": f"chatcmpl-{len(content)}", "object": "chat.completion", "created": 0,
            "model": request.body.get("model", ""),
            "choices": [{
                "index": 0, "message": {"role": "assistant", "content": content},
                "finish_reason": "length" if kind == "cut_off" else "stop",
            }],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
        })

    def _stream(self, request: Recorded, content: str, prompt_tokens: int, completion_tokens: int, broken: bool = False) -> None:
        """A `stream=True` answer: server-sent events, one chunk per word of `content` (with
        the space before it), then, when `stream_options.include_usage` asks, the usage.
        `broken`: the connection closes after the first half of the events."""
        model = request.body.get("model", "")

        def event(choices: list, usage: dict | None = None) -> bytes:
            chunk = {"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": 0, "model": model, "choices": choices}
            if usage is not None:
                chunk["usage"] = usage
            return b"data: " + json.dumps(chunk).encode() + b"\n\n"

        events = [event([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])]
        for piece in STREAM_PIECE.findall(content):
            events.append(event([{"index": 0, "delta": {"content": piece}, "finish_reason": None}]))
        events.append(event([{"index": 0, "delta": {}, "finish_reason": "stop"}]))
        if (request.body.get("stream_options") or {}).get("include_usage"):
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}
            events.append(event([], usage))
        events.append(b"data: [DONE]\n\n")
        request.streamed = True
        if broken:
            return self._send(request, 200, b"".join(events), {"content-type": "text/event-stream"}, cut=len(b"".join(events[: len(events) // 2])))
        self._send(request, 200, b"".join(events), {"content-type": "text/event-stream"})

    def _embeddings(self, request: Recorded, fault: Fault | None, owner: OpenAIServer) -> None:
        if self._common_fault(request, fault):
            return None
        texts = request.inputs
        if not texts or not all(isinstance(text, str) and text for text in texts):
            return self._json(request, 400, _error_body("'input' must be non-empty strings", "invalid_request_error"))
        dim = owner.dim + (1 if fault is not None and fault.kind == "wrong_dim" else 0)
        if fault is not None and fault.kind == "short":
            texts = texts[:-1]
        as_base64 = request.body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = vector_for(text, dim)
            if as_base64:
                encoded: Any = base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
            else:
                encoded = [float(x) for x in vector]
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        words = sum(len(WORD_RE.findall(text.lower())) for text in texts)
        model = request.body.get("model", "")
        self._json(request, 200, {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": words, "total_tokens": words}})

    def _json(self, request: Recorded, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._send(request, status, json.dumps(payload).encode(), {"content-type": "application/json", **(headers or {})})

    def _send(self, request: Recorded, status: int, data: bytes, headers: dict[str, str], cut: int | None = None) -> None:
        """Answer `data`; with `cut`, only its first `cut` bytes, then the connection closes."""
        request.status = status
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data if cut is None else data[:cut])
            if cut is not None:
                self.wfile.flush()
                self.close_connection = True
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)
