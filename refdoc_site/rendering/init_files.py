"""`refdoc-site init`: the files that publish a repository's documentation on GitHub Pages.

It writes a commented `refdoc.yml` and a GitHub Actions workflow. The workflow's shell
steps are files in `templates/init/` rendered into it, so the tests run the very commands
a repository's CI runs. The template uses `[[ ]]` and `[% %]` so that GitHub's own
`${{ }}` expressions pass through untouched.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .. import __version__
from ..core.config import load_config
from ..core.errors import ConfigError, RefdocError
from ..core.resources import templates_dir
from ..core.terminal import say

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


INIT_HELP = "Write a commented refdoc.yml and a GitHub Actions workflow that publishes the site on GitHub Pages, with pull-request previews."


def add_init_command(commands) -> None:
    """`refdoc-site init [REPO]`: refdoc.yml and the workflow, written into the repository."""
    sub = commands.add_parser("init", help=INIT_HELP, description=INIT_HELP)
    sub.add_argument("repo", nargs="?", default=".", type=Path, help="repository to set up (default: .)")
    sub.add_argument("--force", action="store_true", help="overwrite refdoc.yml and the workflow when they exist")
    sub.add_argument("--branch", help="branch whose pushes publish the site (default: the branch checked out, else main)")
    sub.add_argument("--install", help="what the workflow's pip installs: a requirement, a wheel's URL, git+https://…@COMMIT (default: refdoc-site==this version)")
    sub.add_argument("--shards", type=int, default=1, metavar="N", help="index in N jobs of a matrix (index --shard K/N) merged by the build job, for a repository too large for one (default 1)")
    sub.add_argument("-v", "--verbose", action="store_true")
    sub.set_defaults(run=_run_init)


def _run_init(args: argparse.Namespace) -> int:
    if not args.repo.is_dir():
        raise RefdocError(f"{args.repo}: not a directory; pass the repository folder to set up")
    written = write_init_files(args.repo, init_files(args.repo, args.branch, args.install, args.shards), force=args.force)
    for path in written:
        say(f"wrote {path}")
    say(f"GitHub Pages: choose {PAGES_SETTING}")
    say("the first push to the branch creates gh-pages; set the OPENAI_API_KEY repository secret for LLM prose (optional)")
    return 0
