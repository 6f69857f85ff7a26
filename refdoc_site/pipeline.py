"""The pipeline, phase by phase: index → summarize → render → site.

`build()` reads as the whole product. Each phase reads what the previous one stored under
the store directory, so the CLI can run any phase alone against the same store.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import multiprocessing
import os
import posixpath
import shutil
import subprocess
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .core.config import Config
from .core.errors import NothingToIndexError, SiteBuildError, StoreError
from .core.pages import module_page, plan_page, plan_slug
from .core.processes import die_with_parent, run_as_child
from .core.progress import progress
from .core.reading import read_text
from .core.records import Document, Hierarchy, SourceFile
from .core.redact import Redactor
from .core.resources import mkdocs_template, templates_dir
from .core.store import FileEntry, Store, StoreState, store_lock
from .indexing.analyze import Analyzer
from .indexing.chunk import chunk_file
from .indexing.discover import discover
from .indexing.lsp import analyzer_for
from .indexing.summarize import ExtractiveSummarizer, Summarizer
from .llm.summaries import PROMPT_VERSION, summarize_chunks, summarize_hierarchy
from .providers.openai_embed import OpenAIEmbedder
from .rendering.outputs import (
    check_out_dir,
    is_refdoc_output,
    missing_site_files,
    raise_if_incomplete,
    remove_leftovers,
    staging_folder,
    swap_in,
)
from .rendering.render import SiteData, render_pages
from .rendering.site import build_site, find_mermaid, write_project
from .search.api_vectors import store_api_vectors
from .search.embed import Embedder, default_embedder, embed_documents, matching_embedder
from .search.ranking import SearchIndex
from .search.site_search import write_search_data
from .understanding.evidence import collect_decisions
from .understanding.graph import RepoGraph, build_graph, go_module_roots, rust_crate_roots
from .understanding.hierarchy import build_hierarchy
from .understanding.milestones import plan_milestones
from .writing.context import plan_context
from .writing.grounding import NameIndex
from .writing.writers import (
    expand_query,
    extractive_plan,
    write_decisions,
    write_milestones,
    write_plan,
)

if TYPE_CHECKING:
    from .llm import LlmSession

log = logging.getLogger("refdoc_site")

DISCOVERY_NAME = "discovery.json"
GRAPH_NAME = "graph.json"
HIERARCHY_NAME = "summaries/hierarchy.json"
DECISIONS_NAME = "decisions.json"
PLANS_NAME = "plans.json"
FACTS_NAME = "facts.json"
WRITTEN_DIR = "written"
"""What the doc model wrote, grounded (writers.py): `decisions.json`, `milestones.json`, and a
plan per request under `plans/`."""
WRITTEN_DECISIONS = f"{WRITTEN_DIR}/decisions.json"
WRITTEN_MILESTONES = f"{WRITTEN_DIR}/milestones.json"
WRITTEN_PLANS = f"{WRITTEN_DIR}/plans"


@dataclass
class Workspace:
    """Where a build reads and writes."""

    repo: Path
    config: Config
    store_dir: Path
    out_dir: Path
    _state: StoreState | None = field(default=None, repr=False)

    @classmethod
    def create(cls, repo: Path, config: Config, store_dir: Path | None = None, out_dir: Path | None = None) -> Workspace:
        repo = repo.resolve()
        store = (store_dir or repo / ".refdoc").resolve()
        return cls(repo, config, store, (out_dir or store / "site").resolve())

    @property
    def project_dir(self) -> Path:
        """The generated MkDocs project (`mkdocs.yml` and `docs/`)."""
        return self.store_dir / "mkdocs"

    @property
    def store(self) -> Store:
        return Store(self.store_dir)

    @cached_property
    def redactor(self) -> Redactor:
        """Redacts every text the build reads from the repository (refdoc.yml's `secrets:`)."""
        return Redactor.from_config(self.config)

    def load_state(self) -> StoreState:
        """The stored documents, read once per workspace and shared by the phases."""
        if self._state is None:
            self._state = self.store.load()
        return self._state

    def inputs_digest(self, *parts: str) -> str:
        """A hash of what a phase's output depends on, to skip work when nothing changed."""
        state = self.load_state()
        files = "".join(f"{path}:{entry.sha256}\n" for path, entry in sorted(state.files.items()))
        text = "|".join((__version__, state.fingerprint, files, repr(self.config), *parts))
        return hashlib.sha256(text.encode()).hexdigest()


def _holding_store_lock(phase):
    """Run a phase holding the store's lock (store.py): nested phases share the hold."""

    @functools.wraps(phase)
    def locked(workspace: Workspace, *args, **kwargs):
        with store_lock(workspace.store_dir, phase.__name__):
            return phase(workspace, *args, **kwargs)

    return locked


@dataclass
class IndexReport:
    files: int = 0
    reprocessed: int = 0
    reused: int = 0
    removed: int = 0
    chunks: int = 0
    source_bytes: int = 0
    failed: list[str] = field(default_factory=list)
    """One line per file or chunk that failed and was skipped."""
    skipped: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    secrets_redacted: dict[str, int] = field(default_factory=dict)
    """Per indexed file with any, how many secrets its text had redacted."""


@dataclass
class BuildReport:
    index: IndexReport
    pages: int
    site_dir: Path
    seconds: dict[str, float]


@_holding_store_lock
def build(
    workspace: Workspace,
    analyzer: Analyzer | None = None,
    summarizer: Summarizer | None = None,
    site: bool = True,
    llm: LlmSession | None = None,
) -> BuildReport:
    """The whole product: index the code, summarize it, render the pages, build the site.

    With an LLM session (llm/), the model writes the summaries; without, they are extractive.
    """
    seconds: dict[str, float] = {}
    remove_leftovers(workspace.out_dir)  # before discovery: an interrupted publish's folders are no source

    def timed(name: str, phase):
        started = time.perf_counter()
        result = phase()
        seconds[name] = time.perf_counter() - started
        return result

    report = timed("index", lambda: index(workspace, analyzer, summarizer, llm=llm))
    timed("summarize", lambda: summarize(workspace, llm))
    pages = timed("render", lambda: render(workspace))
    site_dir = timed("mkdocs", lambda: publish(workspace)) if site else workspace.out_dir
    return BuildReport(report, len(pages), site_dir, seconds)


# --- phase 1: index -----------------------------------------------------------------------


@_holding_store_lock
def index(
    workspace: Workspace,
    analyzer: Analyzer | None = None,
    summarizer: Summarizer | None = None,
    embedder: Embedder | None = None,
    api_embedder=None,
    llm: LlmSession | None = None,
) -> IndexReport:
    """Discover, chunk, analyze, summarize and embed changed files; store every document.

    With an LLM session, the model rewrites the summary of every chunk that does not carry
    one of its own yet: the changed chunks, and those a previous build left extractive (a
    failed request, a spent budget). Unchanged chunks cost nothing: the session's cache
    answers them.

    With an API embedder (given, or configured by `embedding:`), the store also gets an
    API vector per chunk, for the CLI's `--embedder api`; the documents keep the static
    model's vectors, which the site ships.
    """
    if api_embedder is None and workspace.config.embedding is not None:
        api_embedder = OpenAIEmbedder.from_config(workspace.config.embedding)  # a missing key stops here, before any work
    owns_analyzer = analyzer is None
    analyzer = analyzer or analyzer_for(workspace.config.lsp, workspace.repo, workspace.config)
    summarizer = summarizer or ExtractiveSummarizer()
    embedder = embedder or default_embedder()
    config = workspace.config
    store = workspace.store
    previous = workspace.load_state()
    fingerprint = _fingerprint(config, analyzer, summarizer, embedder, llm)
    reusable = previous.fingerprint == fingerprint
    previous_documents = previous.documents_by_path() if reusable else {}

    found = discover(workspace.repo, config, extra_pruned=(workspace.store_dir, workspace.out_dir))
    if not found.files:
        raise NothingToIndexError(_nothing_found(workspace.repo, found.skip_counts()))
    report = IndexReport(files=len(found.files), skipped=found.skip_counts(), warnings=list(found.warnings))
    for warning in found.warnings:
        log.warning(warning)
    state = StoreState(fingerprint=fingerprint, embedder=embedder.name if embedder is not None else "")
    indexed_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    settings = config.chunk_settings()
    changed: list[SourceFile] = []
    for source in found.files:
        report.source_bytes += source.size
        old = previous.files.get(source.path) if reusable else None
        if old is None or old.sha256 != source.sha256 or old.deferred:
            changed.append(source)
    # Without an LLM the summaries are final in the worker, so the worker embeds them too;
    # with one, the documents are embedded after the model has rewritten their summaries.
    job = _FileJob(
        workspace.repo, settings, analyzer, summarizer, indexed_at, embedder if llm is None else None, redactor=workspace.redactor
    )
    processed = dict(zip((s.path for s in changed), _run_jobs(job, changed)))
    fresh: list[Document] = []
    for source in found.files:
        result = processed.get(source.path)
        if result is None:
            state.files[source.path] = previous.files[source.path]
            state.documents.extend(previous_documents.get(source.path, []))
            report.reused += 1
            continue
        report.failed += result.failed
        if result.entry is None:
            continue
        state.documents.extend(result.documents)
        fresh.extend(result.documents)
        state.files[source.path] = result.entry
        report.reprocessed += 1
    if owns_analyzer:
        analyzer.close()  # stops its language servers
    if not state.files:  # nothing to document: the previous store stays as it was
        raise NothingToIndexError(
            f"{workspace.repo}: nothing indexed: all {len(found.files)} source files failed ({report.failed[0]}); "
            "nothing was written to the store"
        )
    rewritten: list[Document] = []
    if llm is not None:
        rewritten = summarize_chunks(llm, [d for d in state.documents if d.summary.source != llm.summarizer_model])
    if embedder is not None and llm is not None:
        fresh_ids = {id(d) for d in fresh}
        report.failed += embed_documents(fresh + [d for d in rewritten if id(d) not in fresh_ids], embedder)
    report.removed = len(set(previous.files) - set(state.files))
    report.chunks = len(state.documents)
    report.secrets_redacted = {path: e.secrets_redacted for path, e in state.files.items() if e.secrets_redacted}
    for line in report.failed:
        log.warning(line)
    workspace._state = state
    unchanged = reusable and not report.reprocessed and not report.removed and not rewritten and store.exists()
    if not unchanged:
        store.save(state)
    if api_embedder is not None:  # after the save: a key rejected now loses nothing built
        report.failed += store_api_vectors(state.documents, store.directory, api_embedder)
    store.write_json(
        DISCOVERY_NAME,
        {
            "skipped": [asdict(s) | {"reason": s.reason.value} for s in found.skipped],
            "warnings": found.warnings,
            "failed": report.failed,
        },
    )
    return report


def _nothing_found(repo: Path, skipped: dict[str, int]) -> str:
    if not skipped:
        return f"{repo}: nothing to index: the folder holds no files; pass the repository to document"
    reasons = ", ".join(f"{reason} {count}" for reason, count in skipped.items())
    return (
        f"{repo}: nothing to index: 0 source files found ({sum(skipped.values())} skipped: {reasons}); "
        "check .gitignore and include/exclude in refdoc.yml"
    )


PARALLEL_MIN_FILES = 16
"""Fewer changed files than this are processed in this process: a pool would cost more."""


@dataclass
class _FileResult:
    documents: list[Document]
    entry: FileEntry | None
    """None when the file failed as a whole."""
    failed: list[str]


@dataclass
class _FileJob:
    """Read, chunk, analyze and summarize one file: the per-file part of the index phase."""

    repo: Path
    settings: object
    analyzer: Analyzer
    summarizer: Summarizer
    indexed_at: str
    embedder: Embedder | None = None
    """Embeds the file's documents too, in the worker; None leaves it to the caller."""
    redactor: Redactor = field(default_factory=Redactor)

    def __call__(self, source: SourceFile) -> _FileResult:
        try:
            redacted = read_text(self.repo, source.path, self.redactor)
            text = redacted.text
            chunks = chunk_file(source, text, self.settings)
            analysis = self.analyzer.analyze(source, text, chunks)
        except Exception as error:  # a failing file is skipped and counted, never fatal
            return _FileResult([], None, [f"{source.path}: {type(error).__name__}: {error}; file skipped"])
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
        entry.deferred = analysis.deferred
        entry.secrets_redacted = redacted.secrets
        return _FileResult(documents, entry, failed)


_WORKER_JOB: _FileJob | None = None
"""The job a forked worker runs: inherited from the parent, never pickled."""


def _run_in_worker(source: SourceFile) -> _FileResult:
    return _WORKER_JOB(source)


def _run_jobs(job: _FileJob, sources: list[SourceFile]) -> list[_FileResult]:
    """Results in the order of `sources`; on several cores, in a pool of forked workers.

    Only analyzers that say they are `parallel` (no language servers to share) go to the
    pool, and only where processes can be forked; everything else runs here. The workers
    die with this process, even when it is killed outright (processes.py).
    """
    workers = min(os.cpu_count() or 1, 4)
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if workers < 2 or len(sources) < PARALLEL_MIN_FILES or not forkable or not getattr(job.analyzer, "parallel", False):
        return [job(source) for source in progress(sources, len(sources), "index")]
    global _WORKER_JOB
    _WORKER_JOB = job
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=die_with_parent, initargs=(os.getpid(),)
    )
    try:
        results = pool.map(_run_in_worker, sources, chunksize=8)
        return list(progress(results, len(sources), "index"))
    finally:
        _WORKER_JOB = None
        pool.shutdown(wait=True, cancel_futures=True)  # interrupted: the queued files are dropped


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


