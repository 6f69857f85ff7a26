"""Chunks of files chunked without a grammar: Markdown by headings, everything else in
token windows.

Also where `chunk.py` sends a file whose grammar is missing or too costly to parse. A
section or file longer than the language's window size becomes overlapping windows.
"""

from __future__ import annotations

import re

from ..core.config import ChunkSettings
from ..core.records import Chunk, ChunkKind, SourceFile
from ..core.tokens import count_tokens, windows
from ..languages import LanguageSpec

HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")


def chunk_document(
    source: SourceFile, spec: LanguageSpec, lines: list[str], settings: ChunkSettings
) -> list[Chunk]:
    """Markdown split at headings (outside code fences), each section windowed if long."""
    sections: list[tuple[int, str, int]] = []  # (start row, heading path, level)
    trail: list[tuple[int, str]] = []
    in_fence = False
    for row, line in enumerate(lines):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else HEADING_RE.match(line)
        if match:
            level, title = len(match.group(1)), match.group(2).strip()
            trail = [(lvl, t) for lvl, t in trail if lvl < level] + [(level, title)]
            sections.append((row, " > ".join(t for _, t in trail), level))
    if not sections or sections[0][0] > 0:
        sections.insert(0, (0, "", 0))
    chunks: list[Chunk] = []
    for index, (start, heading, _level) in enumerate(sections):
        end = sections[index + 1][0] - 1 if index + 1 < len(sections) else len(lines) - 1
        symbol = heading or source.path.rsplit("/", 1)[-1]
        chunks += windowed(source, spec, lines, start, end, settings, ChunkKind.SECTION, symbol)
    return chunks


def window_chunks(
    source: SourceFile, lines: list[str], settings: ChunkSettings, spec: LanguageSpec
) -> list[Chunk]:
    name = source.path.rsplit("/", 1)[-1]
    return windowed(source, spec, lines, 0, len(lines) - 1, settings, ChunkKind.WINDOW, name)


def windowed(
    source: SourceFile,
    spec: LanguageSpec,
    lines: list[str],
    first_row: int,
    last_row: int,
    settings: ChunkSettings,
    kind: ChunkKind,
    symbol: str,
) -> list[Chunk]:
    """Rows first_row..last_row as one chunk, or as overlapping windows when too long."""
    body = lines[first_row : last_row + 1]
    if not any(line.strip() for line in body):
        return []
    size, overlap = settings.for_language(spec)
    spans = windows(body, size, overlap)
    chunks = []
    for part, (first, last) in enumerate(spans, start=1 if len(spans) > 1 else 0):
        text = "\n".join(body[first : last + 1])
        start_line, end_line = first_row + first + 1, first_row + last + 1
        signature = symbol if kind is ChunkKind.SECTION else f"{symbol} lines {start_line}–{end_line}"
        chunks.append(
            Chunk(
                id="",
                path=source.path,
                language=spec.name,
                kind=kind,
                name=symbol.rsplit(" > ", 1)[-1],
                symbol=symbol,
                signature=signature,
                start_line=start_line,
                end_line=end_line,
                content=text,
                part=part,
                tokens=count_tokens(text),
            )
        )
    return chunks
