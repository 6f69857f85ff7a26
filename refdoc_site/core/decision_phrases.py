"""The sentences the decision log writes itself about a dependency entry ("Uses mkdocs and
mkdocs-material for the documentation site", "Declared in pyproject.toml.", "Imported
directly by 3 files: …"), made from its `DependencyFacts` through a label table.

The store holds the English texts (what a model writing the log, `llms.txt` of an English
site and a maintainer's correction by title read) and the facts; a page in another language
phrases the facts through its own table, so the store is the same whatever `language` the
site is built in, and the English texts are made by the same function from the English table.
"""

from __future__ import annotations

from dataclasses import replace

from .findings import Decision, DependencyFacts, EvidenceLink
from .resources import DEFAULT_LANGUAGE, Labels, page_labels
from .text import clip

TITLE_LIMIT = 100
"""Characters of a decision entry's title."""
NAMES_IN_TITLE = 4
"""Dependencies named in a grouped entry's title before "and N more"."""
MAX_EVIDENCE_FILES = 6
"""Importing files (and manifests) named per dependency entry."""
IMPORTERS_PER_DEPENDENCY = 3
"""Importing files named per package in the entry of no known purpose."""


def dependency_texts(facts: DependencyFacts, language: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """The entry's title, context, decision and consequences in `language`."""
    labels = page_labels(language)
    said = labels["dependency_phrases"]
    count = len(facts.names)
    manifests = _and_more([manifest_label(m, facts, labels) for m in facts.manifests], MAX_EVIDENCE_FILES, labels)
    names = _and_more(facts.names, NAMES_IN_TITLE, labels)
    if facts.purpose:
        purpose = str(labels["dependency_purposes"][facts.purpose])
        importers = facts.importers
        return {
            "title": clip(said["uses_for"].format(names=names, purpose=purpose), TITLE_LIMIT),
            "context": said["declared"].format(manifests=manifests),
            "decision": said["depend_for"].format(described=_and_more(facts.described, len(facts.described), labels), purpose=purpose),
            "consequences": _plural(said["imported"], len(importers), importers=_and_more(importers, MAX_EVIDENCE_FILES, labels))
            if importers else _plural(said["not_imported"], count),
        }
    entries = str(said["entry_separator"]).join(
        said["depend_entry"].format(described=d, importers=_and_more(i, IMPORTERS_PER_DEPENDENCY, labels))
        for d, i in zip(facts.described, facts.imported_by)
    )
    rest = count - len(facts.described)
    return {
        "title": clip(said["uses"].format(names=names), TITLE_LIMIT),
        "context": _plural(said["declared_others"], count, manifests=manifests),
        "decision": said["depend_on"].format(entries=said["entries_more"].format(entries=entries, n=rest) if rest else entries),
        "consequences": "",
    }


def manifest_label(path: str, facts: DependencyFacts, labels: Labels) -> str:
    """A manifest as the entry names it: its path, or that it was read but not indexed."""
    return str(labels["dependency_phrases"]["not_indexed"]).format(name=path) if path in facts.unindexed else path


def localized_decisions(decisions: list[Decision], language: str) -> list[Decision]:
    """The decisions with the dependency entries' own sentences in `language` (copies; the
    stored ones stay English); the entries quoted from the repository as they are."""
    if language == DEFAULT_LANGUAGE:
        return decisions
    return [_localized(d, d.dependency, language) if d.dependency else d for d in decisions]


def _localized(decision: Decision, facts: DependencyFacts, language: str) -> Decision:
    labels, english = page_labels(language), page_labels(DEFAULT_LANGUAGE)
    shown = {manifest_label(m, facts, english): manifest_label(m, facts, labels) for m in facts.unindexed}
    evidence = [EvidenceLink(shown.get(e.label, e.label), e.path, e.anchor) if not e.path else e for e in decision.evidence]
    return replace(decision, **dependency_texts(facts, language), evidence=evidence)


def _plural(forms: dict, n: int, **values: str) -> str:
    return str(forms["one" if n == 1 else "other"]).format(n=n, **values)


def _and_more(items: list[str], limit: int, labels: Labels) -> str:
    """`a`, `a and b`, `a, b and c`, or `a, b and 3 more` past `limit` items (in the table's words)."""
    said = labels["summary_phrases"]
    separator = str(said["separator"])
    shown = items[:limit]
    rest = len(items) - len(shown)
    if rest:
        return str(said["and_more"]).format(names=separator.join(shown), n=rest)
    if len(shown) <= 1:
        return "".join(shown)
    return str(said["and_last"]).format(names=separator.join(shown[:-1]), last=shown[-1])
