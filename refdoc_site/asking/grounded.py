"""The model's answer to a question, streamed and grounded.

The context is numbered as the written pages number theirs (`writing/sources.py`): `[C1]` a
chunk, `[F2]` a file summary, `[M3]` a module summary. The model is asked to end every
statement with those ids and to write code names in backticks. Its reply is then checked:

- a cited id of the context becomes the source's `[path:start-end](url)` link; an id the
  context never gave is kept, marked `⚠`, and listed in `flagged`;
- a `path:line` or `path:start-end` the model wrote itself links to the context's chunk
  whose lines it overlaps, or, when no chunk of the context does (a file summary shows no
  lines), is marked and flagged;
- names go through the written pages' grounding (`writing/grounding.py`): a name the index
  knows links to its page, one it knows nowhere is marked and flagged.

While the reply streams, each citation is rewritten as soon as its closing bracket arrives,
so what `on_text` receives reads as the final answer does (names are checked at the end).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..core.pages import page_url
from ..llm.session import LlmSession
from ..writing.grounding import Grounder, NameSegment, TextSegment
from ..writing.links import Link, chunk_link, file_link, module_link
from ..writing.names import normalise_name
from ..writing.sources import CITATION, CITED_ID, SourceBook
from ..writing.writers import LANGUAGE_NAMES, prompts
from .library import Library
from .records import FILE_SUMMARY, MODULE_SUMMARY, Answer, Source, Turn
from .retrieval import prompt_text

FLAG = "⚠"
PATH_CITATION = re.compile(
    r"`?(?P<path>[\w.-]+(?:/[\w.-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}):L?(?P<start>\d+)(?:\s*[-–]\s*L?(?P<end>\d+))?`?"
)
"""`src/app.py:12`, `src/app.py:12-30`, in backticks or not: a place the model cites itself."""
CITED = re.compile(f"{CITATION.pattern}|{PATH_CITATION.pattern}")
HELD_BACK = 120
"""Characters a stream holds back while a citation may still be open (an unclosed `[`)."""
MAX_HISTORY_TURNS = 6
"""Earlier turns of a conversation passed to the model, the latest kept."""
MAX_HISTORY_ANSWER_CHARS = 2000
ANSWER_TOKENS = 700
"""What an answer is expected to cost, for the session's budget."""


class Citations:
    """The context's ids and places, and what an answer cited or flagged."""

    def __init__(self, library: Library, sources: Sequence[Source]) -> None:
        self.library = library
        self.book = SourceBook()
        self.by_id: dict[str, Source] = {}
        for source in sources:
            prefix, link = self._prefix_and_link(source)
            self.by_id[self.book.add(prefix, prompt_text(library, source), [link])] = source
        self.cited: list[str] = []
        self.flagged: list[str] = []

    def _prefix_and_link(self, source: Source) -> tuple[str, Link]:
        if source.kind == FILE_SUMMARY:
            return "F", file_link(source.path)
        if source.kind == MODULE_SUMMARY:
            return "M", module_link(source.symbol)
        document = self.library.document(source.id)
        return "C", chunk_link(document) if document else Link(source.label)

    def rewrite(self, match: re.Match) -> str:
        """One citation as the answer shows it: links to the context, or marked."""
        if match.group(1) is not None:
            parts = []
            for source_id in CITED_ID.findall(match.group(1)):
                source = self.by_id.get(source_id)
                if source is None:
                    self._flag(f"[{source_id}]")
                    parts.append(f"[{source_id}] {FLAG}")
                else:
                    self._cite(source)
                    parts.append(source.citation())
            return "(" + ", ".join(parts) + ")"
        path, start = match.group("path"), int(match.group("start"))
        end = int(match.group("end") or start)
        holding = [s for s in self.by_id.values() if s.path == path and s.start_line and s.start_line <= end and start <= s.end_line]
        label = f"{path}:{start}" + (f"-{end}" if end != start else "")
        if not holding:
            self._flag(label)
            return f"`{label}` {FLAG}"
        source = min(holding, key=lambda s: s.end_line - s.start_line)
        self._cite(source)
        return f"[{label}]({source.url})"

    def _cite(self, source: Source) -> None:
        if source.id not in self.cited:
            self.cited.append(source.id)

    def _flag(self, what: str) -> None:
        if what not in self.flagged:
            self.flagged.append(what)


