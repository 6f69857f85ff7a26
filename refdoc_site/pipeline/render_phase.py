"""Phase 3, render: every page from the store into the MkDocs project; and phase 4,
publish: the MkDocs site built beside the output, checked whole, swapped in
(rendering/outputs.py).

Each is reused (reuse.py) when its inputs are unchanged: the render phase when the
summaries, the written pages, the templates and the site settings are; the publish phase
when the rendered pages are and the published site is still whole.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from .. import __version__
from ..core.corrections import Correction, load_corrections
from ..core.errors import StoreError
from ..core.findings import Decision, Facts, Milestone
from ..core.pages import module_page, plan_page
from ..core.decision_phrases import localized_decisions
from ..core.phrases import localized_documents
from ..core.plan_phrases import localized_milestones
from ..core.processes import alongside
from ..core.progress import heartbeat
from ..core.records import Document, Hierarchy
from ..core.resources import mkdocs_template, templates_dir
from ..core.reuse import code_digest, digest, files_digest
from ..core.serial import from_json, to_json
from ..core.store import Store
from ..core.workspace import (
    DECISIONS_NAME,
    FACTS_NAME,
    GRAPH_NAME,
    HIERARCHY_NAME,
    ORIENTATION_NAME,
    PLANS_NAME,
    PUBLISHED_NAME,
    RENDERED_NAME,
    WRITTEN_DECISIONS,
    WRITTEN_DIR,
    WRITTEN_MILESTONES,
    WRITTEN_OVERVIEW,
    Workspace,
)
from ..indexing.doc_cache import DOC_BLOCKS_DIR, keep_only, reading_once
from ..rendering.changes import CHANGES_PAGE, changes_page
from ..rendering.corrected import apply_corrections
from ..rendering.incremental import PAGES_NAME, IncrementalRender
from ..rendering.llms import LLMS_FULL_TXT, LLMS_TXT, copies_wanted, llms_full_txt, llms_txt
from ..rendering.outputs import (
    check_out_dir,
    is_refdoc_output,
    missing_site_files,
    raise_if_incomplete,
    remove_leftovers,
    staging_folder,
    swap_in,
)
from ..rendering.component_map import graphviz
from ..rendering.page_weight import ENGINE_PROGRESS
from ..rendering.previews import write_page_manifest
from ..rendering.project_files import (
    FILES_NAME,
    WHOLLY_WRITTEN,
    WRITTEN_OVER,
    check_project,
    clear_engine_outputs,
    project_files,
    remove_unwritten,
)
from ..rendering.render import HIERARCHY_JSON, RenderedPage, SiteData, page_labels, write_hierarchy
from ..rendering.site import MermaidScript, build_site, find_mermaid, write_project
from ..rendering.stamp import build_stamp, issue_form
from ..search.embed import StaticEmbedder, embed_documents, matching_embedder
from ..search.prose import SECTIONS_NAME, ProsePage, page_documents, sections_of, stored_by_digest
from ..search.site_search import DATA_DIR, write_search_data
from ..understanding.graph import RepoGraph
from ..understanding.orientation import Orientation
from ..writing.sections import page_sections
from ..writing.written import WrittenDecisions, WrittenMilestones, WrittenOverview
from .diff_phase import CHANGES_NAME, stored_change_map
from .summarize_phase import SUMMARY_NAMES, overview_answers
from .write_phase import stored_plans

log = logging.getLogger("refdoc_site")

CORRECTIONS_STATE = "corrections.json"
"""The last render's corrections with their state (`stats` lists those to review), and the
warnings of those whose target is gone."""
PARALLEL_MIN_CHUNKS = 200
"""Below this many chunks the search data is written in this process: a fork would cost more."""


@dataclass
class RenderReport:
    pages: list[str]
    """Every page of the site."""
    rendered: int = 0
    """The pages this run rendered (0 when the phase was reused); the others were unchanged."""
    written: int = 0
    """The pages whose file it wrote (their text changed)."""


def render(workspace: Workspace) -> list[str]:
    """Render the pages from the store into the MkDocs project; returns page paths."""
    return render_report(workspace).pages


def _rst_texts(documents: list[Document]) -> Iterator[str]:
    """The texts of the reST sections read for the pages: each chunk's (as the index read
    it) and each section's with its windows merged (as the page reads it)."""
    by_path: dict[str, list[Document]] = defaultdict(list)
    for document in documents:
        if document.chunk.language == "restructuredtext":
            by_path[document.chunk.path].append(document)
    for in_file in by_path.values():
        yield from (document.chunk.content for document in in_file)
        pending = page_sections(in_file)
        while pending:
            section = pending.pop()
            yield section.chunk.content
            pending.extend(section.members)


