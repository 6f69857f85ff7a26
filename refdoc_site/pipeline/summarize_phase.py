"""Phase 2, summarize: the graphs, the file → module → system summaries, the decisions and
milestones found offline, and the pages the doc model writes from them (write_phase.py).

Reused when neither the indexed files, the configuration, the commit nor what the
summarizer depends on changed. A run where some text the model was to write stayed offline
is recorded as partial (reuse.py), so the next build asks again; the cache keeps what was
answered.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable

from ..core.errors import StoreError
from ..core.phrases import localized_documents
from ..core.reading import read_text
from ..core.records import Document, Hierarchy
from ..core.repository import checkout_prefix, repository_url
from ..core.reuse import code_digest, digest, partial
from ..core.serial import from_json, to_json
from ..core.workspace import (
    DECISIONS_NAME,
    FACTS_NAME,
    GRAPH_INPUTS_NAME,
    GRAPH_NAME,
    HIERARCHY_NAME,
    ORIENTATION_NAME,
    PLANS_NAME,
    Workspace,
)
from ..indexing.summarize import Summarizer
from ..languages.imports import MANIFESTS, module_roots
from ..understanding.call_changes import CallInputs, KnownCalls, call_inputs
from ..understanding.evidence import collect_decisions
from ..understanding.evidence.manifests import DECLARATIONS, Declaration, declared_package
from ..understanding.graph import MODULE_RULE, RepoGraph, build_graph, store_call_graph
from ..understanding.hierarchy import build_hierarchy
from ..understanding.flows import SCRIPT_MANIFESTS
from ..understanding.milestones import plan_milestones
from ..understanding.orientation import Orientation, build_orientation
from ..understanding.project_name import project_title
from ..understanding.roles import classify_files, own_files, roles_inputs
from ..writing.doc_writers import DocWriter
from .index_phase import skipped_by_reason
from .write_phase import write_pages

SUMMARY_NAMES = (GRAPH_NAME, HIERARCHY_NAME, DECISIONS_NAME, PLANS_NAME, ORIENTATION_NAME)
"""What this phase stores for the render: a store missing one is summarized again."""


def summarize(workspace: Workspace, summarizer: Summarizer, writer: DocWriter) -> Hierarchy:
    """The hierarchy of summaries, built and stored with everything found beside it, or the
    stored one when its inputs are unchanged."""
    store = workspace.store
    state = workspace.indexed_state()
    commit = workspace.head_commit()
    facts = workspace.record(FACTS_NAME)
    top = package_metadata(workspace)
    texts = manifest_texts(workspace, {*state.files, *top}, DECLARATIONS)  # each file read once
    declared = declared_package(texts)
    top_declared = declared_package({path: texts[path] for path in top if path in texts})
    project_name = project_title(top_declared)
    commit_date = workspace.head_commit_date()
    repo_url = repository_url(workspace.repo, commit, top_declared.repository)
    source_prefix = checkout_prefix(workspace.repo) if commit else ""
    inputs = workspace.inputs_digest(
        "summarize",
        commit,
        commit_date,
        repo_url,
        source_prefix,
        repr(declared),
        project_name,
        roles_inputs(workspace.repo),
        MODULE_RULE,
        workspace.config.language,
        *summarizer.hierarchy_inputs(state.documents),
    )
    if facts.unchanged(inputs) and all((store.directory / name).exists() for name in SUMMARY_NAMES):
        # an index run that analysed a file again without changing it (a deferred language
        # server) stored its documents without the graph: put it back
        if store_call_graph(state.documents, from_json(RepoGraph, store.read_json(GRAPH_NAME))):
            store.save(state)
        return from_json(Hierarchy, store.read_json(HIERARCHY_NAME))
    mark = summarizer.mark()
    roots = module_roots(manifest_texts(workspace, state.files, MANIFESTS))
    current = call_inputs(digest(code_digest(), repr(workspace.config.module_depth), repr(roots), MODULE_RULE), state.files)
    graph = build_graph(
        {path: entry.language for path, entry in state.files.items()},
        {path: entry.imports for path, entry in state.files.items()},
        state.documents,
        workspace.config.module_depth or None,
        roots,
        {path: entry.namespaces for path, entry in state.files.items() if entry.namespaces},
        parallel=True,
        last=known_calls(workspace, current),
    )
    if store_call_graph(state.documents, graph):
        store.save(state)
    roles = classify_files(workspace.repo, state.files, workspace.redactor)
    shown = localized_documents(state.documents, workspace.config.language)  # the summaries as the pages say them
    offline = build_hierarchy(state.files, shown, graph, declared, roles, workspace.config.language)
    offline_system = offline.system.text
    hierarchy = summarizer.summarize_hierarchy(offline, shown)
    own = own_files(roles)
    decisions = collect_decisions(
        workspace.repo, {path: entry for path, entry in state.files.items() if path in own}, graph, workspace.redactor
    )
    milestones = plan_milestones(shown, hierarchy, graph)
    orientation = overview_answers(workspace, state.files, shown, hierarchy, graph, declared)
    if hierarchy.system.text != offline_system:  # the model wrote it: the overview tells it
        orientation.narrative = hierarchy.system.text
    outputs = {
        GRAPH_NAME: to_json(graph),
        HIERARCHY_NAME: to_json(hierarchy),
        DECISIONS_NAME: to_json(decisions),
        PLANS_NAME: to_json(milestones),
        ORIENTATION_NAME: to_json(orientation),
    }
    for name, data in outputs.items():
        store.write_json(name, data)
    store.write_json(GRAPH_INPUTS_NAME, to_json(current))  # after the graph it describes
    write_pages(workspace, hierarchy, orientation, decisions, milestones, writer)
    if summarizer.left_offline_since(mark):  # not done; the pages still change with the text
        inputs = partial(inputs, outputs)
    skipped = skipped_by_reason(workspace)
    facts.save(
        inputs,
        files=len(state.files),
        chunks=len(state.documents),
        lines=sum(entry.lines for entry in state.files.values()),
        skipped=skipped,
        skipped_total=sum(skipped.values()),
        secrets_redacted=sum(entry.secrets_redacted for entry in state.files.values()),
        files_with_secrets=sum(1 for entry in state.files.values() if entry.secrets_redacted),
        commit=commit,
        commit_date=commit_date,
        source_prefix=source_prefix,
        repo_url=repo_url,
        project_name=project_name,
    )
    return hierarchy


def known_calls(workspace: Workspace, current: CallInputs) -> KnownCalls | None:
    """The stored graph's calls and what they were resolved from, for a rebuild to resolve
    only what changed (understanding/call_changes.py); None without both. The record is
    removed: the graph written next is not the one it describes until it is written again."""
    store = workspace.store
    try:
        inputs = from_json(CallInputs, store.read_json(GRAPH_INPUTS_NAME))
        graph = from_json(RepoGraph, store.read_json(GRAPH_NAME))
    except (StoreError, KeyError, TypeError, ValueError):  # none yet, or unreadable: every call resolved
        return None
    finally:
        (store.directory / GRAPH_INPUTS_NAME).unlink(missing_ok=True)
    return KnownCalls(graph.calls, graph.unresolved_calls, graph.file_imports, inputs, current)


def overview_answers(
    workspace: Workspace, files: Collection[str], shown: list[Document], hierarchy: Hierarchy, graph: RepoGraph,
    declared: Declaration | None = None,
) -> Orientation:
    """The overview's four answers (understanding/orientation.py) from the summaries as the
    pages say them (`shown`), the graph, and what the package's manifests among `files` and
    at the repository's top declare (read again when `declared` is not given)."""
    top = package_metadata(workspace)
    if declared is None:
        declared = declared_package(manifest_texts(workspace, {*files, *top}, DECLARATIONS))
    scripts = manifest_texts(workspace, {*files, *top, *entry_points_files(workspace)}, SCRIPT_MANIFESTS)
    return build_orientation(shown, hierarchy, graph, declared.description, scripts, declared.name)


