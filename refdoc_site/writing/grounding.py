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
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import cached_property

from ..core.records import ChunkKind, Document, FileSummary, Hierarchy, ModuleSummary, SystemSummary
from ..core.pages import SYSTEM_PAGE, chunk_anchor, file_page, module_page

MAX_NAME_CHARS = 160
DEFINITION_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS})

CITATION = re.compile(r"[\[［【]\s*([A-Z]\d{1,5}(?:\s*[,，、;]\s*[A-Z]\d{1,5})*)\s*[\]］】]")
"""`[C3]`, `[C3, F1]`, and the full-width brackets a Japanese reply may use."""
CITED_ID = re.compile(r"[A-Z]\d{1,5}")
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
AT_LINE = re.compile(r"^(.+?)(?::|#L)(\d+)(?:[-–]L?\d+)?$")
"""A path with a line or a line range: `app/x.py:12`, `app/x.py:12-30`, `app/x.py#L12`."""
NAME_SHAPE = re.compile(r"^[A-Za-z_$.][\w$.:/#@<>\-–]*$", re.ASCII)
"""What a backticked span must look like to be a name (not an expression or a command)."""
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$-]*", re.ASCII)
LITERALS = frozenset(
    "None True False null nil undefined true false self this cls super NaN async await "
    "return yield import export const let var def class function fn func struct enum "
    "interface type impl trait pub static void int str bool float dict list".split()
)
"""Words of the languages themselves: never the index's to know."""


@dataclass(frozen=True)
class Link:
    """Where a citation or a name points: a page of the site, an anchor on it, and what to show."""

    label: str
    page: str = ""
    """Docs-relative page (`files/app/x.py.md`), or "" when the source has no page (a commit)."""
    anchor: str = ""

    def to_dict(self) -> dict:
        return {"label": self.label, "page": self.page, "anchor": self.anchor}

    @classmethod
    def from_dict(cls, data: dict) -> Link:
        return cls(data["label"], data.get("page", ""), data.get("anchor", ""))


def chunk_link(document: Document) -> Link:
    chunk = document.chunk
    return Link(f"{chunk.path}:{chunk.start_line}–{chunk.end_line}", file_page(chunk.path), chunk_anchor(chunk.symbol, chunk.part))


def file_link(path: str) -> Link:
    return Link(path, file_page(path))


def module_link(name: str) -> Link:
    return Link(name, module_page(name))


def evidence_link(item: dict) -> Link:
    """An offline evidence or plan item (`label`, `path`, `anchor`, `module`) as a link."""
    if item.get("path"):
        return Link(item["label"], file_page(item["path"]), item.get("anchor", ""))
    if item.get("module"):
        return Link(item["label"], module_page(item["module"]))
    return Link(item["label"])


@dataclass
class Source:
    id: str
    text: str
    """What the prompt shows for this source."""
    links: tuple[Link, ...]


@dataclass
class SourceBook:
    """The numbered context of one prompt: ids → what they stand for and where they link."""

    sources: dict[str, Source] = field(default_factory=dict)
    quoted: list[str] = field(default_factory=list)
    """Other text the model was shown (a question, facts without an id): its names are real."""
    _counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, prefix: str, text: str, links: Iterable[Link] = ()) -> str:
        self._counts[prefix] += 1
        source_id = f"{prefix}{self._counts[prefix]}"
        first, newline, rest = text.partition("\n")
        self.sources[source_id] = Source(source_id, " ".join(first.split()) + newline + rest, tuple(links))
        return source_id

    def add_system(self, system: SystemSummary) -> str:
        return self.add("S", system_text(system), [Link("system summary", SYSTEM_PAGE)])

    def add_module(self, module: ModuleSummary) -> str:
        return self.add("M", module_text(module), [module_link(module.name)])

    def add_file(self, summary: FileSummary) -> str:
        return self.add("F", file_text(summary), [file_link(summary.path)])

    def add_chunk(self, document: Document, excerpt: str = "") -> str:
        return self.add("C", chunk_text(document) + (f"\n{excerpt}" if excerpt else ""), [chunk_link(document)])

    def block(self, ids: Iterable[str] | None = None) -> str:
        """The sources (all, or `ids`) as the prompt lists them, a code excerpt indented."""
        lines = []
        for source_id in self.sources if ids is None else ids:
            source = self.sources[source_id]
            first, _, rest = source.text.partition("\n")
            lines.append(f"[{source.id}] {first}")
            if rest:
                lines.extend("    " + line for line in rest.splitlines())
        return "\n".join(lines)

    def cited_ids(self, text: str) -> list[str]:
        """The ids of this book that `text` cites, in order, each once."""
        found = [i for group in CITATION.findall(text) for i in CITED_ID.findall(group)]
        return [i for i in dict.fromkeys(found) if i in self.sources]

    def links(self, source_id: str) -> tuple[Link, ...]:
        source = self.sources.get(source_id)
        return source.links if source else ()

    @cached_property
    def quoted_names(self) -> frozenset[str]:
        """Every name-like word of the context: what the model may repeat without an index entry."""
        text = " ".join([*(s.text for s in self.sources.values()), *self.quoted])
        names: set[str] = set()
        for match in re.finditer(r"[A-Za-z_$][\w$./:#-]*", text, re.ASCII):
            word = normalise_name(match.group(0))
            names.add(word)
            names.update(p for p in re.split(r"[./:#]+", word) if p)
        return frozenset(names)