def render_report(workspace: Workspace) -> RenderReport:
    """Render the pages from the store into the MkDocs project: those whose inputs changed
    (rendering/incremental.py), or all of them when the site-wide inputs did.

    The pages and the search data are written from the same records into different
    folders, so the search data is written in a forked process meanwhile.
    """
    store = workspace.store
    mermaid = site_mermaid(workspace)
    rendered = workspace.record(RENDERED_NAME)
    written = sorted((store.directory / WRITTEN_DIR).rglob("*.json")) + sorted(store.directory.glob(CHANGES_NAME))
    corrections = workspace_corrections(workspace)
    inputs = workspace.inputs_digest(
        "render", workspace.record(FACTS_NAME).inputs(), templates_digest(), files_digest(written, named=True), str(mermaid),
        workspace.config.engine, workspace.config.markdown_copies, workspace.config.corrections, repr(corrections),
    )
    docs_dir = workspace.project_dir / "docs"
    recorded = _recorded_files(workspace)
    check = check_project(workspace.project_dir, recorded)
    if rendered.unchanged(inputs) and docs_dir.exists():
        if not check.differing:
            return RenderReport(rendered.read()["pages"])
        (log.warning if recorded else log.info)(
            "%s: %d files differ from what the last render wrote (such as %s); the pages are written again and the others removed",
            workspace.project_dir, len(check.differing), check.differing[0],
        )
    if check.differing:
        clear_engine_outputs(workspace.project_dir)
        shutil.rmtree(docs_dir / DATA_DIR, ignore_errors=True)  # written over the last render's: not when unsure of it
        workspace.record(PUBLISHED_NAME).forget()  # the site links the search data: a file changed in place changed it too
    data = load_site_data(workspace)
    warnings = apply_corrections(data, corrections, workspace.config.corrections)
    for warning in warnings:
        log.warning("%s", warning)
    rendered.forget()
    site = site_digest(workspace, data, mermaid)
    page_record = workspace.record(PAGES_NAME)
    kept = page_record.read() if page_record.unchanged(site) and docs_dir.is_dir() else None
    previous = kept["pages"] if kept is not None else None
    if previous is None and docs_dir.exists():
        shutil.rmtree(docs_dir)
    for whole in [folder for folder in WHOLLY_WRITTEN if folder not in WRITTEN_OVER]:  # nothing else may lie there
        shutil.rmtree(docs_dir / whole, ignore_errors=True)
    query_embedder = matching_embedder(workspace.load_state())
    model_dir = query_embedder.directory if query_embedder else None
    parallel = len(data.documents) >= PARALLEL_MIN_CHUNKS
    # The overview, decisions, plans and module pages are rendered first: their sections
    # are searched with the code (the file pages, most of the work, render meanwhile), and
    # so are the sections corrected on other pages.
    job = IncrementalRender(data, docs_dir, site, previous or {}, check.as_written, (kept or {}).get("commit", ""))
    with reading_once(store.directory / DOC_BLOCKS_DIR):  # the reST sections the index read
        prose = job.prose()
        searched = data.documents + searched_sections(job.searched(prose), query_embedder, store)
        with alongside(write_search_data, (searched, docs_dir, model_dir, data.publish_source, None, store.directory), parallel), heartbeat(
            "render", lambda: f"{job.rendered} pages rendered"
        ):
            result = job.write(prose, lambda record: page_record.save(site, commit=data.commit, pages=record))
            write_hierarchy(data, docs_dir)
    keep_only(store.directory / DOC_BLOCKS_DIR, _rst_texts(data.documents))
    shown = [v for v in data.corrections.values() if v.kind != "section"] + list(job.pages.sections_placed.values())
    placed = {(v.kind, v.target) for v in shown}
    sections_gone = [
        f"{v.file}:{v.correction.line}: section: {v.target!r} is not in the site (renamed or removed?); update the entry or delete it"
        for v in data.corrections.values() if v.kind == "section" and (v.kind, v.target) not in placed
    ]
    for warning in sections_gone:
        log.warning("%s", warning)
    warnings += sections_gone
    store.write_json(CORRECTIONS_STATE, {"corrections": to_json(sorted(shown, key=lambda v: v.correction.line)), "warnings": warnings})
    pages = result.pages
    changes = stored_change_map(store)
    if changes is not None:
        (docs_dir / CHANGES_PAGE).write_text(changes_page(changes, workspace.config.language, set(pages)), encoding="utf-8")
        pages.append(CHANGES_PAGE)
    else:
        (docs_dir / CHANGES_PAGE).unlink(missing_ok=True)
    copies = copies_wanted(workspace.config.markdown_copies, docs_dir, pages)
    (docs_dir / LLMS_TXT).write_text(llms_txt(data, pages, copies), encoding="utf-8")
    (docs_dir / LLMS_FULL_TXT).write_text(llms_full_txt(data, copies), encoding="utf-8")
    write_project(
        workspace.project_dir,
        workspace.project_dir / "site",  # where a hand-run `mkdocs build` writes; publish picks its own folder
        site_name=data.site_name,
        site_url=workspace.config.site_url,
        language=workspace.config.language,
        modules=[(name, module_page(name)) for name in sorted(data.hierarchy.modules)],
        plans=[(plan.query, plan_page(plan.slug)) for plan in data.plans],
        mermaid_script=mermaid,
        build_stamp=build_stamp(page_labels(data.language), data.commit, data.stats.commit_date, data.repo_url),
        commit_date=data.stats.commit_date[:10],
        engine=workspace.config.engine,
        hierarchy=data.hierarchy,
        markdown_copies=copies,
        report=issue_form(page_labels(data.language), data.commit, data.repo_url),
    )
    written = {*pages, LLMS_TXT, LLMS_FULL_TXT, HIERARCHY_JSON}
    for removed in remove_unwritten(docs_dir, written):
        log.info("render: removed %s, which this render did not write", removed)
    store.write_json(FILES_NAME, {"files": project_files(workspace.project_dir, check.scan)})
    page_record.save(site, commit=data.commit, pages=result.digests)
    rendered.save(inputs, pages=pages)
    log.info("render: %d of %d pages rendered, %d written", result.rendered, len(pages), result.written)
    return RenderReport(pages, result.rendered, result.written)


