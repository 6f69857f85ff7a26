"""Maintainers' corrections (core/corrections.py, rendering/corrected.py): a file of the
repository that every build applies over what the summarizer wrote, checked like refdoc.yml,
and marked "to review" once the code it is about changes."""

from __future__ import annotations

import json
import logging
import re
import subprocess
from pathlib import Path

import pytest
from helpers import dedent, without_heartbeats, write_repo
from test_change_map import GITHUB_LINKS

from refdoc_site.cli import main
from refdoc_site.core.config import Config, parse_config
from refdoc_site.core.corrections import CORRECTIONS_NAME, load_corrections, parse_corrections
from refdoc_site.core.errors import ConfigError
from refdoc_site.pipeline import Base, Workspace, build, changes
from refdoc_site.rendering.changes import comment_markdown
from refdoc_site.understanding.changes import ChangeMap, ChangeStatus, FileChange, StalePage

CORE = dedent('''
    def spin(speed: int) -> int:
        """Spin the wheel."""
        return speed * 2


    def helper() -> int:
        return 1
''')
BRAKE = dedent('''
    from app.core import helper, spin


    def brake(speed: int) -> int:
        """Slow the wheel down."""
        helper()
        return spin(speed) // 4
''')
REPLACED = "Doubles the speed it is given; the wheel itself turns in Wheel.turn."


def _repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo", {"app/__init__.py": "", "app/core.py": CORE, "app/brake.py": BRAKE})


def _build(repo: Path, tmp_path: Path) -> Workspace:
    workspace = Workspace.create(repo, Config(site_name="Wheel"), tmp_path / "store", tmp_path / "site")
    build(workspace, site=False)
    return workspace


def _page(workspace: Workspace, page: str) -> str:
    return (workspace.project_dir / "docs" / page).read_text(encoding="utf-8")


def _section(text: str, anchor: str) -> str:
    start = text.index(f"{{ #{anchor} }}")
    end = text.find("\n### ", start)
    return text[start : end if end != -1 else len(text)]


def test_a_correction_replaces_a_summary_and_an_edge_and_survives_a_rebuild_after_its_file_changes(tmp_path, capsys) -> None:
    repo = _repo(tmp_path)
    workspace = _build(repo, tmp_path)
    generated = _section(_page(workspace, "files/app/core.py.md"), "chunk-spin")
    assert REPLACED not in generated and "helper" in _section(_page(workspace, "files/app/brake.py.md"), "chunk-brake")

    store = ["--store", str(tmp_path / "store")]
    assert main(["correct", "app/core.py#spin", str(repo), *store, "--summary", REPLACED]) == 0
    assert main(["correct", "edge:app/brake.py#brake -> app/core.py#helper", str(repo), *store, "--wrong"]) == 0
    entries = load_corrections(repo / CORRECTIONS_NAME, CORRECTIONS_NAME)
    assert [(c.kind.value, len(c.hash)) for c in entries] == [("definition", 16), ("edge", 16)]

    build(workspace, site=False)
    spin = _section(_page(workspace, "files/app/core.py.md"), "chunk-spin")
    assert f"**Responsibility:** {REPLACED}" in spin and "Written by a maintainer" in spin and "To review" not in spin
    brake = _section(_page(workspace, "files/app/brake.py.md"), "chunk-brake")
    assert "[helper]" not in brake and "the call to `helper` as wrong" in brake and "[spin](core.py.md#chunk-spin)" in brake
    chunks = (workspace.project_dir / "docs/search/refdoc/chunks.json").read_text(encoding="utf-8")
    assert REPLACED in chunks, "the search data carries the maintainer's summary"

    (repo / "app/core.py").write_text(CORE.replace("speed * 2", "speed * 3"), encoding="utf-8")
    build(workspace, site=False)  # the summarizer writes spin's summary again: the correction stays over it
    spin = _section(_page(workspace, "files/app/core.py.md"), "chunk-spin")
    assert f"**Responsibility:** {REPLACED}" in spin and "**To review:" in spin
    assert "To review" not in _section(_page(workspace, "files/app/brake.py.md"), "chunk-brake"), "brake did not change"
    capsys.readouterr()
    assert main(["stats", str(repo), *store]) == 0
    shown = capsys.readouterr().out
    assert "corrections: 2 applied, 1 to review, 0 whose target is gone" in shown
    assert f"to review: {CORRECTIONS_NAME}:1: definition 'app/core.py#spin'" in shown