def system_text(system: SystemSummary) -> str:
    return f"System: {system.text}"


def module_text(module: ModuleSummary) -> str:
    uses = f" Uses: {', '.join(module.depends_on)}." if module.depends_on else ""
    return f"Module `{module.name}`: {module.text}{uses}"


def file_text(summary: FileSummary) -> str:
    return f"File `{summary.path}` ({summary.lines} lines): {summary.text}"


def chunk_text(document: Document) -> str:
    """A chunk as a prompt shows it: kind, name, place, signature and its summary."""
    chunk, summary = document.chunk, document.summary
    parts = [
        f"{chunk.kind.value} `{chunk.symbol}` in `{chunk.path}` lines {chunk.start_line}-{chunk.end_line}:",
        f"`{' '.join(chunk.signature.split())}`." if chunk.signature else "",
        summary.responsibility,
        summary.inputOutput,
        summary.sideEffects,
    ]
    return " ".join(p for p in parts if p)


def normalise_name(raw: str) -> str:
    """A backticked name as the index spells it: `Foo::bar()` → `Foo.bar`, `./app.py` → `app.py`."""
    name = raw.strip().strip(",;:")
    name = re.sub(r"\(.*\)$", "", name)
    name = re.sub(r"#(?!L\d)", ".", name.replace("::", ".").replace("->", "."))
    name = name.removeprefix("./")
    return name.rstrip(".")


@dataclass
class Resolution:
    kind: str
    """`chunk`, `file`, `module` (linked), `code` (exists, no page of its own) or `unknown`."""
    link: Link | None = None


