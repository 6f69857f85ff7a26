"""`refdoc-site mcp`: the built store as Model Context Protocol tools for coding agents, over stdio.

The tools read one `Library` (library.py), opened once before the server starts, so a
missing store is a one-line error on the command line rather than a failing tool. Each
tool is a plain method of `LibraryTools` returning JSON-ready values; `mcp_server()` binds
them to the official SDK (`mcp`, an optional dependency: `pip install 'refdoc-site[mcp]'`).

What a tool returns is bounded: a search's hits, a list of callers, a definition's source
and any list or text in a result are cut to the limits below, and a cut says so (`"…"` at
the end of a text, a `more` count beside a list). A bad argument (an empty query, a name
that matches nothing or several definitions, a question too long) comes back as a tool
error the agent reads, never as a crash; an unexpected failure comes back as the SDK's
generic tool error, its traceback logged on stderr. Nothing but the protocol is written to
stdout: the SDK points the process's stdout at stderr while it serves.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import is_dataclass
from typing import Any

from ..core.errors import RefdocError
from ..core.serial import to_json
from ..search.ranking import Hit
from .answer import MAX_QUESTION_CHARS, Turn, ask
from .library import Definition, Library

log = logging.getLogger("refdoc_site")

INSTALL_HINT = "mcp: needs the MCP SDK 2.x; install it with: pip install 'refdoc-site[mcp]' (in a checkout: pip install -e '.[mcp]')"
SERVER_NAME = "refdoc-site"
MAX_TOP = 25
DEFAULT_TOP = 10
MAX_ITEMS = 50
"""Items of any list in a result (callers, callees, modules, metadata lists)."""
MAX_TEXT_CHARS = 8000
"""Characters of any text in a result: a definition's source is the longest."""
MAX_HISTORY_TURNS = 10
MAX_REF_CHARS = 500
AMBIGUOUS_SHOWN = 10


class ToolInputError(RefdocError):
    """An argument the tool cannot use: its message is the tool error the agent reads."""


class LibraryTools:
    """The MCP tools over one library, serialised: the SDK runs each call in a thread."""

    def __init__(self, library: Library, llm=None) -> None:
        self.library = library
        self.llm = llm
        self._lock = threading.Lock()

    def search(self, query: str, top: int = DEFAULT_TOP) -> dict:
        query = _required(query, "query", MAX_QUESTION_CHARS)
        if not 1 <= top <= MAX_TOP:
            raise ToolInputError(f"top: expected 1 to {MAX_TOP}, got {top}")
        with self._lock:
            results = [self._hit(hit) for hit in self.library.site_search(query, top)]
        return bounded({"query": query, "hits": results})

    def _hit(self, hit: Hit) -> dict:
        """A hit with its definition's id, summary and page URL: enough to choose what to read next."""
        found = self.library.definition(hit.chunk_id)
        if found is None:
            return {"id": hit.chunk_id, **hit.to_dict(), "summary": None, "url": self.library.page_url(hit.chunk_id)}
        return {"id": found.id, **hit.to_dict(), "summary": found.summary, "url": found.url}

    def ask(self, question: str, history: Sequence[dict] | None = None) -> dict:
        turns = [_turn(item, index) for index, item in enumerate(history or [])][-MAX_HISTORY_TURNS:]
        with self._lock:
            answer = ask(question, self.library, self.llm, turns)
        return bounded(answer.to_dict())

    def definition(self, ref: str) -> dict:
        with self._lock:
            return bounded(_plain(self._definition(ref)))

    def callers(self, ref: str) -> dict:
        return self._related(ref, "callers", Library.callers)

    def callees(self, ref: str) -> dict:
        return self._related(ref, "callees", Library.callees)

    def module_summary(self, name: str) -> dict:
        name = _required(name, "name", MAX_REF_CHARS)
        with self._lock:
            summary = self.library.module_summary(name)
            if summary is None:
                raise ToolInputError(f"no module {name!r}; list_modules gives their names")
        return bounded(_plain(summary))

    def system_summary(self) -> dict:
        with self._lock:
            return bounded(_plain(self.library.system_summary()))

    def list_modules(self) -> dict:
        with self._lock:
            return bounded({"modules": list(self.library.modules())})

    def _definition(self, ref: str) -> Definition:
        """The one definition `ref` names; a tool error naming the candidates when it names several."""
        ref = _required(ref, "ref", MAX_REF_CHARS)
        candidates = self.library.matches(ref)
        if len(candidates) > 1:
            shown = ", ".join(candidates[:AMBIGUOUS_SHOWN]) + (", …" if len(candidates) > AMBIGUOUS_SHOWN else "")
            raise ToolInputError(f"{ref!r} names {len(candidates)} definitions; pass one id: {shown}")
        found = self.library.definition(candidates[0]) if candidates else None
        if found is None:
            raise ToolInputError(f"no definition {ref!r}: pass a chunk id (path#Qualified.name) as search returns, or a name")
        return found

    def _related(self, ref: str, relation: str, related: Callable[[Library, str], list[Definition]]) -> dict:
        with self._lock:
            found = self._definition(ref)
            items = [_brief(other) for other in related(self.library, found.id)]
        return bounded({"definition": found.id, "url": found.url, relation: items})


