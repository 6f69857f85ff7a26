"""The name index: what a name a model wrote is in this repository (a chunk, a file, a module,
a code word) or that it is nowhere, so `grounding.Grounder` can link it or flag it."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from ..core.records import ChunkKind, Document, Hierarchy
from .links import Link, chunk_link, file_link, module_link

DEFINITION_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS})
AT_LINE = re.compile(r"^(.+?)(?::|#L)(\d+)(?:[-–]L?\d+)?$")
"""A path with a line or a line range: `app/x.py:12`, `app/x.py:12-30`, `app/x.py#L12`."""
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$-]*", re.ASCII)
LITERALS = frozenset(
    "None True False null nil undefined true false self this cls super NaN async await "
    "return yield import export const let var def class function fn func struct enum "
    "interface type impl trait pub static void int str bool float dict list".split()
)
"""Words of the languages themselves: never the index's to know."""


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
            link = chunk_link(document)
            if (link.page, link.anchor) in preferred:
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