class NameIndex:
    """The names a page may mention: chunks' qualified names, file paths, module names, code words."""

    def __init__(self, documents: list[Document], hierarchy: Hierarchy) -> None:
        self.documents = documents
        self.files = set(hierarchy.files)
        self.modules = set(hierarchy.modules)
        self.symbols: dict[str, list[Document]] = defaultdict(list)
        self.short_names: dict[str, list[Document]] = defaultdict(list)
        for document in sorted(documents, key=lambda d: (d.chunk.path, d.chunk.start_line, d.chunk.part)):
            chunk = document.chunk
            if chunk.kind in DEFINITION_KINDS:
                self.symbols[chunk.symbol].append(document)
                if chunk.name != chunk.symbol:
                    self.short_names[chunk.name].append(document)
        self.basenames: dict[str, list[str]] = defaultdict(list)
        self.dotted_files: dict[str, str] = {}
        for path in sorted(self.files):
            self.basenames[path.rsplit("/", 1)[-1]].append(path)
            stem = path.rsplit(".", 1)[0]
            self.dotted_files.setdefault(stem.replace("/", "."), path)

    @cached_property
    def code_words(self) -> frozenset[str]:
        """Every identifier written in the indexed code (fields, constants, callees, locals);
        not the prose of Markdown sections, which may name anything."""
        words: set[str] = set()
        for document in self.documents:
            if document.chunk.kind is ChunkKind.SECTION:
                continue
            words.update(IDENTIFIER.findall(document.chunk.content))
            words.update(IDENTIFIER.findall(document.chunk.signature))
        return frozenset(words)

    def resolve(self, raw: str, prefer: Iterable[Link] = (), quoted: frozenset[str] = frozenset()) -> Resolution:
        """What a name is in this repository; `prefer` breaks ties between same-named chunks."""
        name = normalise_name(raw)
        if not name:
            return Resolution("code")
        if found := self._file(name):
            return Resolution("file", file_link(found))
        if at_line := self._at_line(name):
            return at_line
        if name in self.modules:
            return Resolution("module", module_link(name))
        if found_chunk := self._chunk(name, list(prefer)):
            return Resolution("chunk", chunk_link(found_chunk))
        if member := self._member(name):
            return member
        if name in LITERALS or name in quoted:
            return Resolution("code")
        parts = [p for p in re.split(r"[./]+", name) if p]
        if parts and all(p in self.code_words or p in quoted for p in parts) and not self._known_owner(parts):
            return Resolution("code")
        if any(p[0].isdigit() for p in parts):
            return Resolution("code")  # a version or a protocol (`HTTP/1.1`, `v2.0`), not a name
        return Resolution("unknown")

    def _file(self, name: str) -> str | None:
        if name in self.files:
            return name
        candidates = self.basenames.get(name, [])
        if len(candidates) == 1:
            return candidates[0]
        return self.dotted_files.get(name)

    def _chunk(self, name: str, prefer: list[Link]) -> Document | None:
        candidates = self.symbols.get(name) or []
        if not candidates and "/" in name:  # `app/x.py:Class.method`, `app/x.py#method`
            for path in self.files:
                if name.startswith(path) and name[len(path) : len(path) + 1] in (":", "."):
                    tail = name[len(path) + 1 :].lstrip(":.")
                    candidates = [d for d in self.symbols.get(tail, []) if d.chunk.path == path]
                    break
        if not candidates and "." in name:
            candidates = self._after_module_path(name)
        if not candidates and "." not in name:
            candidates = self.short_names.get(name, [])
        if not candidates:
            return None
        preferred = {(link.page, link.anchor) for link in prefer}
        for document in candidates:
            if (file_page(document.chunk.path), chunk_anchor(document.chunk.symbol, document.chunk.part)) in preferred:
                return document
        return candidates[0]

    def _at_line(self, name: str) -> Resolution | None:
        """`app/x.py:12` or `app/x.py:12-30`: the chunk of that file holding the line, else the file."""
        match = AT_LINE.match(name)
        path = self._file(match.group(1)) if match else None
        if path is None:
            return None
        line = int(match.group(2))
        holding = [
            d for d in self.documents if d.chunk.path == path and d.chunk.start_line <= line <= d.chunk.end_line
        ]
        if not holding:
            return Resolution("file", file_link(path))
        narrowest = min(holding, key=lambda d: (d.chunk.end_line - d.chunk.start_line, d.chunk.part))
        return Resolution("chunk", chunk_link(narrowest))

    def _after_module_path(self, name: str) -> list[Document]:
        """`app.service.OrderService.place` → `OrderService.place` in `app/service.py`;
        `app.OrderService` → `OrderService` in a file under `app/` (a package re-exporting it)."""
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:cut])
            symbol = ".".join(parts[cut:])
            path = self.dotted_files.get(prefix)
            if path is None and cut == 1:
                path = next((p for p in self.basenames.get(parts[0] + ".py", [])), None)
            if path:
                found = [d for d in self.symbols.get(symbol, []) if d.chunk.path == path]
            else:
                directory = prefix.replace(".", "/") + "/"
                found = [d for d in self.symbols.get(symbol, []) if d.chunk.path.startswith(directory)]
            if found:
                return found
        return []

    def _member(self, name: str) -> Resolution | None:
        """`Known.member` where `Known` is a class: the member must be written in its body."""
        owner, _, member = name.rpartition(".")
        if not owner or owner not in self.symbols:
            return None
        classes = [d for d in self.symbols[owner] if d.chunk.kind is ChunkKind.CLASS]
        for document in classes:
            body = [d for d in self.documents if d.chunk.path == document.chunk.path and d.chunk.parent == owner]
            if any(member in IDENTIFIER.findall(d.chunk.content) for d in [document, *body]):
                return Resolution("chunk", chunk_link(document))
        return Resolution("unknown") if classes else None

    def _known_owner(self, parts: list[str]) -> bool:
        """True when a dotted name starts at a class of the index (then `_member` decided)."""
        return len(parts) > 1 and any(
            d.chunk.kind is ChunkKind.CLASS for d in self.symbols.get(".".join(parts[:-1]), [])
        )


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

    def to_dict(self) -> dict:
        return asdict(self)


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
                segments.append({"cite": link.to_dict()})
        return segments

    def _name(self, raw: str, cited: list[Link], backticked: bool) -> dict:
        if len(raw) > MAX_NAME_CHARS or not NAME_SHAPE.match(normalise_name(raw)) or raw.strip().startswith("-"):
            return {"code": raw} if backticked else {"text": raw}
        resolution = self.names.resolve(raw, cited, self.book.quoted_names)
        if resolution.link is not None:
            self.report.linked_names += 1
            return {"code": raw.strip(), "link": resolution.link.to_dict()}
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
