"""The numbered sources of one prompt (`[S1]` system, `[M2]` module, `[F3]` file, `[C4]` chunk,
and the writers' own prefixes): what the prompt shows for each id and where a citation of it links."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from ..core.records import Document, FileSummary, ModuleSummary, SystemSummary
from .links import Link, chunk_link, file_link, module_link, system_link
from .names import normalise_name

CITATION = re.compile(r"[\[［【]\s*([A-Z]\d{1,5}(?:\s*[,，、;]\s*[A-Z]\d{1,5})*)\s*[\]］】]")
"""`[C3]`, `[C3, F1]`, and the full-width brackets a Japanese reply may use."""
CITED_ID = re.compile(r"[A-Z]\d{1,5}")


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
        return self.add("S", system_text(system), [system_link()])

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

