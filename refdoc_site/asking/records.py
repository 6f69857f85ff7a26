"""The asking stage's records: a source passed to the answer, the answer, a conversation's turn.

`answer.py` re-exports them; `serve` and `mcp` read them through `Answer.to_dict()`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..core.text import markdown_line

MODES = ("llm", "extractive", "not_found")
FILE_SUMMARY = "file summary"
MODULE_SUMMARY = "module summary"
"""The kind (and reason) of a source that is a file's or a module's summary, not a chunk (a
chunk's kind `module` is a file's top-level code)."""


@dataclass(frozen=True)
class Source:
    """One piece of the context an answer is made from."""

    id: str
    """A chunk's definition id (`path#Qualified.name`), `file:PATH` or `module:NAME`."""
    path: str
    start_line: int
    end_line: int
    symbol: str
    kind: str
    """A chunk's kind (`function`, `section`, `module`: a file's top-level code, …), or
    `file summary` / `module summary`."""
    score: float
    """The fused search score for a retrieved chunk; 0 for one the graph added."""
    summary: str
    reason: str
    """`retrieved`, `caller of ID`, `callee of ID`, `file summary` or `module summary`."""
    url: str
    """Site-relative URL of its section or page."""

    @property
    def label(self) -> str:
        """`path:start-end` (a summary's: its path or module name)."""
        if self.start_line:
            return f"{self.path}:{self.start_line}-{self.end_line}"
        return self.path or self.symbol

    def citation(self) -> str:
        """The Markdown link an answer cites it with; the label is the repository's text,
        so it stays one line of text (a path may hold a newline, `<img …>` or `](`)."""
        return f"[{markdown_line(self.label)}]({self.url})"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Answer:
    question: str
    text: str
    """Markdown; citations as `[path:start-end](url)`, a flagged one marked visibly."""
    mode: str
    """`llm`, `extractive` or `not_found`."""
    sources: list[Source] = field(default_factory=list)
    """The context passed (for an extractive answer, the results shown)."""
    cited: list[str] = field(default_factory=list)
    """Ids of `sources` the text cites."""
    flagged: list[str] = field(default_factory=list)
    """Citations and paths the text gives that are not in the context."""
    notice: str = ""
    """Why the answer is not the model's when one was asked for (its call failed), else ""."""

    def to_dict(self) -> dict:
        """JSON-ready: what `ask --json`, `serve` and `mcp` return."""
        return asdict(self)


@dataclass(frozen=True)
class Turn:
    """One exchange of a conversation, as the next question's history carries it."""

    question: str
    answer: str

    def to_dict(self) -> dict:
        return {"question": self.question, "answer": self.answer}
