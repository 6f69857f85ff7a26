"""Hostile texts of any size: each `CASES[name](size)` is about `size` characters made to
make a backtracking regular expression re-read what it has read (the pieces named in
issue 19 and the red-team findings, and a few more of the same kind)."""

from __future__ import annotations

from collections.abc import Callable

LINE = 1000
"""Characters per line of the line-wise cases."""


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _lines(unit: str, size: int, width: int = LINE) -> str:
    line = _repeat(unit, width) + "\n"
    return _repeat(line, size)


def commit_message(size: int) -> str:
    """A subject, a body of wrapped prose full of trigger words and `key: value` lines,
    trailers, and one long pasted line (a log, a token dump)."""
    body = _repeat("The password token was rotated; api_key secret=value auth: Bearer key=old. ", size // 2)
    wrapped = "\n".join(body[i : i + 72] for i in range(0, len(body), 72))
    pasted = _repeat("token=password=key=", size - size // 2)
    return f"Rotate the deploy credentials\n\n{wrapped}\n{pasted}\nSigned-off-by: A <a@example.com>\n"


def deep_blocks(size: int) -> str:
    depth = max(1, size // 4)
    return "{\n" * depth + "}\n" * depth


CASES: dict[str, Callable[[int], str]] = {
    "password-lines": lambda size: _lines("password", size),
    "key=-lines": lambda size: _lines("key=", size),
    "api_key-lines": lambda size: _lines("api_key", size),
    "trigger-mix-lines": lambda size: _lines("secret_token passwd auth=Bearer pwd credential apikey ", size),
    "begin-private-key": lambda size: _repeat("-----BEGIN PRIVATE KEY-----\n", size),
    "begin-key-base64": lambda size: _repeat("-----BEGIN RSA PRIVATE KEY-----\n" + ("QUJD" * 16 + "\n") * 3, size),
    "single-line-triggers": lambda size: _repeat("password=key api_key: token ", size),
    "single-line-word-run": lambda size: _repeat("a.b-c@d$e_f", size),
    "single-line-spaces": lambda size: "# a" + " " * (size - 5) + "b\n",
    "token-prefixes-line": lambda size: _repeat("sk-ant-sk-proj-npm_xoxb-ghp_glpat-AIza", size),
    "commit-message": commit_message,
    "deep-brackets": lambda size: "[" * (size // 2) + "]" * (size // 2),
    "deep-blocks": deep_blocks,
    "unclosed-comments": lambda size: _repeat("f(); /* open \"str ' `tick\n", size),
    "heading-lines": lambda size: _lines("# " + " " * 60 + "x", size, 200),
    "unclosed-doc-tags": lambda size: _repeat("<summary><param name=\"a\"><c><code><pre>{@code <see cref=\"", size),
    "doc-link-brackets": lambda size: _repeat("[`a`][![b](c[d](", size),
    "unclosed-doc-fences": lambda size: _repeat("\\code ```rust\n# hidden\n<br>\n", size),
}
