"""Where a build reads and writes: the repository, its configuration, the store and the
output folder, and the names of what each phase keeps in the store.

Every phase reads what the phase before it stored, so the CLI can run any phase alone
against the same store.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path

from .config import Config
from .errors import StoreError
from .redact import Redactor
from .repository import TrackedFiles, git_output
from .reuse import PhaseRecord, inputs_digest
from .store import Store, StoreState, store_lock

DISCOVERY_NAME = "discovery.json"
"""The index phase's record of what discovery skipped and why, and what failed."""
GRAPH_NAME = "graph.json"
GRAPH_INPUTS_NAME = "graph-inputs.json"
"""What each file gave the stored graph's calls (understanding/call_changes.py)."""
HIERARCHY_NAME = "summaries/hierarchy.json"
DECISIONS_NAME = "decisions.json"
PLANS_NAME = "plans.json"
ORIENTATION_NAME = "orientation.json"
"""The offline milestones (the name predates per-request plans, which live under `written/plans`)."""
FACTS_NAME = "facts.json"
"""The summarize phase's report, and its reuse record."""
WRITTEN_DIR = "written"
"""What the doc model wrote, grounded (writers.py): `decisions.json`, `milestones.json`, and a
plan per request under `plans/`."""
WRITTEN_DECISIONS = f"{WRITTEN_DIR}/decisions.json"
WRITTEN_OVERVIEW = f"{WRITTEN_DIR}/overview.json"
WRITTEN_MILESTONES = f"{WRITTEN_DIR}/milestones.json"
WRITTEN_PLANS = f"{WRITTEN_DIR}/plans"
RENDERED_NAME = "rendered.json"
"""The render phase's reuse record, with the pages it rendered."""
PUBLISHED_NAME = "published.json"
"""The publish phase's reuse record: the rendered inputs the published site was built from."""


@dataclass
class Workspace:
    """Where a build reads and writes."""

    repo: Path
    config: Config
    store_dir: Path
    out_dir: Path
    every_file_tracked: bool = False
    """The repository is a tree `git archive` wrote (the change map's base): git tracks
    every file in it, though it has no `.git` to say so."""
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

    def forget_state(self) -> None:
        """Let go of the stored documents (the next phase that needs them reads them again):
        the site engine, which needs none, converts every page while they would be held."""
        self._state = None

    def indexed(self, state: StoreState) -> None:
        """Take the state an index run just made as the one the later phases read."""
        self._state = state

    def indexed_state(self) -> StoreState:
        """The stored documents; a one-line error when nothing is indexed yet."""
        state = self.load_state()
        if not state.files:
            raise StoreError(f"{self.store.index_path}: no indexed files; run `refdoc-site index` first")
        return state

    def inputs_digest(self, *parts: str) -> str:
        """A hash of what a phase's output depends on: the indexed files, the configuration, `parts`."""
        return inputs_digest(self.load_state(), self.config, *parts)

    def tracked_files(self) -> TrackedFiles:
        """The files git tracks in the repository, which no `.gitignore` hides."""
        return TrackedFiles(everything=True) if self.every_file_tracked else TrackedFiles.of(self.repo)

    def head_commit(self) -> str:
        """The commit the repository's work tree is at ('' outside git): the site links to
        the source at it."""
        return git_output(self.repo, "rev-parse", "HEAD")

    def head_commit_date(self) -> str:
        """The committer date of that commit (ISO 8601 in UTC, '' outside git): the site's
        build stamp and sitemap date, so that a rebuild of the commit anywhere is the same."""
        epoch = git_output(self.repo, "show", "-s", "--format=%ct", "HEAD")
        return datetime.fromtimestamp(int(epoch), timezone.utc).isoformat() if epoch.isdigit() else ""

    def record(self, name: str) -> PhaseRecord:
        """The reuse record `name` in the store (reuse.py)."""
        return PhaseRecord(self.store, name)


def holding_store_lock(phase):
    """Run a phase holding the store's lock (store.py), named after the phase: nested phases
    share the hold."""

    @functools.wraps(phase)
    def locked(workspace: Workspace, *args, **kwargs):
        with store_lock(workspace.store_dir, phase.__name__):
            return phase(workspace, *args, **kwargs)

    return locked
