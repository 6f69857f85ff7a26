"""Decision evidence: ADR records, dependency manifests grouped by purpose, decision-like
commits; every evidence path is an indexed file or empty, and nothing raises offline."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from refdoc_site.core.findings import Decision, EvidenceLink
from refdoc_site.core.serial import to_json
from refdoc_site.core.store import FileEntry
from refdoc_site.understanding.evidence import (
    adr,
    collect_decisions,
    commits,
    dependencies,
    manifests,
)
from refdoc_site.understanding.evidence.adr import is_adr_path, parse_adr
from refdoc_site.understanding.evidence.commits import commit_decisions, is_decision_like
from refdoc_site.understanding.evidence.manifests import Requirement, parse_manifest
from refdoc_site.understanding.evidence.text import PROSE_LIMIT
from refdoc_site.understanding.graph import RepoGraph

# --- helpers ----------------------------------------------------------------------------


def source(text: str) -> str:
    """Inline file text: dedented, without the leading newline of the triple quote."""
    return textwrap.dedent(text).lstrip("\n")


def write(
    repo: Path, files: dict[str, FileEntry], path: str, text: str, language: str = "text"
) -> None:
    """Write a file into the repository and index it."""
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source(text), encoding="utf-8")
    files[path] = FileEntry(path, language, "0" * 64, len(text), text.count("\n") + 1)


def names(requirements: list[Requirement]) -> list[str]:
    return [r.name for r in requirements]


def by_title(entries: list[Decision]) -> dict[str, Decision]:
    return {entry.title: entry for entry in entries}


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        check=True,
        capture_output=True,
    )


def commit(repo: Path, message: str, path: str = "notes.txt") -> None:
    target = repo / path
    target.write_text(
        target.read_text() + message if target.exists() else message, encoding="utf-8"
    )
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture(autouse=True)
def no_parent_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep git from finding a repository above the test's temporary directory."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# --- decision records -------------------------------------------------------------------

NYGARD = """
    # 1. Record architecture decisions

    Date: 2024-03-01

    ## Status

    Accepted

    ## Context

    We need to record the architectural decisions made on this project.

    ## Decision

    We will use Architecture Decision Records, as [described by Nygard](http://example.com/adr).

    ```text
    # not a heading
    ```

    ## Consequences

    See the article linked above.
"""

MADR = """
    ---
    status: accepted
    date: 2024-05-02
    ---
    # ADR-002: Use PostgreSQL for persistence

    ## Context and Problem Statement

    The service needs transactions across several tables.

    ## Decision Drivers

    * Operational familiarity

    ## Decision Outcome

    Chosen option: "PostgreSQL", because it is the only one with transactional DDL.

    ### Positive Consequences

    * Migrations are atomic
    * One backup tool

    ### Negative Consequences

    * Another server to run
"""


def test_nygard_record_gives_title_status_and_sections() -> None:
    entry = parse_adr(source(NYGARD), "docs/adr/0001-record-architecture-decisions.md")
    assert entry.kind == "adr"
    assert entry.title == "Record architecture decisions"
    assert entry.status == "Accepted"
    assert entry.context == "We need to record the architectural decisions made on this project."
    assert entry.decision == "We will use Architecture Decision Records, as described by Nygard."
    assert entry.consequences == "See the article linked above."
    assert entry.evidence == [
        EvidenceLink(
            "docs/adr/0001-record-architecture-decisions.md",
            "docs/adr/0001-record-architecture-decisions.md",
        )
    ]


def test_madr_record_reads_front_matter_outcome_and_nested_consequences() -> None:
    entry = parse_adr(source(MADR), "design/ADR-002-postgres.md")
    assert entry.title == "Use PostgreSQL for persistence"
    assert entry.status == "accepted"
    assert entry.context == "The service needs transactions across several tables."
    assert entry.decision.startswith('Chosen option: "PostgreSQL", because')
    assert "Operational familiarity" not in entry.decision
    assert entry.consequences == "Migrations are atomic. One backup tool. Another server to run."


def test_record_without_sections_falls_back_to_its_file_name() -> None:
    entry = parse_adr("Plain notes without headings.\n", "decisions/0007-cache-renders.md")
    assert entry.title == "Cache renders"
    assert entry.decision == "Cache renders"
    assert entry.status == entry.context == entry.consequences == ""


def test_long_prose_is_trimmed_to_whole_sentences() -> None:
    sentence = "This sentence explains one more aspect of the context in some detail."
    text = "# Use X\n\n## Context\n\n" + " ".join([sentence] * 20) + "\n"
    context = parse_adr(text, "adr/0003-use-x.md").context
    assert len(context) <= PROSE_LIMIT
    assert context.endswith(".")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("docs/adr/0001-use-x.md", True),
        ("Doc/ADR/use-x.md", True),
        ("architecture/decisions/why.markdown", True),
        ("notes/0042-switch-db.md", True),
        ("ADR-12.md", True),
        ("docs/adr/README.md", False),
        ("docs/adr/template.md", False),
        ("blog/2024-01-31-release.md", False),
        ("docs/adr/0001-use-x.py", False),
        ("docs/guide.md", False),
    ],
)
def test_decision_record_paths(path: str, expected: bool) -> None:
    assert is_adr_path(path) is expected


def test_only_indexed_records_are_collected_in_path_order(tmp_path: Path) -> None:
    files: dict[str, FileEntry] = {}
    write(
        tmp_path,
        files,
        "docs/adr/0002-second.md",
        "# 2. Second\n\n## Decision\n\nTwo.\n",
        "markdown",
    )
    write(
        tmp_path, files, "docs/adr/0001-first.md", "# 1. First\n\n## Decision\n\nOne.\n", "markdown"
    )
    (tmp_path / "docs/adr/0003-unindexed.md").write_text("# 3. Unindexed\n", encoding="utf-8")
    entries = adr.adr_decisions(tmp_path, files)
    assert [e.title for e in entries] == ["First", "Second"]


# --- manifests --------------------------------------------------------------------------

PYPROJECT = """
    [project]
    name = "demo"
    dependencies = [
        "requests>=2.31",
        "PyYAML",  # configuration
        "rich[jupyter]>=13 ; python_version >= '3.10'",
    ]

    [project.optional-dependencies]
    test = ["pytest>=8"]

    [tool.poetry.dependencies]
    python = "^3.10"
    click = "^8.1"

    [tool.poetry.group.dev.dependencies]
    mypy = { version = "^1.8", optional = true }
"""


def test_pyproject_declares_project_optional_and_poetry_dependencies() -> None:
    """A `test` extra and a poetry `dev` group are declared, but not as runtime choices."""
    found = parse_manifest("pyproject", source(PYPROJECT))
    assert found == [
        Requirement("requests", ">=2.31"),
        Requirement("PyYAML", ""),
        Requirement("rich", ">=13"),
        Requirement("pytest", ">=8", runtime=False),
        Requirement("click", "^8.1"),
        Requirement("mypy", "^1.8", runtime=False),
    ]


def test_a_requirement_packaging_rejects_is_left_out_and_constraints_stay_as_written() -> None:
    text = "good (>= 1.0, < 2)\nbad==\n-e .\nhashed==1.2 --hash=sha256:00\nsplit >= 3 , <4\n"
    assert parse_manifest("requirements", text) == [
        Requirement("good", ">=1.0,<2"),
        Requirement("hashed", "==1.2"),
        Requirement("split", ">=3,<4"),
    ]


def test_a_manifest_that_is_not_toml_is_skipped_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The loose parser that read half a broken file is gone: tomllib rejects it whole."""
    files: dict[str, FileEntry] = {}
    write(tmp_path, files, "pyproject.toml", '[project]\ndependencies = ["requests"\n', "config")
    write(tmp_path, files, "requirements.txt", "requests\n")
    with pytest.raises(ValueError):
        parse_manifest("pyproject", '[project]\ndependencies = ["requests"\n')
    graph = RepoGraph(external_imports={"requirements.txt": []})
    with caplog.at_level("WARNING", logger="refdoc_site"):
        entries = dependencies.dependency_decisions(tmp_path, files, graph)
    [warning] = [r.getMessage() for r in caplog.records]
    assert warning.startswith("pyproject.toml: not valid TOML (")
    assert "\n" not in warning
    assert [e.title for e in entries] == ["Uses requests for HTTP requests"]
    assert [e.path for e in entries[0].evidence] == ["requirements.txt"]


def test_requirements_txt_skips_options_urls_and_comments() -> None:
    text = source(
        """
        # runtime
        -r base.txt
        --index-url https://example.com/simple
        Django>=4.2,<5  # web
        httpx[http2]==0.27; python_version > "3.8"
        git+https://example.com/lib.git#egg=lib
        attrs @ file:///tmp/attrs

        """
    )
    assert parse_manifest("requirements", text) == [
        Requirement("Django", ">=4.2,<5"),
        Requirement("httpx", "==0.27"),
        Requirement("attrs", ""),
    ]


def test_setup_cfg_install_requires_and_extras() -> None:
    text = source(
        """
        [metadata]
        name = demo

        [options]
        install_requires =
            click>=8
            jinja2

        [options.extras_require]
        test = pytest
        """
    )
    assert names(parse_manifest("setup.cfg", text)) == ["click", "jinja2", "pytest"]


def test_package_json_dependencies_and_dev_dependencies() -> None:
    text = json.dumps(
        {
            "name": "web",
            "dependencies": {"express": "^4.18.0", "@acme/util": "1.0.0"},
            "devDependencies": {"jest": "^29"},
        }
    )
    assert parse_manifest("package.json", text) == [
        Requirement("express", "^4.18.0"),
        Requirement("@acme/util", "1.0.0"),
        Requirement("jest", "^29", runtime=False),
    ]
    assert parse_manifest("package.json", "{not json") == []


def test_go_mod_direct_requirements_only() -> None:
    text = source(
        """
        module example.com/app

        go 1.22

        require github.com/spf13/cobra v1.8.0

        require (
            github.com/gin-gonic/gin v1.9.1
            golang.org/x/sys v0.15.0 // indirect
            // a comment
        )
        """
    )
    assert parse_manifest("go.mod", text) == [
        Requirement("github.com/spf13/cobra", "v1.8.0"),
        Requirement("github.com/gin-gonic/gin", "v1.9.1"),
    ]


def test_cargo_toml_dependency_tables() -> None:
    text = source(
        """
        [package]
        name = "tool"

        [dependencies]
        serde = { version = "1.0", features = ["derive"] }
        clap = "4"
        local = { path = "../local" }

        [dev-dependencies]
        tempfile = "3"
        """
    )
    assert parse_manifest("cargo", text) == [
        Requirement("serde", "1.0"),
        Requirement("clap", "4"),
        Requirement("local", ""),
        Requirement("tempfile", "3", runtime=False),
    ]


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("pyproject.toml", "pyproject"),
        ("requirements-dev.txt", "requirements"),
        ("requirements/test.txt", "requirements"),
        ("web/package.json", "package.json"),
        ("go.mod", "go.mod"),
        ("crates/tool/Cargo.toml", "cargo"),
        ("notes.txt", ""),
        ("package-lock.json", ""),
    ],
)
def test_manifest_kinds(path: str, kind: str) -> None:
    assert manifests.manifest_kind(path) == kind


