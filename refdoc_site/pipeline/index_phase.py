"""Phase 1, index: discover, chunk, analyze, summarize and embed the changed files; store
every document.

A file whose content hash and the index fingerprint (reuse.py) are unchanged keeps its
stored documents; the others are processed, on several cores in forked workers. With a
shard (core/shards.py), only that shard's files are indexed, into a store of their own;
with the stores of shards, their files count as processed here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..core.errors import NothingToIndexError, StoreError
from ..core.index_journal import IndexJournal, JournaledFile
from ..core.processes import forked_map
from ..core.reading import read_text
from ..core.records import Document, SourceFile
from ..core.redact import Redactor
from ..core.reuse import fingerprint
from ..core.serial import to_json
from ..core.shards import SHARD_NAME, Shard, ShardRecord, missing_shards, read_shard_record, write_shard_record
from ..core.store import FileEntry, Store, StoreState
from ..core.workspace import DISCOVERY_NAME, Workspace
from ..indexing.analyze import Analyzer
from ..indexing.chunk import chunk_file
from ..indexing.discover import discover
from ..indexing.doc_cache import DOC_BLOCKS_DIR, reading_once
from ..indexing.lsp import analyzer_for, share_repository
from ..indexing.summarize import Summarizer
from ..indexing.unindexed import stored_unindexed, unindexed_files
from ..languages import language_named, parse_refusal
from ..providers.openai_embed import OpenAIEmbedder
from ..search.api_vectors import store_api_vectors
from ..search.embed import Embedder, default_embedder, embed_documents

log = logging.getLogger("refdoc_site")

PARALLEL_MIN_FILES = 16
"""Fewer changed files than this are processed in this process: a pool would cost more."""


@dataclass
class IndexReport:
    files: int = 0
    reprocessed: int = 0
    reused: int = 0
    resumed: int = 0
    """Of the `reused` files, those an interrupted run had finished (its journal kept them)."""
    merged: int = 0
    """Of the `reused` files, those a shard's store brought (`--from-shards`)."""
    removed: int = 0
    chunks: int = 0
    source_bytes: int = 0
    failed: list[str] = field(default_factory=list)
    """One line per file or chunk that failed and was skipped."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Files discovery skipped, by reason; kept in the store's discovery record."""
    warnings: list[str] = field(default_factory=list)
    secrets_redacted: dict[str, int] = field(default_factory=dict)
    """Per indexed file with any, how many secrets its text had redacted."""
    unparsed: list[str] = field(default_factory=list)
    """Indexed files too costly to parse (`FileEntry.unparsed`): windows, regex analysis."""


