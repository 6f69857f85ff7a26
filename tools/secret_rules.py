"""Regenerate `refdoc_site/languages/secret_rules.json`, the token formats the redactor knows,
from the rule set a maintained scanner ships.

The rules come from Kingfisher (the PyPI wheel `kingfisher-bin`, Apache-2.0), whose built-in
set joins the Betterleaks rules (MIT) and Google's Veles detectors (Apache-2.0). A rule is a
fact about a token's format (a prefix, an alphabet, a length); this script takes those facts
and writes them as data, with the literals a match must contain (the redactor's cheap
prefilter), worked out here from each expression.

    python -m venv /tmp/kf && /tmp/kf/bin/pip install kingfisher-bin
    python tools/secret_rules.py --kingfisher /tmp/kf/bin/kingfisher

Kingfisher is only asked to list its rules (`rules list`, no scan, no validation, no update
check); the build never runs it. Every expression is checked to compile under RE2, the
engine the redactor runs them with (linear time on any input).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import re._constants as sre
import re._parser as sre_parse
import subprocess
import sys
import tempfile
from itertools import product
from pathlib import Path

import re2

TARGET = Path(__file__).resolve().parent.parent / "refdoc_site" / "languages" / "secret_rules.json"

EXCLUDED = {
    "betterleaks.generic-api-key": "any high-entropy value of a key-like name: the redactor's own assignment rule judges those",
    "betterleaks.generic-credential-uri": "the redactor's own URL rule keeps the user and host and takes the password only",
    "betterleaks.private-key": "private key blocks are redacted whole, BEGIN to END, by the redactor's own linear rule",
    "betterleaks.gcp-service-account": "its private key is a private key block; the rest of the file is public",
    "betterleaks.gcp-application-default-credentials": "spans lines; its client secret and refresh token are caught by name",
    "betterleaks.hashicorp-tf-password": "any quoted value of a password-named key: the redactor's own assignment rule",
    "betterleaks.aws-secret-access-key": "any 40-character value of a name holding `key` (a git SHA): the assignment rule judges it",
    "betterleaks.jwt-base64": "a base64 of a JWT; rare, and its expression needs no literal the prefilter can use",
}
"""Rules left out, and why: what the redactor's own context rules do better, or what is not
a credential."""

NOT_SECRET_WORDS = ("client-id", "tenant-id", "username", "application-id", "account-name", "-repository", "-address")
"""Rules that find identifiers, not credentials (an Azure tenant id, a client id, a user
name): published in every tutorial, they are left out as well."""

GENERIC_KEYWORDS = frozenset({
    "key", "keys", "secret", "token", "password", "pass", "pwd", "access", "api", "auth", "client", "private",
    "app", "application", "consumer", "bearer", "credential", "credentials", "account",
})
"""A rule one of whose literals is such a word is a generic rule (any value of a key-like
name); Betterleaks judges those with entropy thresholds its listing does not carry, and the
redactor's own assignment rule does it with its own: left out."""

