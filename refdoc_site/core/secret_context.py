"""Secrets told by where they stand, not by their format: the value of a secret-named
assignment (`password = "…"`, `DB_PASS: …`, `ENV API_TOKEN v`), a secret-named default
(`os.getenv("API_KEY", "…")`), a pair in a connection string or URL (`Password=…;`,
`?api_key=…`, `://user:…@`), a command line's password (`curl -u user:…`, `mysql -p…`),
a `Bearer …` token, private key blocks (PEM, OpenSSH, PuTTY), a Kubernetes `Secret`'s data (YAML or
JSON), and a literal where a call takes a secret (`login("admin", "…")`, `hmac.new(b"…", …)`,
`auth=("svc", "…")`).

Every expression is RE2 (linear time on any input) over the UTF-8 bytes of the text, and
runs once over the whole text. The words that make a name secret are data
(`languages/secrets.json`, `assignments`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

import re2

MIN_PASSWORD_LENGTH = 4
"""A password-named literal this long or longer is a password, whatever it looks like."""
MIN_SECRET_LENGTH = 8
MIN_SECRET_ENTROPY = 3.0
"""Bits per character a token-named value needs (`abcd1234` has 3.0, `bearer` 2.3)."""
PLACEHOLDER_STARTS = ("$", "%", "{", "<", "#{", "@")
"""Values that name a secret rather than hold it: `${TOKEN}`, `%(password)s`, `<key>`, an
f-string's `{token}`."""

