"""What the command line writes to a terminal: every line through `terminal_text`, so that
what the repository controls (a file name holding `\\x1b]0;…\\x07`, a newline, a bidi
override) shows escaped and never runs as a control sequence in the reader's terminal.

The log records (warnings name files) go through `TerminalFormatter`, one line each; the
commands' own output through `say`.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from .text import terminal_text


class TerminalFormatter(logging.Formatter):
    """A log record as one line of plain text."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return terminal_text(record.getMessage(), one_line=True)


def log_to_terminal(level: int) -> None:
    """Log to standard error at `level`, each record through `TerminalFormatter`."""
    handler = logging.StreamHandler()
    handler.setFormatter(TerminalFormatter())
    logging.basicConfig(level=level, handlers=[handler])


def say(*parts: object, file: TextIO | None = None, flush: bool = False) -> None:
    """`print`, with every part escaped for a terminal (a multi-line part keeps its lines)."""
    print(*(terminal_text(str(part)) for part in parts), file=file or sys.stdout, flush=flush)
