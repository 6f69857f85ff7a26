"""A conversation on the command line: its saved history, its questions, and how an answer
reads in a terminal.

`refdoc-site ask --history FILE` keeps the turns in FILE (JSON lines, one
`{"question", "answer"}` a turn, written after each answer), so the next run continues the
conversation; `--chat` reads further questions from stdin, one a line, within one run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..core.errors import RefdocError
from ..core.store import write_atomically
from .records import Answer, Turn

MAX_SAVED_TURNS = 50
"""Turns a history file keeps (the model sees only the latest few: grounded.MAX_HISTORY_TURNS)."""


def load_history(path: Path) -> list[Turn]:
    """The turns saved in `path`; none when it does not exist yet."""
    if not path.exists():
        return []
    turns = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise RefdocError(f"--history {path}: cannot read it ({error}); pass a history file ask wrote, or a new path") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            turns.append(Turn(str(item["question"]), str(item["answer"])))
        except (ValueError, KeyError, TypeError):
            raise RefdocError(
                f"--history {path}:{number}: not a turn (expected {{\"question\": …, \"answer\": …}}); pass a history file ask wrote, or a new path"
            ) from None
    return turns


def save_history(path: Path, turns: list[Turn]) -> None:
    try:
        write_atomically(path, (json.dumps(t.to_dict(), ensure_ascii=False) for t in turns[-MAX_SAVED_TURNS:]))
    except OSError as error:
        raise RefdocError(f"--history {path}: cannot write it ({error.strerror}); pass a file in an existing folder") from None


def questions(first: str, lines: Iterable[str] | None) -> Iterator[str]:
    """The question given (unless `-`), then, in a chat, each non-empty line of `lines`."""
    if first.strip() != "-":
        yield first
    for line in lines or ():
        if line.strip():
            yield line.strip()


SITE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|/|#)([^)\s]+)\)", re.IGNORECASE)
"""The target of a Markdown link relative to the site's root (`](files/a.py/#chunk-f)`), not
one with a scheme, an absolute path or a bare anchor."""


def absolute_links(text: str, site_url: str) -> str:
    """`text` with each site-relative link made absolute under `site_url` (a terminal has no
    site root to resolve `files/a.py/#chunk-f` against); as it is without a `site_url`."""
    if not site_url:
        return text
    root = site_url.rstrip("/") + "/"
    return SITE_LINK.sub(lambda match: f"]({root}{match.group(1)})", text)


def closing_lines(answer: Answer) -> list[str]:
    """What a terminal shows after the streamed text: a fallback's reason, the flagged
    citations, the sources the context held."""
    lines = []
    if answer.notice:
        lines.append(f"note: {answer.notice}")
    if answer.flagged:
        lines.append(f"warning: {len(answer.flagged)} citation(s) or name(s) not in the context, marked ⚠: {', '.join(answer.flagged)}")
    if answer.mode == "llm":
        lines.append(f"context: {len(answer.sources)} sources, {len(answer.cited)} cited")
    return lines
