"""Secrets never leave the repository: every reader of its text redacts them first.

The site is published on the open web and, in LLM mode, chunk code is sent to an
endpoint; so a credential written in the code must be gone before anything is stored,
embedded, sent or rendered. Two lines of defence:

- files that hold credentials by convention (`.env`, `id_rsa`, `*.pem`, …) are never read
  (`secret_file_rule`, asked by discovery before it opens a file);
- in every other text, `Redactor.redact` replaces each secret value by `MARKER` and keeps
  the name and the line structure, so chunk line numbers stay right.

What counts as a secret: the regex-based plugins of `detect-secrets` (AWS, GitHub, Slack,
Stripe, JWT, basic-auth URLs, …), values assigned to names that say they are secret
(`password = "…"`, `API_KEY: …`, `"authorization": "Bearer …"`), private key blocks,
and the user's own `secrets.patterns`; minus the user's `secrets.allow` values.

Which plugins run, their triggers and the secret-file names are data:
`languages/secrets.json`. A plugin's expressions only run on the lines where its trigger
(a cheap necessary condition, mostly a literal it requires) matches, since several of
them scan at under 10 MB/s and the build's target is 500 KB/s of source in all.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.metadata
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..languages import language_for

MARKER = "«redacted»"
"""What a secret becomes: plain text in every language, obvious to a reader, and no
syntax anywhere (a string literal stays a string literal)."""
RULES_PATH = Path(__file__).parent.parent / "languages" / "secrets.json"

MIN_PASSWORD_LENGTH = 4
"""A password-named literal this long or longer is a password, whatever it looks like."""
MIN_SECRET_LENGTH = 8
MIN_SECRET_ENTROPY = 3.0
"""Bits per character a token-named value needs (`abcd1234` has 3.0, `bearer` 2.3)."""
PLACEHOLDER_STARTS = ("$", "%", "{{", "{%", "<", "#{", "@")
"""Values that name a secret rather than hold it: `${TOKEN}`, `%(password)s`, `<key>`."""
TOKEN_TAIL = re.compile(r"(?:[A-Za-z0-9_\-+/=]|\.(?=[A-Za-z0-9_\-]))*")
"""Characters that continue a matched token (a JWT's signature after its lazy match)."""
NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
"""The words of a name: `apiKey`, `API_KEY`, `x-api-key` → api, key."""

PRIVATE_KEY_BLOCK = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?P<body>[A-Za-z0-9+/=\s\\:,.\"'-]*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"|(?P<lines>(?:\r?\n[ \t]*[A-Za-z0-9+/=]{40,}[ \t]*)+(?:\r?\n[ \t]*[A-Za-z0-9+/=]+)?))"
)
"""A PEM or OpenSSH private key with its END line, or without one (cut off) as long as
base64 lines follow the BEGIN line; a BEGIN line alone (a parser's constant) is kept."""
BLOCK_EDGE = re.compile(r"^(?:\r?\n|\\n)+|(?:\r?\n|\\n|\s)+$")


@dataclass(frozen=True)
class Redacted:
    """A text with its secrets replaced, and how many there were."""

    text: str
    secrets: int = 0


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


# --- detect-secrets plugins ---------------------------------------------------------------


@dataclass(frozen=True)
class _Plugin:
    name: str
    patterns: tuple[re.Pattern[str], ...]
    exact: tuple[re.Pattern[str], ...]
    lower: tuple[re.Pattern[str], ...]
    confirm: Callable[[str], bool] | None
    """The plugin's own check of a match (a JWT must decode), when it has one."""


@cache
def _plugins() -> tuple[_Plugin, ...]:
    # lazy: detect-secrets takes ~0.1 s to import; a rebuild that reads no file never needs it
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    classes = {cls.__name__: cls for cls in get_mapping_from_secret_type_to_class().values()}
    plugins = []
    for name, trigger in _rules()["detectors"]["use"].items():
        cls = classes[name]
        own_check = cls.analyze_string is not RegexBasedDetector.analyze_string
        instance = cls() if own_check else None
        plugins.append(
            _Plugin(
                name,
                tuple(cls.denylist),
                tuple(re.compile(t) for t in trigger.get("exact", ())),
                tuple(re.compile(t) for t in trigger.get("lower", ())),
                (lambda value, plugin=instance: any(True for _ in plugin.analyze_string(value))) if own_check else None,
            )
        )
    return tuple(plugins)


