"""Context assembly: what the doc model reads, numbered for citation, within a token budget.

Every writer shows the model a `SourceBook` (grounding.py): the system summary first, then
what the page is about. For a plan (`refdoc-site plan "QUERY"`) the hybrid search — the
same ranking as `refdoc-site query` — picks the top chunks, and the hierarchy frames them:
the system, then the modules those chunks live in, then their files, then the chunks
themselves in rank order, with as much of their code as the budget leaves room for.
Tokens are counted as the rest of refdoc-site counts them (tokens.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.findings import Decision, Milestone
from ..core.records import Document, Hierarchy
from ..core.tokens import count_tokens
from ..search.ranking import Hit, QueryEmbedder, SearchIndex
from ..understanding.orientation import Orientation
from .links import evidence_link, file_link, module_link
from .sources import SourceBook, chunk_text, file_text, module_text, system_text

PLAN_TOP_CHUNKS = 20
PLAN_BUDGET = 6000
"""Tokens of context in a plan prompt (the doc model reads far more; cost grows with it)."""
EXCERPT_LINES = 30
"""Lines of code shown per chunk, when the budget leaves room after every summary."""
DECISIONS_BUDGET = 5000
MILESTONES_BUDGET = 4000
OVERVIEW_BUDGET = 5000
OVERVIEW_PARTS = 12
OVERVIEW_FLOWS = 3
OVERVIEW_GUIDES = 6


@dataclass
class PlanContext:
    """The numbered context of one plan prompt and what it was drawn from."""

    query: str
    search_text: str
    """What was searched: the query, plus its expansion when an LLM expanded it."""
    book: SourceBook
    hits: list[Hit]
    chunks: list[Document] = field(default_factory=list)
    """The chunks shown, in rank order."""
    modules: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    left_out: int = 0
    """Hits the budget had no room for."""
    tokens: int = 0


def plan_context(
    query: str,
    documents: list[Document],
    hierarchy: Hierarchy,
    search_index: SearchIndex,
    embedder: QueryEmbedder | None,
    *,
    expansion: list[str] | None = None,
    top: int = PLAN_TOP_CHUNKS,
    budget: int = PLAN_BUDGET,
) -> PlanContext:
    """The system, the relevant modules, their files and the top chunks, within `budget` tokens."""
    search_text = " ".join([query, *(expansion or [])])
    hits = search_index.search(search_text, top, "fused", embedder)
    by_id = {d.chunk.id: d for d in documents}
    used = count_tokens(system_text(hierarchy.system))
    context = PlanContext(query, search_text, SourceBook(quoted=[query]), hits)
    for hit in hits:
        document = by_id.get(hit.chunk_id)
        if document is None:
            continue
        path = document.chunk.path
        module = hierarchy.files[path].module if path in hierarchy.files else ""
        cost = count_tokens(chunk_text(document))
        if module and module not in context.modules:
            cost += count_tokens(module_text(hierarchy.modules[module]))
        if path in hierarchy.files and path not in context.files:
            cost += count_tokens(file_text(hierarchy.files[path]))
        if used + cost > budget:
            context.left_out += 1
            continue
        used += cost
        context.chunks.append(document)
        if module and module not in context.modules:
            context.modules.append(module)
        if path in hierarchy.files and path not in context.files:
            context.files.append(path)
    excerpts: dict[str, str] = {}
    for document in context.chunks:
        excerpt = code_excerpt(document)
        cost = count_tokens(excerpt)
        if excerpt and used + cost <= budget:
            excerpts[document.chunk.id] = excerpt
            used += cost
    book = context.book
    book.add_system(hierarchy.system)
    for module in context.modules:
        book.add_module(hierarchy.modules[module])
    for path in context.files:
        book.add_file(hierarchy.files[path])
    for document in context.chunks:
        book.add_chunk(document, excerpts.get(document.chunk.id, ""))
    context.tokens = used
    return context


def code_excerpt(document: Document, lines: int = EXCERPT_LINES) -> str:
    """The first lines of a chunk's code, marked when cut."""
    content = document.chunk.content.rstrip("\n").splitlines()
    if not any(line.strip() for line in content):
        return ""
    shown = content[:lines]
    if len(content) > lines:
        shown.append(f"… ({len(content) - lines} more lines)")
    return "\n".join(shown)


def decisions_context(decisions: list[Decision], hierarchy: Hierarchy, budget: int = DECISIONS_BUDGET) -> SourceBook:
    """The system, each piece of decision evidence (`E`), then the largest modules that fit."""
    book = SourceBook()
    book.add_system(hierarchy.system)
    used = count_tokens(system_text(hierarchy.system))
    for entry in decisions:
        text = evidence_text(entry)
        cost = count_tokens(text)
        if used + cost > budget:
            break
        used += cost
        book.add("E", text, [evidence_link(item) for item in entry.evidence])
    for module in sorted(hierarchy.modules.values(), key=lambda m: (-m.lines, m.name)):
        cost = count_tokens(module_text(module))
        if used + cost > budget:
            break
        used += cost
        book.add_module(module)
    return book