class CitationStream:
    """Feeds the model's pieces through, each citation rewritten once it is complete."""

    def __init__(self, rewrite: Callable[[str], str], emit: Callable[[str], None]) -> None:
        self.rewrite = rewrite
        self.emit = emit
        self.pending = ""

    def feed(self, piece: str) -> None:
        self.pending += piece
        cut = self._safe_end(self.pending)
        if cut:
            self._send(self.pending[:cut])
            self.pending = self.pending[cut:]

    def close(self) -> None:
        if self.pending:
            self._send(self.pending)
            self.pending = ""

    def _send(self, text: str) -> None:
        rewritten = self.rewrite(text)
        if rewritten:
            self.emit(rewritten)

    @staticmethod
    def _safe_end(text: str) -> int:
        """How much of `text` can go now: up to an unclosed bracket or the word in progress."""
        opening = max(text.rfind("["), text.rfind("［"), text.rfind("【"))
        closing = re.search(r"[\]］】]", text[opening:]) if opening >= 0 else None
        if opening >= 0 and closing is None and len(text) - opening < HELD_BACK:
            return opening
        space = max(text.rfind(" "), text.rfind("\n"))
        after_closing = opening + closing.end() if closing else 0
        return max(space + 1, after_closing)


def model_answer(
    question: str, library: Library, llm: LlmSession, sources: Sequence[Source],
    history: Sequence[Turn], emit: Callable[[str], None],
) -> Answer | None:
    """The model's grounded answer from `sources`, streamed through `emit`; None when its
    call failed (the session counted why)."""
    citations = Citations(library, sources)
    messages = ask_messages(question, citations.book, history, llm.language)
    live = Citations(library, sources)
    stream = CitationStream(lambda text: CITED.sub(live.rewrite, text), emit)
    raw = llm.complete_text("ask", messages, model=llm.doc_model, expect_tokens=ANSWER_TOKENS, on_text=stream.feed)
    if raw is None:
        return None
    stream.close()
    text = grounded_text(raw, citations, library, question)
    return Answer(question, text, "llm", list(sources), citations.cited, citations.flagged)


def ask_messages(question: str, book: SourceBook, history: Sequence[Turn], language: str) -> list[dict]:
    """The system rules, the conversation so far, then the question with its sources."""
    system = prompts()["ask"]["system"].replace("{language}", LANGUAGE_NAMES.get(language, LANGUAGE_NAMES["en"]))
    messages = [{"role": "system", "content": system}]
    for turn in list(history)[-MAX_HISTORY_TURNS:]:
        messages.append({"role": "user", "content": turn.question})
        messages.append({"role": "assistant", "content": turn.answer[:MAX_HISTORY_ANSWER_CHARS]})
    messages.append({"role": "user", "content": f"Question: {question}\n\nSources:\n{book.block()}"})
    return messages


def grounded_text(raw: str, citations: Citations, library: Library, question: str) -> str:
    """The reply as Markdown: citations linked or marked, names linked, unknown names marked."""
    citations.book.quoted.append(question)
    grounder = Grounder(library.names, citations.book)
    out: list[str] = []
    position = 0
    for match in CITED.finditer(raw):
        out.append(_names(raw[position : match.start()], grounder, citations))
        out.append(citations.rewrite(match))
        position = match.end()
    out.append(_names(raw[position:], grounder, citations))
    return "".join(out).strip() + "\n"


def _names(text: str, grounder: Grounder, citations: Citations) -> str:
    out = []
    for segment in grounder.ground(text, statement=False):
        if isinstance(segment, TextSegment):
            out.append(segment.text)
        elif isinstance(segment, NameSegment):
            if segment.link is not None and segment.link.page:
                url = page_url(segment.link.page) + (f"#{segment.link.anchor}" if segment.link.anchor else "")
                out.append(f"[`{segment.code}`]({url})")
            elif segment.flagged:
                citations._flag(normalise_name(segment.code))
                out.append(f"`{segment.code}` {FLAG}")
            else:
                out.append(f"`{segment.code}`")
    return "".join(out)
