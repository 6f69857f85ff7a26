"""Commit messages that read like decisions ("switch to", "replace X with", …), when `git`
is installed and the repository is a work tree; redacted like files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ...core.findings import Decision, DecisionKind
from ...core.redact import RedactionTooSlow, Redactor
from ...core.text import clip, terminal_text
from .text import PROSE_LIMIT, TITLE_LIMIT, prose, whole_file

GIT_LOG_LIMIT = 2000
GIT_TIMEOUT_SECONDS = 20
MAX_COMMIT_DECISIONS = 15
FIELD_SEPARATOR = "\x1f"
RECORD_SEPARATOR = "\x1e"
GIT_FORMAT = "%H%x1f%ad%x1f%s%x1f%b%x1e"
MESSAGE_LIMIT = 16_000
"""Characters of a subject or body kept at most, cut at a space, before it is redacted or
searched: a decision needs a few paragraphs, and a megabyte message (pasted logs, or one
built to stall the build) costs no more than this. What is cut is never published."""
BODY_SCANNED = 600
"""Characters of a commit body searched for decision wording (the rest is detail)."""

DECISION_WORDING: tuple[tuple[str, int], ...] = (
    (r"\bswitch(?:ed|es|ing)?\s+(?:\S+\s+){0,2}?(?:from\s+\S+(?:\s+\S+)?\s+)?to\b", 2),
    (r"\bmigrat(?:e|ed|es|ing|ion)\s+(?:\S+\s+){0,2}?(?:from|to|away)\b", 2),
    (r"\breplac(?:e|ed|es|ing)\s+\S+(?:\s+\S+){0,2}?\s+with\b", 2),
    (r"\badopt(?:s|ed|ing)?\b", 2),
    (r"\buse[sd]?\s+\S+(?:\s+\S+){0,2}?\s+instead\s+of\b", 2),
    (r"\bin\s+favou?r\s+of\b", 2),
    (r"\bdrop(?:s|ped|ping)?\s+support\b", 2),
    (r"\bno\s+longer\s+(?:use|support|depend)", 2),
    (r"\bdecid(?:e|ed|ing)\s+(?:to|on|against)\b", 2),
    (r"\bdeprecat(?:e|es|ing)\b", 2),
    (r"\binstead\s+of\b", 1),
    (r"\brather\s+than\b", 1),
    (r"\bbecause\b", 1),
    (r"\bintroduc(?:e|ed|es|ing)\b", 1),
)
"""(pattern, weight): strong wording alone marks a decision, weak wording needs a second cue."""
DECISION_PATTERNS = tuple(
    (re.compile(pattern, re.IGNORECASE), weight) for pattern, weight in DECISION_WORDING
)
DECISION_SCORE = 2
ROUTINE_SUBJECT = re.compile(
    r"^(?:revert\b|fixup!|squash!|amend!|merge\b|bump\b|release\b|v?\d+\.\d+)", re.IGNORECASE
)
"""Subjects that are bookkeeping even when they quote decision wording (`Revert "Switch to X"`)."""
TRAILER = re.compile(r"^[A-Z][\w-]*-by:|^(?:Change-Id|Cc|Fixes|Closes|Refs?):", re.IGNORECASE)


def is_decision_like(subject: str, body: str = "") -> bool:
    """Whether a commit message records a choice rather than routine work."""
    if ROUTINE_SUBJECT.match(subject.strip()):
        return False
    text = f"{subject}\n{_without_trailers(body)[:BODY_SCANNED]}"
    return (
        sum(weight for pattern, weight in DECISION_PATTERNS if pattern.search(text))
        >= DECISION_SCORE
    )


def commit_decisions(repo: Path, redactor: Redactor | None = None) -> list[Decision]:
    """Decision-like commits touching `repo`, most recent first; [] when git cannot tell.
    Messages are redacted like files: a token pasted into one must not reach the site."""
    git = shutil.which("git")
    if git is None:
        return []
    command = [
        git,
        "-C",
        str(repo),
        "-c",
        "log.showSignature=false",
        "log",
        "--no-merges",
        f"--max-count={GIT_LOG_LIMIT}",
        "--date=short",
        f"--format={GIT_FORMAT}",
        "--",
        ".",
    ]
    try:
        completed = subprocess.run(
            command,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if completed.returncode != 0:
        return []
    entries = []
    redactor = redactor or Redactor()
    for record in completed.stdout.decode("utf-8", errors="replace").split(RECORD_SEPARATOR):
        fields = record.lstrip("\n").split(FIELD_SEPARATOR)
        if len(fields) != 4:
            continue
        sha, date = fields[:2]
        try:
            subject, body = (redactor.redact(_plain(bounded(text))).text for text in fields[2:])
        except RedactionTooSlow:  # never published unredacted: the commit is left out
            continue
        if is_decision_like(subject, body):
            entries.append(_commit_entry(sha, date, subject, body))
            if len(entries) == MAX_COMMIT_DECISIONS:
                break
    return entries


def bounded(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """`text` cut to `limit` characters at its last whitespace, so no token is cut in two
    (half a token is still a secret, but no longer of a format a rule knows)."""
    if len(text) <= limit:
        return text
    cut = max(text.rfind(" ", 0, limit), text.rfind("\n", 0, limit))
    return text[: cut if cut > 0 else 0]


BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters that reorder the text around them (`invoice\u202egpj.py` shows as `invoiceyp.jpg`)."""


def _plain(text: str) -> str:
    """A message without control characters (but tab and newline) or bidi controls: it
    reaches the terminal, `llms.txt` and the pages, where they would move the cursor,
    retitle the terminal or show other text than is there."""
    return BIDI_CONTROLS.sub("", terminal_text(text))


def _commit_entry(sha: str, date: str, subject: str, body: str) -> Decision:
    subject = " ".join(subject.split())
    return Decision(
        title=clip(subject, TITLE_LIMIT),
        kind=DecisionKind.COMMIT,
        status="",
        context=prose(_without_trailers(body), PROSE_LIMIT),
        decision=subject if subject[-1:] in ".!?" else subject + ".",
        consequences="",
        evidence=[whole_file(f"{sha[:8]} ({date}): {clip(subject, TITLE_LIMIT)}", "")],
    )


def _without_trailers(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if not TRAILER.match(line.strip()))