def _fingerprint(
    config: Config, analyzer: Analyzer, summarizer: Summarizer, embedder: Embedder | None, llm: LlmSession | None = None
) -> str:
    """What shapes a file's documents besides its content: settings, providers, our code."""
    settings = config.chunk_settings()
    embedder_name = embedder.name if embedder is not None else "none"
    shape = f"{__version__}|{settings}|{analyzer.name}|{summarizer.name}|{embedder_name}|{_code_digest()}"
    shape += f"|{Redactor.from_config(config).identity}"  # what is redacted shapes every document
    if llm is not None:
        shape += f"|{llm.identity}|{PROMPT_VERSION}"
    return hashlib.sha256(shape.encode()).hexdigest()[:16]


@cache
def _code_digest() -> str:
    """A hash of this package's own code and language data, so an upgrade reindexes."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".scm", ".json", ".txt", ".tsv") and "__pycache__" not in path.parts:
            digest.update(path.read_bytes())
    return digest.hexdigest()


# --- phase 2: summarize -------------------------------------------------------------------


@_holding_store_lock
def summarize(workspace: Workspace, llm: LlmSession | None = None) -> Hierarchy:
    """Build the graphs, the file → module → system summaries, decisions and plans.

    Skipped when neither the indexed files, the configuration nor the commit changed (nor,
    with an LLM, the chunk summaries). With an LLM session the model writes the file,
    module and system prose; a run where some of it fell back to extractive text is not
    recorded as done, so the next build asks again (the cache keeps what was answered).
    """
    store = workspace.store
    state = workspace.load_state()
    if not state.files:
        raise_missing_index(workspace)
    commit = _git_commit(workspace.repo)
    llm_inputs = (llm.identity, _summaries_digest(state.documents)) if llm is not None else ()
    digest = workspace.inputs_digest("summarize", commit, *llm_inputs)
    fallbacks = llm.report.total.fallbacks if llm is not None else 0
    if _previous_digest(store, FACTS_NAME) == digest and (store.directory / HIERARCHY_NAME).exists():
        return Hierarchy.from_dict(store.read_json(HIERARCHY_NAME))
    graph = build_graph(
        {path: entry.language for path, entry in state.files.items()},
        {path: entry.imports for path, entry in state.files.items()},
        state.documents,
        workspace.config.module_depth or None,
        go_module_roots(_manifests(workspace, state.files, "go.mod")),
        rust_crate_roots(_manifests(workspace, state.files, "Cargo.toml")),
    )
    hierarchy = build_hierarchy(state.files, state.documents, graph)
    if llm is not None:
        hierarchy = summarize_hierarchy(llm, hierarchy, state.documents)
    outputs = {
        GRAPH_NAME: asdict(graph),
        HIERARCHY_NAME: hierarchy.to_dict(),
        DECISIONS_NAME: collect_decisions(workspace.repo, state.files, graph, workspace.redactor),
        PLANS_NAME: plan_milestones(state.documents, hierarchy, graph),
    }
    for name, data in outputs.items():
        store.write_json(name, data)
    write_pages(workspace, hierarchy, outputs[DECISIONS_NAME], outputs[PLANS_NAME], llm)
    if llm is not None and (llm.dry_run or llm.report.total.fallbacks > fallbacks):
        # Not done: the next build runs this phase again; the pages still change with the text.
        digest = f"{digest}-partial-{hashlib.sha256(repr(outputs).encode()).hexdigest()[:12]}"
    discovery = store.read_json(DISCOVERY_NAME)
    skipped: dict[str, int] = {}
    for entry in discovery["skipped"]:
        skipped[entry["reason"]] = skipped.get(entry["reason"], 0) + 1
    store.write_json(
        FACTS_NAME,
        {
            "files": len(state.files),
            "chunks": len(state.documents),
            "lines": sum(entry.lines for entry in state.files.values()),
            "skipped": dict(sorted(skipped.items())),
            "skipped_total": sum(skipped.values()),
            "secrets_redacted": sum(entry.secrets_redacted for entry in state.files.values()),
            "files_with_secrets": sum(1 for entry in state.files.values() if entry.secrets_redacted),
            "commit": commit,
            "inputs": digest,
        },
    )
    return hierarchy


def _summaries_digest(documents: list[Document]) -> str:
    digest = hashlib.sha256()
    for document in documents:
        digest.update(repr(sorted(document.summary.to_dict().items())).encode())
    return digest.hexdigest()


def write_pages(
    workspace: Workspace, hierarchy: Hierarchy, decisions: list[dict], milestones: list[dict], llm: LlmSession | None
) -> None:
    """The pages the doc model writes from what the offline build found, and the configured plans.

    Without a session, or when the model gives nothing usable (counted by the session), the
    offline decision log and plan stay; a plan is then where its request lands in the code.
    """
    store = workspace.store
    configured = {plan_slug(query): query for query in workspace.config.plans}
    names = NameIndex(workspace.load_state().documents, hierarchy) if llm is not None or configured else None
    dry_run = llm is not None and llm.dry_run  # asks (to estimate), stores nothing
    for name, write, found in ((WRITTEN_DECISIONS, write_decisions, decisions), (WRITTEN_MILESTONES, write_milestones, milestones)):
        record = write(llm, found, hierarchy, names) if llm is not None else None
        if record is not None:
            store.write_json(name, record)
        elif not dry_run:
            (store.directory / name).unlink(missing_ok=True)
    for stale in stored_plans(store):
        if stale.get("origin") == "config" and stale["slug"] not in configured and not dry_run:
            (store.directory / WRITTEN_PLANS / f"{stale['slug']}.json").unlink()
    if configured:
        planner = Planner(workspace, hierarchy, names, llm)
        for query in configured.values():
            planner.write(query, origin="config", store=not dry_run)


@dataclass
class Planner:
    """Writes `plans/{slug}.md` records: the doc model's plan, or where the request lands."""

    workspace: Workspace
    hierarchy: Hierarchy
    names: NameIndex
    llm: LlmSession | None = None

    @cached_property
    def search(self):
        state = self.workspace.load_state()
        return SearchIndex.build(state.documents), matching_embedder(state)

    def write(self, query: str, origin: str = "cli", store: bool = True) -> dict:
        """The plan record for `query`, stored under its slug (unless `store` is False)."""
        search_index, embedder = self.search
        expansion = expand_query(self.llm, query) if self.llm is not None else []
        documents = self.workspace.load_state().documents
        context = plan_context(query, documents, self.hierarchy, search_index, embedder, expansion=expansion)
        record = write_plan(self.llm, context, self.names) if self.llm is not None else None
        if record is None:
            record = extractive_plan(context, self.workspace.config.language)
        slug = plan_slug(query)
        record = {"slug": slug, "origin": origin, **record}
        if store:
            self.workspace.store.write_json(f"{WRITTEN_PLANS}/{slug}.json", record)
        return record


