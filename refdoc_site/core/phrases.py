"""The sentences the offline summarizer writes about a chunk ("Calls a and b.", "Reads or
writes files."), kept as facts beside their English text: a phrase's key in the label
table's `phrases` and the names it cites.

The store holds the English text (what the embedder, the keyword index and a model read)
and these facts; a page in another language phrases the facts through its own table, so
the store is the same whatever `language` the site is built in, and the English text is
made by the same function from the English table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .records import ChunkSummary, Document, Phrase
from .resources import DEFAULT_LANGUAGE, page_labels
from .text import MAX_PROSE, clip


LIST_KIND = {"returns_new": "or", "raises": "or", "throws": "or", "panics": "or", "effects": "and", "calls": "and", "notes": "semicolon"}
"""How each phrase joins its items (`comma` where it is not named here)."""


def phrase_text(phrases: Sequence[Phrase], language: str = DEFAULT_LANGUAGE) -> str:
    """A field's text in `language`: its sentences phrased, clipped as the summarizer clips."""
    labels = page_labels(language)
    gap = str(labels["phrase_gap"])
    return clip(gap.join(_sentence(p, labels) for p in phrases), MAX_PROSE)


def localized(summary: ChunkSummary, language: str) -> ChunkSummary:
    """The summary with the fields the offline summarizer phrased written in `language`;
    itself in English, or when it holds no phrased field (a docstring's, a model's)."""
    if language == DEFAULT_LANGUAGE or not summary.phrases:
        return summary
    return replace(summary, **{name: phrase_text(phrases, language) for name, phrases in summary.phrases.items()})


def _sentence(phrase: Phrase, labels: dict) -> str:
    names = labels["effect_names"] if phrase.key == "effects" else labels["note_names"] if phrase.key == "notes" else None
    items = [str(names[i]).format(subject=phrase.subject) for i in phrase.items] if names else phrase.items
    text = str(labels["phrases"][phrase.key]).format(items=_join(items, LIST_KIND.get(phrase.key, "comma"), labels), subject=phrase.subject)
    if names and text.split(" ", 1)[0].isalpha():  # opens with a word of the table's, not with `asynchronous;`
        text = text[0].upper() + text[1:]
    return text


def _join(items: list[str], kind: str, labels: dict) -> str:
    separators = labels["list_separators"]
    if kind in ("comma", "semicolon") or len(items) <= 1:
        return str(separators[kind if kind == "semicolon" else "comma"]).join(items)
    return str(separators["comma"]).join(items[:-1]) + str(separators[kind]) + items[-1]


def localized_documents(documents: list[Document], language: str) -> list[Document]:
    """The documents with their summaries in `language` (copies; the stored ones stay English)."""
    if language == DEFAULT_LANGUAGE:
        return documents
    return [replace(d, summary=localized(d.summary, language)) if d.summary.phrases else d for d in documents]