# --- dependency decisions ---------------------------------------------------------------


def python_project(repo: Path) -> tuple[dict[str, FileEntry], RepoGraph]:
    files: dict[str, FileEntry] = {}
    write(
        repo,
        files,
        "pyproject.toml",
        '[project]\ndependencies = ["requests>=2", "PyYAML", "pathspec", "obscure-lib"]\n',
        "config",
    )
    write(repo, files, "requirements.txt", "requests\n")
    for path in ("app/client.py", "app/config.py", "app/walk.py", "web/main.js"):
        write(repo, files, path, "x = 1\n", "javascript" if path.endswith(".js") else "python")
    graph = RepoGraph(
        external_imports={
            "app/client.py": ["requests", "yaml", "json"],
            "app/config.py": ["yaml"],
            "app/walk.py": ["pathspec"],
            "web/main.js": ["requests"],
        }
    )
    return files, graph


def test_known_dependencies_are_grouped_by_purpose_with_importers(tmp_path: Path) -> None:
    files, graph = python_project(tmp_path)
    entries = by_title(dependencies.dependency_decisions(tmp_path, files, graph))
    requests = entries["Uses requests for HTTP requests"]
    assert requests.kind == "dependency"
    assert requests.context == "Declared in pyproject.toml and requirements.txt."
    assert requests.decision == "Depend on requests (>=2) for HTTP requests."
    assert requests.consequences == "Imported directly by 1 file: app/client.py."
    assert [e.path for e in requests.evidence] == [
        "pyproject.toml",
        "requirements.txt",
        "app/client.py",
    ]
    yaml = entries["Uses PyYAML for reading configuration and data files"]
    assert [e.path for e in yaml.evidence] == [
        "pyproject.toml",
        "app/client.py",
        "app/config.py",
    ]


