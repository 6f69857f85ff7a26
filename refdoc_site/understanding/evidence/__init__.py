"""Decision log: architecture decisions as the repository itself records them.

Four collectors, all offline and all optional, the repository's own reasoning first:

1. decision records (ADR files) that the project keeps in Markdown (`adr.py`);
2. the sections of its design docs and the "why" sections of its other docs (`design_docs.py`);
3. commit messages that read like decisions, when `git` is installed and the repository
   is a work tree (`commits.py`);
4. the runtime dependencies its manifests declare (never a devDependency, a test or docs
   extra: `manifests.py`), grouped by purpose, as evidence of a choice of foundation
   (`dependencies.py`).

Each gives `Decision` records (core/findings.py), saved by the store as `decisions.json`
and rendered by `templates/decisions.md.jinja2`. An evidence `path` is always an indexed
file (so the site has a page to link to) or "" (then `label` alone carries the reference).
"""

from __future__ import annotations

from pathlib import Path

from ...core.findings import Decision
from ...core.redact import Redactor
from ...core.store import FileEntry
from ..graph import RepoGraph
from .adr import adr_decisions
from .commits import commit_decisions
from .dependencies import dependency_decisions
from .design_docs import design_decisions


def collect_decisions(
    repo: Path, files: dict[str, FileEntry], graph: RepoGraph, redactor: Redactor | None = None
) -> list[Decision]:
    """Every decision entry the repository gives evidence for: ADRs, design docs, commits, dependencies.

    Every text is read redacted (by `redactor`, else the default rules), as the index reads it.
    """
    return [
        *adr_decisions(repo, files, redactor),
        *design_decisions(repo, files, redactor),
        *commit_decisions(repo, redactor),
        *dependency_decisions(repo, files, graph, redactor),
    ]
