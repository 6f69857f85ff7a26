"""The LLM as a `Summarizer` (indexing/summarize.py): the extractive summaries first, then
the model's chunk summaries (indexing/llm_chunks.py) and its file → module → system prose.

Each level is written from the level below, never from whole files: a file from its
chunks' summaries, a module from its files' summaries, the system from its modules'
summaries, so an edit asks again only for the changed chunks, their file, its module and
the system; the response cache answers everything else. An item the model does not answer
keeps its extractive text, and the session counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..core.records import (
    Chunk,
    ChunkSummary,
    Document,
    FileRole,
    FileSummary,
    Hierarchy,
    Metadata,
    ModuleSummary,
)
from ..core.reuse import summaries_digest
from ..core.text import first_sentences
from ..indexing.llm_chunks import (
    LISTED,
    PROMPT_VERSION,
    conversation,
    fit,
    listed,
    summarize_chunks,
)
from ..indexing.summarize import ExtractiveSummarizer
from ..llm.session import LlmSession
from .hierarchy import FILE_PROSE, MODULE_PROSE, SYSTEM_PROSE

ROLE_PROSE = 160
"""A file's role, the first sentences of its prose."""


class LlmSummarizer:
    """Summaries written by the session's summarizer model, over an extractive seed that
    stays wherever the model gives nothing usable."""

    revises = True

    def __init__(self, session: LlmSession) -> None:
        self.session = session
        self.seed = ExtractiveSummarizer()
        self.name = f"{self.seed.name}|{session.identity}|{PROMPT_VERSION}"

    def summarize(self, chunk: Chunk, metadata: Metadata) -> ChunkSummary:
        return self.seed.summarize(chunk, metadata)

    def revise(self, documents: Sequence[Document]) -> list[Document]:
        """The model's summary for every chunk that does not carry one of its own yet: the
        changed chunks, and those a previous build left extractive (a failed request, a
        spent budget). Unchanged ones cost nothing: the session's cache answers them."""
        model = self.session.summarizer_model
        return summarize_chunks(self.session, [d for d in documents if d.summary.source != model])

    def hierarchy_inputs(self, documents: Sequence[Document]) -> tuple[str, ...]:
        return (self.session.identity, summaries_digest(documents))

    def summarize_hierarchy(self, hierarchy: Hierarchy, documents: Sequence[Document]) -> Hierarchy:
        return summarize_hierarchy(self.session, hierarchy, documents)

    def mark(self) -> int:
        return self.session.report.total.fallbacks

    def left_offline_since(self, mark: int) -> bool:
        """A dry run asks nothing, so everything it wrote is offline."""
        return self.session.dry_run or self.session.report.total.fallbacks > mark


def summary_task(limit: int, subject: str) -> str:
    return f'Reply with a JSON object {{"summary": "{subject}"}} whose summary has at most {limit} characters.'


def check_summary(value: dict) -> str | None:
    text = value.get("summary")
    if not isinstance(text, str) or not text.strip():
        return f"summary: expected a non-empty string, got {type(text).__name__}"
    return None


def file_messages(summary: FileSummary, documents: Sequence[Document], language: str) -> list[dict]:
    task = summary_task(FILE_PROSE, "the file's role, its public API and what it depends on")
    parts = [
        f"- {d.chunk.symbol} ({d.chunk.kind.value}): {d.summary.responsibility} {d.summary.inputOutput}"
        for d in documents[:LISTED]
    ]
    return conversation(language, task, [
        f"File: {summary.path}",
        f"Language: {summary.language}; module: {summary.module or '(root)'}",
        listed("Public API", summary.public_api),
        listed("Imports from the repository", summary.imports),
        listed("Other imports", summary.external_imports),
        "Parts, as summarized:" if parts else "The file has no indexed parts.",
        *parts,
    ])


def module_messages(module: ModuleSummary, files: dict[str, FileSummary], language: str) -> list[dict]:
    task = summary_task(MODULE_PROSE, "the module's boundary, its responsibilities and the modules it uses")
    return conversation(language, task, [
        f"Module: {module.name or '(root)'} ({len(module.files)} file{'s' if len(module.files) != 1 else ''})",
        listed("Uses modules", module.depends_on) or "Uses no other module.",
        listed("Used by modules", module.used_by),
        "Files, as summarized:",
        *(f"- {path}: {files[path].text}" for path in module.files[:LISTED]),
    ])


def system_messages(hierarchy: Hierarchy, language: str) -> list[dict]:
    system = hierarchy.system
    task = summary_task(SYSTEM_PROSE, "the system's layers and domain boundaries, from entry points to foundations")
    languages = ", ".join(f"{name} ({count})" for name, count in sorted(system.languages.items(), key=lambda kv: -kv[1]))
    own = {path for path, f in hierarchy.files.items() if f.file_role is FileRole.SOURCE}
    modules = sorted((m for m in hierarchy.modules.values() if own.intersection(m.files)), key=lambda m: -m.lines)
    return conversation(language, task, [
        f"Repository: {sum(system.languages.values())} files in {len(modules)} modules; files per language: {languages}",
        *(listed(f"Layer {n + 1} (entry first)", layer) for n, layer in enumerate(system.layers)),
        *(listed("Dependency cycle", cycle, " → ") for cycle in system.cycles[:LISTED]),
        "Modules, as summarized (largest first):",
        *(f"- {m.name or '(root)'}: {m.text}" for m in modules[:LISTED]),
    ])


def summarize_hierarchy(session: LlmSession, hierarchy: Hierarchy, documents: Sequence[Document]) -> Hierarchy:
    """The hierarchy with the model's prose for every file, module and the system, each
    from the level below; an item the model does not answer keeps its extractive text."""
    by_path: dict[str, list[Document]] = {}
    for document in documents:
        by_path.setdefault(document.chunk.path, []).append(document)

    def ask(phase: str, messages: list[dict], limit: int) -> str | None:
        value = session.complete_json(
            phase, messages, model=session.summarizer_model, validate=check_summary, expect_tokens=limit // 3,
        )
        return fit(" ".join(value["summary"].split()), limit) if value is not None else None

    def write_file(summary: FileSummary) -> FileSummary:
        text = ask("file", file_messages(summary, by_path.get(summary.path, []), session.language), FILE_PROSE)
        return replace(summary, text=text, role=first_sentences(text, ROLE_PROSE)) if text else summary

    files = dict(zip(hierarchy.files, session.map(write_file, hierarchy.files.values(), "llm: files")))

    def write_module(module: ModuleSummary) -> ModuleSummary:
        text = ask("module", module_messages(module, files, session.language), MODULE_PROSE)
        return replace(module, text=text) if text else module

    modules = dict(zip(hierarchy.modules, session.map(write_module, hierarchy.modules.values(), "llm: modules")))
    result = Hierarchy(hierarchy.system, modules, files)
    text = ask("system", system_messages(result, session.language), SYSTEM_PROSE)
    return replace(result, system=replace(hierarchy.system, text=text)) if text else result