def index(
    workspace: Workspace,
    summarizer: Summarizer,
    analyzer: Analyzer | None = None,
    embedder: Embedder | None = None,
    api_embedder: OpenAIEmbedder | None = None,
    shard: Shard | None = None,
    from_shards: Sequence[Path] = (),
) -> IndexReport:
    """Index the changed files with `summarizer`; reuse the stored documents of the others.

    With `shard`, only the files it holds are indexed and stored, and `shard.json` records
    what failed in them; the summarizer's revision, which reads other files, waits for the
    merge. `from_shards` names the stores of shards whose files count as processed here
    (where their content and the settings are the same): the merge of a CI matrix.

    A summarizer that `revises` (the LLM) rewrites the chunk summaries after the workers,
    and the documents are embedded after it. With an API embedder (given, or configured by
    `embedding:`), the store also gets an API vector per chunk, for the CLI's `--embedder
    api`; the documents keep the static model's vectors, which the site ships.
    """
    config = workspace.config
    if api_embedder is None and config.embedding is not None:
        api_embedder = OpenAIEmbedder.from_config(config.embedding)  # a missing key stops here, before any work
    owns_analyzer = analyzer is None
    analyzer = analyzer or analyzer_for(config.lsp, workspace.repo, config)
    embedder = embedder or default_embedder()
    store = workspace.store
    previous = workspace.load_state()
    shape = fingerprint(
        config, analyzer.name, summarizer.name, embedder.name if embedder is not None else "none", workspace.redactor.identity
    )
    reusable = previous.fingerprint == shape
    previous_documents = previous.documents_by_path() if reusable else {}

    found = discover(workspace.repo, config, (workspace.store_dir, workspace.out_dir), workspace.tracked_files())
    if not found.files:
        raise NothingToIndexError(_nothing_found(workspace.repo, found.skip_counts()))
    for warning in found.warnings:
        log.warning(warning)
    state = StoreState(fingerprint=shape, embedder=embedder.name if embedder is not None else "")
    journal = IndexJournal(store.directory, shape)
    resumed = _still_valid(journal, found.files)
    carried = _from_shards(from_shards, shape, found.files)
    finished = carried | resumed
    changed = [
        source for source in found.files
        if source.path not in finished and _needs_work(previous.files.get(source.path) if reusable else None, source)
    ]
    share_repository(analyzer, workspace.repo, found.files, changed, previous_documents, config.chunk_settings(), workspace.redactor)
    sources = found.files if shard is None else [source for source in found.files if shard.holds(source.path)]
    changed = changed if shard is None else [source for source in changed if shard.holds(source.path)]
    report = IndexReport(files=len(sources), skipped=found.skip_counts(), warnings=list(found.warnings))
    report.source_bytes = sum(source.size for source in sources)
    embeds_late = summarizer.revises  # summaries still change: embed them once, after
    job = FileJob(
        workspace.repo, config.chunk_settings(), analyzer, summarizer, indexing_time(),
        None if embeds_late else embedder, workspace.redactor,
    )
    parallel = len(changed) >= PARALLEL_MIN_FILES and getattr(analyzer, "parallel", False)  # language servers stay here
    journal.start(resumed)
    try:
        with reading_once(workspace.store.directory / DOC_BLOCKS_DIR):  # the render reads them again
            results = forked_map(job, changed, "index", parallel=parallel, each=lambda result: _journal(journal, result))
    finally:
        journal.close()
    processed = dict(zip((s.path for s in changed), results))
    processed |= {path: FileResult(j.documents, j.entry, j.failed) for path, j in finished.items()}
    fresh: list[Document] = []
    failed_by_file: dict[str, list[str]] = {}
    for source in sources:
        result = processed.get(source.path)
        if result is None:
            state.files[source.path] = previous.files[source.path]
            state.documents.extend(previous_documents.get(source.path, []))
            report.reused += 1
            continue
        report.failed += result.failed
        if result.failed:
            failed_by_file[source.path] = result.failed
        if result.entry is None:
            continue
        state.documents.extend(result.documents)
        fresh.extend(result.documents)  # resumed ones too: the late embedder has not seen them
        state.files[source.path] = result.entry
        if source.path in finished:
            report.reused += 1
            report.resumed += source.path in resumed
            report.merged += source.path not in resumed
        else:
            report.reprocessed += 1
    if owns_analyzer:
        analyzer.close()  # stops its language servers
    if not state.files and sources:  # nothing to document: the previous store stays as it was
        raise NothingToIndexError(
            f"{workspace.repo}: nothing indexed: all {len(sources)} source files failed ({report.failed[0]}); "
            "nothing was written to the store"
        )
    revised = summarizer.revise(state.documents) if shard is None else []  # it reads other files: at the merge
    if embeds_late and embedder is not None:
        fresh_ids = {id(d) for d in fresh}
        late = fresh + [d for d in revised if id(d) not in fresh_ids]
        report.failed += embed_documents(late, embedder, context=state.documents)
    report.removed = len(set(previous.files) - set(state.files))
    report.chunks = len(state.documents)
    report.secrets_redacted = {path: e.secrets_redacted for path, e in state.files.items() if e.secrets_redacted}
    report.unparsed = sorted(path for path, e in state.files.items() if e.unparsed)
    for line in report.failed:
        log.warning(line)
    workspace.indexed(state)
    unchanged = (
        reusable and not report.reprocessed and not report.resumed and not report.merged and not report.removed
        and not revised and store.exists()
    )
    if not unchanged:
        store.save(state)
    if shard is not None:
        write_shard_record(store, ShardRecord(shard, failed_by_file))
    else:  # the store holds every file now: no longer a shard
        (store.directory / SHARD_NAME).unlink(missing_ok=True)
    journal.remove()  # the store holds all it kept
    if api_embedder is not None:  # after the save: a key rejected now loses nothing built
        report.failed += store_api_vectors(state.documents, store.directory, api_embedder)
    unindexed = unindexed_files(workspace.repo, found.skipped, workspace.redactor, stored_unindexed(store))
    store.write_json(
        DISCOVERY_NAME,
        {
            "skipped": [asdict(s) | {"reason": s.reason.value} for s in found.skipped],
            "unindexed": [to_json(file) for file in unindexed],
            "skipped_by_reason": report.skipped,
            "warnings": found.warnings,
            "failed": report.failed,
        },
    )
    return report


def _still_valid(journal: IndexJournal, files: list[SourceFile]) -> dict[str, JournaledFile]:
    """The files an interrupted run finished whose content has not changed since."""
    hashes = {source.path: source.sha256 for source in files}
    return {
        path: journaled
        for path, journaled in journal.finished().items()
        if hashes.get(path) == journaled.entry.sha256 and not journaled.entry.deferred
    }


def _needs_work(stored: FileEntry | None, source: SourceFile) -> bool:
    """Whether `source` must be processed again, given what the store has of it."""
    return stored is None or stored.sha256 != source.sha256 or stored.deferred