def test_unknown_dependencies_are_described_by_their_importers(tmp_path: Path) -> None:
    files, graph = python_project(tmp_path)
    entries = dependencies.dependency_decisions(tmp_path, files, graph)
    other = entries[-1]
    assert other.title == "Uses pathspec"
    assert other.decision == "Depend on pathspec, imported by app/walk.py."
    assert EvidenceLink("app/walk.py", "app/walk.py") in other.evidence
    assert not any("obscure" in e.title for e in entries), (
        "unknown and never imported: not notable"
    )


def test_root_manifest_outside_the_index_is_labelled_without_a_path(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"dependencies": {"react": "^18"}}', encoding="utf-8")
    entries = dependencies.dependency_decisions(tmp_path, {}, RepoGraph())
    assert [e.title for e in entries] == ["Uses react for the user interface"]
    assert entries[0].evidence == [EvidenceLink("package.json (not indexed)", "")]


def test_vendored_and_fixture_manifests_are_ignored(tmp_path: Path) -> None:
    files: dict[str, FileEntry] = {}
    write(tmp_path, files, "tests/fixtures/requirements.txt", "flask\n")
    assert dependencies.dependency_decisions(tmp_path, files, RepoGraph()) == []


def test_go_modules_match_imports_of_their_packages(tmp_path: Path) -> None:
    files: dict[str, FileEntry] = {}
    write(
        tmp_path, files, "go.mod", "module m\n\nrequire github.com/spf13/cobra v1.8.0\n", "config"
    )
    write(tmp_path, files, "cmd/root.go", "package cmd\n", "go")
    graph = RepoGraph(external_imports={"cmd/root.go": ["github.com/spf13/cobra/doc", "fmt"]})
    [entry] = dependencies.dependency_decisions(tmp_path, files, graph)
    assert entry.title == "Uses github.com/spf13/cobra for the command-line interface"
    assert entry.consequences == "Imported directly by 1 file: cmd/root.go."


