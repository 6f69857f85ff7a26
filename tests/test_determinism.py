"""Deterministic output: the same repository built from two folders, by two processes with
different hash seeds, gives byte-identical sites; pages carry a build stamp pinned to the
commit's date and link each definition to its source lines at the commit, wherever the
repository's URL comes from (refdoc.yml, the git remote, GitHub Actions, the package's
manifest), and a URL that is not a plain https URL to a host is never linked to."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import write_repo

from refdoc_site.core.config import Config
from refdoc_site.core.repository import actions_url, browsable_url
from refdoc_site.pipeline import Workspace, index, render, summarize
from refdoc_site.understanding.evidence.manifests import DECLARATIONS

COMMIT_DATE = "2024-01-02T03:04:05+00:00"
SOURCES = {
    "pkg/core.py": '''
        """Core maths."""
        from .util import third

        def add(a: int, b: int) -> float:
            """Add two numbers, the first scaled."""
            return third(a) + b

        class Calc:
            """A calculator."""

            def run(self, value: int) -> float:
                """Run it once."""
                return add(value, 1)
        ''',
    "pkg/util.py": '''
        """Helpers."""

        def third(x: float) -> float:
            """A third of x."""
            return x / 3.0
        ''',
    "web/app.js": """
        // The web side.
        function start(port) {
          return listen(port, { verbose: true });
        }
        function listen(port, options) {
          return { port, options };
        }
        module.exports = { start };
        """,
    "README.md": "# Tiny\n\nA tiny project for determinism.\n\n## Use\n\nCall add.\n",
    "refdoc.yml": "site_url: https://acme.github.io/tiny/\n",
}
UNSET_ACTIONS = ("GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_SHA", "GITHUB_SERVER_URL", "SOURCE_DATE_EPOCH")


def git(repo: Path, *arguments: str) -> str:
    environment = {**os.environ, "GIT_AUTHOR_DATE": COMMIT_DATE, "GIT_COMMITTER_DATE": COMMIT_DATE}
    result = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.org", *arguments],
        capture_output=True, text=True, check=True, env=environment,
    )
    return result.stdout.strip()


def committed(repo: Path) -> str:
    """`repo` made a git repository with one commit at `COMMIT_DATE`; returns its hash."""
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    return git(repo, "rev-parse", "HEAD")


def built_site(repo: Path, out: Path, hash_seed: str, engine: str = "mkdocs") -> dict[str, bytes]:
    """Build `repo` with `engine` in a new process (its own hash seed, no Actions variables);
    every file of the site by its path."""
    environment = {key: value for key, value in os.environ.items() if key not in UNSET_ACTIONS}
    environment["PYTHONHASHSEED"] = hash_seed
    subprocess.run(
        [sys.executable, "-m", "refdoc_site", "build", str(repo), "--out", str(out), "--engine", engine],
        check=True, capture_output=True, env=environment, cwd=repo.parent,
    )
    return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
def test_two_clean_builds_from_different_folders_are_byte_identical(tmp_path: Path, with_git: bool) -> None:
    original = write_repo(tmp_path / "original" / "tiny", SOURCES)
    commit = committed(original) if with_git else ""
    first, second = tmp_path / "a" / "tiny", tmp_path / "somewhere" / "else" / "tiny"
    for copy in (first, second):
        shutil.copytree(original, copy, symlinks=True)
    one = built_site(first, tmp_path / "a" / "site", "1")
    two = built_site(second, tmp_path / "b" / "public", "2")

    assert sorted(one) == sorted(two)
    differing = [path for path in one if one[path] != two[path]]
    assert differing == [], f"files that differ between the two builds: {differing}"
    everything = b"".join(one.values())
    for folder in (tmp_path, first, second):
        assert str(folder).encode() not in everything
    sitemap = one["sitemap.xml"].decode()
    home = one["index.html"].decode()
    if with_git:
        assert sitemap.count("<lastmod>2024-01-02</lastmod>") == sitemap.count("<loc>") > 0
        assert f"Built from <code>{commit[:12]}</code> (2024-01-02)" in home
    else:
        assert sitemap.count("<lastmod>1970-01-01</lastmod>") == sitemap.count("<loc>") > 0
        assert "Built from" not in home


def rendered_core_page(tmp_path: Path, config: Config | None = None, extra: dict[str, str] | None = None, remote: str = "") -> tuple[str, str]:
    """The file page of pkg/core.py rendered from a committed copy of `SOURCES` (plus
    `extra` files, and `remote` as origin); returns it and the commit."""
    repo = write_repo(tmp_path / "repo", {**SOURCES, **(extra or {})})
    commit = committed(repo)
    if remote:
        git(repo, "remote", "add", "origin", remote)
    workspace = Workspace.create(repo, config or Config(), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    render(workspace)
    return (workspace.project_dir / "docs" / "files" / "pkg" / "core.py.md").read_text(encoding="utf-8"), commit


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("config", "https://git.example.org/team/tiny"),
        ("remote", "https://github.com/me/tiny"),
        ("actions", "https://github.example.org/org/tiny"),
        ("pyproject", "https://gitlab.com/me/tiny"),
        ("package.json", "https://github.com/npm/tiny"),
        ("package.json shorthand", "https://github.com/expressjs/tiny"),
    ],
)
def test_source_links_point_at_the_commit_wherever_the_url_comes_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, expected: str
) -> None:
    for name in UNSET_ACTIONS:
        monkeypatch.delenv(name, raising=False)
    config, extra, remote = Config(), {}, ""
    if source == "config":
        config = Config(repo_url=expected)
    elif source == "remote":
        remote = "https://user:secret-token@github.com/me/tiny.git"
    elif source == "pyproject":
        extra = {"pyproject.toml": '[project]\nname = "tiny"\n[project.urls]\nHomepage = "https://tiny.example.org"\nSource = "https://gitlab.com/me/tiny.git"\n'}
    elif source == "package.json":
        extra = {"package.json": '{"name": "tiny", "repository": {"type": "git", "url": "git+https://github.com/npm/tiny.git"}}'}
    elif source == "package.json shorthand":
        extra = {"package.json": '{"name": "tiny", "repository": "expressjs/tiny"}'}
    if source == "actions":
        repo = write_repo(tmp_path / "repo", SOURCES)
        monkeypatch.setenv("GITHUB_SHA", committed(repo))
        monkeypatch.setenv("GITHUB_REPOSITORY", "org/tiny")
        monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.example.org")
        shutil.rmtree(repo / ".git")  # committed again below, to the same hash
    page, commit = rendered_core_page(tmp_path, config, extra, remote)

    assert f"({expected}/blob/{commit}/pkg/core.py#L4-L6)" in page  # add's lines
    assert "secret-token" not in page


def test_no_source_link_without_a_commit_or_a_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in UNSET_ACTIONS:
        monkeypatch.delenv(name, raising=False)
    page, _ = rendered_core_page(tmp_path, remote="javascript:alert(1)")
    assert "/blob/" not in page and "javascript" not in page


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://github.com/o/r", "https://github.com/o/r"),
        ("https://github.com/o/r.git/", "https://github.com/o/r"),
        ("git@github.com:o/r.git", "https://github.com/o/r"),
        ("ssh://git@gitlab.com/group/sub/r.git", "https://gitlab.com/group/sub/r"),
        ("git+https://github.com/o/r.git", "https://github.com/o/r"),
        ("github:o/r", "https://github.com/o/r"),
        ("https://user:token@GitHub.com/o/r", "https://github.com/o/r"),
        ("http://github.com/o/r", ""),
        ("javascript:alert(1)", ""),
        ("file:///etc/passwd", ""),
        ("https://127.0.0.1/o/r", ""),
        ("https://localhost/o/r", ""),
        ("https://github.com:8443/o/r", ""),
        ("https://github.com/o/r?x=1", ""),
        ("https://github.com/o/r#frag", ""),
        ('https://github.com/o/r"onmouseover="x', ""),
        ("https://github.com/o/r) [x](javascript:y", ""),
        ("https://github.com/../etc", ""),
        ("https://github.com", ""),
        ("/home/me/repo", ""),
        ("", ""),
    ],
)
def test_only_plain_https_urls_to_a_host_are_linked(raw: str, expected: str) -> None:
    assert browsable_url(raw) == expected


def test_actions_names_the_repository_only_for_the_commit_it_checked_out() -> None:
    environment = {"GITHUB_REPOSITORY": "o/r", "GITHUB_SHA": "abc"}
    assert actions_url(environment, "abc") == "https://github.com/o/r"
    assert actions_url(environment, "def") == ""
    assert actions_url({**environment, "GITHUB_REPOSITORY": "o/r/../x"}, "abc") == ""


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("pyproject.toml", '[project]\nname = "x"\n[project.urls]\nRepository = "https://github.com/o/x"\n', "https://github.com/o/x"),
        ("pyproject.toml", '[project]\nname = "x"\n[project.urls]\nHomepage = "https://x.example.org"\n', ""),
        ("pyproject.toml", '[project]\nname = "x"\n[project.urls]\nhomepage = "https://github.com/o/x"\n', "https://github.com/o/x"),
        ("package.json", '{"name": "x", "repository": "github:o/x"}', "https://github.com/o/x"),
        ("package.json", '{"name": "x", "repository": "expressjs/express"}', "https://github.com/expressjs/express"),
        ("package.json", '{"name": "x", "repository": "gitlab:group/x"}', "https://gitlab.com/group/x"),
        ("package.json", '{"name": "x", "repository": "bitbucket:o/x.js"}', "https://bitbucket.org/o/x.js"),
        ("package.json", '{"name": "x", "repository": "gist:11081aaa"}', "gist:11081aaa"),
        ("package.json", '{"name": "x", "repository": "o/x/../y"}', "o/x/../y"),
        ("package.json", '{"name": "x", "repository": {"type": "git", "url": "git+https://github.com/o/x.git"}}', "git+https://github.com/o/x.git"),
        ("package.json", '{"name": "x", "repository": 3}', ""),
        ("Cargo.toml", '[package]\nname = "x"\nrepository = "https://github.com/o/x"\n', "https://github.com/o/x"),
        ("METADATA", "Name: x\nProject-URL: Documentation, https://x.example.org\nProject-URL: Source, https://github.com/o/x\n\nbody", "https://github.com/o/x"),
    ],
)
def test_manifests_declare_their_source_repository(name: str, text: str, expected: str) -> None:
    assert DECLARATIONS[name](text).repository == expected


def test_a_documented_subfolder_links_to_its_files_in_the_whole_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in UNSET_ACTIONS:
        monkeypatch.delenv(name, raising=False)
    whole = write_repo(tmp_path / "whole", {f"services/tiny/{path}": text for path, text in SOURCES.items()})
    commit = committed(whole)
    git(whole, "remote", "add", "origin", "git@github.com:me/whole.git")
    workspace = Workspace.create(whole / "services" / "tiny", Config(), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    render(workspace)
    page = (workspace.project_dir / "docs" / "files" / "pkg" / "core.py.md").read_text(encoding="utf-8")
    assert f"(https://github.com/me/whole/blob/{commit}/services/tiny/pkg/core.py#L4-L6)" in page
