"""The answer without a model: a short paragraph made of the best relevant hits, then the
hits themselves, each with its summary and link, labelled as search results.

The paragraph says which definitions answer and how they relate, in words taken from the
store only: the first sentence names the best hit (the best definition, when a guide's
section ranks above it) with its citation and its summary, and
the hits it calls or is called by among the listed ones ("`place_order` (…): Place an
order…; it calls `charge_card` (…) and `check_stock` (…)"); a hit those calls reach is
followed the same way, one sentence each ("`charge_card` calls `send_charge` (…)"). A hit
no call joins to the first gets a sentence of its own, the same way, once: a paragraph
that went on through every listed hit would only repeat the list. Every definition is
cited where it is first named, as the list cites it (`[path:start-end](url)`); the words
between are the site language's (`ask_*` in `templates/labels/`), the names and summaries
the repository's, kept to one line of Markdown text (`core/text.markdown_line`).

Nothing in it depends on the order of a dict or a set: the same store and question give
the same paragraph, which `serve` streams to the browser's Ask panel as the CLI prints it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.records import ChunkKind
from ..core.resources import Labels
from ..core.text import SENTENCE_END, first_sentences, markdown_line
from ..indexing.chunk import MODULE_SYMBOL
from .library import Library
from .records import Answer, Source

EXTRACTIVE_RESULTS = 5
"""Search results an extractive answer lists; the paragraph names only these."""
TOPICS = 2
"""Hits a paragraph opens a sentence with: the best one, and the best one no call joins to
it (the rest are in the list below it)."""
SUMMARY_CHARS = 200
"""Longest summary a sentence quotes (its first sentence, clipped with "…")."""
PROSE_KINDS = frozenset({ChunkKind.SECTION.value, ChunkKind.PAGE.value, ChunkKind.WINDOW.value})
"""Kinds of hit that are no definition: a document's section, a page's, a window of a file
no grammar splits."""
FAILED_NOTICE = "the model's answer failed, so these are the search results"
"""`Answer.notice` of a fallback (the text says it in the site's language: `ask_failed`)."""


@dataclass(frozen=True)
class Edges:
    """The calls between the listed hits: each one's callees and callers among them, in
    the list's order."""

    callees: dict[str, list[str]]
    callers: dict[str, list[str]]

    @classmethod
    def among(cls, library: Library, sources: list[Source]) -> Edges:
        ids = [source.id for source in sources]
        calls: set[tuple[str, str]] = set()
        for source in sources:
            definition = library.definition(source.id)
            if definition is None:
                continue
            # Either side's record of the call counts: the graph stores both, and a
            # definition split into windows unions its windows' (library._definition).
            calls.update((source.id, callee) for callee in definition.callees if callee in ids)
            calls.update((caller, source.id) for caller in definition.callers if caller in ids)
        calls = {(a, b) for a, b in calls if a != b}
        return cls(
            callees={i: [j for j in ids if (i, j) in calls] for i in ids},
            callers={i: [j for j in ids if (j, i) in calls] for i in ids},
        )


def extractive(
    question: str, library: Library, sources: list[Source], labels: Labels,
    emit: Callable[[str], None], failed: bool = False,
) -> Answer:
    """The paragraph, then the listed hits under their heading, streamed a piece each;
    when the model's answer `failed`, a line saying so comes first."""
    sources = sources[:EXTRACTIVE_RESULTS]
    pieces = [labels["ask_failed"] + "\n\n"] if failed else []
    pieces += [paragraph(library, sources, labels) + "\n\n", labels["ask_results"] + "\n\n"]
    pieces += [result_line(rank, source) for rank, source in enumerate(sources, start=1)]
    for piece in pieces:
        emit(piece)
    notice = FAILED_NOTICE if failed else ""
    return Answer(question, "".join(pieces).rstrip() + "\n", "extractive", sources, [s.id for s in sources], [], notice)


def paragraph(library: Library, sources: list[Source], labels: Labels) -> str:
    """The sentences about `sources` (best first): one opened by each topic, then one for
    each hit its calls reach that calls or is called by one not named yet."""
    by_id = {source.id: source for source in sources}
    edges = Edges.among(library, sources)
    named: set[str] = set()

    def cite(ids: list[str]) -> str:
        named.update(ids)
        return join([_named(by_id[i], labels) for i in ids], labels)

    def relations(subject_id: str, subject: str) -> tuple[list[str], list[str]]:
        """The clauses of what `subject_id` calls and is called by among the hits not
        named yet, and those hits."""
        clauses, reached = [], []
        for template, linked in ((labels["ask_calls"], edges.callees[subject_id]), (labels["ask_called_by"], edges.callers[subject_id])):
            fresh = [i for i in linked if i not in named]
            if fresh:
                clauses.append(str(template).format(subject=subject, names=cite(fresh)))
                reached += fresh
        return clauses, reached

    sentences: list[str] = []

    def follow(reached: list[str]) -> None:
        """Breadth first through the calls, in the list's order: each reached hit's calls
        to hits not named yet, a sentence each."""
        for subject_id in reached:  # grows as it goes
            clauses, further = relations(subject_id, labels["ask_subject"].format(name=_subject(by_id[subject_id])))
            if clauses:
                sentences.append(labels["ask_clause"].join(clauses) + labels["ask_end"])
                reached += further

    topics: list[str] = []
    for source in opening_order(sources):
        if source.id in named or len(topics) == TOPICS:  # named: the first topic's calls reached it
            continue
        topics.append(source.id)
        summary = _summary(source)
        opening = str(labels["ask_does"] if summary else labels["ask_best"]).format(named=cite([source.id]), summary=summary)
        clauses, reached = relations(source.id, labels["ask_it"])
        sentences.append(labels["ask_clause"].join([opening, *clauses]) + labels["ask_end"])
        follow(reached)
    # Every other call between the listed hits, said once, where the sentence opens with
    # the hit that makes it (named there).
    for source in sources:
        linked = edges.callees[source.id] + edges.callers[source.id]
        if source.id not in named and any(i not in named for i in linked):
            clauses, reached = relations(source.id, labels["ask_subject"].format(name=cite([source.id])))
            sentences.append(labels["ask_clause"].join(clauses) + labels["ask_end"])
            follow(reached)
    return labels["ask_space"].join(sentences)


def opening_order(sources: list[Source]) -> list[Source]:
    """The hits in the order they may open a sentence: the best definition first (a guide's
    section ranked above it comes next, then the rest as ranked), so that the first sentence
    names the code the question is about and the guide still gets its sentence; the list
    below the paragraph keeps the ranking."""
    first = next((source for source in sources if source.kind not in PROSE_KINDS), None)
    return sources if first is None else [first, *(source for source in sources if source is not first)]


def join(items: list[str], labels: Labels) -> str:
    """`a`, `a and b`, `a, b and c`, in the site's language."""
    if len(items) < 2:
        return "".join(items)
    return labels["ask_comma"].join(items[:-1]) + labels["ask_and"] + items[-1]


def _summary(source: Source) -> str:
    """The summary's first sentence as a clause: one line of Markdown text, its closing
    stop dropped (the sentence goes on, or ends with the language's own)."""
    text = markdown_line(SENTENCE_END.split(first_sentences(source.summary, SUMMARY_CHARS), 1)[0]) if source.summary.strip() else ""
    return text.rstrip(" .。")


def _names(source: Source) -> dict[str, str]:
    """A hit's name as the answer writes it (`name`: a code span, or escaped text when the
    symbol holds a backtick; "" for a file's top-level code, whose citation names its
    file) and its citation (`cite`)."""
    symbol = "" if source.symbol == MODULE_SYMBOL else " ".join(source.symbol.split())
    name = markdown_line(symbol) if "`" in symbol else f"`{symbol}`" if symbol else ""
    return {"name": name, "cite": source.citation()}


def _subject(source: Source) -> str:
    """A hit named again, as a sentence's subject: its name, or its place when it has none."""
    return _names(source)["name"] or markdown_line(source.label)


def _named(source: Source, labels: Labels) -> str:
    """A hit where the paragraph first names it: its name with its citation."""
    names = _names(source)
    return labels["ask_named"].format(**names) if names["name"] else names["cite"]


def result_line(rank: int, source: Source) -> str:
    """`1. [path:3-9](url) `symbol` (function): what it does.`, each of the repository's
    texts kept to one line of Markdown text (a symbol with a backtick is not a code span)."""
    name = _names(source)["name"]
    summary = markdown_line(source.summary)
    return f"{rank}. {source.citation()}{' ' + name if name else ''} ({source.kind})" + (f": {summary}" if summary else "") + "\n"
