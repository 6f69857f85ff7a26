"""Retrieval for a question: the chunks that answer it, kept only when relevant, widened
through the call graph and the summaries within a token budget.

Why a relevance test of its own. The fused score (`search/ranking.py`) is min-max
normalised per query, so the best hit of any question scores near 1, a question about
nothing in the repository included. Whether a hit is about the question is judged on two
absolute signals instead: the cosine between the question's and the chunk's vectors (the
static model's, what the dense side ranks by), and the share of the question's terms the
chunk's indexed fields hold. A hit is relevant when either reaches its threshold.

The thresholds were chosen with `benchmarks/ask_quality.py --calibrate` on the tuned sets
only (click, requests, httpx-ja, gin: 127 labelled questions, and the 40 questions about
nothing in those repositories that `benchmarks/eval/not-found.jsonl` holds for them, ten a
set, written before any threshold ran on them). The rule: of the grid's pairs that answer
at least 95% of the labelled questions (issue 23's "wrongly not found" ≤ 0.05), the ones
that turn away the most off-topic questions, and of those the one with the most labelled
questions answered with a relevant definition in the top 3 (a tie goes to the lower
threshold). With the ranking of `4af745c` that is cosine ≥ 0.40 or coverage ≥ 0.60: 95.3%
answered, 35 of 40 off-topic questions turned away, 80.3% with a relevant top 3 (the pair
before, 0.45 and 0.34: 97.6%, 28 of 40, 80.3%). No pair that answers 95% turns away 95%
of them: the coverage side lets through questions whose generic words ("applied",
"stored") a chunk holds, the cosine side questions the static model puts near the code.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.pages import file_page, module_page, page_url
from ..core.records import Document
from ..core.tokens import count_tokens
from ..languages.roles import RELEASE_NOTES_NAMES
from ..search.ranking import Hit, sparse_fields, stem
from ..writing.sources import chunk_text, file_text, module_text
from .library import Library, definition_key
from .records import FILE_SUMMARY, MODULE_SUMMARY, Source

MIN_COSINE = 0.40
"""A hit whose vector is at least this close to the question's is relevant (the static
model's cosine; with OpenAI's embeddings the seed used 0.77, a different scale)."""
MIN_COVERAGE = 0.60
"""A hit whose indexed fields hold at least this share of the question's terms (three of
five) is relevant."""
MAX_RETRIEVED = 15
"""Cap on the retrieved chunks passed to the model (the seed's top-k)."""
SEARCH_DEPTH = 30
"""Hits ranked before the relevance test (more than the cap: some fall below it)."""
TOKEN_BUDGET = 6000
"""What the context may hold, in `core/tokens.py` tokens: retrieved chunks first, then the
graph's neighbours and the summaries."""
WIDENED_FROM = 5
"""The best retrieved chunks whose callers, callees, file and module join the context."""
NEIGHBOURS = 3
"""Callers and callees taken per widened chunk, each side."""
EXCERPT_LINES = 40
"""Lines of a chunk's source shown to the model."""


@dataclass(frozen=True)
class Retrieved:
    hit: Hit
    cosine: float
    coverage: float

    @property
    def relevant(self) -> bool:
        return self.cosine >= MIN_COSINE or self.coverage >= MIN_COVERAGE


def ranked(question: str, library: Library, search_text: str = "", depth: int = SEARCH_DEPTH) -> list[Retrieved]:
    """The question's best hits (searched as `search_text`, e.g. with the LLM's expansion
    terms, when given) with their relevance signals, best first."""
    hits = library.search(search_text or question, depth)
    index = library.search_index
    text = index.question_text(question)
    stems = list(dict.fromkeys(stem(term) for term in index.searched_terms(text)))
    placed = [(hit, position) for hit in hits if (position := library.position(hit.chunk_id)) is not None]
    cosines = [0.0] * len(placed)
    if placed and library.embedder is not None and index.has_vectors:
        # Only the hits' rows: the search ranked every row already.
        cosines = index.dense_scores(library.embedder.embed([text])[0], [position for _, position in placed]).tolist()
    return [Retrieved(hit, cosine, coverage(stems, index.documents[position])) for (hit, position), cosine in zip(placed, cosines)]


def coverage(stems: list[str], document: Document) -> float:
    """The share of the question's (stemmed) terms that the chunk's indexed fields hold."""
    if not stems:
        return 0.0
    held = {term for name, terms in sparse_fields(document).items() if name != "phrases" for term in terms}
    return sum(stem in held for stem in stems) / len(stems)


def retrieve(question: str, library: Library, search_text: str = "", cap: int = MAX_RETRIEVED) -> list[Retrieved]:
    """The relevant hits, at most `cap`, one per definition (its best-ranked window or
    overload stands for it), best first, except that a file of release notes
    (`languages/roles.py`: `CHANGELOG.md`, `History.md`, …) gives one at most, after
    the others."""
    own: list[Retrieved] = []
    notes: list[Retrieved] = []
    seen: set[str] = set()
    for item in ranked(question, library, search_text):
        hit = item.hit
        key = definition_key(hit.chunk_id)
        is_notes = is_release_notes(hit.path)
        if not item.relevant or key in seen or (is_notes and hit.path in seen):
            continue
        seen.update((key, hit.path) if is_notes else (key,))
        (notes if is_notes else own).append(item)
    return (own + notes)[:cap]


def is_release_notes(path: str) -> bool:
    return bool(RELEASE_NOTES_NAMES.match(path.rsplit("/", 1)[-1]))


def retrieved_source(library: Library, item: Retrieved) -> Source:
    """A retrieved hit as the definition it is part of: the whole definition's lines and
    summary, and its one anchor on the site (a window's or an overload's hit included)."""
    hit = item.hit
    key = definition_key(hit.chunk_id)
    definition = library.definition(key)
    if definition is None:
        return Source(key, hit.path, hit.start_line, hit.end_line, hit.symbol, hit.kind, round(hit.score, 6), "",
                      "retrieved", library.page_url(key))
    return Source(
        id=key, path=hit.path, start_line=definition.start_line, end_line=definition.end_line,
        symbol=hit.symbol, kind=hit.kind, score=round(hit.score, 6),
        summary=definition.summary.get("responsibility", ""), reason="retrieved", url=definition.url,
    )


def context_sources(library: Library, retrieved: list[Retrieved], budget: int = TOKEN_BUDGET) -> list[Source]:
    """The retrieved chunks, then their callers and callees, files and modules, while the
    prompt text of each (`prompt_text`) fits in `budget` tokens."""
    chosen: list[Source] = []
    seen: set[str] = set()
    spent = 0

    def take(source: Source) -> bool:
        nonlocal spent
        if source.id in seen:
            return True
        cost = count_tokens(prompt_text(library, source))
        if spent + cost > budget:
            return False
        seen.add(source.id)
        chosen.append(source)
        spent += cost
        return True

    for item in retrieved:
        take(retrieved_source(library, item))
    for item in retrieved[:WIDENED_FROM]:
        definition = library.definition(definition_key(item.hit.chunk_id))
        if definition is None:
            continue
        for reason, ids in (("caller of", definition.callers), ("callee of", definition.callees)):
            for neighbour in library.definitions(ids)[:NEIGHBOURS]:
                take(Source(neighbour.id, neighbour.path, neighbour.start_line, neighbour.end_line, neighbour.symbol,
                            neighbour.kind, 0.0, neighbour.summary.get("responsibility", ""),
                            f"{reason} {definition.symbol}", neighbour.url))
        summary = library.file_record(definition.path)
        if summary is not None:
            take(Source(f"file:{summary.path}", summary.path, 0, 0, "", FILE_SUMMARY, 0.0, summary.text, FILE_SUMMARY,
                        page_url(file_page(summary.path))))
            module = library.hierarchy.modules.get(summary.module) if library.hierarchy else None
            if module is not None:
                take(Source(f"module:{module.name}", "", 0, 0, module.name, MODULE_SUMMARY, 0.0, module.text,
                            MODULE_SUMMARY, page_url(module_page(module.name))))
    return chosen


def prompt_text(library: Library, source: Source) -> str:
    """What the model is shown for a source: a chunk's kind, place, signature, summary and
    the start of its code; a file's or module's summary."""
    if source.kind == FILE_SUMMARY:
        summary = library.file_record(source.path)
        return file_text(summary) if summary else source.summary
    if source.kind == MODULE_SUMMARY:
        module = library.hierarchy.modules.get(source.symbol) if library.hierarchy else None
        return module_text(module) if module else source.summary
    document = library.document(source.id)
    if document is None:
        return source.summary
    definition = library.definition(source.id)
    lines = (definition.source if definition else document.chunk.content).splitlines()
    excerpt = "\n".join(lines[:EXCERPT_LINES]) + ("\n…" if len(lines) > EXCERPT_LINES else "")
    return chunk_text(document) + "\n" + excerpt