def test_an_unknown_target_is_one_warning_naming_the_file_and_line(tmp_path, caplog) -> None:
    repo = _repo(tmp_path)
    (repo / CORRECTIONS_NAME).write_text("- definition: app/core.py#spin\n  note: Pure.\n- definition: app/gone.py#vanished\n  note: Was here.\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        workspace = _build(repo, tmp_path)
    gone = [record.getMessage() for record in caplog.records if "gone.py" in record.getMessage()]
    assert gone == [f"{CORRECTIONS_NAME}:3: definition: 'app/gone.py#vanished' is not in the site (renamed or removed?); update the entry or delete it"]
    assert "**Notes:** Pure." in _section(_page(workspace, "files/app/core.py.md"), "chunk-spin")
    state = json.loads((tmp_path / "store/corrections.json").read_text(encoding="utf-8"))
    assert state["warnings"] == gone


def test_correct_refuses_a_target_the_site_lacks(tmp_path, capsys) -> None:
    repo = _repo(tmp_path)
    _build(repo, tmp_path)
    assert main(["correct", "app/core.py#nope", str(repo), "--store", str(tmp_path / "store"), "--note", "x"]) == 2
    error = without_heartbeats(capsys.readouterr().err).strip().splitlines()
    assert len(error) == 1 and "app/core.py#nope: no such definition" in error[0]
    assert not (repo / CORRECTIONS_NAME).exists()


def test_every_problem_of_the_file_is_one_line_naming_its_line_and_key() -> None:
    text = dedent('''
        - definition: app/core.py#spin
          summary: 12
        - edge: app/brake.py#brake
          wrong: "sure"
        - decision: Uses SQLite
          summry: typo
        - section: index.md#at-a-glance
          note: fine
          hash: zz
        - note: no target
        - definition: app/core.py#spin
          note: twice
    ''')
    with pytest.raises(ConfigError) as raised:
        parse_corrections(text, "fixes.yml")
    assert raised.value.problems == [
        "fixes.yml:2: summary: expected text of at most 2000 characters, got int 12",
        "fixes.yml:3: edge: expected `caller id -> callee id`, got 'app/brake.py#brake'",
        "fixes.yml:4: wrong: expected true, got 'sure'",
        "fixes.yml:6: summry: unknown key for a decision; known are not_a_decision, summary, note, hash",
        "fixes.yml:5: decision: says nothing; give one of not_a_decision, summary, note",
        "fixes.yml:9: hash: expected the 16 hex digits `refdoc-site correct` writes, got 'zz'",
        "fixes.yml:10: expected exactly one target key of definition, edge, decision, section, got none",
    ]


def test_refdoc_yml_names_the_file_only_inside_the_repository(tmp_path) -> None:
    assert parse_config({"corrections": "docs/fixes.yml"}).corrections == "docs/fixes.yml"
    for outside in ("../fixes.yml", "/etc/fixes.yml", "fixes.txt", 3):
        with pytest.raises(ConfigError, match="corrections: expected a .yml file inside the repository"):
            parse_config({"corrections": outside})
    outside_file = tmp_path / "outside.yml"
    outside_file.write_text("- definition: a.py#f\n  note: from outside\n", encoding="utf-8")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / CORRECTIONS_NAME).symlink_to(outside_file)
    with pytest.raises(ConfigError, match="cannot be read"):
        load_corrections(tmp_path / "repo" / CORRECTIONS_NAME, CORRECTIONS_NAME)


def _git(repo: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *arguments], check=True, capture_output=True)


def test_a_pull_request_names_the_corrections_and_decisions_whose_code_it_edits(tmp_path) -> None:
    """The change map's "May now be wrong": a maintainer's correction of the edited function
    first (its page would state a summary checked against code that is gone), then the
    decision whose evidence is the edited file; a correction of untouched code is not listed."""
    repo = write_repo(tmp_path / "repo", {
        "pyproject.toml": '[project]\nname = "wheel"\ndependencies = ["requests>=2"]\n',
        "app/__init__.py": "", "app/core.py": "import requests\n\n\n" + CORE, "app/brake.py": BRAKE,
    })
    workspace = _build(repo, tmp_path)
    store = ["--store", str(tmp_path / "store")]
    assert main(["correct", "app/core.py#spin", str(repo), *store, "--summary", REPLACED]) == 0
    assert main(["correct", "app/brake.py#brake", str(repo), *store, "--note", "Quarter speed."]) == 0
    assert main(["correct", "decision:Uses requests for HTTP requests", str(repo), *store, "--note", "Only for the tax service."]) == 0
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "app/core.py").write_text("import requests\n\n\n" + CORE.replace("speed * 2", "speed * 3"), encoding="utf-8")
    found = changes(workspace, Base("HEAD"))
    assert [(s.kind, s.page, s.cited) for s in found.stale][:3] == [
        ("correction", "files/app/core.py.md", "app/core.py#spin"),
        ("correction", "decisions.md", "Uses requests for HTTP requests"),
        ("decision", "decisions.md", "app/core.py"),
    ]
    assert not any("brake" in s.title for s in found.stale)
    comment = comment_markdown(found, "en", "https://example.org/pr-3/")
    stale = comment.split("**May now be wrong**\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert stale[0] == (
        "- [`definition: app/core.py#spin`](https://example.org/pr-3/files/app/core.py/#chunk-spin) (files/app/core.py.md):"
        " maintainer's correction: cites app/core.py\\#spin, which this change edits"
    )
    assert comment.index("**May now be wrong**") < comment.index("**Public definitions changed**")


