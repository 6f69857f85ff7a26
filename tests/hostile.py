"""A small hostile repository: names that try to run script in a visitor's browser, break a
page's title, the navigation or a diagram, or make page paths collide or vanish; secrets in
source and in files named like credentials; links and settings that reach out of the
repository for files or endpoints.

`make_hostile_repo(root)` writes it. Each `_add_*` function adds one family of cases and
returns what the tests should look for, so a new family (secrets, symlinks, FIFOs) is one
more function in `FAMILIES`.
"""

from __future__ import annotations

import base64
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
HOSTILE_CORRECTION = "<img src=x onerror=alert(8)> [x](javascript:alert(8)) {: onclick=alert(8) } ```\n!!! danger"
"""A maintainer's summary and note that are markup: the corrections file is repository input."""
QUOTED_REPO_URL = "https://github.com/o%22w%3Cn/re(po)"
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


def _add_modern_secrets(repo: HostileRepo) -> None:
    """The formats a red team found leaking (round two): prefixed tokens outside any secret
    name, secret-named defaults, connection strings, Docker and shell forms, a Kubernetes
    Secret, a PuTTY key; and the credential files named like that."""
    tokens = fake.modern_tokens()
    password, db_password, dsn_password, docker_password = ("Pw" + fake.token(12) for _ in range(4))
    api_key, encoded, mysql_password, curl_password = fake.token(32), "U2h" + fake.token(29), "My" + fake.token(10), "Cu" + fake.token(10)
    _write(repo, "clients/providers.py", f'''"""Clients of the providers."""
import os

GITHUB = Github("{tokens["github-fine-grained"]}")
OPENAI_KEY = os.getenv("OPENAI_API_KEY", "{tokens["openai-project"]}")
os.environ.setdefault("STRIPE_API_KEY", "{api_key}")
CLIENTS = [Anthropic("{tokens["anthropic"]}"), HfApi(token=("{tokens["huggingface"]}"))]
DSN = "host=db user=app password={dsn_password} dbname=shop"
SQL = "Server=db;User Id=app;Password={db_password};"
MAPS = f"https://maps.example.com/api?key={tokens["google"]}&q=1"
HEADERS = {{"Authorization": f"Bearer {tokens["npm"]}"}}
DB_PASS = (
    b"{password}"
)
''')
    _write(repo, "deploy/Dockerfile", f"FROM python:3.12\nENV DATABASE_PASSWORD {docker_password}\n")
    _write(repo, "deploy/release.sh", f"curl -u deploy:{curl_password} https://uploads.example.com\n"
                                      f"mysqldump -u root -p{mysql_password} shop > shop.sql\n")
    _write(repo, "k8s/secret.yaml", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: shop\ndata:\n  config: {encoded}\n"
                                    f"stringData:\n  hook: {tokens['stripe-webhook']}\n")
    putty, putty_secrets = fake.putty_key()
    _write(repo, "docs/keys.md", f"# Keys\n\nThe deploy key, for PuTTY:\n\n```\n{putty}```\n\n"
                                 f"Slack app: {tokens['slack-app']}, Shopify: {tokens['shopify']}, DO: {tokens['digitalocean']}.\n")
    login_password, signing_key, go_key, json_secret = "Lg" + fake.token(12), fake.token(32), fake.token(24), "U2h" + fake.token(29)
    _write(repo, "clients/mail.py", f'smtp.login("reports", "{login_password}")\nSIGNATURE = hmac.new(b"{signing_key}", BODY, "sha256")\n')
    _write(repo, "clients/sign.go", f'package clients\n\nvar jwtKey = []byte("{go_key}")\n')
    _write(repo, "k8s/secret.json", f'{{"kind": "Secret", "metadata": {{"name": "shop"}}, "data": {{"config": "{json_secret}"}}}}\n')
    repo.redacted_in += ["clients/providers.py", "deploy/Dockerfile", "deploy/release.sh", "k8s/secret.yaml", "docs/keys.md",
                         "clients/mail.py", "clients/sign.go", "k8s/secret.json"]
    for name in (".envrc", "infra/prod.tfvars.json", "kubeconfig", "auth.json", ".vault-token", "credentials.tfrc.json", ".terraformrc"):
        target = repo.root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"token = \"{fake.token(24)}\"\n", encoding="utf-8")
        _expect_skip(repo, "secret")
    repo.secrets += [*tokens.values(), password, db_password, dsn_password, docker_password, api_key, encoded,
                     mysql_password, curl_password, *putty_secrets, login_password, signing_key, go_key, json_secret]


OUTSIDE_TEXT = "root:x:0:0:the build machine's own file, never published"


