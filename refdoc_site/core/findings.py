"""What phase 2 finds about the repository beside the hierarchy, as the store keeps it.

collect_decisions → `Decision` (`decisions.json`);
plan_milestones → `Milestone` (`plans.json`); the summarize phase's counts → `Facts`
(`facts.json`). The renderer reads them back with `serial.from_json`; field names and
order are those of the JSON files, so stores written before these records still load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .serial import OMIT_DEFAULT


class DecisionKind(str, Enum):
    """Where a decision entry came from."""

    ADR = "adr"
    """A decision record the project keeps in Markdown."""
    DESIGN = "design"
    """A section of the project's design docs, or a "why" section of another doc."""
    DEPENDENCY = "dependency"
    """Packages a manifest declares, grouped by purpose."""
    COMMIT = "commit"
    """A commit message that reads like a decision."""


@dataclass(frozen=True)
class EvidenceLink:
    """A file or a commit that shows a decision or a measured fact."""

    label: str
    path: str = ""
    """An indexed file (the site has a page for it), or "" when `label` alone carries the
    reference: a commit hash and date, a manifest that was read but not indexed."""
    anchor: str = ""
    """A definition on the file's page; "" for a whole file."""


@dataclass
class DependencyFacts:
    """What a dependency entry of the decision log says, without its words: the page phrases
    it in the site's language (core/decision_phrases.py), the stored entry in English."""

    purpose: str = ""
    """A key of the label tables' `dependency_purposes`; "" for the entry of the packages of
    no known purpose, which their importing files describe."""
    names: list[str] = field(default_factory=list)
    """The packages, in the order the title names them."""
    described: list[str] = field(default_factory=list)
    """The packages the decision describes, with their version constraints (`mkdocs (>=1.5)`);
    fewer than `names` when the rest are only counted."""
    manifests: list[str] = field(default_factory=list)
    """The manifests declaring them, as paths; those in `unindexed` were read but not indexed."""
    unindexed: list[str] = field(default_factory=list, metadata={OMIT_DEFAULT: True})
    importers: list[str] = field(default_factory=list)
    """The indexed files importing any of them (the entry of a purpose)."""
    imported_by: list[list[str]] = field(default_factory=list, metadata={OMIT_DEFAULT: True})
    """Per package of `described`, the files importing it (the entry of no known purpose)."""


@dataclass
class Decision:
    """One entry of the decision log, as the offline build found it."""

    title: str
    kind: DecisionKind
    status: str
    context: str
    decision: str
    consequences: str
    evidence: list[EvidenceLink] = field(default_factory=list)
    dependency: DependencyFacts | None = field(default=None, metadata={OMIT_DEFAULT: True})
    """The facts of a dependency entry, which its English texts above were phrased from."""


@dataclass
class PlanFacts:
    """What a sentence of the refactoring plan says, without its words: the page phrases it
    in the site's language (core/plan_phrases.py), the stored plan in English."""

    key: str
    """A key of the label tables' `plan_phrases`; a phrase of forms (`one`, `other`) agrees
    with `numbers["n"]`."""
    numbers: dict[str, int] = field(default_factory=dict, metadata={OMIT_DEFAULT: True})
    """Counts, each shown through the tables' `plan_counts` form of its name when there is one."""
    names: dict[str, list[str]] = field(default_factory=dict, metadata={OMIT_DEFAULT: True})
    """Lists of files, modules or definitions, shown as the first few and "…"."""
    words: dict[str, str] = field(default_factory=dict, metadata={OMIT_DEFAULT: True})
    """Paths and module names, shown as they are."""


@dataclass
class MilestoneItem:
    """One measured fact of a refactoring phase, linked where it points.

    It links to a file page (`path`, plus a definition's `anchor`), to a module page
    (`module`), or to nothing (both empty: `label` says it all)."""

    label: str
    path: str = ""
    anchor: str = ""
    module: str = ""
    text: str = ""
    """The number that put the item there (`612 lines`, `called from 14 places`)."""
    facts: PlanFacts | None = field(default=None, metadata={OMIT_DEFAULT: True})
    """The facts `text` was phrased from."""
    symbol: str = field(default="", metadata={OMIT_DEFAULT: True})
    """The definition an item names: its `label` says it is in the file at `path`."""


@dataclass
class Milestone:
    """A phase of the refactoring plan: it exists only because its facts do."""

    title: str
    goal: str
    items: list[MilestoneItem] = field(default_factory=list)
    phase: str = field(default="", metadata={OMIT_DEFAULT: True})
    """A key of the label tables' `plan_titles`, which `title` was phrased from."""
    facts: PlanFacts | None = field(default=None, metadata={OMIT_DEFAULT: True})
    """The facts `goal` was phrased from."""


@dataclass
class Facts:
    """What the overview page counts, and what the summarize phase was built from."""

    files: int = 0
    chunks: int = 0
    lines: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    """Files discovery left out, per reason, in reason order."""
    skipped_total: int = 0
    secrets_redacted: int = 0
    files_with_secrets: int = 0
    commit: str = ""
    """The commit the site documents; "" outside a git work tree."""
    source_prefix: str = ""
    """Where the documented folder lies in the commit's tree (`sub/`, "" at the top)."""
    commit_date: str = ""
    """Its committer date (ISO 8601, UTC): the build stamp, never the wall clock."""
    repo_url: str = ""
    """The repository's browsable URL as the repository tells it (core/repository.py);
    refdoc.yml's `repo_url` comes first."""
    project_name: str = ""
    """The name the repository's manifests declare; titles the site unless `site_name` is set."""
    inputs: str = ""
    """Digest of the phase's inputs: an unchanged one skips the phase next time."""