def test_stale_pages_stay_within_the_comments_bound_and_their_titles_are_inert() -> None:
    hostile = "<img src=x onerror=alert(1)> @acme/team #12 www.login.example `](javascript:x)"
    stale = [StalePage("decision", "decisions.md", "", f"{hostile} {i}", f"@acme/{i}.py") for i in range(500)]
    found = ChangeMap("main", files=[FileChange("a.py", "", ChangeStatus.CHANGED)], stale=stale)
    comment = comment_markdown(found, "en", "https://example.org/")
    lines = comment.splitlines()
    assert len(lines) <= 60 and lines[-1].startswith("[and ") and lines[4] == "**May now be wrong**"
    shown = re.sub(r"\]\([^)]*\)", "]", re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", comment))  # what GitHub reads as text
    assert GITHUB_LINKS.findall(shown) == [] and "<img" not in shown and "javascript:" not in shown, comment


def test_a_correction_to_review_is_in_the_comment_whatever_the_change_edits(tmp_path) -> None:
    """spin's code changed after its correction was written (before the pull request); the
    pull request edits brake only, and the comment still names the correction to review."""
    repo = _repo(tmp_path)
    workspace = _build(repo, tmp_path)
    assert main(["correct", "app/core.py#spin", str(repo), "--store", str(tmp_path / "store"), "--summary", REPLACED]) == 0
    (repo / "app/core.py").write_text(CORE.replace("speed * 2", "speed * 3"), encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "app/brake.py").write_text(BRAKE.replace("// 4", "// 5"), encoding="utf-8")
    found = changes(workspace, Base("HEAD"))
    assert [(s.kind, s.title, s.cited) for s in found.stale] == [("correction", "definition: app/core.py#spin", "")]
    comment = comment_markdown(found, "en")
    assert "- `definition: app/core.py#spin` (files/app/core.py.md): maintainer's correction: to review, its code changed since it was written" in comment


WHEEL_FIXES = f"""\
- definition: app/core.py#spin
  summary: {REPLACED}
- edge: app/brake.py#brake -> app/core.py#helper
  wrong: true
"""


def test_ask_query_and_the_mcp_tools_answer_with_the_corrections(tmp_path, capsys) -> None:
    """What answers from the store (asking/library.py) shows what the pages show: the
    maintainer's summary, and no call the maintainer marked wrong."""
    from refdoc_site.asking.library import Library
    from refdoc_site.asking.mcp_server import LibraryTools

    repo = _repo(tmp_path)
    (repo / CORRECTIONS_NAME).write_text(WHEEL_FIXES, encoding="utf-8")
    workspace = _build(repo, tmp_path)
    store = ["--store", str(tmp_path / "store")]
    capsys.readouterr()

    assert main(["ask", "what does spin do to the wheel speed?", str(repo), *store, "--json"]) == 0
    sources = {source["symbol"]: source for source in json.loads(capsys.readouterr().out)["sources"]}
    assert sources["spin"]["summary"] == REPLACED

    assert main(["query", "Doubles", str(repo), *store, "--json", "--mode", "sparse"]) == 0
    hits = json.loads(capsys.readouterr().out)  # the site's pages quote the summary too
    assert [hit["symbol"] for hit in hits if hit["kind"] != "page"] == ["spin"], "found by the maintainer's words"

    tools = LibraryTools(Library.open(workspace))
    spin = tools.definition("app/core.py#spin")
    assert spin["summary"]["responsibility"] == REPLACED and spin["summary"]["source"] == "maintainer"
    assert "Spin the wheel" not in json.dumps(spin["summary"])
    brake = tools.definition("app/brake.py#brake")
    assert brake["callees"] == ["app/core.py#spin"], "the wrong call to helper is gone, the right one stays"
    assert tools.callers("app/core.py#helper")["callers"] == []
    assert [item["id"] for item in tools.callees("app/brake.py#brake")["callees"]] == ["app/core.py#spin"]


def test_a_broken_corrections_file_is_one_warning_and_ask_still_answers(tmp_path, caplog, capsys) -> None:
    from refdoc_site.asking.library import Library

    repo = _repo(tmp_path)
    workspace = _build(repo, tmp_path)
    (repo / CORRECTIONS_NAME).write_text(WHEEL_FIXES + "- definition: app/core.py#spin\n  colour: red\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        library = Library.open(workspace)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "\n" not in warnings[0] and warnings[0].startswith(f"{CORRECTIONS_NAME}:")
    assert "no correction is applied" in warnings[0]
    assert library.definition("app/core.py#spin").summary["responsibility"] != REPLACED, "none of the file is used"
    assert "app/core.py#helper" in library.definition("app/brake.py#brake").callees
    capsys.readouterr()
    assert main(["ask", "what does spin do?", str(repo), "--store", str(tmp_path / "store"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "extractive"
