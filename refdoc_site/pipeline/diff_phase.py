"""The change map's two stores: the revision's (the workspace's own, indexed and summarized
as a build does) and the base's, either given (`--base-store DIR`: in CI, the default
branch's cached `.refdoc/`) or built from `git archive REV` in a temporary folder.

The base is built offline with the revision's configuration, whatever the base's own
`refdoc.yml` says, so the map shows what the code changed and not what a setting did. Its
store starts as a copy of the revision's index: the index reuses every file whose content
did not change, so only the files the change touched are indexed again.
(A store a model summarized has another fingerprint, so its base is indexed whole, offline:
slower, never a request; `--base-store` avoids it.)
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..core.corrections import Correction, load_corrections
from ..core.errors import RefdocError
from ..core.serial import from_json, to_json
from ..core.store import FILES_NAME, INDEX_NAME, Store
from ..core.workspace import DISCOVERY_NAME, GRAPH_NAME, Workspace
from ..indexing.summarize import ExtractiveSummarizer
from ..rendering.corrected import TO_REVIEW, apply_corrections, section_pages
from ..rendering.render import corrected_pages
from ..understanding.changes import ChangeMap, Snapshot, compare, edited_places, load_snapshot
from ..writing.doc_writers import OfflineWriter
from ..writing.stale import stale_pages
from . import index_phase, summarize_phase
from .write_phase import stored_plans

CHANGES_NAME = "changes.json"
"""The change map a `build --base` stored for the render phase: the "What changed" page."""
GIT_TIMEOUT = 600


@dataclass
class Base:
    """What to compare with: a revision of the repository, or a store built from it."""

    revision: str = ""
    store: Path | None = None

    @property
    def name(self) -> str:
        return self.revision or str(self.store)


def change_map(workspace: Workspace, base: Base) -> ChangeMap:
    """The map from `base` to the workspace's store, which must be summarized."""
    head = load_snapshot(workspace.store_dir)
    if base.store is not None:
        before = _given_store(base.store)
    else:
        with tempfile.TemporaryDirectory(prefix="refdoc-base-") as temporary:
            before = _built_base(workspace, base.revision, Path(temporary))
    changes = compare(before, head, base.name)
    name = workspace.config.corrections
    corrections = load_corrections(workspace.repo / name, name)
    changes.stale = stale_pages(
        workspace.store, edited_places(before, head, changes), list(head.file_hashes), stored_plans(workspace.store),
        corrections, _to_review(workspace, corrections),
    )
    return changes


def _to_review(workspace: Workspace, corrections: list[Correction]) -> set[str]:
    """The corrections whose target in the revision is no longer what their hash recorded:
    the render phase's own check (rendering/corrected.py), over the revision's store; a
    section's page is rendered for it, as the build renders it (only the pages a section
    correction is on)."""
    from .render_phase import load_site_data  # lazy: render_phase imports this module (the stored map)

    data = load_site_data(workspace)
    apply_corrections(data, corrections, workspace.config.corrections)
    _, placed = corrected_pages(data, section_pages(data.corrections))
    views = {**data.corrections, **{view.correction.key: view for view in placed}}
    return {key for key, view in views.items() if view.status == TO_REVIEW}


def store_change_map(workspace: Workspace, changes: ChangeMap | None) -> None:
    """Keep the map for the render phase, or (None) drop a previous build's."""
    path = workspace.store_dir / CHANGES_NAME
    if changes is None:
        path.unlink(missing_ok=True)
    else:
        workspace.store.write_json(CHANGES_NAME, to_json(changes))


def stored_change_map(store: Store) -> ChangeMap | None:
    if not (store.directory / CHANGES_NAME).is_file():
        return None
    return from_json(ChangeMap, store.read_json(CHANGES_NAME))


def _given_store(store_dir: Path) -> Snapshot:
    for name in (INDEX_NAME, FILES_NAME, GRAPH_NAME):
        if not (store_dir / name).is_file():
            raise RefdocError(f"--base-store {store_dir}: no {name}; pass a store a `refdoc-site build` (or `summarize`) wrote")
    return load_snapshot(store_dir)


def _built_base(workspace: Workspace, revision: str, temporary: Path) -> Snapshot:
    tree, store_dir = temporary / "tree", temporary / "store"
    _export_revision(workspace.repo, revision, tree)
    store_dir.mkdir()
    for name in (INDEX_NAME, FILES_NAME, DISCOVERY_NAME):
        if (workspace.store_dir / name).is_file():
            shutil.copyfile(workspace.store_dir / name, store_dir / name)
    base = Workspace.create(tree, workspace.config, store_dir, temporary / "site")
    base.every_file_tracked = True  # what git archive wrote is what git tracks
    summarizer = ExtractiveSummarizer()
    index_phase.index(base, summarizer)
    summarize_phase.summarize(base, summarizer, OfflineWriter(workspace.config.language))
    return load_snapshot(store_dir)


def _export_revision(repo: Path, revision: str, tree: Path) -> None:
    """The files of `revision` into `tree`, as `git archive` gives them (regular files and
    links; the tar filter refuses anything that would land outside `tree`)."""
    commit = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    if commit.returncode != 0:
        raise RefdocError(
            f"--base {revision}: not a commit of {repo}; fetch it first (e.g. git fetch --depth=1 origin {revision}) or pass --base-store DIR"
        )
    tree.mkdir(parents=True)
    command = ["git", "-C", str(repo), "archive", "--format=tar", commit.stdout.strip()]
    with (
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as archive,
        tarfile.open(fileobj=archive.stdout, mode="r|") as tar,
    ):
        tar.extractall(tree, filter="data")
    if archive.returncode != 0:
        raise RefdocError(f"--base {revision}: git archive failed in {repo}")


def _git(repo: Path, *arguments: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(repo), *arguments], capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        raise RefdocError(f"--base: git did not run ({error}); install git or pass --base-store DIR") from None
