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
SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)\s*$")
"""A setext heading's underline: `===` (level 1) or `---` (level 2) under its title line."""
NOT_A_TITLE_RE = re.compile(r"^\s*$|^ {0,3}(?:[#>|]|[-*+]\s|\d+[.)]\s|(?:=+|-+|\*+|_+)\s*$)|\|")
"""A line a setext underline does not make a heading of: blank, an ATX heading, a quote, a
list item, a table row or another rule (so `---` after it is a rule, or front matter)."""


def chunk_document(
    source: SourceFile, spec: LanguageSpec, lines: list[str], settings: ChunkSettings
) -> list[Chunk]:
    """A doc split at its section titles, each section windowed if long: Markdown at ATX
    (`## Title`) and setext headings (a title line underlined with `===` or `---`, as
    changelogs often are) outside code fences, reStructuredText at its titles (`rst_headings`)."""
    sections = doc_sections(lines, spec.name)
    if not sections or sections[0][0] > 0:
        sections.insert(0, (0, "", 0))
    chunks: list[Chunk] = []
    for index, (start, heading, _level) in enumerate(sections):
        end = sections[index + 1][0] - 1 if index + 1 < len(sections) else len(lines) - 1
        symbol = heading or source.path.rsplit("/", 1)[-1]
        chunks += windowed(source, spec, lines, start, end, settings, ChunkKind.SECTION, symbol)
    return chunks


def doc_sections(lines: list[str], language: str) -> list[tuple[int, str, int]]:
    """(first row, heading path `Title > Sub`, level) of each section of a doc: the
    symbols its chunks take."""
    headings = rst_headings(lines) if language == "restructuredtext" else markdown_headings(lines)
    sections: list[tuple[int, str, int]] = []
    trail: list[tuple[int, str]] = []
    for start, level, title in headings:
        trail = [(lvl, t) for lvl, t in trail if lvl < level] + [(level, title)]
        sections.append((start, " > ".join(t for _, t in trail), level))
    return sections


def markdown_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first row, level, title) of each Markdown heading, outside front matter and fences."""
    found = []
    in_fence = False
    body = _front_matter_rows(lines)
    for row, line in enumerate(lines[body:], start=body):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = _heading(lines, row)
        if heading:
            found.append(heading)
    return found


RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*\s*$")
"""A line of one punctuation character repeated: a reStructuredText title's underline or overline."""


def rst_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first row, level, title) of each reStructuredText section title: a line underlined
    (and maybe overlined) with any punctuation character at least as long as the title,
    after a blank line, at the start of a line. Levels follow the order in which the styles
    (the character, with or without an overline) first appear, as docutils numbers them,
    so a `~~~` underline after `===` and `---` is a third level, not a code fence."""
    styles: list[tuple[str, bool]] = []
    found = []
    row = 1
    while row < len(lines):
        title, under = lines[row - 1], lines[row]
        over = lines[row - 2] if row >= 2 else ""
        if _is_adornment(under) and title.strip() and not _is_adornment(title) and under.rstrip() and len(under.rstrip()) >= len(title.strip()) >= 1:
            overlined = row >= 2 and _is_adornment(over) and over.rstrip()[0] == under[0]
            before = lines[row - 3] if overlined and row >= 3 else (lines[row - 2] if not overlined and row >= 2 else "")
            if (overlined or not title[0].isspace()) and not before.strip() and len(under.rstrip()) >= 2:
                style = (under[0], overlined)
                if style not in styles:
                    styles.append(style)
                found.append((row - 2 if overlined else row - 1, styles.index(style) + 1, title.strip()))
                row += 2
                continue
        row += 1
    return found


def _is_adornment(line: str) -> bool:
    return bool(RST_ADORNMENT.match(line)) and not line[:1].isspace()


def _front_matter_rows(lines: list[str]) -> int:
    """How many rows a YAML front matter block (`---` … `---` at the top) takes; 0 if none."""
    if lines and lines[0].rstrip() == "---":
        for row in range(1, len(lines)):
            if lines[row].rstrip() in ("---", "..."):
                return row + 1
    return 0


def _heading(lines: list[str], row: int) -> tuple[int, int, str] | None:
    """The heading `lines[row]` makes, as (its first row, level, title): an ATX heading on
    that row, or the underline of a setext heading whose title is the row before."""
    match = HEADING_RE.match(lines[row])
    if match:
        return row, len(match.group(1)), match.group(2).strip()
    underline = SETEXT_RE.match(lines[row])
    if underline and row > 0 and not NOT_A_TITLE_RE.search(lines[row - 1]) and not FENCE_RE.match(lines[row - 1]):
        return row - 1, 1 if underline.group(1)[0] == "=" else 2, lines[row - 1].strip()
    return None


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