def workspace_corrections(workspace: Workspace) -> list[Correction]:
    """The repository's corrections file, checked (every problem at once, a ConfigError)."""
    name = workspace.config.corrections
    return load_corrections(workspace.repo / name, name)


def _recorded_files(workspace: Workspace) -> dict[str, str]:
    """What the last whole render wrote into the project (project_files.py); {} when unknown."""
    try:
        recorded = workspace.store.read_json(FILES_NAME)["files"] if (workspace.store_dir / FILES_NAME).is_file() else {}
    except (StoreError, KeyError, TypeError):
        return {}
    return recorded if isinstance(recorded, dict) else {}


def site_mermaid(workspace: Workspace) -> MermaidScript | None:
    """The Mermaid script the site ships (site.py): the repository's only when trusted."""
    config = workspace.config
    return find_mermaid(workspace.repo, config.mermaid_js, trusted=config.trusted, store=workspace.store_dir)


def site_digest(workspace: Workspace, data: SiteData, mermaid: MermaidScript | None) -> str:
    """What every file page depends on besides its own file (incremental.py): a change
    renders the whole site again. Of the commit only whether there is one: a new commit
    rewrites the source links of the pages not rendered again (incremental.py). Nor the
    site's address, which no page's Markdown holds (a preview's build has another)."""
    stats = data.stats
    return digest(
        "pages", __version__, code_digest(), templates_digest(), repr(replace(workspace.config, site_url="")), data.site_name, data.repo_url,
        str(bool(data.commit)), stats.source_prefix, str(mermaid), data.language, str(data.publish_source), graphviz(),
        repr(sorted(data.corrections.items())),
    )