@_holding_store_lock
def plan(workspace: Workspace, query: str, llm: LlmSession | None = None) -> tuple[dict, Path]:
    """`refdoc-site plan`: write the plan for `query` and render the pages; returns it and its page."""
    hierarchy = summarize(workspace, llm)
    state = workspace.load_state()
    record = Planner(workspace, hierarchy, NameIndex(state.documents, hierarchy), llm).write(query)
    render(workspace)
    return record, workspace.project_dir / "docs" / plan_page(record["slug"])


def _previous_digest(store: Store, name: str) -> str:
    path = store.directory / name
    if not path.exists():
        return ""
    try:
        return store.read_json(name).get("inputs", "")
    except StoreError:
        return ""


def _manifests(workspace: Workspace, files, name: str) -> dict[str, str]:
    """The texts of the indexed files called `name` (go.mod, Cargo.toml), by path."""
    texts = {}
    for path in files:
        if posixpath.basename(path) == name:
            try:
                texts[path] = read_text(workspace.repo, path, workspace.redactor).text
            except OSError:  # gone since it was indexed: imports through it stay external
                continue
    return texts


def raise_missing_index(workspace: Workspace) -> None:
    raise StoreError(f"{workspace.store.index_path}: no indexed files; run `refdoc-site index` first")


def _git_commit(repo: Path) -> str:
    try:
        result = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.strip() if result.returncode == 0 else ""


