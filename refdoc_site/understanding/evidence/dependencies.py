"""Dependencies as decisions: each package a manifest declares is a choice someone made,
grouped by purpose so that the log reads "Uses mkdocs and mkdocs-material for the
documentation site" rather than listing every package, and linked to the files that import it."""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ...core.decision_phrases import MAX_EVIDENCE_FILES, dependency_texts, manifest_label
from ...core.findings import Decision, DecisionKind, DependencyFacts, EvidenceLink
from ...core.redact import Redactor
from ...core.resources import DEFAULT_LANGUAGE, page_labels
from ...core.store import FileEntry
from ...core.trust import is_inside
from ...languages.purposes import PURPOSES, PYTHON_IMPORT_NAMES
from ..graph import RepoGraph
from .manifests import MANIFESTS, manifest_kind, manifest_problem, parse_manifest
from .text import read_redacted, whole_file

log = logging.getLogger("refdoc_site")

MAX_OTHER_DEPENDENCIES = 8
"""Dependencies without a known purpose that the catch-all entry describes."""
IGNORED_MANIFEST_DIRECTORIES = frozenset(
    {
        "node_modules",
        "vendor",
        "third_party",
        "fixtures",
        "testdata",
        "test_data",
        "examples",
        "example",
    }
)
"""Manifests here describe vendored code, test inputs or samples, not the project."""
DEVELOPMENT_REQUIREMENTS = re.compile(r"(?:^|[-_.])(?:dev|test|tests|docs|doc|lint|typing|ci|build)(?:[-_.]|$)", re.IGNORECASE)
"""A requirements file of development only: `requirements-dev.txt`, `requirements/docs.txt`, `tests.txt`."""
ROOT_MANIFESTS = (
    "pyproject.toml",
    "setup.cfg",
    "requirements.txt",
    "package.json",
    "go.mod",
    "Cargo.toml",
)
"""Read at the repository root even when not indexed (discovery has no JSON language)."""
ECOSYSTEM_LANGUAGES = {
    "python": frozenset({"python"}),
    "npm": frozenset({"javascript", "typescript", "tsx"}),
    "go": frozenset({"go"}),
    "cargo": frozenset({"rust"}),
}
"""Which files' imports can use a package of each ecosystem."""


@dataclass
class _Dependency:
    """A package declared by one or more manifests, with the files that import it."""

    ecosystem: str
    key: str
    """Normalised name: the key into `PURPOSES`."""
    name: str
    constraint: str
    manifests: list[EvidenceLink] = field(default_factory=list)
    importers: list[str] = field(default_factory=list)

    @property
    def described(self) -> str:
        return (
            f"{self.name} ({self.constraint})"
            if self.constraint and self.constraint != "*"
            else self.name
        )


def dependency_decisions(
    repo: Path, files: dict[str, FileEntry], graph: RepoGraph, redactor: Redactor | None = None
) -> list[Decision]:
    """Entries grouping the declared dependencies by purpose, sorted by title.

    Packages of known purpose share an entry per purpose; packages of unknown purpose
    that the code imports share one more entry, described by their importing files;
    the rest (unknown and never imported) are not notable enough to list.
    """
    dependencies: dict[tuple[str, str], _Dependency] = {}
    found = _manifests(repo, files, redactor)
    unindexed = {evidence.label: name for _, evidence, _, name in found if not evidence.path}  # read, not indexed
    for kind, evidence, text, _ in found:
        ecosystem = MANIFESTS[kind][0]
        try:
            requirements = parse_manifest(kind, text)
        except ValueError as error:  # TOML that tomllib rejects, or nesting too deep to read
            log.warning(f"{evidence.label}: {manifest_problem(error)}; its dependencies are left out of the decision log")
            continue
        development_file = bool(DEVELOPMENT_REQUIREMENTS.search(posixpath.basename(evidence.path or evidence.label)))
        for requirement in requirements:
            if not requirement.runtime or development_file:
                continue  # a tool of development is no choice the product made
            key = _normalise(ecosystem, requirement.name)
            dependency = dependencies.setdefault(
                (ecosystem, key),
                _Dependency(ecosystem, key, requirement.name, requirement.constraint),
            )
            if evidence not in dependency.manifests:
                dependency.manifests.append(evidence)
    for dependency in dependencies.values():
        dependency.importers = _importers(dependency, files, graph)
    by_purpose: dict[str, list[_Dependency]] = {}
    others: list[_Dependency] = []
    for _, dependency in sorted(dependencies.items()):
        purpose = PURPOSES.get(dependency.key)
        if purpose:
            by_purpose.setdefault(purpose, []).append(dependency)
        elif dependency.importers:
            others.append(dependency)
    entries = [_purpose_entry(purpose, group, unindexed) for purpose, group in by_purpose.items()]
    entries.sort(key=lambda entry: entry.title.lower())
    if others:
        entries.append(_others_entry(others, unindexed))
    return entries