def searched_sections(prose: list[RenderedPage], embedder: StaticEmbedder | None, store: Store | None = None) -> list[Document]:
    """The prose pages' sections as search documents, embedded by the model that embedded
    the chunks (when it ships with the site); the site ships vectors for all or none, so a
    section the model failed on is left out.

    With a `store`, a page's sections are kept there (`SECTIONS_NAME`) under the digest of
    its text and the model, and only the pages whose text changed are cut and embedded again.
    """
    model = embedder.name if embedder is not None else ""
    keys = [digest("sections", code_digest(), model, page, title or "", text) for page, title, text in prose]
    cached = stored_by_digest(store)
    missing = [(key, ProsePage(page, title or "", text)) for key, (page, title, text) in zip(keys, prose) if key not in cached]
    fresh = page_documents([page for _, page in missing])
    if embedder is not None:
        embed_documents(fresh, embedder)
    by_page: dict[str, list[Document]] = {}
    for section in fresh:
        by_page.setdefault(section.chunk.path, []).append(section)
    made = {key: to_json(by_page.get(page.page, [])) for key, page in missing}
    kept = {key: cached[key] if key in cached else made[key] for key in keys}  # in the pages' order
    if store is not None and list(kept) != list(cached):
        store.write_json(SECTIONS_NAME, kept)
    return sections_of(kept, embedder is not None)


def templates_digest() -> str:
    """A hash of the page templates, the theme overrides and their scripts, and the MkDocs
    configuration template."""
    templates = templates_dir()
    kinds = ("*.jinja2", "*.json", "*.html", "*.js", "*.css")
    return files_digest([path for kind in kinds for path in sorted(templates.rglob(kind))] + [mkdocs_template()])


def load_site_data(workspace: Workspace) -> SiteData:
    """Everything the pages are rendered from, as the earlier phases stored it, said in the
    site's language (`localized`)."""
    store = workspace.store
    facts = from_json(Facts, store.read_json(FACTS_NAME))
    for name in SUMMARY_NAMES:
        if name != ORIENTATION_NAME and not (store.directory / name).is_file():
            raise StoreError(f"{store.directory / name}: missing (deleted, or the store was summarized by an older refdoc-site); run `refdoc-site summarize` (or `build`) first")
    written = (("overview", WRITTEN_OVERVIEW, WrittenOverview), ("decisions", WRITTEN_DECISIONS, WrittenDecisions),
               ("milestones", WRITTEN_MILESTONES, WrittenMilestones))
    state = workspace.load_state()
    data = localized(SiteData(
        site_name=workspace.config.site_name or facts.project_name or workspace.repo.name,
        documents=state.documents,
        hierarchy=from_json(Hierarchy, store.read_json(HIERARCHY_NAME)),
        graph=from_json(RepoGraph, store.read_json(GRAPH_NAME)),
        decisions=from_json(list[Decision], store.read_json(DECISIONS_NAME)),
        milestones=from_json(list[Milestone], store.read_json(PLANS_NAME)),
        stats=facts,
        repo_url=workspace.config.repo_url or facts.repo_url,
        commit=facts.commit,
        mermaid=site_mermaid(workspace) is not None,
        written={name: from_json(record, store.read_json(path)) for name, path, record in written if (store.directory / path).exists()},
        plans=stored_plans(store),
        language=workspace.config.language,
        publish_source=workspace.config.publish_source,
        map_links_to_sources=workspace.config.engine == "zensical",
        changes=(store.directory / CHANGES_NAME).is_file(),
    ))
    data.orientation = _stored_orientation(workspace, state.files, data)
    return data


