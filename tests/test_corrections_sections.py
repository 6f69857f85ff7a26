"""Section corrections on every page kind (rendering/render.py `_Pages.corrected`): a
component page's and a file page's own sections take the maintainer's text like the
overview's, in the search data too; after the code they show changes they are "to review"
on the page, in `stats` and in the pull request's comment (pipeline/diff_phase.py)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import markdown
from helpers import write_repo
from hostile import HOSTILE_CORRECTION
from test_corrections import BRAKE, CORE, _git

from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.core.corrections import CORRECTIONS_NAME, load_corrections
from refdoc_site.core.text import one_line
from refdoc_site.pipeline import Workspace, build
from refdoc_site.rendering.llms import without_front_matter
from refdoc_site.rendering.markup import escape_text
from refdoc_site.search.prose import EXTENSIONS

TEST_CORE = "from app.core import spin\n\n\ndef test_spin():\n    assert spin(1) == 2\n"
MEMBERS = "map/tests.md#members"
"""The members of the tests' part: a component page's section."""
FILE_SUMMARY = "files/app/core.py.md#appcorepy"
"""core.py's own summary (role, module, language, lines): the file page's first section, no definition."""
MEMBERS_TEXT = "The tests only check spin; brake is checked by hand."
SUMMARY_TEXT = "Holds the wheel's arithmetic; the wheel itself is in Wheel.turn."


def _repo(tmp_path: Path) -> Path:
    files = {"app/__init__.py": "", "app/core.py": CORE, "app/brake.py": BRAKE, "tests/test_core.py": TEST_CORE}
    return write_repo(tmp_path / "repo", files)


def _build(repo: Path, tmp_path: Path) -> Workspace:
    workspace = Workspace.create(repo, Config(site_name="Wheel"), tmp_path / "store", tmp_path / "site")
    build(workspace, site=False)
    return workspace


def _section(workspace: Workspace, target: str) -> str:
    """A section's Markdown as the page has it: its heading to the next heading."""
    page, _, anchor = target.partition("#")
    text = (workspace.project_dir / "docs" / page).read_text(encoding="utf-8")
    heading = next(m for m in re.finditer(r"^#{1,6} .*$", text, re.M) if anchor in m[0].lower().replace("/", "").replace(".", ""))
    following = re.compile(r"^#{1,6} ", re.M).search(text, heading.end())
    return text[heading.start() : following.start() if following else len(text)]


def _correct(repo: Path, tmp_path: Path, target: str, text: str) -> int:
    return main(["correct", f"section:{target}", str(repo), "--store", str(tmp_path / "store"), "--summary", text])


def _searched(workspace: Workspace) -> dict[str, dict]:
    rows = json.loads((workspace.project_dir / "docs/search/refdoc/chunks.json").read_text(encoding="utf-8"))
    return {f"{row['page']}#{row['anchor']}": row for row in rows if row["kind"] == "page"}


def test_a_component_page_and_a_file_pages_summary_take_the_maintainers_text_and_keep_it(tmp_path, capsys) -> None:
    repo = _repo(tmp_path)
    workspace = _build(repo, tmp_path)
    assert "Defines test\\_spin" in _section(workspace, MEMBERS) and "Defines spin and helper" in _section(workspace, FILE_SUMMARY)

    assert _correct(repo, tmp_path, MEMBERS, MEMBERS_TEXT) == 0
    assert _correct(repo, tmp_path, FILE_SUMMARY, SUMMARY_TEXT) == 0
    entries = load_corrections(repo / CORRECTIONS_NAME, CORRECTIONS_NAME)
    assert [(c.target, len(c.hash)) for c in entries] == [(MEMBERS, 16), (FILE_SUMMARY, 16)]

    build(workspace, site=False)
    for target, text, generated in ((MEMBERS, MEMBERS_TEXT, "Defines test\\_spin"), (FILE_SUMMARY, SUMMARY_TEXT, "Defines spin and helper")):
        section = _section(workspace, target)
        assert escape_text(text) in section and "Written by a maintainer" in section, section
        assert generated not in section and "To review" not in section, section
    assert "## Exports" in (workspace.project_dir / "docs/files/app/core.py.md").read_text(encoding="utf-8"), "the next section stays"
    searched = _searched(workspace)
    assert MEMBERS_TEXT in searched["map/tests/#members"]["summary"]
    assert SUMMARY_TEXT in searched["files/app/core.py/#appcorepy"]["summary"]
    assert not any(key.startswith("files/app/core.py/#chunk-") for key in searched), "a file page's other sections are its chunks' rows"

    (repo / "app/brake.py").write_text(BRAKE.replace("// 4", "// 5"), encoding="utf-8")
    build(workspace, site=False)  # core.py's page is unchanged by its digest: still rendered, the correction on it
    assert escape_text(SUMMARY_TEXT) in _section(workspace, FILE_SUMMARY)
    assert json.loads((tmp_path / "store/corrections.json").read_text(encoding="utf-8"))["warnings"] == []

    (repo / "app/core.py").write_text(CORE.replace("Spin the wheel.", "Spin the wheel twice."), encoding="utf-8")
    (repo / "tests/test_core.py").write_text(TEST_CORE.replace("def test_spin", "def test_spin_twice"), encoding="utf-8")
    build(workspace, site=False)
    for target, text in ((MEMBERS, MEMBERS_TEXT), (FILE_SUMMARY, SUMMARY_TEXT)):
        section = _section(workspace, target)
        assert escape_text(text) in section and "**To review:" in section and "!!! warning" in section, section
    capsys.readouterr()
    assert main(["stats", str(repo), "--store", str(tmp_path / "store")]) == 0
    shown = capsys.readouterr().out
    assert "corrections: 2 applied, 2 to review, 0 whose target is gone" in shown
    assert f"to review: {CORRECTIONS_NAME}:1: section '{MEMBERS}'" in shown
    assert f"to review: {CORRECTIONS_NAME}:4: section '{FILE_SUMMARY}'" in shown