def _from_shards(directories: Sequence[Path], shape: str, files: list[SourceFile]) -> dict[str, JournaledFile]:
    """The files the shards' stores in `directories` finished, by path: those indexed under
    the same settings (`shape`) from the same content. A store of other settings, or a
    missing shard, is said in one line, and its files are indexed here."""
    hashes = {source.path: source.sha256 for source in files}
    carried: dict[str, JournaledFile] = {}
    records: list[ShardRecord] = []
    for directory in directories:
        record = read_shard_record(directory)
        state = Store(directory).load()
        if state.fingerprint != shape:
            log.warning(
                f"{directory}: {'holds no index' if not state.fingerprint else 'indexed with other settings than this build'}; "
                "its files are indexed here (run each shard's index with the same refdoc-site and refdoc.yml)"
            )
            continue
        records += [record] if record is not None else []
        failed = record.failed if record is not None else {}
        documents = state.documents_by_path()
        for path, entry in state.files.items():
            if hashes.get(path) == entry.sha256 and not entry.deferred:
                carried[path] = JournaledFile(entry, documents.get(path, []), failed.get(path, []))
    if missing := missing_shards(records):
        log.warning(f"--from-shards: {', '.join(missing)} not given; the files of what is missing are indexed here")
    return carried


def indexing_time() -> str:
    """When the documents are dated as indexed: now, or, where `SOURCE_DATE_EPOCH` is set
    (the reproducible-builds convention), that moment, so that the jobs of a CI matrix and
    one machine building the same commit store the same bytes."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = datetime.now(timezone.utc)
    if epoch:
        try:
            when = datetime.fromtimestamp(int(epoch), timezone.utc)
        except (ValueError, OverflowError, OSError):
            log.warning(f"SOURCE_DATE_EPOCH={epoch!r}: not a count of seconds since 1970; documents are dated now")
    return when.isoformat(timespec="seconds")


def _journal(journal: IndexJournal, result: FileResult) -> None:
    """Keep a finished file's results in the journal; a file that failed whole is tried again next time."""
    if result.entry is not None:
        journal.append(JournaledFile(result.entry, result.documents, result.failed))


def skipped_by_reason(workspace: Workspace) -> dict[str, int]:
    """The files the last index run's discovery skipped, counted by reason (its record)."""
    discovery = workspace.store.read_json(DISCOVERY_NAME)
    if "skipped_by_reason" not in discovery:
        raise StoreError(f"{workspace.store_dir / DISCOVERY_NAME}: written by an older refdoc-site; run `refdoc-site index`")
    return discovery["skipped_by_reason"]


def _nothing_found(repo: Path, skipped: dict[str, int]) -> str:
    if not skipped:
        return f"{repo}: nothing to index: the folder holds no files; pass the repository to document"
    reasons = ", ".join(f"{reason} {count}" for reason, count in skipped.items())
    return (
        f"{repo}: nothing to index: 0 source files found ({sum(skipped.values())} skipped: {reasons}); "
        "check .gitignore and include/exclude in refdoc.yml"
    )


@dataclass
class FileResult:
    documents: list[Document]
    entry: FileEntry | None
    """None when the file failed as a whole."""
    failed: list[str]


@dataclass
class FileJob:
    """Read, chunk, analyze and summarize one file: the per-file part of the index phase,
    run in a forked worker (which inherits it rather than unpickling it)."""

    repo: Path
    settings: object
    analyzer: Analyzer
    summarizer: Summarizer
    indexed_at: str
    embedder: Embedder | None = None
    """Embeds the file's documents too, in the worker; None leaves it to the caller."""
    redactor: Redactor = field(default_factory=Redactor)

    def __call__(self, source: SourceFile) -> FileResult:
        try:
            redacted = read_text(self.repo, source.path, self.redactor)
            text = redacted.text
            chunks = chunk_file(source, text, self.settings)
            analysis = self.analyzer.analyze(source, text, chunks)
        except Exception as error:  # a failing file is skipped and counted, never fatal
            return FileResult([], None, [f"{source.path}: {type(error).__name__}: {error}; file skipped"])
        documents, failed = [], []
        for chunk in chunks:
            metadata = analysis.metadata[chunk.id]
            try:
                summary = self.summarizer.summarize(chunk, metadata)
            except Exception as error:
                failed.append(f"{source.path}:{chunk.start_line}: {chunk.symbol}: {error}; chunk skipped")
                continue
            documents.append(Document(chunk, summary, metadata, [], self.indexed_at, source.sha256))
        if self.embedder is not None:
            failed += embed_documents(documents, self.embedder)
        entry = _file_entry(source, text, analysis.imports, documents)
        entry.namespaces = analysis.namespaces
        entry.deferred = analysis.deferred
        entry.secrets_redacted = redacted.secrets
        entry.secret_rules = dict(redacted.rules)
        entry.unparsed = parse_refusal(language_named(source.language), text)
        return FileResult(documents, entry, failed)


def _file_entry(source: SourceFile, text: str, imports: list[str], documents: list[Document]) -> FileEntry:
    return FileEntry(
        path=source.path,
        language=source.language,
        sha256=source.sha256,
        size=source.size,
        lines=text.count("\n") + (0 if text.endswith("\n") or not text else 1),
        imports=imports,
        chunk_ids=[d.chunk.id for d in documents],
    )