# --- phase 3: render ----------------------------------------------------------------------


RENDERED_NAME = "rendered.json"


@_holding_store_lock
def render(workspace: Workspace) -> list[str]:
    """Render every page from the store into the MkDocs project; returns page paths.

    Skipped when the summaries, the templates and the site settings are unchanged.
    """
    mermaid = find_mermaid(workspace.repo, workspace.config.mermaid_js)
    digest = workspace.inputs_digest(
        "render", _previous_digest(workspace.store, FACTS_NAME), _templates_digest(), _written_digest(workspace.store), str(mermaid)
    )
    docs_dir = workspace.project_dir / "docs"
    rendered = workspace.store.directory / RENDERED_NAME
    if _previous_digest(workspace.store, RENDERED_NAME) == digest and docs_dir.exists():
        return workspace.store.read_json(RENDERED_NAME)["pages"]
    data = load_site_data(workspace)
    if docs_dir.exists():
        shutil.rmtree(docs_dir)
    rendered.unlink(missing_ok=True)
    query_embedder = matching_embedder(workspace.load_state())
    model_dir = query_embedder.directory if query_embedder else None
    parallel = len(data.documents) >= PARALLEL_MIN_CHUNKS
    with _alongside(write_search_data, (data.documents, docs_dir, model_dir, data.publish_source), parallel):
        pages = render_pages(data, docs_dir)
    write_project(
        workspace.project_dir,
        workspace.project_dir / "site",  # where a hand-run `mkdocs build` writes; publish picks its own folder
        site_name=data.site_name,
        site_url=workspace.config.site_url,
        language=workspace.config.language,
        modules=[(name, module_page(name)) for name in sorted(data.hierarchy.modules)],
        plans=[(plan["query"], plan_page(plan["slug"])) for plan in data.plans],
        mermaid_script=mermaid,
    )
    workspace.store.write_json(RENDERED_NAME, {"inputs": digest, "pages": pages})
    return pages


