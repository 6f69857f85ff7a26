"""`refdoc-site init`: the files that publish a repository's documentation on GitHub Pages.

It writes a commented `refdoc.yml` and a GitHub Actions workflow. The workflow's shell
steps are files in `templates/init/` rendered into it, so the tests run the very commands
a repository's CI runs. The template uses `[[ ]]` and `[% %]` so that GitHub's own
`${{ }}` expressions pass through untouched.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .. import __version__
from ..core.config import load_config
from ..core.errors import ConfigError, RefdocError
from ..core.resources import templates_dir

CONFIG_FILE = Path("refdoc.yml")
WORKFLOW_FILE = Path(".github/workflows/refdoc-site.yml")

PAGES_SETTING = 'Settings > Pages > Build and deployment: Source "Deploy from a branch", branch gh-pages, folder / (root)'
"""The one setting the workflow needs: it publishes by pushing the gh-pages branch, so that
previews under pr-<number>/ live beside the default branch's site (an uploaded Pages
artifact replaces the whole site at each deployment)."""

PINNED_ACTIONS = {
    "checkout": "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683  # v4.2.2",
    "setup_python": "actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065  # v5.6.0",
    "cache": "actions/cache@5a3ec84eff668545956fd18022155c47e93e2684  # v4.2.3",
    "upload_artifact": "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02  # v4.6.2",
    "download_artifact": "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093  # v4.3.0",
}
"""Every action the workflow uses, pinned by the commit of a release (a tag can be moved)."""

STEP_SCRIPTS = ("index", "build", "publish", "preview", "comment", "remove")
"""The workflow's shell steps, one `templates/init/NAME.sh` each (`index` only with shards)."""
MAX_SHARDS = 256
"""An Actions matrix runs at most 256 jobs."""

_SHELL_WORD = re.compile(r"[\w.:/@+=<>~!,\[\]#%-]+")
"""What `--install` and `--branch` may hold: no quote, space or `$` to escape from the YAML or the shell."""
_REFDOC_REQUIREMENT = re.compile(r"(?i)refdoc[-_.]site(?:\[(?P<extras>[^\]]*)\])?(?![\w.-])")
"""A requirement naming refdoc-site, with its extras if it has any."""
_GITHUB_REMOTE = re.compile(r"github\.com[:/](?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?$")


@dataclass(frozen=True)
class InitFile:
    path: Path
    """Relative to the repository."""
    text: str


def init_files(repo: Path, branch: str | None = None, install: str | None = None, shards: int = 1) -> list[InitFile]:
    """The configuration and the workflow for `repo`; `branch` is the one whose pushes
    publish (default: the branch checked out, else main), `install` what pip installs
    (default: this version of refdoc-site, so that CI builds what was tried here). When the
    repository's refdoc.yml says `engine: zensical`, pip installs the `zensical` extra too
    and the rewritten refdoc.yml keeps the engine. With `shards` over 1, a matrix of that
    many jobs indexes the files (`index --shard K/N`) and the build job merges them."""
    if not 1 <= shards <= MAX_SHARDS:
        raise RefdocError(f"--shards {shards}: expected a number of index jobs from 1 to {MAX_SHARDS}")
    engine = _configured_engine(repo)
    install = install or f"refdoc-site=={__version__}"
    if engine != "mkdocs":
        install = with_extra(install, engine)
    if not _SHELL_WORD.fullmatch(install):
        raise RefdocError(f"--install: {install!r} is not a pip requirement or URL the workflow can quote; give one without quotes or spaces")
    branch = branch or _checked_out_branch(repo)
    if not _SHELL_WORD.fullmatch(branch):
        raise RefdocError(f"--branch: {branch!r} is not a branch name; give one without quotes or spaces")
    environment = Environment(
        loader=FileSystemLoader(str(templates_dir())), undefined=StrictUndefined, keep_trailing_newline=True, trim_blocks=True,
        variable_start_string="[[", variable_end_string="]]", block_start_string="[%", block_end_string="%]",
    )
    scripts = {name: environment.get_template(f"init/{name}.sh").render(shards=shards).rstrip("\n") for name in STEP_SCRIPTS}
    workflow = environment.get_template("init/workflow.yml.jinja2").render(
        branch=branch, install=install, actions=PINNED_ACTIONS, scripts=scripts, shards=shards,
    )
    config = environment.get_template("init/refdoc.yml.jinja2").render(
        site_name=repo.resolve().name, repo_url=_github_url(repo), engine=engine,
    )
    return [InitFile(CONFIG_FILE, config), InitFile(WORKFLOW_FILE, workflow)]


def write_init_files(repo: Path, files: list[InitFile], force: bool = False) -> list[Path]:
    """Write `files` under `repo`; without `force`, an existing one stops it before any is written."""
    if not force:
        for file in files:
            if (repo / file.path).exists():
                raise RefdocError(f"{repo / file.path}: already exists; run `refdoc-site init --force` to overwrite it")
    written = []
    for file in files:
        target = repo / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.text, encoding="utf-8")
        written.append(target)
    return written


def with_extra(install: str, extra: str) -> str:
    """`install` (a requirement, or a URL pip installs refdoc-site from) asking for `extra`
    too: `refdoc-site==1.0` gives `refdoc-site[extra]==1.0`, a URL `refdoc-site[extra]@URL`;
    anything else (a local path) is left as given."""
    named = _REFDOC_REQUIREMENT.match(install)
    if named is None:
        return f"refdoc-site[{extra}]@{install}" if "://" in install else install
    extras = [name.strip() for name in (named["extras"] or "").split(",") if name.strip()]
    if extra in extras:
        return install
    return f"refdoc-site[{','.join([*extras, extra])}]{install[named.end():]}"


def _configured_engine(repo: Path) -> str:
    """The engine the repository's refdoc.yml names; mkdocs when it has none, or when it
    cannot be read (`init --force` writes a new one)."""
    try:
        return load_config(repo).engine
    except ConfigError:
        return "mkdocs"


def _git(repo: Path, *arguments: str) -> str:
    """A git query's answer, or "" where git or the answer is missing (not a clone, no remote)."""
    try:
        done = subprocess.run(["git", "-C", str(repo), *arguments], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _checked_out_branch(repo: Path) -> str:
    return _git(repo, "symbolic-ref", "--quiet", "--short", "HEAD") or "main"


def _github_url(repo: Path) -> str:
    """The repository's GitHub address from its `origin` remote, or "" when it has none."""
    match = _GITHUB_REMOTE.search(_git(repo, "remote", "get-url", "origin"))
    return f"https://github.com/{match['owner']}/{match['name']}" if match else ""