TOOL_DESCRIPTIONS = {
    "search": "Find code and documentation in this repository by keywords or meaning (the ranking "
    "of the site's search box). Returns ranked definitions with path, lines, kind, summary and "
    "the URL of their documentation, and the site's own pages' sections (kind page: the "
    "overview's flows, module pages, decisions) with their URL. Use it first to locate where "
    "something is implemented.",
    "ask": "Ask a question about this repository; the answer cites its sources as "
    "[path:start-end](url) links, built from retrieved definitions widened by their callers, "
    "callees and summaries. Pass the earlier turns as history to continue a conversation. Says "
    "'not found in this repository' rather than inventing an answer.",
    "definition": "Read one definition (function, method, class, or documentation section): its "
    "source, summary, signature and metadata (callers, callees, imports, async, exceptions, "
    "security boundary) and its page URL. ref: a chunk id (path#Qualified.name) as search "
    "returns, or a qualified or short name that matches one definition.",
    "callers": "List the definitions that call a definition (ref as for definition): who depends "
    "on it, e.g. before changing its signature.",
    "callees": "List the definitions a definition calls (ref as for definition): what it depends on.",
    "module_summary": "Read a module's summary: its boundary, responsibilities, files, public API "
    "and the modules it depends on and is used by. name: as list_modules gives it.",
    "system_summary": "Read the whole system's summary: what the repository is, its layers, "
    "languages and module cycles. A good first call in an unknown repository.",
    "list_modules": "List the names of the repository's modules (for module_summary).",
}


def check_sdk() -> None:
    """Raise RefdocError with the install hint unless the MCP SDK 2.x can be imported."""
    try:
        # optional: the MCP SDK (and its web stack) is needed by this command alone
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise RefdocError(INSTALL_HINT) from None


def mcp_server(tools: LibraryTools):
    """The SDK's server with every tool bound; raises RefdocError (the install hint) without the SDK."""
    check_sdk()
    # optional: checked just above; the SDK loads only for this command
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")

    def tool_error(call: Callable[[], dict]) -> dict:
        try:
            return call()
        except RefdocError as error:
            raise ToolError(str(error)) from None

    def search(query: str, top: int = DEFAULT_TOP) -> dict[str, Any]:
        return tool_error(lambda: tools.search(query, top))

    def ask_question(question: str, history: list[dict[str, str]] | None = None) -> dict[str, Any]:
        return tool_error(lambda: tools.ask(question, history))

    def definition(ref: str) -> dict[str, Any]:
        return tool_error(lambda: tools.definition(ref))

    def callers(ref: str) -> dict[str, Any]:
        return tool_error(lambda: tools.callers(ref))

    def callees(ref: str) -> dict[str, Any]:
        return tool_error(lambda: tools.callees(ref))

    def module_summary(name: str) -> dict[str, Any]:
        return tool_error(lambda: tools.module_summary(name))

    def system_summary() -> dict[str, Any]:
        return tool_error(tools.system_summary)

    def list_modules() -> dict[str, Any]:
        return tool_error(tools.list_modules)

    bound = {
        "search": search,
        "ask": ask_question,
        "definition": definition,
        "callers": callers,
        "callees": callees,
        "module_summary": module_summary,
        "system_summary": system_summary,
        "list_modules": list_modules,
    }
    for name, function in bound.items():
        server.add_tool(function, name=name, description=TOOL_DESCRIPTIONS[name])
    return server


INSTRUCTIONS = (
    "Tools over this repository's refdoc-site index: search it, ask it questions with cited "
    "answers, read a definition with its callers and callees, and read module and system summaries."
)


def serve_stdio(tools: LibraryTools) -> None:
    """Serve the tools over stdin/stdout until the client closes the connection."""
    server = mcp_server(tools)
    log.info("refdoc-site mcp: serving %d tools over stdio", len(TOOL_DESCRIPTIONS))
    server.run("stdio")


def _required(value: object, name: str, limit: int) -> str:
    text = str(value or "").strip()
    if not text:
        raise ToolInputError(f"{name}: expected a non-empty text")
    if len(text) > limit:
        raise ToolInputError(f"{name}: at most {limit} characters, got {len(text)}")
    return text


def _turn(item: object, index: int) -> Turn:
    if not isinstance(item, dict) or not isinstance(item.get("question"), str) or not isinstance(item.get("answer"), str):
        raise ToolInputError(f"history[{index}]: expected an object with the texts 'question' and 'answer'")
    return Turn(question=item["question"][:MAX_QUESTION_CHARS], answer=item["answer"][:MAX_TEXT_CHARS])


def _plain(record: object) -> Any:
    """A record as JSON-ready values: its own `to_dict()` where it has one."""
    if hasattr(record, "to_dict"):
        return record.to_dict()
    if is_dataclass(record):
        return to_json(record)
    return record


BRIEF_FIELDS = ("id", "path", "start_line", "end_line", "symbol", "kind", "signature", "summary", "url")


def _brief(definition: Definition) -> dict:
    """A related definition without its source: what a list of callers needs."""
    plain = definition.to_dict()
    return {key: plain[key] for key in BRIEF_FIELDS}


def bounded(value: Any, text_chars: int = MAX_TEXT_CHARS, items: int = MAX_ITEMS) -> Any:
    """`value` with every text cut to `text_chars` (ending "…") and every list to `items`
    (a dict's list `x` cut gets `x_more`: how many were left out)."""
    if isinstance(value, str):
        return value if len(value) <= text_chars else value[: text_chars - 1] + "…"
    if isinstance(value, dict):
        out: dict = {}
        for key, item in value.items():
            out[key] = bounded(item, text_chars, items)
            if isinstance(item, (list, tuple)) and len(item) > items:
                out[f"{key}_more"] = len(item) - items
        return out
    if isinstance(value, (list, tuple)):
        return [bounded(item, text_chars, items) for item in value[:items]]
    return value

