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

Segments are JSON-able dicts, stored with the page's record and rendered by
`render.grounded_markdown`:

    {"text": str}                                  prose
    {"code": str, "link": Link | None}             a name that exists
    {"code": str, "flagged": True}                 a name the index does not know
    {"cite": Link}                                 a statement's source

The numbered sources live in sources.py, the name index in names.py, and links (the only
place that knows the site's page addresses) in links.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.serial import to_json
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

    def ground(self, text: str, statement: bool = True) -> list[dict]:
        """Segments of `text`; `statement` counts it as uncited when it cites nothing."""
        segments: list[dict] = []
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
        if statement and text.strip() and not any("cite" in s for s in segments):
            self.report.uncited_statements += 1
        return _tidy(segments)

    def _citations(self, group: str) -> list[dict]:
        segments = []
        for source_id in CITED_ID.findall(group):
            links = self.book.links(source_id)
            if source_id not in self.book.sources:
                self.report.dropped_citations.append(source_id)
                continue
            for link in links:
                self.report.citations += 1
                segments.append({"cite": to_json(link)})
        return segments

    def _name(self, raw: str, cited: list[Link], backticked: bool) -> dict:
        if len(raw) > MAX_NAME_CHARS or not NAME_SHAPE.match(normalise_name(raw)) or raw.strip().startswith("-"):
            return {"code": raw} if backticked else {"text": raw}
        resolution = self.names.resolve(raw, cited, self.book.quoted_names)
        if resolution.link is not None:
            self.report.linked_names += 1
            return {"code": raw.strip(), "link": to_json(resolution.link)}
        if resolution.kind == "code":
            return {"code": raw.strip()} if backticked else {"text": raw}
        if not backticked and "." in raw and "/" not in raw and not self._looks_like_code(raw):
            return {"text": raw}  # `Node.js`, `e.g`: dotted words that are not claims about this code
        self.report.flagged_names.append(normalise_name(raw))
        return {"code": raw.strip(), "flagged": True}

    def _looks_like_code(self, word: str) -> bool:
        parts = normalise_name(word).split(".")
        return word.endswith("()") or any("_" in p or re.match(r"[a-z]+[A-Z]", p) for p in parts) or (
            parts[0] in self.names.symbols or parts[0] in self.names.modules
        )


def _append_text(segments: list[dict], text: str) -> None:
    if text:
        segments.append({"text": text})


def _tidy(segments: list[dict]) -> list[dict]:
    """Adjacent text merged; a citation takes the space before it, so it sits on its sentence."""
    tidy: list[dict] = []
    for segment in segments:
        if "text" in segment and tidy and "text" in tidy[-1]:
            tidy[-1] = {"text": tidy[-1]["text"] + segment["text"]}
        else:
            tidy.append(segment)
    for index, segment in enumerate(tidy):
        if "text" in segment and index + 1 < len(tidy) and "cite" in tidy[index + 1]:
            tidy[index] = {"text": segment["text"].rstrip()}
    return [s for s in tidy if "text" not in s or s["text"]]


def plain_text(segments: list[dict]) -> str:
    """The segments as text without links or citations (for titles, and for tests)."""
    return "".join(s.get("text", s.get("code", "")) for s in segments)