MIN_KEYWORD = 3
"""A rule whose every match contains a literal at least this long; shorter ones would make
the prefilter run the rule on almost every line."""
MAX_ALTERNATIVES = 32
MAX_CLASS = 16
"""A character class of at most this many characters (lower-cased) counts as literals, so
a short prefix joins the hex digit after it (Twilio's `SK[0-9a-fA-F]{32}` → `sk0` … `skf`)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kingfisher", default="kingfisher", help="the kingfisher binary (from kingfisher-bin)")
    parser.add_argument("--output", type=Path, default=TARGET)
    args = parser.parse_args(argv)
    version = subprocess.run([args.kingfisher, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "rules.json"
        subprocess.run(
            [args.kingfisher, "rules", "list", "--no-update-check", "--format", "json", "--output", str(listing)],
            capture_output=True, check=True, stdin=subprocess.DEVNULL,
        )
        listed = json.loads(listing.read_text(encoding="utf-8"))
    rules, dropped = [], {}
    for rule in sorted(listed, key=lambda r: r["id"]):
        reason, compiled = _left_out(rule)
        if reason:
            dropped[rule["id"]] = reason
            continue
        keywords = required_literals(rule["pattern"])
        source, _, name = rule["id"].partition(".")
        rules.append({
            "id": name.removeprefix("secrets/"),
            "from": source,
            "pattern": rule["pattern"],
            "group": 1 if compiled.groups else 0,
            "keywords": keywords,
        })
    data = {
        "about": (
            "Token formats the redactor knows, converted by tools/secret_rules.py from the rules "
            f"{version} lists (Betterleaks rules, MIT, and Veles detectors, Apache-2.0, as Kingfisher, "
            "Apache-2.0, ships them). Each pattern is RE2 syntax; `group` is the capture group that "
            "holds the secret (0: the whole match); `keywords` are lower-case literals one of which "
            "every match contains, worked out from the pattern: the rule runs only on lines holding one."
        ),
        "source": version,
        "rules": rules,
        "left_out": dropped,
    }
    args.output.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(rules)} rules written to {args.output}, {len(dropped)} left out", file=sys.stderr)
    return 0


def _left_out(rule: dict) -> tuple[str | None, object]:
    """Why `rule` is left out (None to keep it), and its RE2 expression."""
    reason = _excluded(rule["id"])
    if reason:
        return reason, None
    try:
        compiled = re2.compile(rule["pattern"])
    except re2.error as error:
        return f"RE2 cannot compile it: {error}", None
    keywords = required_literals(rule["pattern"])
    if not keywords:
        return f"no literal of {MIN_KEYWORD}+ characters that every match contains", None
    if set(keywords) & GENERIC_KEYWORDS:
        return "a generic rule: it runs on any name holding words like key or secret", None
    if not literals_hold(rule["pattern"], keywords):
        return "a generated match lacked every literal the analysis found", None
    return None, compiled


def _excluded(rule_id: str) -> str | None:
    if rule_id in EXCLUDED:
        return EXCLUDED[rule_id]
    if any(word in rule_id for word in NOT_SECRET_WORDS):
        return "an identifier, not a credential"
    return None


# --- checking the literals on generated matches -----------------------------------------------

SAMPLES = 40
PRINTABLE = [chr(c) for c in range(32, 127)]
CATEGORIES = {
    sre.CATEGORY_DIGIT: "0123456789", sre.CATEGORY_SPACE: " \t",
    sre.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
}


def literals_hold(pattern: str, keywords: list[str], seed: int = 0) -> bool:
    """Whether every generated text that `pattern` matches (RE2) holds one of `keywords`:
    the analysis checked on `SAMPLES` random matches."""
    rng = random.Random(seed)
    tree = list(sre_parse.parse(_python_syntax(pattern)))
    compiled = re2.compile(pattern)
    for _ in range(SAMPLES):
        try:
            text = "".join(_sample(tree, rng))
        except (ValueError, RecursionError):
            continue
        found = compiled.search(text)
        if found is not None and not any(k in found.group().lower() for k in keywords):
            return False
    return True


def _sample(items, rng: random.Random) -> list[str]:
    out: list[str] = []
    for op, value in items:
        if op is sre.LITERAL:
            out.append(chr(value))
        elif op is sre.NOT_LITERAL:
            out.append(rng.choice([c for c in PRINTABLE if ord(c) != value]))
        elif op is sre.ANY:
            out.append(rng.choice(PRINTABLE))
        elif op is sre.IN:
            out.append(rng.choice(_class_members(value)))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, body = value
            for _ in range(rng.randint(low, min(high, low + 3))):
                out += _sample(list(body), rng)
        elif op is sre.SUBPATTERN:
            out += _sample(list(value[-1]), rng)
        elif op is sre.ATOMIC_GROUP:
            out += _sample(list(value), rng)
        elif op is sre.BRANCH:
            out += _sample(list(rng.choice(value[1])), rng)
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue
        else:
            raise ValueError(op)
    return out


def _class_members(value) -> list[str]:
    chars: set[str] = set()
    negate = False
    for kind, member in value:
        if kind is sre.NEGATE:
            negate = True
        elif kind is sre.LITERAL:
            chars.add(chr(member))
        elif kind is sre.RANGE:
            chars.update(chr(c) for c in range(member[0], min(member[1], member[0] + 200) + 1))
        elif kind is sre.CATEGORY and member in CATEGORIES:
            chars.update(CATEGORIES[member])
        elif kind is sre.CATEGORY:
            chars.update(c for c in PRINTABLE if not any(c in v for v in CATEGORIES.values()))
    members = [c for c in PRINTABLE if c not in chars] if negate else sorted(chars)
    if not members:
        raise ValueError("empty class")
    return members


# --- the literals every match contains --------------------------------------------------------


def required_literals(pattern: str) -> list[str] | None:
    """Lower-case strings one of which occurs in every match of `pattern`, the longest such
    set this analysis finds; None when there is none of `MIN_KEYWORD` characters."""
    try:
        tree = sre_parse.parse(_python_syntax(pattern))
    except (re.error, OverflowError, RecursionError):
        return None
    found = _required(list(tree))
    if found is None or min(map(len, found)) < MIN_KEYWORD:
        return None
    return sorted(found)


def _python_syntax(pattern: str) -> str:
    """Go's syntax, as far as the literal analysis needs it: flags anywhere (Python wants a
    global flag first; case is ignored here anyway) and `\\z`."""
    for posix, members in POSIX_CLASSES.items():
        pattern = pattern.replace(f"[:{posix}:]", members)
    pattern = re.sub(r"\(\?-?[imsU]+\)", "", pattern)
    pattern = re.sub(r"\(\?(-?[imsU]+)(?=:)", lambda m: "(?" + ("s" if "s" in m.group(1).lstrip("-") else "i"), pattern)
    return pattern.replace(r"\z", r"\Z")


POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "xdigit": "0-9a-fA-F", "upper": "A-Z",
    "lower": "a-z", "word": "\\w", "space": "\\s", "punct": "!-/:-@\\[-`{-~",
}
"""Go's `[[:alnum:]]`, which Python's parser would read as a class of `[:alnu` and a `]`."""


def _exact(item) -> set[str] | None:
    """The strings `item` matches when they are few and finite (a literal, a small class,
    an alternation of those), lower-cased; else None."""
    op, value = item
    if op is sre.LITERAL:
        return {chr(value).lower()}
    if op is sre.IN:
        chars: set[str] = set()
        for kind, member in value:
            if kind is sre.LITERAL:
                chars.add(chr(member).lower())
            elif kind is sre.RANGE and member[1] - member[0] < MAX_CLASS:
                chars.update(chr(c).lower() for c in range(member[0], member[1] + 1))
            else:
                return None
        return chars if 0 < len(chars) <= MAX_CLASS else None
    if op is sre.SUBPATTERN:
        return _exact_sequence(list(value[-1]))
    if op is sre.BRANCH:
        options: set[str] = set()
        for branch in value[1]:
            exact = _exact_sequence(list(branch))
            if exact is None:
                return None
            options |= exact
        return options if len(options) <= MAX_ALTERNATIVES else None
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and value[0] == value[1] and value[0] <= 4:
        exact = _exact_sequence(list(value[2]))
        if exact is None:
            return None
        return _product([exact] * value[0])
    if op is sre.AT:
        return {""}
    return None


def _exact_sequence(items: list) -> set[str] | None:
    parts = []
    for item in items:
        exact = _exact(item)
        if exact is None:
            return None
        parts.append(exact)
    return _product(parts)


def _product(parts: list[set[str]]) -> set[str] | None:
    result = {""}
    for part in parts:
        result = {a + b for a, b in product(result, part)}
        if len(result) > MAX_ALTERNATIVES:
            return None
    return result


def _required(items: list) -> set[str] | None:
    """The best set of literals one of which every match of the sequence `items` contains."""
    candidates: list[set[str]] = []
    run: set[str] | None = {""}
    for item in items:
        exact = _exact(item)
        if exact is not None and run is not None:
            joined = _product([run, exact])
            if joined is not None:
                run = joined
                continue
        if run is not None and run != {""}:
            candidates.append(run)
            starts = _prefixes(item) if exact is None else None
            if starts is not None and (joined := _product([run, starts])) is not None:
                candidates.append(joined)
        run = exact if exact is not None else {""}
        if exact is None:
            inner = _required_item(item)
            if inner is not None:
                candidates.append(inner)
    if run is not None and run != {""}:
        candidates.append(run)
    candidates = [c for c in candidates if "" not in c]
    if not candidates:
        return None
    return max(candidates, key=lambda c: (min(map(len, c)), -len(c)))


def _prefixes(item) -> set[str] | None:
    """Strings one of which every match of `item` starts with (`AKIA|A3T[A-Z0-9]` starts
    with `AKIA` or `A3T`), so a literal before it joins them: the parser moves a common
    prefix of alternatives out of them (`A(?:KIA|3T…)`)."""
    op, value = item
    if op is sre.SUBPATTERN:
        return _sequence_prefixes(list(value[-1]))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and value[0] >= 1:
        return _sequence_prefixes(list(value[2]))  # the first repetition starts it
    if op is sre.BRANCH:
        options: set[str] = set()
        for branch in value[1]:
            starts = _sequence_prefixes(list(branch))
            if starts is None:
                return None
            options |= starts
        return options if len(options) <= MAX_ALTERNATIVES else None
    return None


def _sequence_prefixes(items: list) -> set[str] | None:
    run: set[str] | None = {""}
    for item in items:
        exact = _exact(item)
        if exact is None:
            starts = _prefixes(item)
            return _product([run, starts]) if starts is not None else run
        run = _product([run, exact])
        if run is None:
            return None
    return run


def _required_item(item) -> set[str] | None:
    op, value = item
    if op is sre.SUBPATTERN:
        return _required(list(value[-1]))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and value[0] >= 1:
        return _required(list(value[2]))
    if op is sre.ATOMIC_GROUP:
        return _required(list(value))
    if op is sre.BRANCH:
        options: set[str] = set()
        for branch in value[1]:
            found = _required(list(branch))
            if found is None:
                return None
            options |= found
        return options if len(options) <= MAX_ALTERNATIVES * 2 else None
    return None


if __name__ == "__main__":
    sys.exit(main())