PARALLEL_MIN_CHUNKS = 200
"""Below this many chunks the search data is written in this process: a fork would cost more."""


@contextmanager
def _alongside(function, args: tuple, parallel: bool = True):
    """Run `function(*args)` in a forked process while the body runs; fail if it failed.

    The pages and the search data are written from the same records into different
    folders, so the two halves of the render phase share the machine's cores. The
    process dies with this one, even when this one is killed outright.
    """
    if not parallel or "fork" not in multiprocessing.get_all_start_methods() or (os.cpu_count() or 1) < 2:
        function(*args)
        yield
        return
    process = multiprocessing.get_context("fork").Process(target=run_as_child, args=(os.getpid(), function, args))
    process.start()
    try:
        yield
    finally:
        process.join()
    if process.exitcode != 0:
        raise SiteBuildError(f"{function.__name__} failed (exit code {process.exitcode}); see the error above")


def _templates_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(templates_dir().rglob("*.jinja2")) + sorted(templates_dir().rglob("*.json")) + [mkdocs_template()]:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _written_digest(store: Store) -> str:
    digest = hashlib.sha256()
    for path in sorted((store.directory / WRITTEN_DIR).rglob("*.json")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def load_site_data(workspace: Workspace) -> SiteData:
    store = workspace.store
    state = workspace.load_state()
    facts = store.read_json(FACTS_NAME)
    return SiteData(
        site_name=workspace.config.site_name or workspace.repo.name,
        documents=state.documents,
        hierarchy=Hierarchy.from_dict(store.read_json(HIERARCHY_NAME)),
        graph=RepoGraph(**store.read_json(GRAPH_NAME)),
        decisions=store.read_json(DECISIONS_NAME),
        milestones=store.read_json(PLANS_NAME),
        stats=facts,
        repo_url=workspace.config.repo_url,
        commit=facts.get("commit", ""),
        mermaid=find_mermaid(workspace.repo, workspace.config.mermaid_js) is not None,
        written={name: store.read_json(path) for name, path in (("decisions", WRITTEN_DECISIONS), ("milestones", WRITTEN_MILESTONES)) if (store.directory / path).exists()},
        plans=stored_plans(store),
        language=workspace.config.language,
        publish_source=workspace.config.publish_source,
    )


def stored_plans(store: Store) -> list[dict]:
    """Every plan written so far, by slug."""
    directory = store.directory / WRITTEN_PLANS
    return [store.read_json(f"{WRITTEN_PLANS}/{path.name}") for path in sorted(directory.glob("*.json"))]


# --- phase 4: site ------------------------------------------------------------------------


PUBLISHED_NAME = "published.json"


@_holding_store_lock
def publish(workspace: Workspace) -> Path:
    """Build the MkDocs site in a new folder beside the output, check it whole, swap it in.

    A failing or incomplete build leaves the previously published site untouched, and no
    folder refdoc-site did not write is ever deleted (outputs.py). A published site built
    from the same rendered pages is kept as it is, if it is still whole.
    """
    store, out = workspace.store, workspace.out_dir
    rendered = _previous_digest(store, RENDERED_NAME)
    pages = store.read_json(RENDERED_NAME)["pages"] if rendered else []
    if rendered and _previous_digest(store, PUBLISHED_NAME) == rendered and is_refdoc_output(out) and not missing_site_files(out, pages):
        return out
    store.directory.joinpath(PUBLISHED_NAME).unlink(missing_ok=True)
    check_out_dir(out, workspace.repo, workspace.store_dir)
    remove_leftovers(out)
    with staging_folder(out) as staging:
        build_site(workspace.project_dir / "mkdocs.yml", staging)
        raise_if_incomplete(staging, pages, out)
        swap_in(staging, out)
    store.write_json(PUBLISHED_NAME, {"inputs": rendered})
    return out