QUOTED = (
    rb"""(?:[bBrRuUfF]{1,2})?(?P<lit>"{3}[^"\n]+"{3}|'{3}[^'\n]+'{3}"""
    rb"""|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`"""
    rb"""|%[qQ]?\([^)\n]*\)|%[qQ]?\{[^}\n]*\}|%[qQ]?\[[^\]\n]*\])"""
)
"""A literal in any of the forms languages write one (prefixed, triple-quoted, escaped
quotes inside, Ruby's `%q(…)`), delimiters included in one group (RE2's wrapper costs a
call per group asked)."""
LOOK_BACK = 4096
"""How far back on its line a pair looks for the quote that opens its string: bounded, so a
megabyte line of pairs costs one pass, not one per pair."""
BARE = rb"""(?P<bare>[^\s"'`,;()\[\]{}<>]+)"""
LITERAL = rb"""(?:[bBrRuUfF]{1,2})?(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
"""A quoted literal, captured by no group (for the arguments before the one a rule takes)."""
ARGUMENT = rb"""[ \t]*(?:""" + LITERAL + rb"""|[^,()"'`\n]*(?:\([^()\n]*\))?[^,()"'`\n]*)[ \t]*"""
NEXT_LINE = rb"[ \t]*\(?[ \t]*(?:\\?\r?\n[ \t]*\(?[ \t]*)?"
"""Between an operator and a quoted value: a parenthesis, and the line break a formatter
puts there (`password = (\\n    "…"\\n)`)."""


@dataclass(frozen=True)
class Words:
    password_words: frozenset[str]
    last_password_words: frozenset[str]
    secret_words: frozenset[str]
    key_prefixes: frozenset[str]
    not_a_value: frozenset[str]
    schemes: frozenset[str]
    placeholders: frozenset[str]
    name: bytes
    """The expression of a name holding a trigger, for the rules below."""


@dataclass(frozen=True)
class ContextRules:
    words: Words
    assignment: re2._Regexp
    default: re2._Regexp
    pair: re2._Regexp
    docker_env: re2._Regexp
    curl_user: re2._Regexp
    mysql_password: re2._Regexp
    url_password: re2._Regexp
    bearer: re2._Regexp
    bearer_joined: re2._Regexp
    key_begin: re2._Regexp
    key_body: re2._Regexp
    key_lines: re2._Regexp
    putty: re2._Regexp
    kubernetes_secret: re2._Regexp
    kubernetes_secret_json: re2._Regexp
    json_data: re2._Regexp
    json_value: re2._Regexp
    xml_setting: re2._Regexp
    command_password: re2._Regexp
    first_argument: re2._Regexp
    second_argument: re2._Regexp
    credential_pair: re2._Regexp


def context_rules(assignments: dict) -> ContextRules:
    return _compiled(
        tuple(assignments["triggers"]), tuple(assignments["password_words"]), tuple(assignments["last_password_words"]),
        tuple(assignments["secret_words"]), tuple(assignments["key_prefixes"]), tuple(assignments["not_a_value"]),
        tuple(assignments["auth_schemes"]), tuple(assignments["default_functions"]),
        tuple(assignments["placeholder_values"]), tuple(assignments["literal_wrappers"]),
        tuple(assignments["positional_secrets"]["first"]), tuple(assignments["positional_secrets"]["second"]),
        tuple(assignments["credential_pair_names"]),
    )


def _any_of(names: tuple[str, ...]) -> bytes:
    return b"(?:" + b"|".join(re2.escape(n.encode()) for n in sorted(names, key=len, reverse=True)) + b")"


@cache
def _compiled(triggers, password_words, last_password_words, secret_words, key_prefixes, not_a_value, schemes, functions, placeholders,
              wrappers, first_argument, second_argument, pair_names) -> ContextRules:
    name = rb"[\w$@.\-]*(?:" + "|".join(triggers).encode() + rb")[\w$@.\-]*"
    wrapped = rb"(?:" + _any_of(wrappers) + rb"[ \t]*\([ \t]*)?"
    """`[]byte(`, `SecretStr(` before a literal: the literal is still the value."""
    called = rb"(?:^|[^\w$])"
    operator = rb"""(?:[ \t]*:[ \t]*&?[\w.\[\]<>]+[ \t]*=|[ \t]*(?:==|!=|:=|=>|\|\||\?\?|\?=|=|:))"""
    options = re2.Options()
    options.max_mem = 64 << 20
    options.case_sensitive = False

    def rule(pattern: bytes, case_sensitive: bool = False) -> re2._Regexp:
        chosen = options
        if case_sensitive:
            chosen = re2.Options()
            chosen.max_mem = 64 << 20
        return re2.compile(pattern, chosen)

    return ContextRules(
        Words(frozenset(password_words), frozenset(last_password_words), frozenset(secret_words),
              frozenset(key_prefixes), frozenset(not_a_value), frozenset(s.lower() for s in schemes), frozenset(placeholders), name),
        assignment=rule(rb"(?P<name>" + name + rb")[\"'`]?\]?" + operator + rb"(?:" + NEXT_LINE + wrapped + QUOTED + rb"|[ \t]*" + BARE + rb")"),
        default=rule(rb"\b(?:" + "|".join(functions).encode() + rb")\([ \t]*[\"'`](?P<name>" + name + rb")[\"'`][ \t]*,[ \t]*(?:\r?\n[ \t]*)?" + QUOTED + rb"[ \t]*\)"),
        pair=rule(rb"(?P<name>" + name + rb")=(?P<bare>[^;&\"'\s<>(){}\[\],]+)"),
        docker_env=rule(rb"(?m)^[ \t]*ENV[ \t]+(?P<name>(?i:" + name + rb"))[ \t]+(?:" + QUOTED + rb"|" + BARE + rb")", True),
        curl_user=rule(rb"(?:^|\s)(?:-u|--user)(?:[ \t]+|=)[\"']?[^:\s\"'$]+:(?P<bare>[^\s\"'@]+)", True),
        mysql_password=rule(rb"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?[ \t]-p(?P<bare>[^\s\"']+)", True),
        url_password=rule(rb"[a-z][a-z0-9+.\-]*://[^:/\s@\"'<>]*:(?P<bare>[^@/\s\"'<>]+)@"),
        bearer=rule(rb"\bbearer[ \t]+(?P<bare>[A-Za-z0-9._~+/=\-]{12,})"),
        bearer_joined=rule(rb"""\bbearer[ \t]*["'][ \t]*\+[ \t]*(?:\r?\n[ \t]*)?""" + QUOTED),
        key_begin=rule(rb"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----", True),
        key_body=rule(rb"[A-Za-z0-9+/=\s\\:,.\"'\-]*", True),
        key_lines=rule(rb"(?:\r?\n[ \t]*[A-Za-z0-9+/=]{40,}[ \t]*)+(?:\r?\n[ \t]*[A-Za-z0-9+/=]+)?", True),
        putty=rule(rb"Private-Lines:[ \t]*\d+[ \t]*\r?\n(?P<bare>(?:[ \t]*[A-Za-z0-9+/=]+[ \t]*(?:\r?\n|$))+)|Private-MAC:[ \t]*(?P<mac>[0-9a-fA-F]{16,})", True),
        xml_setting=rule(rb"\bkey[ \t]*=[ \t]*[\"'](?P<name>" + name + rb")[\"'][ \t]+value[ \t]*=[ \t]*(?P<lit>\"[^\"\n]*\"|'[^'\n]*')"),
        command_password=rule(
            rb"\bsshpass\b[^\n]*?[ \t]-p[ \t]*[\"']?(?P<bare>[^\s\"']+)"
            rb"|\b(?:echo|printf)[ \t]+[\"']?(?P<lit>[^\"'\s|]+)[\"']?[ \t]*\|[^\n]*--password-stdin", True),
        kubernetes_secret=rule(rb"(?m)^kind:[ \t]*[\"']?Secret[\"']?[ \t]*$", True),
        kubernetes_secret_json=rule(rb'"kind"[ \t\r\n]*:[ \t\r\n]*"Secret"', True),
        json_data=rule(rb'"(?:data|stringData)"[ \t\r\n]*:[ \t\r\n]*\{(?P<bare>[^{}]*)\}', True),
        json_value=rule(rb'"(?:[^"\\\n]|\\.)*"[ \t\r\n]*:[ \t\r\n]*"(?P<bare>(?:[^"\\\n]|\\.)*)"', True),
        first_argument=rule(called + _any_of(first_argument) + rb"[ \t]*\(" + NEXT_LINE + wrapped + QUOTED),
        second_argument=rule(called + _any_of(second_argument) + rb"[ \t]*\(" + ARGUMENT + rb"," + NEXT_LINE + wrapped + QUOTED),
        credential_pair=rule(called + _any_of(pair_names) + rb"""["'`]?[ \t]*(?::=|=>|=|:)[ \t]*[(\[][ \t]*""" + LITERAL + rb"[ \t]*,[ \t]*" + QUOTED),
    )


# --- what a name and a value say ---------------------------------------------------------------


NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
"""The words of a name: `apiKey`, `API_KEY`, `x-api-key` → api, key (linear: no nested
repetition, and names are short)."""
IDENTIFIER = re.compile(r"[A-Za-z_.][\w.\-/]*")
TOKEN_ALPHABET = re.compile(r"[\w\-+/=.~:!@#%&?^]+")
"""The characters a token-named value is written in (a password may hold any)."""
MAX_NAME_LENGTH = 200
"""A longer "name" is no identifier (a line of repeated trigger words)."""


@lru_cache(maxsize=4096)
def name_kind(name: bytes, words: Words) -> str | None:
    """`password`, `secret` or None: what a name says its value is. `password_reset_timeout`
    names a setting, not a password: a secret word followed by a `not_a_value` word does
    not count; `pass` and `pw` count as the last word only (`db_pass`, not `pass_rate`), or
    before `phrase`; a word ending in a password word is one (`PGPASSWORD`)."""
    if len(name) > MAX_NAME_LENGTH:
        return None
    parts = [w.lower() for w in NAME_WORDS.findall(name.decode("utf-8", "replace")) if not w.isdigit()]
    if "public" in parts:
        return None  # `publicKeyToken`, `PUBLIC_KEY`: published on purpose
    for index, word in enumerate(parts):
        following = parts[index + 1] if index + 1 < len(parts) else ""
        if word in words.password_words or (
            len(word) > 6 and any(word.endswith(p) for p in words.password_words if len(p) >= 6)
        ):
            kind = "password"
        elif word in words.last_password_words:
            if not following or following in ("phrase", "word"):
                return "password"
            continue
        elif word in words.secret_words:
            kind = "secret"
        elif word in words.key_prefixes and following == "key":
            kind, following = "secret", parts[index + 2] if index + 2 < len(parts) else ""
        else:
            continue
        if following not in words.not_a_value:
            return kind
    return None


@lru_cache(maxsize=4096)
def looks_secret(value: str, kind: str, words: Words | None = None) -> bool:
    """Whether `value` of a `kind` name is a secret; with `words`, a value that is itself
    a secret-like identifier (`"new_password2"`, `"password"`) is a name, not a secret."""
    if words is not None and (
        value.lower() in words.placeholders or "example" in value.lower()
        or (IDENTIFIER.fullmatch(value) and _classes(value) < 3 and name_kind(value.encode(), words))
    ):
        return False  # a name (`new_password2`), not a value; `PwdQpDlB4Vll` mixes all three classes: a value
    if not value or value.startswith(PLACEHOLDER_STARTS) or len(set(value)) == 1 or any(c.isspace() for c in value):
        return False
    if kind == "password":
        return len(value) >= MIN_PASSWORD_LENGTH
    if TOKEN_ALPHABET.fullmatch(value) is None:
        return False  # a regular expression or code, not a token: `[A-Z]\w*`
    return len(value) >= MIN_SECRET_LENGTH and _classes(value) >= 2 and entropy(value) >= MIN_SECRET_ENTROPY


def _classes(value: str) -> int:
    """How many of lower case, upper case and digits a value mixes."""
    return sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _span(match, group: bytes) -> tuple[int, int]:
    """A named group's span ((-1, -1) when it did not take part): RE2's matches take only
    numbers, and a bytes pattern's names are bytes."""
    return match.span(_group_indexes(match.re)[group])


@cache
def _group_indexes(pattern: re2._Regexp) -> dict[bytes, int]:
    """A pattern's group numbers by name, asked once (RE2's wrapper works them out anew
    on every call)."""
    return dict(pattern.groupindex)


def _value(match, data: bytes) -> tuple[int, int, bool] | None:
    """(begin, end, quoted) of the value a match captured, a literal's delimiters left out."""
    begin, end = _span(match, b"lit")
    if begin >= 0:
        opening = data[begin : begin + 3]
        if opening in (b'"""', b"'''"):
            return begin + 3, end - 3, True
        if opening[:1] == b"%":
            return begin + (3 if opening[1:2] in (b"q", b"Q") else 2), end - 1, True
        return begin + 1, end - 1, True
    begin, end = _span(match, b"bare")
    return (begin, end, False) if begin >= 0 else None


# --- the rules ---------------------------------------------------------------------------------


def context_spans(data: bytes, rules: ContextRules, bare_values: bool) -> Iterator[tuple[int, int, str]]:
    """(begin, end, rule) of each secret `data` holds by context; `bare_values` when a bare
    word is a literal in this file (.env, YAML, shell), not an expression (code)."""
    words = rules.words
    yield from _assignments(data, rules, bare_values)
    for rule, pattern in (("secret-named-default", rules.default), ("dockerfile-env", rules.docker_env),
                          ("xml-setting", rules.xml_setting)):  # a secret-named value: the name says what it is
        for match in pattern.finditer(data):
            found = _value(match, data)
            kind = name_kind(match.group(b"name"), words)
            if found and kind and looks_secret(_text(data, found), kind, words):
                yield found[0], found[1], rule
    for match in rules.pair.finditer(data):
        begin, end = _span(match, b"bare")
        kind = name_kind(match.group(b"name"), words)
        after = data[end : end + 1]
        if kind is None or (after and after not in b";&\"'` \t\r\n"):
            continue
        line_start = max(data.rfind(b"\n", max(0, match.start() - LOOK_BACK), match.start()) + 1, match.start() - LOOK_BACK)
        in_string = any(q in data[max(0, line_start) : match.start()] for q in (b'"', b"'", b"`"))
        if (bare_values or in_string) and looks_secret(_text(data, (begin, end)), kind, words):
            yield begin, end, "connection-string"
    for match in rules.command_password.finditer(data):
        begin, end = _span(match, b"bare")
        if begin < 0:
            begin, end = _span(match, b"lit")
        if looks_secret(_text(data, (begin, end)), "password", words):
            yield begin, end, "command-line-password"
    for rule, pattern, kind in (("curl-user", rules.curl_user, "password"), ("mysql-password", rules.mysql_password, "password"),
                                ("url-password", rules.url_password, "password"), ("bearer", rules.bearer, "secret")):
        for match in pattern.finditer(data):
            begin, end = _span(match, b"bare")
            if looks_secret(_text(data, (begin, end)), kind, words):
                yield begin, end, rule
    for match in rules.bearer_joined.finditer(data):
        found = _value(match, data)
        if found and looks_secret(_text(data, found), "secret"):
            yield found[0], found[1], "bearer"
    yield from _private_keys(data, rules)
    if b"Private-" in data:
        for match in rules.putty.finditer(data):
            for group in (b"bare", b"mac"):
                begin, end = _span(match, group)
                if begin >= 0:
                    yield begin, len(data[:end].rstrip()), "putty-private-key"
    if rules.kubernetes_secret.search(data):
        yield from _kubernetes_secret_data(data)
    if rules.kubernetes_secret_json.search(data):
        for block in rules.json_data.finditer(data):
            begin, end = _span(block, b"bare")
            for match in rules.json_value.finditer(data, begin, end):
                found = _span(match, b"bare")
                if found[0] < found[1]:
                    yield found[0], found[1], "kubernetes-secret"
    yield from _positional(data, rules)


def _positional(data: bytes, rules: ContextRules) -> Iterator[tuple[int, int, str]]:
    """A literal where a call takes a secret, or the second of a (user, password) pair. A
    path, a URL or a secret-like name there (`login(user, "/next")`) is none."""
    for rule, pattern in (("secret-argument", rules.first_argument), ("secret-argument", rules.second_argument),
                          ("credential-pair", rules.credential_pair)):
        for match in pattern.finditer(data):
            found = _value(match, data)
            if found is None:
                continue
            value = _text(data, found)
            if not value.startswith("/") and "://" not in value and looks_secret(value, "password", rules.words):
                yield found[0], found[1], rule


def _assignments(data: bytes, rules: ContextRules, bare_values: bool) -> Iterator[tuple[int, int, str]]:
    words = rules.words
    for match in rules.assignment.finditer(data):
        kind = name_kind(match.group(b"name"), words)
        found = _value(match, data)
        if kind is None or found is None:
            continue
        begin, end, quoted = found
        if not quoted and not bare_values:
            continue
        value = _text(data, (begin, end))
        scheme = value.split(None, 1)
        if len(scheme) == 2 and scheme[0].lower() in words.schemes:
            begin, value = end - len(scheme[1].encode()), scheme[1]  # `Bearer …`: the scheme stays
        elif not quoted and value.lower() in words.schemes:  # `Authorization: Bearer …` unquoted
            rest = re2.match(rb"[ \t]+([^\s\"'`,;]+)", data[end : end + 4096])
            if rest is None:
                continue
            begin, end = end + rest.start(1), end + rest.end(1)
            value = rest.group(1).decode("utf-8", "replace")
        elif not quoted and not _ends_statement(data[end : end + 3]):
            continue  # prose: `password: the user's password`
        if looks_secret(value, kind, words):
            yield begin, end, "secret-named-assignment"


def _ends_statement(rest: bytes) -> bool:
    rest = rest.lstrip(b" \t")
    return not rest or rest[:1] in (b"#", b";", b",", b"}", b")", b"`", b"\n", b"\r") or rest.startswith(b"//")


def _text(data: bytes, span: tuple[int, int]) -> str:
    return data[span[0] : span[1]].decode("utf-8", "replace")


def _private_keys(data: bytes, rules: ContextRules) -> Iterator[tuple[int, int, str]]:
    """A PEM or OpenSSH private key with its END line, or without one (cut off) as long as
    base64 lines follow the BEGIN line; a BEGIN line alone (a parser's constant) is kept.
    Each body runs to the next `-----` only, so thousands of BEGIN lines cost one pass."""
    if b"PRIVATE KEY" not in data:
        return
    for match in rules.key_begin.finditer(data):
        start = match.end()
        boundary = data.find(b"-----", start)
        boundary = len(data) if boundary < 0 else boundary
        if data.startswith(b"-----END", boundary) and rules.key_body.fullmatch(data, start, boundary):
            begin, end = start, boundary
        else:
            lines = rules.key_lines.match(data, start, boundary)
            if lines is None:
                continue
            begin, end = lines.span()
        body = data[begin:end]
        stripped = body.lstrip(b"\r\n")
        while stripped.startswith(b"\\n"):
            stripped = stripped[2:].lstrip(b"\r\n")
        begin += len(body) - len(stripped)
        tail = stripped.rstrip()
        while tail.endswith(b"\\n"):
            tail = tail[:-2].rstrip()
        end = begin + len(tail)
        if begin < end:
            yield begin, end, "private-key"


def _kubernetes_secret_data(data: bytes) -> Iterator[tuple[int, int, str]]:
    """Every value under `data:` and `stringData:` of a manifest with `kind: Secret`: a
    Secret's keys are whatever the application calls them, and `data` is only base64."""
    position, block_indent = 0, None
    for line in data.splitlines(keepends=True):
        start, position = position, position + len(line)
        content = line.rstrip(b"\r\n")
        stripped = content.lstrip(b" ")
        indent = len(content) - len(stripped)
        if not stripped or stripped.startswith(b"#"):
            continue
        if block_indent is not None and indent > block_indent:
            key, colon, value = stripped.partition(b":")
            value_text = value.strip()
            if not colon or key.startswith((b"-", b'"')) and not value_text:
                value_text, offset = stripped, indent
            else:
                offset = indent + len(key) + 1 + (len(value) - len(value.lstrip()))
            value_text = value_text.strip(b"\"'")
            if value_text and value_text not in (b"|", b">", b"|-", b">-"):
                begin = start + content.index(value_text, offset)
                yield begin, begin + len(value_text), "kubernetes-secret"
            continue
        block_indent = indent if stripped.rstrip() in (b"data:", b"stringData:") else None
