"""A small hostile repository: names that try to run script in a visitor's browser, break a
page's title, the navigation or a diagram, or make page paths collide or vanish; secrets in
source and in files named like credentials; links and settings that reach out of the
repository for files or endpoints.

`make_hostile_repo(root)` writes it. Each `_add_*` function adds one family of cases and
returns what the tests should look for, so a new family (secrets, symlinks, FIFOs) is one
more function in `FAMILIES`.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import fake_secrets as fake
import yaml

from refdoc_site.core.records import SkipReason

SCRIPT_IN_FOLDER = "<img src=x onerror=alert(2)>"
"""A folder (and so a module) whose name is markup."""
TITLE_BREAKING_PATH = "x</title><script>alert(1)</script>.py"
"""Path separators make the `</`: folder `x<`, folder `title><script>alert(1)<`, file `script>.py`."""
FENCE_BREAKING_FOLDER = "fence\n```\n<img src=x onerror=alert(3)>\n{: onerror=alert(3) }\n```text"
"""A newline and a code fence: closes the module map's block and adds attribute-list markup."""
HOSTILE_SITE_NAME = "<img src=x onerror=alert(4)> \"site' & </title>"
HOSTILE_PLAN = "<img src=x onerror=alert(5)> </title><script>alert(5)</script>"
MENTION_PATHS = ("@acme/security-team/notify.py", "www.github-login.example/verify.py", "refs/#12 GH-7 x@login.example.py")
"""Paths GitHub would make a team mention, an autolink or an issue reference of in the pull
request's comment."""
QUOTED_REPO_URL = "https://example.org/o%22w%3Cn/re(po)"
"""Valid (http, no raw quote or angle bracket) but with percent-encoded ones and parentheses,
which must not end a Markdown link target."""


@dataclass
class HostileRepo:
    """What was written, for the tests to look for in the built site."""

    root: Path
    paths: list[str] = field(default_factory=list)
    """Every repository-relative file path written that should get a page."""
    skipped: list[str] = field(default_factory=list)
    """Files written that the build must skip and count (no page can carry their name)."""
    names: list[str] = field(default_factory=list)
    """Names (folder, file, setting) that must show on the site as text."""
    config: dict = field(default_factory=dict)
    """The `refdoc.yml` written."""
    secrets: list[str] = field(default_factory=list)
    """Values that must appear nowhere: not in the site, the store or any request."""
    redacted_in: list[str] = field(default_factory=list)
    """Files (with pages) in which the build must count redactions."""
    skip_reasons: dict[str, int] = field(default_factory=dict)
    """How many files the build must skip and count, by reason, at least."""
    outside: Path | None = None
    """A file outside the repository that links and settings point at; its text must not be
    published."""


def _write(repo: HostileRepo, path: str, text: str) -> None:
    target = repo.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    repo.paths.append(path)


def _function(name: str) -> str:
    return f'def {name}():\n    """Return a value from {name}."""\n    return 1\n'


def _add_markup_names(repo: HostileRepo) -> None:
    """Folder and file names that are HTML: in a module name, in a file path, in a title."""
    _write(repo, f"{SCRIPT_IN_FOLDER}/widget.py", _function("widget"))
    _write(repo, TITLE_BREAKING_PATH, _function("breaker"))
    _write(repo, "quotes/\"double\" & 'single'.py", _function("quoted"))
    _write(repo, "attrs/{: onerror=alert(6) }.py", _function("attrs"))
    repo.names += [SCRIPT_IN_FOLDER, TITLE_BREAKING_PATH, "quotes/\"double\" & 'single'.py"]


def _add_fence_names(repo: HostileRepo) -> None:
    """A folder name that closes the Mermaid (or text) block of the module map."""
    _write(repo, f"{FENCE_BREAKING_FOLDER}/fenced.py", _function("fenced"))
    _write(repo, "main.py", f"import widget\n\n{_function('main')}")


def _add_reserved_names(repo: HostileRepo) -> None:
    """Names MkDocs or refdoc-site give a meaning: the root module's page, directory indexes."""
    _write(repo, "_root/rooted.py", _function("rooted"))
    _write(repo, "docs/index", "A file called index.\n")
    _write(repo, "docs/README", "A file called README.\n")
    _write(repo, "index/index.md", "# Index inside index\n")


