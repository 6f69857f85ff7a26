"""The LLM's chunk summaries, and the prompt helpers its file → module → system prose
shares (understanding/llm_hierarchy.py).

A chunk's summary is written from its own code and analysis, never from whole files. The
prompt leaves out what changes when other code moves (line numbers, callers), so an edit
asks again only for the changed chunks; the response cache answers everything else.

A reply is validated; text over the seed's length is cut at a sentence (or word) end
rather than refused, since an LLM's count of characters is approximate. An item whose
request fails keeps its extractive text, and the session counts it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.records import ChunkSummary, Document
from ..core.text import MAX_PROSE, MIN_PROSE, first_sentences
from ..llm.session import LlmSession

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
LISTED = 40
"""Items listed at most in a prompt (calls, parts of a file, files of a module, modules)."""
LANGUAGE_NAMES = {"en": "English", "ja": "Japanese"}

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
        listed("Calls", metadata.calls),
        listed("Analysis found", found, "; "),
        "Code:",
        chunk.content[:MAX_CODE_CHARS],
    ])


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
            validate=check_chunk_summary, expect_tokens=250,
        )
        return chunk_summary(value, session.summarizer_model) if value is not None else None

    changed = []
    for document, summary in zip(documents, session.map(ask, documents, "llm: chunks")):
        if summary is not None and summary != document.summary:
            document.summary = summary
            changed.append(document)
    return changed