def _plugin_spans(text: str, lowered: str) -> Iterator[tuple[int, int]]:
    for plugin in _plugins():
        for start, line in _triggered_lines(text, lowered, plugin.exact, plugin.lower):
            for pattern in plugin.patterns:
                for match in pattern.finditer(line):
                    if plugin.confirm is not None and not plugin.confirm(match.group(0)):
                        continue
                    begin, end = _secret_span(match)
                    if (begin, end) == match.span():
                        end = TOKEN_TAIL.match(line, end).end()
                    yield start + begin, start + end


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The value a match is about: its last group when that closes the match (the value
    after `key = "`, the password of a URL), else the whole match (`ghp_…`, whose group
    is only its prefix)."""
    for group in range(len(match.groups()), 0, -1):
        begin, end = match.span(group)
        if begin < end and end >= match.end() - 1:
            return begin, end
    return match.span()


def _triggered_lines(
    text: str, lowered: str, exact: tuple[re.Pattern[str], ...], lower: tuple[re.Pattern[str], ...]
) -> Iterator[tuple[int, str]]:
    """(offset, line) of each line where a trigger matches, once each, in order."""
    starts: set[int] = set()
    for trigger, haystack in [*((t, text) for t in exact), *((t, lowered) for t in lower)]:
        position = 0
        while (found := trigger.search(haystack, position)) is not None:
            start = text.rfind("\n", 0, found.start()) + 1
            end = text.find("\n", found.start())
            end = len(text) if end < 0 else end
            starts.add(start)
            position = end + 1
    for start in sorted(starts):
        end = text.find("\n", start)
        yield start, text[start : len(text) if end < 0 else end]


# --- values assigned to secret-looking names ----------------------------------------------


@dataclass(frozen=True)
class _Assignments:
    triggers: tuple[re.Pattern[str], ...]
    pattern: re.Pattern[str]
    password_words: frozenset[str]
    secret_words: frozenset[str]
    key_prefixes: frozenset[str]
    not_a_value: frozenset[str]
    schemes: frozenset[str]
    bare_literal_languages: frozenset[str]


@cache
def _assignments() -> _Assignments:
    rules = _rules()["assignments"]
    triggers = "|".join(rules["triggers"])
    pattern = re.compile(
        r"""(?<![\w$@.-])
        (?P<name>[\w$@.-]*?(?:""" + triggers + r""")[\w$@.-]*)
        ["'`]?\]?                               # a key's closing quote, an index's bracket
        (?:\s*:\s*&?[\w.\[\]<>]+(?=\s*=))?      # a type annotation before `=`
        \s*(?:==|!=|:=|=>|=|:)\s*
        (?P<value>"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[^\s"'`,;()\[\]{}<>]+)""",
        re.IGNORECASE | re.VERBOSE,
    )
    return _Assignments(
        tuple(re.compile(trigger) for trigger in rules["triggers"]),
        pattern,
        frozenset(rules["password_words"]),
        frozenset(rules["secret_words"]),
        frozenset(rules["key_prefixes"]),
        frozenset(rules["not_a_value"]),
        frozenset(scheme.lower() for scheme in rules["auth_schemes"]),
        frozenset(rules["bare_literal_languages"]),
    )


def _assignment_spans(text: str, lowered: str, unquoted: bool) -> Iterator[tuple[int, int]]:
    """Values of secret-named assignments; `unquoted` values only where the language has
    bare literals (.env, YAML, INI, shell), not where a bare word is an expression."""
    rules = _assignments()
    for start, line in _triggered_lines(text, lowered, (), rules.triggers):
        for match in rules.pattern.finditer(line):
            kind = _secret_name_kind(match.group("name"), rules)
            if kind is None:
                continue
            begin, end = match.span("value")
            quoted = line[begin] in "\"'`"
            if quoted:
                begin, end = begin + 1, end - 1
            elif not unquoted:
                continue
            value = line[begin:end]
            scheme = value.split(None, 1)
            if len(scheme) == 2 and scheme[0].lower() in rules.schemes:
                begin = end - len(scheme[1])  # `Bearer …`: the scheme stays
                value = scheme[1]
            elif not quoted and value.lower() in rules.schemes:  # `Authorization: Bearer …` unquoted
                rest = re.match(r"\s+([^\s\"'`,;]+)", line[end:])
                if rest is None:
                    continue
                begin, end = end + rest.start(1), end + rest.end(1)
                value = rest.group(1)
            elif not quoted and not _ends_statement(line[end:]):
                continue  # prose: `password: the user's password`
            if _looks_secret(value, kind):
                yield start + begin, start + end


def _secret_name_kind(name: str, rules: _Assignments) -> str | None:
    """`password`, `secret` or None: what a name says its value is. `password_reset_timeout`
    names a setting, not a password: a secret word followed by a `not_a_value` word does
    not count."""
    words = [word.lower() for word in NAME_WORDS.findall(name) if not word.isdigit()]
    for index, word in enumerate(words):
        if word in rules.password_words:
            kind, width = "password", 1
        elif word in rules.secret_words:
            kind, width = "secret", 1
        elif word in rules.key_prefixes and words[index + 1 : index + 2] == ["key"]:
            kind, width = "secret", 2
        else:
            continue
        following = words[index + width] if index + width < len(words) else ""
        if following not in rules.not_a_value:
            return kind
    return None


def _ends_statement(rest: str) -> bool:
    rest = rest.lstrip()
    return not rest or rest[0] in "#;,})`" or rest.startswith("//")


def _looks_secret(value: str, kind: str) -> bool:
    if not value or value.startswith(PLACEHOLDER_STARTS) or len(set(value)) == 1 or any(c.isspace() for c in value):
        return False
    if kind == "password":
        return len(value) >= MIN_PASSWORD_LENGTH
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))
    return len(value) >= MIN_SECRET_LENGTH and classes >= 2 and entropy(value) >= MIN_SECRET_ENTROPY


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