# --- commits ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subject", "body"),
    [
        ("Switch to httpx for HTTP requests", ""),
        ("Replace requests with httpx", ""),
        ("Migrate from setup.py to pyproject.toml", ""),
        ("Drop support for Python 3.8", ""),
        ("Adopt ruff as the only linter", ""),
        ("Use SQLite instead of JSON files for the cache", ""),
        ("Deprecate the v1 API", ""),
        (
            "Introduce a render cache",
            "Rendering was slow because every page parsed the store again.",
        ),
        ("Store summaries per module", "We decided to keep one file per module."),
    ],
)
def test_decision_like_commits(subject: str, body: str) -> None:
    assert is_decision_like(subject, body)


@pytest.mark.parametrize(
    ("subject", "body"),
    [
        ("Fix typo in README", ""),
        ("Add tests for the parser", "Coverage was low because the parser had none."),
        ("Introduce helper for paths", ""),
        ("Fix deprecated call in tests", ""),
        ('Revert "Switch to httpx for HTTP requests"', ""),
        ("Bump requests from 2.31 to 2.32", ""),
        (
            "Update changelog",
            "Signed-off-by: Someone <someone@example.com> because reasons instead of",
        ),
    ],
)
def test_routine_commits_are_not_decisions(subject: str, body: str) -> None:
    assert not is_decision_like(subject, body)