def _add_outside_references(repo: HostileRepo) -> None:
    """Links that point out of the repository: a source file and Mermaid's module entry
    linked to a file of the machine (`mermaid_js` naming one is tests/test_trust.py's)."""
    outside = repo.root.parent / f"{repo.root.name}-outside.txt"
    outside.write_text(OUTSIDE_TEXT + "\n", encoding="utf-8")
    repo.outside = outside
    (repo.root / "leak.py").symlink_to(outside)
    _expect_skip(repo, "symlink outside the repository")
    module_entry = repo.root / "node_modules/mermaid/dist/mermaid.esm.min.mjs"
    module_entry.parent.mkdir(parents=True, exist_ok=True)
    module_entry.symlink_to(outside)


def mermaid_like_script(note: str = "") -> str:
    """A script that passes rendering/assets.py's look of Mermaid (its size and words) and
    is not Mermaid: what a trusted repository may still ship, and no more."""
    head = f"/* {note} mermaid flowchart sequenceDiagram securityLevel */ window.mermaid = {{}};\n"
    return head + "// padding\n" * (300 * 1024 // 11)


def ci_git_config(token: str) -> str:
    """`.git/config` as actions/checkout leaves it with `persist-credentials: true`: the
    token, base64-encoded, in an extra header for the server."""
    header = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return (
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        '[remote "origin"]\n\turl = https://github.com/acme/shop\n'
        f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {header}\n'
    )


def _add_ci_credentials(repo: HostileRepo) -> None:
    """CI's token layout: `.git/config` holds the checkout's token; refdoc.yml names it as
    the Mermaid script, and a committed node_modules/mermaid (not a link) would run on every
    page. Without trust neither is published; nothing of `.git/` reaches anything."""
    token = "ghp_" + fake.token(36)
    config = ci_git_config(token)
    (repo.root / ".git").mkdir(exist_ok=True)
    (repo.root / ".git" / "config").write_text(config, encoding="utf-8")
    committed = repo.root / "node_modules/mermaid/dist/mermaid.min.js"
    committed.parent.mkdir(parents=True, exist_ok=True)
    committed.write_text(mermaid_like_script(COMMITTED_SCRIPT), encoding="utf-8")
    repo.config["mermaid_js"] = ".git/config"
    repo.secrets += [token, config.splitlines()[-1].split()[-1], "extraheader", COMMITTED_SCRIPT]


COMMITTED_SCRIPT = "the repository's own script, run by no page"
SEEDED_PAGE = "seeded-store-page-never-published"


def _add_seeded_store(repo: HostileRepo) -> None:
    """A store shipped with the repository (a tarball, no git): an extra page, raw HTML, an
    edited overview with a script, a hook and an engine output that the build would reuse."""
    project = repo.root / ".refdoc" / "mkdocs"
    seeded = {
        "docs/pwn.md": f"# {SEEDED_PAGE}\n<script>alert('pwn')</script>\n",
        "docs/evil.html": f"<html><script>alert('{SEEDED_PAGE}')</script></html>\n",
        "docs/index.md": f"# Overview\n<script>document.title='{SEEDED_PAGE}'</script>\n",
        "hooks/refdoc_pages.py": f"raise SystemExit('{SEEDED_PAGE}')\n",
        "site/evil.html": f"<script>alert('{SEEDED_PAGE}')</script>\n",
    }
    for path, text in seeded.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text, encoding="utf-8")
    repo.secrets.append(SEEDED_PAGE)


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


def _add_corrections(repo: HostileRepo) -> None:
    """A corrections file whose texts are markup, on a definition, a call edge, a section
    of the overview and a file page's own summary: each lands on a page, and in the search
    data, as text."""
    entries = [
        {"definition": "main.py#main", "summary": HOSTILE_CORRECTION, "note": HOSTILE_CORRECTION},
        {"section": "index.md#at-a-glance", "note": HOSTILE_CORRECTION},
        {"section": "files/main.py.md#mainpy", "summary": HOSTILE_CORRECTION},
        {"decision": HOSTILE_CORRECTION.replace("\n", " "), "note": "a decision no build finds: a warning, not an error"},
    ]
    (repo.root / "refdoc-corrections.yml").write_text(yaml.safe_dump(entries, allow_unicode=True), encoding="utf-8")
    repo.names.append(HOSTILE_CORRECTION)


FAMILIES: tuple[Callable[[HostileRepo], None], ...] = (
    _add_corrections,
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
    _add_modern_secrets,
    _add_outside_references,
    _add_odd_files,
    _add_configuration,
    _add_ci_credentials,
    _add_seeded_store,
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