def _add_dot_paths(repo: HostileRepo) -> None:
    """Paths MkDocs' default `exclude_docs` would drop: any segment starting with a dot."""
    _write(repo, ".github/workflows/ci.yml", "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    _write(repo, ".hidden.py", _function("hidden"))
    _write(repo, "..dots/...py", _function("dots"))


def _add_url_characters(repo: HostileRepo) -> None:
    """Characters URLs, MkDocs and file systems treat specially."""
    for path in ("chars/a#b.py", "chars/q?.py", "chars/100%.py", "chars/back\\slash.py", "chars/new\nline.py",
                 "chars/spaced name.py", "chars/日本語.py", "chars/~tilde~7E.py", "chars/[id].ts"):
        _write(repo, path, _function("f") if path.endswith(".py") else "export const x = 1;\n")
    repo.names += ["chars/a#b.py", "chars/100%.py", "chars/日本語.py"]


def _add_mention_names(repo: HostileRepo) -> None:
    """Folders named like a GitHub team, a web address and issue references."""
    for path in MENTION_PATHS:
        _write(repo, path, _function("notify"))
    repo.names += list(MENTION_PATHS)


def _add_long_names(repo: HostileRepo) -> None:
    """Names whose page path would outgrow the 255 bytes of a file name: escaped three
    characters a byte, or 252 bytes before `.md` is added, and a folder as long."""
    for path in ("#" * 120 + ".py", "l" * 252 + ".py", "#" * 100 + "/" + "%" * 80 + ".py"):
        _write(repo, f"long/{path}", _function("long"))


LOOKALIKE_NAMES = ("looks/invoice\u202egpj.py", "looks/zero\u200bwidth.py", "looks/caf\u00e9.py", "looks/cafe\u0301.py",
                   "looks/\u2066isolated\u2069.py")
"""Names that show as something else: a right-to-left override (`invoiceypj.jpg`), a
zero-width space, an isolate, and NFC/NFD twins that look the same (two pages)."""


def _add_lookalike_names(repo: HostileRepo) -> None:
    """Names whose characters change how they show; each must show what it holds."""
    for path in LOOKALIKE_NAMES:
        _write(repo, path, _function("lookalike"))
    _write(repo, "looks\u202e/inside.py", _function("inside"))


def _add_site_markers(repo: HostileRepo) -> None:
    """A built site's marker dropped beside code to hide it from the index and the change
    map: the folder is indexed; a folder with a site's shape is skipped and counted."""
    (repo.root / "marked").mkdir()
    (repo.root / "marked/.refdoc-site.json").write_text("{}\n", encoding="utf-8")
    _write(repo, "marked/runner.py", "import subprocess\n\n\ndef execute(command):\n    return subprocess.run(command, shell=True)\n")
    for name, text in ((".refdoc-site.json", '{"tool": "refdoc-site", "state": "site"}\n'), ("index.html", "<html></html>\n"),
                       ("assets/site.css", "body {}\n")):
        (repo.root / "old-site" / name).parent.mkdir(parents=True, exist_ok=True)
        (repo.root / "old-site" / name).write_text(text, encoding="utf-8")
    _expect_skip(repo, "built site")


def _add_undecodable_names(repo: HostileRepo) -> None:
    """A file name that is not UTF-8, where the file system allows one (Linux does; macOS
    refuses it): skipped and counted, never fatal."""
    name = b"latin1-caf\xe9.py"
    try:
        with open(os.path.join(os.fsencode(repo.root), name), "wb") as file:
            file.write(_function("latin").encode())
    except OSError:
        return
    repo.skipped.append(os.fsdecode(name))


def _add_configuration(repo: HostileRepo) -> None:
    """Settings that reach the page titles, the navigation and link targets."""
    repo.config.update(
        site_name=HOSTILE_SITE_NAME,
        repo_url=QUOTED_REPO_URL,
        plans=[HOSTILE_PLAN],
        include=["**"],
        exclude=["refdoc.yml"],
    )
    repo.names += [HOSTILE_SITE_NAME, HOSTILE_PLAN]


def _expect_skip(repo: HostileRepo, reason: str) -> None:
    repo.skip_reasons[reason] = repo.skip_reasons.get(reason, 0) + 1


def _add_secrets(repo: HostileRepo) -> None:
    """Credentials in code, in prose and in files named like credentials (never read, even
    though `include: ["**"]` names them)."""
    key_block, key_lines = fake.private_key_block()
    aws, aws_secret, database_password, password = fake.aws_key_id(), fake.token(40), "db" + fake.token(14), "Pw" + fake.token(12)
    github, bearer, slack, stripe = fake.github_token(), fake.jwt(), fake.slack_token(), fake.stripe_key()
    _write(repo, "settings/production.py", f'''"""Production settings."""

AWS_ACCESS_KEY_ID = "{aws}"
aws_secret_access_key = "{aws_secret}"
DATABASE_URL = "postgres://app:{database_password}@db.internal/shop"


def connect(host):
    """Open the admin session."""
    password = "{password}"
    return (host, password)
''')
    _write(repo, "web/client.js", f'''const token = "{github}";

export function call(url) {{
  return fetch(url, {{ headers: {{ authorization: "Bearer {bearer}" }} }});
}}
''')
    _write(repo, "docs/deploy.md", f"# Deploying\n\nThe bot posts alerts with {slack}.\n")
    repo.redacted_in += ["settings/production.py", "web/client.js", "docs/deploy.md"]
    env_stripe, pem_lines = fake.stripe_key(), fake.private_key_block()[1]
    for name, text in ((".env", f"STRIPE_KEY={env_stripe}\n"), ("id_rsa", key_block),
                       ("certs/server.pem", "-----BEGIN PRIVATE KEY-----\n" + "\n".join(pem_lines) + "\n-----END PRIVATE KEY-----\n")):
        target = repo.root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        _expect_skip(repo, "secret")
    repo.secrets += [aws, aws_secret, database_password, password, github, bearer, slack, stripe, env_stripe, *key_lines, *pem_lines]


OUTSIDE_TEXT = "root:x:0:0:the build machine's own file, never published"


def _add_outside_references(repo: HostileRepo) -> None:
    """Links and settings that point out of the repository: a source file and a Mermaid
    script linked to a file of the machine, and `mermaid_js` naming it."""
    outside = repo.root.parent / f"{repo.root.name}-outside.txt"
    outside.write_text(OUTSIDE_TEXT + "\n", encoding="utf-8")
    repo.outside = outside
    (repo.root / "leak.py").symlink_to(outside)
    _expect_skip(repo, "symlink outside the repository")
    mermaid = repo.root / "node_modules/mermaid/dist/mermaid.min.js"
    mermaid.parent.mkdir(parents=True, exist_ok=True)
    mermaid.symlink_to(outside)
    repo.config["mermaid_js"] = str(outside)


ODD = "odd"
"""The folder `add_odd_files` fills, so it can join any other test repository."""


def add_odd_files(root: Path) -> dict[str, tuple[SkipReason, str]]:
    """Put one of each odd kind of file under `root/odd/`, next to a real `target.py`; the
    links out of the repository point into a sibling folder `<root>-outside`.

    Returns repository path → (the skip reason discovery must give, a piece of its detail).
    Every odd file has a supported extension, so only its kind can exclude it. A socket
    (a path too long to bind) and a device (needs root, and a container may refuse it)
    are added only where the system allows.
    """
    folder = root / ODD
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "target.py").write_text("def target():\n    return 'real'\n", encoding="utf-8")
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.py").write_text("TOKEN = 'outside the repository'\n", encoding="utf-8")

    os.mkfifo(folder / "pipe.py")
    links = {
        "loop.py": "loop.py",
        "ping.py": "pong.py",
        "pong.py": "ping.py",
        "dangling.py": "missing.py",
        "alias.py": "target.py",
        "to_pipe.py": "pipe.py",
        "here": ".",
        "secret.py": os.path.relpath(outside / "secret.py", folder),
        "up": os.path.relpath(outside, folder),
    }
    for name, target in links.items():
        os.symlink(target, folder / name)
    odd = {
        "pipe.py": (SkipReason.SPECIAL, "FIFO"),
        "loop.py": (SkipReason.SYMLINK, "broken link"),
        "ping.py": (SkipReason.SYMLINK, "broken link"),
        "pong.py": (SkipReason.SYMLINK, "broken link"),
        "dangling.py": (SkipReason.SYMLINK, "broken link to missing.py"),
        "alias.py": (SkipReason.SYMLINK, f"links to {ODD}/target.py"),
        "to_pipe.py": (SkipReason.SYMLINK, f"links to a FIFO {ODD}/pipe.py"),
        "here": (SkipReason.SYMLINK, f"links to a folder {ODD}"),
        "secret.py": (SkipReason.SYMLINK_OUTSIDE, "secret.py"),
        "up": (SkipReason.SYMLINK_OUTSIDE, ""),
    }
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(folder / "server.py"))
        odd["server.py"] = (SkipReason.SPECIAL, "socket")
    except OSError:
        pass
    try:  # /dev/zero: read, it never ends
        os.mknod(folder / "zero.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))
        odd["zero.py"] = (SkipReason.SPECIAL, "character device")
    except (OSError, AttributeError):
        pass
    return {f"{ODD}/{name}": expected for name, expected in odd.items()}


def _add_odd_files(repo: HostileRepo) -> None:
    """A FIFO, a socket, a device, link loops, dangling links and links out of the repository."""
    for reason, _ in add_odd_files(repo.root).values():
        _expect_skip(repo, reason.value)


HOSTILE_MARKDOWN_DOC = """# Guide <img src=x onerror=alert(8)>

Text <img src=x onerror=alert(8)> and [a link](javascript:alert(8)) {: onclick=alert(8) }

<script>alert(8)</script>

<div markdown="1">**bold** <iframe src="https://example.org"></iframe></div>

[ref link][bad]

## Why <svg onload=alert(8)>

--8<-- "/etc/passwd"

[bad]: javascript:alert(8)
"""
HOSTILE_RST_DOC = """Guide <img src=x onerror=alert(9)>
==================================

Text <img src=x onerror=alert(9)> and `a link <javascript:alert(9)>`_ and :func:`<script>`.

.. raw:: html

   <script>alert(9)</script>

.. include:: /etc/passwd

.. note:: <b onmouseover=alert(9)>note</b>

Section ``</code><script>alert(9)</script>``
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

.. code-block:: python {: onclick=alert(9) }

   print("<script>alert(9)</script>")
"""


def _add_hostile_docs(repo: HostileRepo) -> None:
    """Prose docs whose text, raw HTML, links and directives try to become markup on their
    prose pages, or to pull a file from outside into them."""
    _write(repo, "docs/hostile.md", HOSTILE_MARKDOWN_DOC)
    _write(repo, "docs/hostile.rst", HOSTILE_RST_DOC)


FAMILIES: tuple[Callable[[HostileRepo], None], ...] = (
    _add_hostile_docs,
    _add_markup_names,
    _add_fence_names,
    _add_reserved_names,
    _add_dot_paths,
    _add_url_characters,
    _add_mention_names,
    _add_long_names,
    _add_lookalike_names,
    _add_site_markers,
    _add_undecodable_names,
    _add_secrets,
    _add_outside_references,
    _add_odd_files,
    _add_configuration,
)


def make_hostile_repo(root: Path, **settings: object) -> HostileRepo:
    """Write the hostile repository under `root` (created); `settings` go into its
    refdoc.yml beside the hostile ones (`mermaid_js=...`). Returns what it holds."""
    root.mkdir(parents=True, exist_ok=True)
    repo = HostileRepo(root)
    for add in FAMILIES:
        add(repo)
    repo.config.update(settings)
    (root / "refdoc.yml").write_text(yaml.safe_dump(repo.config, allow_unicode=True), encoding="utf-8")
    return repo


def build_hostile_site(work: Path, out: Path, **settings: object) -> tuple[HostileRepo, int]:
    """Write the hostile repository under `work` and build it with the CLI into `out`:
    (the repository, the exit code)."""
    from refdoc_site.cli import main

    repo = make_hostile_repo(work / "hostile", **settings)
    return repo, main(["build", str(repo.root), "--out", str(out)])