def test_an_unknown_page_or_anchor_is_one_warning_and_the_others_apply(tmp_path, caplog, capsys) -> None:
    repo = _repo(tmp_path)
    (repo / CORRECTIONS_NAME).write_text(
        f"- section: files/app/core.py.md#exports\n  note: Both are pure.\n"
        f"- section: files/app/core.py.md#no-such-heading\n  note: x\n- section: map/gone.md#members\n  note: y\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        workspace = _build(repo, tmp_path)
    warned = [r.getMessage() for r in caplog.records if CORRECTIONS_NAME in r.getMessage()]
    assert warned == [
        f"{CORRECTIONS_NAME}:3: section: 'files/app/core.py.md#no-such-heading' is not in the site (renamed or removed?); update the entry or delete it",
        f"{CORRECTIONS_NAME}:5: section: 'map/gone.md#members' is not in the site (renamed or removed?); update the entry or delete it",
    ]
    assert "Both are pure." in _section(workspace, "files/app/core.py.md#exports")
    assert main(["correct", "section:files/app/core.py.md#nope", str(repo), "--store", str(tmp_path / "store"), "--note", "z"]) == 2
    assert "no such section" in capsys.readouterr().err


def test_a_pull_request_lists_a_section_correction_whose_section_it_changes_as_to_review(tmp_path, capsys) -> None:
    """The comment's "May now be wrong": the file page's summary the maintainer replaced is
    generated differently in the revision (its docstring changed), so the correction is to
    review; the components' members, unchanged, are not listed."""
    repo = _repo(tmp_path)
    _build(repo, tmp_path)
    assert _correct(repo, tmp_path, FILE_SUMMARY, SUMMARY_TEXT) == 0
    assert _correct(repo, tmp_path, MEMBERS, MEMBERS_TEXT) == 0
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "app/core.py").write_text(CORE.replace("Spin the wheel.", "Spin the wheel twice."), encoding="utf-8")
    comment = tmp_path / "comment.md"
    assert main(["diff", str(repo), "--store", str(tmp_path / "store"), "--base", "HEAD", "--markdown", str(comment)]) == 0
    stale = comment.read_text(encoding="utf-8").split("**May now be wrong**\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert stale[0] == (
        f"- `section: {FILE_SUMMARY}` (files/app/core.py.md): maintainer's correction: to review, its code changed since it was written"
    ), stale
    assert not any("map/tests.md" in line for line in stale), stale


def test_a_hostile_section_correction_is_text_on_a_file_and_a_component_page(tmp_path) -> None:
    repo = _repo(tmp_path)
    entries = [f"- section: {target}\n  summary: {json.dumps(HOSTILE_CORRECTION)}\n  note: {json.dumps(HOSTILE_CORRECTION)}\n" for target in (MEMBERS, FILE_SUMMARY)]
    (repo / CORRECTIONS_NAME).write_text("".join(entries), encoding="utf-8")
    workspace = _build(repo, tmp_path)
    shown = one_line(HOSTILE_CORRECTION)
    for page in ("map/tests.md", "files/app/core.py.md"):
        text = without_front_matter((workspace.project_dir / "docs" / page).read_text(encoding="utf-8"))
        page_html = markdown.markdown(text, extensions=EXTENSIONS)
        assert "<img" not in page_html and "onclick" not in page_html.replace("onclick=alert(8)", ""), page
        assert "javascript:" not in re.sub(r">[^<]*<", "><", page_html), "no attribute holds it"
        assert 'class="admonition danger"' not in page_html and page_html.count("admonition note") == 1, page
        assert re.sub(r"<[^>]+>", "", page_html).count(shown.replace("<", "&lt;").replace(">", "&gt;")) == 2, page
    for row in (_searched(workspace)[key] for key in ("files/app/core.py/#appcorepy", "map/tests/#members")):
        assert f"): {shown[:10]}" in row["summary"] and "&lt;" not in row["summary"], row  # plain text, which results show as text


def test_a_sections_hash_leaves_out_the_commit_its_source_links_name() -> None:
    """Every push builds another commit, which a file page's source link names: that alone
    does not put a section correction to review; another line count does."""
    from refdoc_site.core.corrections import Correction, TargetKind, source_hash
    from refdoc_site.core.resources import page_labels
    from refdoc_site.rendering.corrected import CorrectionView, correct_sections, section_sources

    def page(commit: str, lines: int = 7) -> str:
        return f"# app/core.py\n\nDefines spin.\n\n**Lines:** {lines} · [source](https://example.org/blob/{commit}/app/core.py#L1-L{lines})\n\n## Exports\n"

    first, second = "a" * 40, "b" * 40
    recorded = source_hash(section_sources(page(first), "appcorepy", first) or [])
    correction = Correction(TargetKind.SECTION, FILE_SUMMARY, 1, summary=SUMMARY_TEXT, hash=recorded)
    views = {correction.key: CorrectionView(correction, CORRECTIONS_NAME)}
    states = [correct_sections("files/app/core.py.md", text, views, page_labels("en"), commit)[1][0].status for text, commit in
              ((page(second), second), (page(second, 8), second))]
    assert states == ["current", "to review"]