@needs_git
def test_decision_commits_from_a_real_repository_most_recent_first(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    commit(tmp_path, "Initial commit")
    commit(tmp_path, "Replace requests with httpx\n\nrequests has no async support.")
    commit(tmp_path, "Fix typo")
    commit(tmp_path, "Drop support for Python 3.8")
    entries = commit_decisions(tmp_path)
    assert [e.title for e in entries] == [
        "Drop support for Python 3.8",
        "Replace requests with httpx",
    ]
    replaced = entries[1]
    assert replaced.kind == "commit"
    assert replaced.decision == "Replace requests with httpx."
    assert replaced.context == "requests has no async support."
    [proof] = replaced.evidence
    assert proof.path == "" and proof.anchor == ""
    assert proof.label.endswith("): Replace requests with httpx")
    assert len(proof.label.split(" ", 1)[0]) == 8


@needs_git
def test_commit_entries_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commits, "MAX_COMMIT_DECISIONS", 2)
    git(tmp_path, "init", "-q")
    for version in (7, 8, 9):
        commit(tmp_path, f"Drop support for Python 3.{version}")
    assert [e.title for e in commit_decisions(tmp_path)] == [
        "Drop support for Python 3.9",
        "Drop support for Python 3.8",
    ]


@needs_git
def test_directory_that_is_not_a_repository_gives_no_commits(tmp_path: Path) -> None:
    assert commit_decisions(tmp_path) == []
    assert commit_decisions(tmp_path / "missing") == []


@needs_git
def test_repository_without_commits_gives_no_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    assert commit_decisions(tmp_path) == []


def test_without_git_there_is_no_commit_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commits.shutil, "which", lambda name: None)
    assert commit_decisions(tmp_path) == []
    assert collect_decisions(tmp_path, {}, RepoGraph()) == []


def test_a_hanging_git_gives_no_commit_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def hang(*args: object, **kwargs: object) -> None:
        raise subprocess.TimeoutExpired("git", commits.GIT_TIMEOUT_SECONDS)

    monkeypatch.setattr(commits.shutil, "which", lambda name: "/usr/bin/git")
    monkeypatch.setattr(commits.subprocess, "run", hang)
    assert commit_decisions(tmp_path) == []


# --- assembly ---------------------------------------------------------------------------


@needs_git
def test_records_then_commits_then_dependencies_with_indexed_evidence(tmp_path: Path) -> None:
    """The repository's own reasoning first; its dependencies last, as evidence of a choice."""
    files, graph = python_project(tmp_path)
    write(
        tmp_path,
        files,
        "docs/adr/0001-use-httpx.md",
        "# 1. Use httpx\n\n## Decision\n\nUse httpx.\n",
        "markdown",
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    commit(tmp_path, "Switch to httpx for HTTP requests")
    entries = collect_decisions(tmp_path, files, graph)
    kinds = [e.kind for e in entries]
    assert kinds == sorted(kinds, key=["adr", "design", "commit", "dependency"].index)
    assert kinds[0] == "adr" and kinds[-1] == "dependency" and "commit" in kinds
    for entry in entries:
        assert ("dependency" in to_json(entry)) == (entry.kind == "dependency")  # its facts, phrased on a page in another language
        assert set(to_json(entry)) - {"dependency"} == {
            "title",
            "kind",
            "status",
            "context",
            "decision",
            "consequences",
            "evidence",
        }
        for proof in entry.evidence:
            assert proof.path == "" or proof.path in files
    assert collect_decisions(tmp_path, files, graph) == entries
