"""Grounding: every name and every claim a model writes into a page is checked against the index.

How a model cites. A writer numbers each piece of context it shows the model — `[S1]` the
system summary, `[M2]` a module, `[F3]` a file, `[C4]` a chunk, `[E5]` a piece of decision
evidence, `[P6]` a measured fact — and asks for those ids in square brackets after every
statement, and for every file path, module or symbol name in backticks. `ground()` then
turns the model's text into segments that the renderer links:

- a citation of a known id becomes a link to its source: for a chunk, the file page's
  anchor, labelled with the path and line range; an id the context never gave is dropped
  and counted;
- every name in backticks, and every word outside them that can only be code
  (`snake_case`, `lowerCamel`, `call()`, `path/with.ext`, `Known.member`), is looked up
  among the chunks' qualified names, the file paths and the module names. A name found
  there links to its page; a name that the code or the context itself contains (a field,
  a package, a callee) stays plain code; any other name is kept but flagged, visibly on
  the page, and counted.

Segments are small records, stored with the page's record (serial.py tells them apart by
their first key) and rendered by `render.grounded_markdown`:

    TextSegment      {"text": str}                    prose
    NameSegment      {"code": str, "link": Link}      a name that links to its page
                     {"code": str}                    a name the code or the context holds
                     {"code": str, "flagged": true}   a name the index does not know
    Citation         {"cite": Link}                   a statement's source

The numbered sources live in sources.py, the name index in names.py, and links (the only
place that knows the site's page addresses) in links.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.serial import OMIT_DEFAULT, json_name
from .links import Link
from .names import NameIndex, normalise_name
from .sources import CITATION, CITED_ID, SourceBook

MAX_NAME_CHARS = 160
BACKTICKED = re.compile(r"`([^`\n]+)`")
CODE_WORD = re.compile(
    r"(?<![\w./-])(?:"
    r"[A-Za-z_][\w-]*(?:/[\w.-]+)+\.[A-Za-z][A-Za-z0-9]{0,7}"  # a path with a directory and an extension
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?"  # dotted.name, dotted.call()
    r"|[A-Za-z_]\w*\(\)"  # call()
    r"|_*[A-Za-z][A-Za-z0-9]*_\w+"  # snake_case
    r"|[a-z][a-z0-9]*[A-Z]\w*"  # lowerCamel
    r")(?![\w/])",
    re.ASCII,
)
"""Words outside backticks that can only be code; ASCII so that Japanese text bounds them."""
SEGMENT = re.compile(f"{CITATION.pattern}|{BACKTICKED.pattern}|{CODE_WORD.pattern}", re.ASCII)
NAME_SHAPE = re.compile(r"^[A-Za-z_$.][\w$.:/#@<>\-–]*$", re.ASCII)
"""What a backticked span must look like to be a name (not an expression or a command)."""


@dataclass(frozen=True)
class TextSegment:
    """Prose, as the model wrote it."""

    text: str


@dataclass(frozen=True)
class NameSegment:
    """A name the model wrote as code: linked to its page, plain, or flagged as unknown."""

    code: str
    link: Link | None = field(default=None, metadata={OMIT_DEFAULT: True})
    flagged: bool = field(default=False, metadata={OMIT_DEFAULT: True})


@dataclass(frozen=True)
class Citation:
    """A statement's source, cited by the id the model was shown."""

    link: Link = field(metadata=json_name("cite"))


Segment = TextSegment | NameSegment | Citation
Grounded = list[Segment]
"""A text the model wrote, grounded."""


@dataclass
class GroundingReport:
    """What grounding did to one page: counted for the build summary and shown on the page."""

    citations: int = 0
    dropped_citations: list[str] = field(default_factory=list)
    """Ids the model cited that its context never gave."""
    linked_names: int = 0
    flagged_names: list[str] = field(default_factory=list)
    """Names that exist nowhere in the index, the code or the context: kept, flagged."""
    uncited_statements: int = 0


@dataclass
class Grounder:
    """Grounds the texts of one page against one index and one prompt's sources."""

    names: NameIndex
    book: SourceBook
    report: GroundingReport = field(default_factory=GroundingReport)

    def ground(self, text: str, statement: bool = True) -> Grounded:
        """Segments of `text`; `statement` counts it as uncited when it cites nothing."""
        segments: Grounded = []
        cited = [link for source_id in self.book.cited_ids(text) for link in self.book.links(source_id)]
        position = 0
        for match in SEGMENT.finditer(text):
            _append_text(segments, text[position : match.start()])
            position = match.end()
            if match.group(1) is not None:
                segments.extend(self._citations(match.group(1)))
            elif match.group(2) is not None:
                segments.append(self._name(match.group(2), cited, backticked=True))
            else:
                segments.append(self._name(match.group(0), cited, backticked=False))
        _append_text(segments, text[position:])
        if statement and text.strip() and not any(isinstance(s, Citation) for s in segments):
            self.report.uncited_statements += 1
        return _tidy(segments)

    def _citations(self, group: str) -> list[Citation]:
        segments = []
        for source_id in CITED_ID.findall(group):
            links = self.book.links(source_id)
            if source_id not in self.book.sources:
                self.report.dropped_citations.append(source_id)
                continue
            for link in links:
                self.report.citations += 1
                segments.append(Citation(link))
        return segments

    def _name(self, raw: str, cited: list[Link], backticked: bool) -> Segment:
        if len(raw) > MAX_NAME_CHARS or not NAME_SHAPE.match(normalise_name(raw)) or raw.strip().startswith("-"):
            return NameSegment(raw) if backticked else TextSegment(raw)
        resolution = self.names.resolve(raw, cited, self.book.quoted_names)
        if resolution.link is not None:
            self.report.linked_names += 1
            return NameSegment(raw.strip(), resolution.link)
        if resolution.kind == "code":
            return NameSegment(raw.strip()) if backticked else TextSegment(raw)
        if not backticked and "." in raw and "/" not in raw and not self._looks_like_code(raw):
            return TextSegment(raw)  # `Node.js`, `e.g`: dotted words that are not claims about this code
        self.report.flagged_names.append(normalise_name(raw))
        return NameSegment(raw.strip(), flagged=True)

    def _looks_like_code(self, word: str) -> bool:
        parts = normalise_name(word).split(".")
        return word.endswith("()") or any("_" in p or re.match(r"[a-z]+[A-Z]", p) for p in parts) or (
            parts[0] in self.names.symbols or parts[0] in self.names.modules
        )


def _append_text(segments: Grounded, text: str) -> None:
    if text:
        segments.append(TextSegment(text))


def _tidy(segments: Grounded) -> Grounded:
    """Adjacent text merged; a citation takes the space before it, so it sits on its sentence."""
    tidy: Grounded = []
    for segment in segments:
        previous = tidy[-1] if tidy else None
        if isinstance(segment, TextSegment) and isinstance(previous, TextSegment):
            tidy[-1] = TextSegment(previous.text + segment.text)
        else:
            tidy.append(segment)
    for index, segment in enumerate(tidy):
        if isinstance(segment, TextSegment) and index + 1 < len(tidy) and isinstance(tidy[index + 1], Citation):
            tidy[index] = TextSegment(segment.text.rstrip())
    return [s for s in tidy if not isinstance(s, TextSegment) or s.text]


def plain_text(segments: Grounded) -> str:
    """The segments as text without links or citations (for titles, and for tests)."""
    return "".join(s.text if isinstance(s, TextSegment) else s.code if isinstance(s, NameSegment) else "" for s in segments)