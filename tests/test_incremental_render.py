"""Incremental rendering (rendering/incremental.py): after a change, the render phase renders
only the file pages whose inputs changed, and its output is byte for byte the output of a
clean render of the same repository; a render cut short leaves no digest claiming a page
it did not write."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_repo
from test_determinism import SOURCES as TINY

from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, index, summarize
from refdoc_site.pipeline.render_phase import SECTIONS_NAME, RenderReport, render_report
from refdoc_site.rendering import incremental
from refdoc_site.rendering.incremental import PAGES_NAME

SOURCES = {
    **{path: text for path, text in TINY.items() if path != "refdoc.yml"},
    "pkg/core.py": TINY["pkg/core.py"].replace("the first scaled.", "the first scaled by `third` (not `quarter`)."),
    "pkg/words.py": '''
        """Words."""

        def shout(text: str) -> str:
            """The text in capitals."""
            return text.upper()
        ''',
    "pkg/numbers.py": '''
        """Numbers."""

        def double(n: int) -> int:
            """Twice n."""
            return n * 2
        ''',
}


def rendered(repo: Path, store: Path) -> tuple[RenderReport, Workspace]:
    workspace = Workspace.create(repo, Config(), store, store / "site")
    index(workspace)
    summarize(workspace)
    return render_report(workspace), workspace


def project_files(workspace: Workspace) -> dict[str, bytes]:
    """Every file of the MkDocs project (pages, search data, mkdocs.yml) by its path."""
    root = workspace.project_dir
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def file_pages_rendered(report: RenderReport) -> int:
    """The file pages among the pages rendered: every other page is rendered each time."""
    return report.rendered - sum(1 for page in report.pages if not page.startswith("files/"))


def assert_same_as_clean(tmp_path: Path, repo: Path, workspace: Workspace) -> None:
    _, clean = rendered(repo, tmp_path / "clean-store")
    incremental_files, clean_files = project_files(workspace), project_files(clean)
    assert sorted(incremental_files) == sorted(clean_files)
    differing = [path for path in clean_files if incremental_files[path] != clean_files[path]]
    assert differing == [], f"files that differ from a clean render: {differing}"


def test_a_one_file_change_renders_only_its_page_and_matches_a_clean_render(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    store = tmp_path / "store"
    first, workspace = rendered(repo, store)
    assert file_pages_rendered(first) == len(SOURCES)
    before = project_files(workspace)
    with (repo / "pkg/words.py").open("a", encoding="utf-8") as handle:
        handle.write('\n\ndef whisper(text: str) -> str:\n    """The text in small letters."""\n    return text.lower()\n')

    second, workspace = rendered(repo, store)

    assert file_pages_rendered(second) == 1
    after = project_files(workspace)
    assert after["docs/files/pkg/words.py.md"] != before["docs/files/pkg/words.py.md"]
    assert "whisper" in after["docs/files/pkg/words.py.md"].decode()
    assert_same_as_clean(tmp_path, repo, workspace)


def test_a_change_in_one_file_renders_the_page_that_calls_into_it(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    store = tmp_path / "store"
    _, workspace = rendered(repo, store)
    core_before = (workspace.project_dir / "docs/files/pkg/core.py.md").read_text(encoding="utf-8")
    assert "util.py.md#chunk-third" in core_before  # add's calls and its docstring link to `third`
    # Only util.py changes: `third` moves below a new function, then is renamed away.
    (repo / "pkg/util.py").write_text('"""Helpers."""\n\n\ndef quarter(x: float) -> float:\n    """A quarter of x."""\n    return x / 4.0\n', encoding="utf-8")

    report, workspace = rendered(repo, store)

    core_after = (workspace.project_dir / "docs/files/pkg/core.py.md").read_text(encoding="utf-8")
    assert core_after != core_before
    assert "util.py.md#chunk-third" not in core_after
    assert file_pages_rendered(report) == 2  # util.py's page and core.py's, whose links changed
    assert_same_as_clean(tmp_path, repo, workspace)


def test_a_definition_added_in_one_file_renders_the_page_whose_docstring_names_it(tmp_path: Path) -> None:
    """core.py's records do not change, only where a name in its docstring links."""
    repo = write_repo(tmp_path / "repo", SOURCES)
    store = tmp_path / "store"
    _, workspace = rendered(repo, store)
    assert "util.py.md#chunk-quarter" not in (workspace.project_dir / "docs/files/pkg/core.py.md").read_text(encoding="utf-8")
    with (repo / "pkg/util.py").open("a", encoding="utf-8") as handle:
        handle.write('\n\ndef quarter(x: float) -> float:\n    """A quarter of x."""\n    return x / 4.0\n')

    report, workspace = rendered(repo, store)

    assert "util.py.md#chunk-quarter" in (workspace.project_dir / "docs/files/pkg/core.py.md").read_text(encoding="utf-8")
    assert file_pages_rendered(report) == 2
    assert_same_as_clean(tmp_path, repo, workspace)


def test_a_deleted_file_loses_its_page_and_the_prose_sections_are_reused(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    store = tmp_path / "store"
    _, workspace = rendered(repo, store)
    assert (workspace.project_dir / "docs/files/pkg/numbers.py.md").is_file()
    sections_before = (store / SECTIONS_NAME).read_bytes()
    (repo / "pkg/numbers.py").unlink()

    report, workspace = rendered(repo, store)

    assert not (workspace.project_dir / "docs/files/pkg/numbers.py.md").exists()
    assert "files/pkg/numbers.py.md" not in report.pages
    assert file_pages_rendered(report) == 0
    assert (store / SECTIONS_NAME).read_bytes() != sections_before  # the module page and overview changed
    assert_same_as_clean(tmp_path, repo, workspace)


def test_a_render_cut_short_leaves_no_digest_for_a_page_it_did_not_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    store = tmp_path / "store"
    _, workspace = rendered(repo, store)
    for path in ("pkg/words.py", "pkg/numbers.py"):
        with (repo / path).open("a", encoding="utf-8") as handle:
            handle.write('\n\ndef extra(value):\n    """Returns its value."""\n    return value\n')
    real_write = incremental.write_page
    writes: list[str] = []

    def cut_short(docs_dir: Path, page: str, title: str | None, text: str) -> bool:
        if page.startswith("files/") and writes:
            raise KeyboardInterrupt  # the build stops here, one file page written
        if page.startswith("files/"):
            writes.append(page)
        return real_write(docs_dir, page, title, text)

    monkeypatch.setattr(incremental, "write_page", cut_short)
    with pytest.raises(KeyboardInterrupt):
        rendered(repo, store)
    monkeypatch.setattr(incremental, "write_page", real_write)

    record = workspace.store.read_json(PAGES_NAME)["pages"]
    assert record["files/pkg/words.py.md"] == "" and record["files/pkg/numbers.py.md"] == ""
    assert record["files/pkg/util.py.md"] != ""  # unchanged, and still on disk as recorded
    report, workspace = rendered(repo, store)
    assert file_pages_rendered(report) == 2
    assert_same_as_clean(tmp_path, repo, workspace)