def package_metadata(workspace: Workspace) -> list[str]:
    """The files at the repository's top where a package says what it is, indexed or not
    (discovery skips `package.json` and the extensionless `METADATA` of an unpacked wheel)."""
    found = [workspace.repo / name for name in DECLARATIONS]
    found += [*workspace.repo.glob("*.dist-info/METADATA"), *workspace.repo.glob("*.egg-info/PKG-INFO")]
    return sorted(path.relative_to(workspace.repo).as_posix() for path in found if path.is_file() and not path.is_symlink())


def entry_points_files(workspace: Workspace) -> list[str]:
    """An unpacked wheel's `*.dist-info/entry_points.txt`, where its console scripts are (not indexed)."""
    found = workspace.repo.glob("*.dist-info/entry_points.txt")
    return sorted(path.relative_to(workspace.repo).as_posix() for path in found if path.is_file() and not path.is_symlink())


def manifest_texts(workspace: Workspace, paths: Iterable[str], names: Collection[str]) -> dict[str, str]:
    """The texts of the files among `paths` called one of `names` (go.mod, Cargo.toml), by
    path: where the graph learns the module roots of the languages that declare them, and
    the hierarchy what the package says it is."""
    texts = {}
    for path in paths:
        if posixpath.basename(path) in names:
            try:
                texts[path] = read_text(workspace.repo, path, workspace.redactor).text
            except OSError:  # gone since it was indexed: nothing read from it
                continue
    return texts