def _manifests(repo: Path, files: dict[str, FileEntry], redactor: Redactor | None) -> list[tuple[str, EvidenceLink, str, str]]:
    """(kind, evidence, text, path) per readable manifest: indexed ones, then unindexed root ones
    (never one linked from outside the repository, which discovery skipped for that)."""
    found = []
    for path in sorted(files):
        kind = manifest_kind(path)
        directories = set(posixpath.dirname(path).lower().split("/"))
        if kind and not directories & IGNORED_MANIFEST_DIRECTORIES:
            text = read_redacted(repo, path, redactor)
            if text is not None:
                found.append((kind, whole_file(path, path), text, path))
    for name in ROOT_MANIFESTS:
        if name not in files and (repo / name).is_file() and is_inside(repo, repo / name):
            text = read_redacted(repo, name, redactor)
            if text is not None:
                label = manifest_label(name, DependencyFacts(unindexed=[name]), page_labels(DEFAULT_LANGUAGE))
                found.append((manifest_kind(name), whole_file(label, ""), text, name))
    return found


def _normalise(ecosystem: str, name: str) -> str:
    if ecosystem == "python":
        return re.sub(r"[-_.]+", "-", name).lower()
    if ecosystem == "go":
        return re.sub(r"/v\d+$", "", name)
    if ecosystem == "cargo":
        return name.lower().replace("_", "-")
    return name.lower()


def _import_names(dependency: _Dependency) -> tuple[str, ...]:
    if dependency.ecosystem == "python":
        return PYTHON_IMPORT_NAMES.get(dependency.key, (dependency.key.replace("-", "_"),))
    if dependency.ecosystem == "cargo":
        return (dependency.key.replace("-", "_"),)
    return (dependency.name,)


def _importers(dependency: _Dependency, files: dict[str, FileEntry], graph: RepoGraph) -> list[str]:
    """Indexed files of the package's ecosystem whose external imports name it (or a subpackage)."""
    names = [n.lower() for n in _import_names(dependency)]
    languages = ECOSYSTEM_LANGUAGES[dependency.ecosystem]
    return sorted(
        path
        for path, imported in graph.external_imports.items()
        if path in files
        and files[path].language in languages
        and any(i.lower() == n or i.lower().startswith(n + "/") for i in imported for n in names)
    )


def _purpose_entry(purpose: str, group: list[_Dependency], unindexed: dict[str, str]) -> Decision:
    importers = sorted({path for d in group for path in d.importers})
    facts = DependencyFacts(purpose, [d.name for d in group], [d.described for d in group], importers=importers)
    return _entry(facts, _unique_evidence(m for d in group for m in d.manifests), importers, unindexed)


def _others_entry(others: list[_Dependency], unindexed: dict[str, str]) -> Decision:
    ranked = sorted(others, key=lambda d: (-len(d.importers), d.name.lower()))
    shown = ranked[:MAX_OTHER_DEPENDENCIES]
    facts = DependencyFacts("", [d.name for d in ranked], [d.described for d in shown], imported_by=[d.importers for d in shown])
    importers = sorted({path for d in shown for path in d.importers})
    return _entry(facts, _unique_evidence(m for d in others for m in d.manifests), importers, unindexed)


def _entry(facts: DependencyFacts, manifests: list[EvidenceLink], importers: list[str], unindexed: dict[str, str]) -> Decision:
    """The entry of `facts`, its texts in English, its evidence the manifests and importers."""
    facts.manifests = [m.path or unindexed[m.label] for m in manifests]
    facts.unindexed = [unindexed[m.label] for m in manifests if not m.path]
    return Decision(
        kind=DecisionKind.DEPENDENCY,
        status="",
        **dependency_texts(facts),
        evidence=manifests[:MAX_EVIDENCE_FILES] + [whole_file(p, p) for p in importers[:MAX_EVIDENCE_FILES]],
        dependency=facts,
    )


def _unique_evidence(items: Iterable[EvidenceLink]) -> list[EvidenceLink]:
    unique: dict[str, EvidenceLink] = {}
    for item in items:
        unique.setdefault(item.label, item)
    return [unique[label] for label in sorted(unique)]
