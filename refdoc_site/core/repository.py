"""Where the repository lives on its host, so that pages link each definition to its source
lines at the built commit.

The URL comes from the operator's `repo_url` first, then from what the repository and its
build say: the git remote `origin`, GitHub Actions' `GITHUB_SERVER_URL`/`GITHUB_REPOSITORY`
(only for the commit Actions checked out), and the package's declared project URLs. All
but the first are written by whoever wrote the repository, so each is reduced to a plain
`https://host/path` or dropped: no other scheme, no credentials (`https://user:token@…`
would publish the token), no port, query or fragment, nothing that could end a link.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from .config import URL_FORBIDDEN

SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?(?P<host>[A-Za-z0-9.-]+):(?!//)(?P<path>[^\\]+)$")
"""git's short form of an ssh URL: `git@github.com:owner/repo.git`."""
HOST_NAME = re.compile(r"^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]$")
"""A plain DNS name with a dot and a top-level label that is a word: no IP literal, no
port, no `localhost`."""
SHORTHANDS = {"github:": "https://github.com/", "gitlab:": "https://gitlab.com/", "bitbucket:": "https://bitbucket.org/"}
"""npm's `repository` shorthands (`github:owner/repo`)."""
GIT_SCHEMES = ("git+https://", "git+ssh://", "ssh://", "git://")
"""Schemes a remote or a package.json `repository` uses for what is browsable over https."""
ACTIONS_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
DEFAULT_ACTIONS_SERVER = "https://github.com"


def browsable_url(raw: str) -> str:
    """`raw` as a plain `https://host/path` with no credentials and no `.git` suffix, or ""
    when it is no such URL (another scheme, an IP address, a port, a query, a character
    that could end a link)."""
    url = raw.strip()
    for shorthand, prefix in SHORTHANDS.items():
        if url.startswith(shorthand):
            url = prefix + url[len(shorthand):]
    for scheme in GIT_SCHEMES:
        if url.startswith(scheme):
            url = "https://" + url[len(scheme):]
    scp = SCP_LIKE.match(url)
    if scp and "://" not in url:
        url = f"https://{scp['host']}/{scp['path'].lstrip('/')}"
    if not url.startswith("https://") or URL_FORBIDDEN.search(url):
        return ""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ""
    host = parts.hostname or ""
    if port is not None or parts.query or parts.fragment or not HOST_NAME.match(host):
        return ""
    path = parts.path.rstrip("/").removesuffix(".git").rstrip("/")
    if not path.strip("/") or "/../" in f"{path}/" or "/./" in f"{path}/":
        return ""
    return f"https://{host.lower()}{path}"


def repository_url(repo: Path, commit: str, declared: str, environment: Mapping[str, str] | None = None) -> str:
    """The repository's browsable URL as the repository and its build tell it: the git
    remote `origin`, then GitHub Actions' (when the commit is the one Actions checked
    out), then the package's declared URL; "" when none is a plain https URL."""
    environment = os.environ if environment is None else environment
    candidates = (remote_url(repo), actions_url(environment, commit), declared)
    return next((url for url in map(browsable_url, candidates) if url), "")


def remote_url(repo: Path) -> str:
    """The URL of the remote `origin` as git configures it ("" without git or remote)."""
    return git_output(repo, "config", "--get", "remote.origin.url")


def actions_url(environment: Mapping[str, str], commit: str) -> str:
    """The repository GitHub Actions checked out, when `commit` is the one it checked out:
    a build of some other folder inside a workflow is not that repository."""
    repository = environment.get("GITHUB_REPOSITORY", "")
    if not commit or environment.get("GITHUB_SHA") != commit or not ACTIONS_REPOSITORY.match(repository):
        return ""
    server = environment.get("GITHUB_SERVER_URL") or DEFAULT_ACTIONS_SERVER
    return f"{server.rstrip('/')}/{repository}"


def checkout_prefix(repo: Path) -> str:
    """Where `repo` lies inside its git work tree (`docs/site/`, "" at its top): source
    links of a documented subfolder point at its files in the whole repository."""
    return git_output(repo, "rev-parse", "--show-prefix")


def git_output(repo: Path, *arguments: str) -> str:
    """What `git -C repo ARGUMENTS` prints, stripped; "" when git fails or is missing."""
    try:
        result = subprocess.run(
            ["git", "-C", str(repo), *arguments], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.strip() if result.returncode == 0 else ""


@dataclass(frozen=True)
class TrackedFiles:
    """The files git tracks in a repository. A `.gitignore` hides only untracked files from
    git, so a tracked one (`git add -f`) is part of the repository whatever it lists."""

    files: frozenset[str] = frozenset()
    everything: bool = False
    """A tree `git archive` wrote (the change map's base): every file in it is tracked."""
    folders: frozenset[str] = field(default=frozenset(), init=False, repr=False)

    def __post_init__(self) -> None:
        folders = {path.rsplit("/", i)[0] for path in self.files for i in range(1, path.count("/") + 1)}
        object.__setattr__(self, "folders", frozenset(folders))

    @classmethod
    def of(cls, repo: Path) -> TrackedFiles:
        """What `git ls-files` lists under `repo` (nothing outside git, or when git fails)."""
        try:
            result = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            return cls()
        if result.returncode != 0:
            return cls()
        return cls(frozenset(os.fsdecode(path) for path in result.stdout.split(b"\0") if path))

    def holds(self, path: str) -> bool:
        return self.everything or path in self.files

    def holds_under(self, folder: str) -> bool:
        """Whether a tracked file lies inside `folder` (repository-relative, no slash at the end)."""
        return self.everything or folder in self.folders
