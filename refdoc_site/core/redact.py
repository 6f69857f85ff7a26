"""Secrets never leave the repository: every reader of its text redacts them first.

The site is published on the open web and, in LLM mode, chunk code is sent to an
endpoint; so a credential written in the code (or a commit message) must be gone before
anything is stored, embedded, sent or rendered. Two lines of defence:

- files that hold credentials by convention (`.env`, `id_rsa`, `*.pem`, `*.tfvars`, …)
  are never read (`secret_file_rule`, asked by discovery before it opens a file);
- in every other text, `Redactor.redact` replaces each secret value by `MARKER` and keeps
  the name and the line structure, so chunk line numbers stay right.

What counts as a secret: a token of a format a maintained scanner knows (about 450 rules:
`secret_tokens.py`, data in `languages/secret_rules.json`), a value that stands where a
secret does (`password = "…"`, `os.getenv("API_KEY", "…")`, `Password=…;`, private key
blocks, a Kubernetes Secret's data: `secret_context.py`), and the user's own
`secrets.patterns`; minus the user's `secrets.allow` values.

Every expression runs under RE2, whose time is linear in the text on any input; a file
whose redaction still runs over `budget_seconds` is not read at all (`RedactionTooSlow`,
an `OSError` every reader already skips and counts): never published unredacted.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import re2

from .cpu_budget import CpuBudget
from ..languages import language_for
from .secret_context import context_rules, context_spans
from .secret_tokens import rules_digest, token_spans

MARKER = "«redacted»"
"""What a secret becomes: plain text in every language, obvious to a reader, and no
syntax anywhere (a string literal stays a string literal)."""
RULES_PATH = Path(__file__).parent.parent / "languages" / "secrets.json"
BUDGET_SECONDS = 20.0
"""The most CPU time one text's redaction may take (the thread's, so that a machine busy
with other work skips no honest file); the rules scan a megabyte of source in about 0.1 s
and the worst text built against them measured here in about 3 s, so only a text that
defeats them reaches it."""
USER_RULE = "secrets.patterns"
"""The rule name `stats` gives a secret one of the user's own patterns found."""


class RedactionTooSlow(OSError):
    """A text whose redaction ran over its time budget. An `OSError`, since every reader
    of repository files already skips (and counts) a file it cannot read: this one cannot
    be read safely, and its text must go nowhere unredacted."""


@dataclass(frozen=True)
class Redacted:
    """A text with its secrets replaced, and how many there were."""

    text: str
    secrets: int = 0
    rules: dict[str, int] = field(default_factory=dict)
    """How many secrets each rule found (`github-fine-grained-pat`, `secret-named-assignment`):
    which rule fired, never what it found."""


@cache
def _rules() -> dict:
    return json.loads(RULES_PATH.read_text(encoding="utf-8"))


# --- files that are secrets by name -------------------------------------------------------


@cache
def _file_globs() -> tuple[re.Pattern[str], tuple[str, ...], re.Pattern[str]]:
    rules = _rules()["secret_files"]
    names = tuple(rules["names"])
    secret = re.compile("|".join(f"(?:{fnmatch.translate(name)})" for name in names))
    not_secret = re.compile("|".join(f"(?:{fnmatch.translate(name)})" for name in rules["not_secret"]))
    return secret, names, not_secret


def secret_file_rule(name: str) -> str | None:
    """The name pattern that makes a file a secret by convention (`*.pem`), or None."""
    secret, names, not_secret = _file_globs()
    lowered = name.lower()
    if not secret.match(lowered) or not_secret.match(lowered):
        return None
    return next(glob for glob in names if fnmatch.fnmatchcase(lowered, glob))


# --- the redactor -------------------------------------------------------------------------


class Redactor:
    """Replaces the secrets of a text by `MARKER`, keeping every line where it was."""

    def __init__(
        self,
        allow: tuple[str, ...] = (),
        allow_patterns: tuple[str, ...] = (),
        patterns: tuple[str, ...] = (),
        budget_seconds: float | None = None,
    ) -> None:
        self.allow = frozenset(allow)
        self.allow_patterns = tuple(_user_pattern(p) for p in allow_patterns)
        self.patterns = tuple(_user_pattern("(?m)" + p) for p in patterns)
        self.budget_seconds = BUDGET_SECONDS if budget_seconds is None else budget_seconds
        self.identity = hashlib.sha256(
            repr((sorted(self.allow), allow_patterns, patterns, rules_digest())).encode()
        ).hexdigest()[:16]
        """What decides the redacted texts besides the code: settings and the rules' data."""

    @classmethod
    def from_config(cls, config) -> Redactor:
        return cls(config.secrets.allow, config.secrets.allow_patterns, config.secrets.patterns)

    def redact(self, text: str, path: str = "") -> Redacted:
        """`text` with each secret value replaced; `path` tells whether bare words are
        literals there (.env, YAML) or expressions (code a grammar parses). Raises
        `RedactionTooSlow` past the time budget."""
        budget = CpuBudget(self.budget_seconds)  # CPU time: a loaded machine skips no honest file

        def check() -> None:
            if budget.exceeded():
                raise RedactionTooSlow(
                    f"{path or 'text'}: redacting took over {self.budget_seconds:g} s of CPU (built to defeat the secret rules?); not read"
                )

        data = text.encode("utf-8", "surrogatepass")
        spec = language_for(path) if path else None
        bare_values = spec is None or spec.category != "code" or spec.name in _rules()["assignments"]["bare_literal_languages"]
        spans = [*token_spans(data, data.lower(), check)]
        check()
        spans += context_spans(data, context_rules(_rules()["assignments"]), bare_values)
        check()
        spans += self._pattern_spans(data)
        check()
        if self.allow or self.allow_patterns:
            spans = [s for s in spans if not self._allowed(data[s[0] : s[1]].decode("utf-8", "surrogatepass"))]
        if not spans:
            return Redacted(text)
        pieces, position, fired = [], 0, Counter()
        marker = MARKER.encode()
        for begin, end, rule in _merged(spans):
            pieces.append(data[position:begin])
            pieces.append(marker + b"\n" * data.count(b"\n", begin, end))
            position = end
            fired[rule] += 1
        pieces.append(data[position:])
        return Redacted(b"".join(pieces).decode("utf-8", "surrogatepass"), sum(fired.values()), dict(sorted(fired.items())))

    def _pattern_spans(self, data: bytes) -> Iterator[tuple[int, int, str]]:
        for pattern in self.patterns:
            for match in pattern.finditer(data):
                span = match.span(1) if pattern.groups else match.span()
                if span[0] < span[1]:
                    yield span[0], span[1], USER_RULE

    def _allowed(self, value: str) -> bool:
        return value in self.allow or any(p.fullmatch(value) for p in self.allow_patterns)


def _user_pattern(pattern: str):
    """A `secrets:` expression under RE2 (config.py refused any RE2 cannot compile)."""
    return re2.compile(pattern)


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans joined; each keeps the rule of its first piece."""
    merged: list[tuple[int, int, str]] = []
    for begin, end, rule in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]), merged[-1][2])
        else:
            merged.append((begin, end, rule))
    return merged
