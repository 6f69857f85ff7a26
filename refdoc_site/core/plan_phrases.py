"""The sentences the refactoring plan writes itself ("Break dependency cycles between
modules", "612 lines: split it along its responsibilities", "called from 14 places …"),
made from its `PlanFacts` through a label table.

The store holds the English texts (what a model writing the plan and `llms.txt` of an
English site read) and the facts; a page in another language phrases the facts through its
own table, so `plans.json` is the same whatever `language` the site is built in, and the
English texts are made by the same function from the English table.
"""

from __future__ import annotations

from dataclasses import replace

from .findings import Milestone, MilestoneItem, PlanFacts
from .resources import DEFAULT_LANGUAGE, Labels, page_labels

NAMED_IN_ITEM = 3
"""Definitions or files an item names before "…"."""


def plan_text(facts: PlanFacts, language: str = DEFAULT_LANGUAGE) -> str:
    """The sentence `facts` say, in `language`."""
    labels = page_labels(language)
    template = labels["plan_phrases"][facts.key]
    if isinstance(template, dict):
        template = template["one" if facts.numbers.get("n") == 1 else "other"]
    counts, lists = labels["plan_counts"], labels["plan_lists"]
    numbers = {
        name: _count(counts[name], n) if name in counts else str(n) for name, n in facts.numbers.items()
    }
    names = {name: _named(items, str(lists["separator"]), str(lists[name])) for name, items in facts.names.items()}
    return str(template).format(**numbers, **names, **facts.words)


def phase_title(phase: str, language: str = DEFAULT_LANGUAGE) -> str:
    labels = page_labels(language)
    return str(labels["plan_titles"][phase])


def definition_label(symbol: str, path: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A definition item's label: the definition and the file it is in."""
    labels = page_labels(language)
    return str(labels["plan_phrases"]["definition_in"]).format(symbol=symbol, path=path)


def localized_milestones(milestones: list[Milestone], language: str) -> list[Milestone]:
    """The phases with the plan's own sentences in `language` (copies; the stored ones stay
    English); a phase or item stored without facts is shown as it is."""
    if language == DEFAULT_LANGUAGE:
        return milestones
    return [_localized(m, language) for m in milestones]


def _localized(milestone: Milestone, language: str) -> Milestone:
    title = phase_title(milestone.phase, language) if milestone.phase else milestone.title
    goal = plan_text(milestone.facts, language) if milestone.facts else milestone.goal
    return replace(milestone, title=title, goal=goal, items=[_localized_item(i, language) for i in milestone.items])


def _localized_item(item: MilestoneItem, language: str) -> MilestoneItem:
    label = definition_label(item.symbol, item.path, language) if item.symbol else item.label
    return replace(item, label=label, text=plan_text(item.facts, language) if item.facts else item.text)


def _count(forms: Labels, n: int) -> str:
    return str(forms["one" if n == 1 else "other"]).format(n=n)


def _named(names: list[str], separator: str, more: str) -> str:
    return separator.join(names[:NAMED_IN_ITEM]) + (more if len(names) > NAMED_IN_ITEM else "")