# --- private keys -------------------------------------------------------------------------


def _private_key_spans(text: str) -> Iterator[tuple[int, int]]:
    if "PRIVATE KEY" not in text:
        return
    for match in PRIVATE_KEY_BLOCK.finditer(text):
        group = "body" if match.group("body") is not None else "lines"
        begin, end = match.span(group)
        body = match.group(group)
        edges = list(BLOCK_EDGE.finditer(body))
        leading = next((e for e in edges if e.start() == 0), None)
        trailing = next((e for e in edges if e.end() == len(body) and e.start() > 0), None)
        begin += leading.end() if leading else 0
        end -= (trailing.end() - trailing.start()) if trailing else 0
        if begin < end:
            yield begin, end


# --- the redactor -------------------------------------------------------------------------


class Redactor:
    """Replaces the secrets of a text by `MARKER`, keeping every line where it was."""

    def __init__(self, allow: tuple[str, ...] = (), allow_patterns: tuple[str, ...] = (), patterns: tuple[str, ...] = ()) -> None:
        self.allow = frozenset(allow)
        self.allow_patterns = tuple(re.compile(p) for p in allow_patterns)
        self.patterns = tuple(re.compile(p, re.MULTILINE) for p in patterns)
        self.identity = hashlib.sha256(
            repr((sorted(self.allow), allow_patterns, patterns, _detect_secrets_version())).encode()
        ).hexdigest()[:16]
        """What decides the redacted texts besides the code: settings and the detector's version."""

    @classmethod
    def from_config(cls, config) -> Redactor:
        return cls(config.secrets.allow, config.secrets.allow_patterns, config.secrets.patterns)

    def redact(self, text: str, path: str = "") -> Redacted:
        """`text` with each secret value replaced; `path` tells whether bare words are
        literals there (.env, YAML) or expressions (code a grammar parses)."""
        lowered = text.lower()
        if len(lowered) != len(text):  # a few characters lower to two: positions would shift
            lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        spec = language_for(path) if path else None
        unquoted = spec is None or spec.category != "code" or spec.name in _assignments().bare_literal_languages
        spans = [
            *_plugin_spans(text, lowered),
            *_assignment_spans(text, lowered, unquoted),
            *_private_key_spans(text),
            *self._pattern_spans(text),
        ]
        spans = [(b, e) for b, e in spans if not self._allowed(text[b:e])]
        if not spans:
            return Redacted(text)
        pieces, position, count = [], 0, 0
        for begin, end in _merged(spans):
            pieces.append(text[position:begin])
            pieces.append(MARKER + "\n" * text.count("\n", begin, end))
            position, count = end, count + 1
        pieces.append(text[position:])
        return Redacted("".join(pieces), count)

    def _pattern_spans(self, text: str) -> Iterator[tuple[int, int]]:
        for pattern in self.patterns:
            for match in pattern.finditer(text):
                span = match.span(1) if pattern.groups else match.span()
                if span[0] < span[1]:
                    yield span

    def _allowed(self, value: str) -> bool:
        return value in self.allow or any(p.fullmatch(value) for p in self.allow_patterns)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for begin, end in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((begin, end))
    return merged


@cache
def _detect_secrets_version() -> str:
    """From the installed package's metadata: importing detect-secrets costs about 0.1 s,
    which a rebuild with nothing to read must not pay."""
    return importlib.metadata.version("detect-secrets")