def evidence_text(entry: Decision) -> str:
    """One decision entry the offline build found, as a prompt line."""
    fields = [f"{entry.kind.value}: {entry.title}."]
    for name in ("status", "context", "decision", "consequences"):
        if getattr(entry, name):
            fields.append(f"{name.capitalize()}: {getattr(entry, name)}")
    labels = [item.label for item in entry.evidence]
    if labels:
        fields.append(f"Evidence: {'; '.join(labels)}.")
    return " ".join(fields)


@dataclass
class MilestoneFacts:
    """The measured facts of the offline plan, numbered (`P`), grouped by their phase."""

    book: SourceBook
    phases: list[tuple[str, str, list[str]]]
    """(title, goal, fact ids) per offline phase."""


def milestones_context(milestones: list[Milestone], hierarchy: Hierarchy, budget: int = MILESTONES_BUDGET) -> MilestoneFacts:
    """The system, then every measured fact (`P`) under its phase, then the modules they name."""
    book = SourceBook()
    book.add_system(hierarchy.system)
    used = count_tokens(system_text(hierarchy.system))
    phases = []
    named_modules: list[str] = []
    for phase in milestones:
        ids = []
        used += count_tokens(phase.title + " " + phase.goal)
        book.quoted.append(f"{phase.title} {phase.goal}")
        for item in phase.items:
            text = f"{item.label}: {item.text}"
            cost = count_tokens(text)
            if used + cost > budget:
                continue
            used += cost
            ids.append(book.add("P", text, [evidence_link(item)]))
            module = item.module or (hierarchy.files[item.path].module if item.path in hierarchy.files else "")
            if module and module not in named_modules:
                named_modules.append(module)
        phases.append((phase.title, phase.goal, ids))
    for module in (m for m in named_modules if m in hierarchy.modules):
        cost = count_tokens(module_text(hierarchy.modules[module]))
        if used + cost <= budget:
            used += cost
            book.add_module(hierarchy.modules[module])
    return MilestoneFacts(book, phases)


def overview_context(
    orientation: Orientation, hierarchy: Hierarchy, by_id: dict[str, Document], budget: int = OVERVIEW_BUDGET
) -> SourceBook:
    """The overview's own facts, numbered for the model: the system (S); what the repository
    says it is — its declared description, its README's opening, its design docs (D); its
    own parts (M); each main flow (W) and the definitions it goes through, then the central
    abstractions (C); its guides (G). Added in that order while `budget` tokens last."""
    book = SourceBook()
    spent = 0
    shown: set[str] = set()

    def add(prefix: str, text: str, links=(), document: Document | None = None) -> None:
        nonlocal spent
        cost = count_tokens(text)
        if spent + cost > budget:
            return
        spent += cost
        if document is None:
            book.add(prefix, text, links)
        else:
            book.add_chunk(document)

    def add_definition(chunk_id: str) -> None:
        document = by_id.get(chunk_id)
        if document is not None and chunk_id not in shown:
            shown.add(chunk_id)
            add("C", chunk_text(document), document=document)

    add("S", system_text(hierarchy.system), [])
    if orientation.description:
        add("D", f"Declared description of the package: {orientation.description}")
    for quote in [q for q in (orientation.readme, *orientation.design) if q is not None]:
        add("D", f"Document `{quote.path}` ({quote.title}): {quote.text}", [file_link(quote.path)])
    for part in [p for p in orientation.components if p.kind == "source"][:OVERVIEW_PARTS]:
        module = hierarchy.modules.get(part.name)
        said = part.quote or (module.text if module else "")
        names = f" Main names: {', '.join(f'`{n}`' for n in part.names)}." if part.names else ""
        size = f"{part.files} file{'s' if part.files != 1 else ''}, {part.lines} lines"
        add("M", f"Module `{part.name}` ({size}): {said}{names}", [module_link(part.name)])
    for flow in orientation.flows[:OVERVIEW_FLOWS]:
        entry = flow.entry.definition
        steps = " → ".join(f"`{step.definition.symbol}`" for step in flow.steps)
        add("W", f"A flow from the entry point `{entry.symbol}` in `{entry.path}` ({flow.entry.kind.value}"
                 f"{': ' + flow.entry.label if flow.entry.label else ''}), through the calls: {steps}", [file_link(entry.path)])
        for step in flow.steps:
            add_definition(step.definition.chunk_id)
    for abstraction in orientation.abstractions:
        add_definition(abstraction.definition.chunk_id)
    quoted = {q.path for q in (orientation.readme, *orientation.design) if q is not None}
    for guide in [g for g in orientation.guides if g.path not in quoted][:OVERVIEW_GUIDES]:
        add("G", f"Guide `{guide.path}` ({guide.title}){': ' + guide.text if guide.text else ''}", [file_link(guide.path)])
    return book
