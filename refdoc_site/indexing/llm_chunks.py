"""The LLM's chunk summaries, and the prompt helpers its file → module → system prose
shares (understanding/llm_hierarchy.py).

A chunk's summary is written from its own code and analysis, never from whole files. The
prompt leaves out what changes when other code moves (line numbers, callers), so an edit
asks again only for the changed chunks; the response cache answers everything else.

A reply is validated; text over the seed's length is cut at a sentence (or word) end
rather than refused, since an LLM's count of characters is approximate. A reply that names
nothing of its chunk (no word of its name, signature, calls or imports) says nothing a
reader could check, the mark of a weak model's filler, and is refused like a malformed one. An item whose
request fails keeps its extractive text, and the session counts it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..core.records import ChunkSummary, Document
from ..core.text import MAX_PROSE, MIN_PROSE, first_sentences, split_identifier
from ..llm.session import LlmSession
from .code_facts import called_names

PROMPT_VERSION = "summaries-1"
"""Part of the index fingerprint: a change to the prompts below asks every question again."""
CHUNK_FIELDS = {
    "responsibility": "what it is for and what it does",
    "inputOutput": "what it takes and what it returns or produces",
    "sideEffects": "files, network, database, processes or global state it touches, or that it has none",
    "mainDependencies": "the functions, types and modules it relies on",
    "notes": "what a maintainer should know: errors, concurrency, security, limits",
}
MAX_CODE_CHARS = 8000
CHUNK_REPLY_TOKENS = 250
"""What a chunk's five fields of 100–200 characters take, as the request's expected output."""
LISTED = 40
"""Items listed at most in a prompt (calls, parts of a file, files of a module, modules)."""
LANGUAGE_NAMES = {"en": "English", "ja": "Japanese"}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MIN_NAME_WORD = 3
GENERIC_WORDS = frozenset({
    "self", "cls", "this", "args", "kwargs", "none", "null", "true", "false", "return", "returns", "def",
    "function", "func", "class", "async", "await", "const", "let", "var", "void", "int", "str", "bool",
    "string", "number", "object", "any", "dict", "list", "new", "pub", "impl", "static", "public", "private",
})
"""Words every chunk's signature has: naming them names nothing of this chunk."""

ROLE = (
    "You write a reference site that explains a code repository to its developers. "
    "Say what the code does, using only what the message shows; never invent names of "
    "files, modules, functions or types. Plain prose, no Markdown. Write in {language}."
)


def conversation(language: str, task: str, lines: Sequence[str]) -> list[dict]:
    """The system message (role, language, task) and the user message of the non-empty lines."""
    system = ROLE.format(language=LANGUAGE_NAMES.get(language, language)) + " " + task
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(line for line in lines if line)}]


def listed(label: str, items: Sequence[str], separator: str = ", ") -> str:
    """`label: a, b, c` for the first LISTED items, or empty when there are none."""
    return f"{label}: {separator.join(items[:LISTED])}" if items else ""


def chunk_messages(document: Document, language: str) -> list[dict]:
    """The question for one chunk: its code and what the analysis found, no line numbers."""
    chunk, metadata = document.chunk, document.metadata
    example = ", ".join(f'"{key}": "{meaning}"' for key, meaning in CHUNK_FIELDS.items())
    task = (
        f"Reply with a JSON object with exactly these keys, each a string of {MIN_PROSE} to {MAX_PROSE} "
        f"characters: {{{example}}}"
    )
    found = [
        label for label, on in (("asynchronous", metadata.isAsync), ("can raise errors", metadata.throwsException)) if on
    ]
    if metadata.effects:
        found.append("effects: " + ", ".join(metadata.effects))
    if metadata.securityBoundary:
        found.append("security boundary: " + metadata.securityBoundary)
    return conversation(language, task, [
        f"Chunk: {chunk.path} {chunk.kind.value} {chunk.symbol}",
        f"Language: {chunk.language}",
        f"Signature: {chunk.signature}" if chunk.signature else "",
        f"Part {chunk.part} of a longer {chunk.kind.value}" if chunk.part else "",
        listed("Imports used", metadata.imports),
        listed("Calls", called_names(metadata)),
        listed("Analysis found", found, "; "),
        "Code:",
        chunk.content[:MAX_CODE_CHARS],
    ])


def chunk_words(document: Document) -> frozenset[str]:
    """The lower-case words of a chunk's own names (symbol, signature, calls, imports) a
    reply about it can be expected to use at least one of."""
    chunk, metadata = document.chunk, document.metadata
    names = IDENTIFIER.findall(" ".join([chunk.symbol, chunk.signature, *called_names(metadata), *metadata.imports]))
    words = {part for name in names for part in (name.lower(), *split_identifier(name))}
    return frozenset(w for w in words if len(w) >= MIN_NAME_WORD and not w.isdigit() and w not in GENERIC_WORDS)


def names_the_chunk(words: frozenset[str]) -> Callable[[dict], str | None]:
    """`check_chunk_summary`, also refusing a reply in which no word of `words` occurs."""

    def check(value: dict) -> str | None:
        problem = check_chunk_summary(value)
        if problem is not None or not words:
            return problem
        said = " ".join(_text(value.get(key)) or "" for key in CHUNK_FIELDS).lower()
        if not any(word in said for word in words):
            return "the reply names nothing of the code (no name, call or import of it)"
        return None

    return check


def check_chunk_summary(value: dict) -> str | None:
    """A problem with a chunk reply, or None; lists of strings are accepted (and joined)."""
    problems = []
    for key in CHUNK_FIELDS:
        text = _text(value.get(key))
        if text is None:
            problems.append(f"{key}: expected a string, got {type(value.get(key)).__name__}")
        elif key == "responsibility" and not text:
            problems.append("responsibility: empty")
    return "; ".join(problems) or None


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ", ".join(" ".join(item.split()) for item in value)
    return None


def fit(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut at a sentence end where one fits, else a word."""
    return text if len(text) <= limit else first_sentences(text, limit)


def chunk_summary(value: dict, model: str) -> ChunkSummary:
    texts = {key: fit(_text(value[key]) or "", MAX_PROSE) for key in CHUNK_FIELDS}
    return ChunkSummary(**texts, source=model)


def summarize_chunks(session: LlmSession, documents: Sequence[Document]) -> list[Document]:
    """Give each document the model's summary where it answers; returns those that changed."""

    def ask(document: Document) -> ChunkSummary | None:
        value = session.complete_json(
            "chunk", chunk_messages(document, session.language), model=session.summarizer_model,
            validate=names_the_chunk(chunk_words(document)), expect_tokens=CHUNK_REPLY_TOKENS,
        )
        return chunk_summary(value, session.summarizer_model) if value is not None else None

    changed = []
    for document, summary in zip(documents, session.map(ask, documents, "llm: chunks")):
        if summary is not None and summary != document.summary:
            document.summary = summary
            changed.append(document)
    return changed