def localized(data: SiteData) -> SiteData:
    """The site's data with what the earlier phases store in English, phrases kept for the
    pages to say (the summaries', the dependency decisions', the plan's steps), said in its
    language: the one pass that localizes what the pages are rendered from. The rest is
    stored in that language already (the hierarchy, the overview's answers, what the model wrote)."""
    language = data.language
    return replace(
        data,
        documents=localized_documents(data.documents, language),
        decisions=localized_decisions(data.decisions, language),
        milestones=localized_milestones(data.milestones, language),
    )


def _stored_orientation(workspace: Workspace, files: Collection[str], data: SiteData) -> Orientation:
    """The overview's answers as the summarize phase stored them or, when the store has
    none, built again from the site's summaries and graph: all but the model's narrative,
    which only that phase knows."""
    path = workspace.store.directory / ORIENTATION_NAME
    if path.is_file():
        return from_json(Orientation, workspace.store.read_json(ORIENTATION_NAME))
    log.warning("%s: missing (deleted, or the store was summarized by an older refdoc-site); the overview is built from the stored summaries, `refdoc-site summarize` stores it again", path)
    return overview_answers(workspace, files, data.documents, data.hierarchy, data.graph)


def publish(workspace: Workspace) -> Path:
    """Build the site (with refdoc.yml's `engine`) in a new folder beside the output, check it whole, swap it in.

    A failing or incomplete build leaves the previously published site untouched, and no
    folder refdoc-site did not write is ever deleted (outputs.py).
    """
    out = workspace.out_dir
    rendered = workspace.record(RENDERED_NAME)
    inputs = rendered.inputs()
    pages = rendered.read()["pages"] if inputs else []
    published = workspace.record(PUBLISHED_NAME)
    ENGINE_PROGRESS.update(converted=0, written=0, taken=0)
    if published.unchanged(inputs) and is_refdoc_output(out) and not missing_site_files(out, pages):
        return out
    published.forget()
    check_out_dir(out, workspace.repo, workspace.store_dir)
    remove_leftovers(out)
    with staging_folder(out) as staging, heartbeat(workspace.config.engine, lambda: _engine_progress(workspace.config.engine, staging, len(pages))):
        build_site(workspace.project_dir / "mkdocs.yml", staging, workspace.config.engine, reuse=True)
        raise_if_incomplete(staging, pages, out)
        # What the site holds, for a pull request's preview to publish only what differs (previews.py).
        commit = from_json(Facts, workspace.store.read_json(FACTS_NAME)).commit
        write_page_manifest(staging, commit, workspace.config.site_url or "", out if is_refdoc_output(out) else None)
        swap_in(staging, out)
    published.save(inputs)
    return out


def _engine_progress(engine: str, site: Path, total: int) -> str:
    """How far the engine is, which reports nothing itself: the pages MkDocs converted and
    put through the theme (its hooks count them: page_weight.py), or the HTML pages
    Zensical (in a child process) has written into `site` so far."""
    if engine == "mkdocs":
        taken = f", {ENGINE_PROGRESS['taken']} taken from the last build" if ENGINE_PROGRESS["taken"] else ""
        return f"{ENGINE_PROGRESS['converted']} of {total} pages converted, {ENGINE_PROGRESS['written']} written{taken}"
    written = sum(name.endswith(".html") for _, _, names in os.walk(site) for name in names)
    return f"{written} of {total} pages written"
