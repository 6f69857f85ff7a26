"""Incremental rendering (rendering/incremental.py): after a change, the render phase renders
only the file pages whose inputs changed, and its output is byte for byte the output of a
clean render of the same repository; a render cut short leaves no digest claiming a page
it did not write."""

from __future__ import annotations

import subprocess
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


def rendered(repo: Path, store: Path, config: Config | None = None) -> tuple[RenderReport, Workspace]:
    workspace = Workspace.create(repo, config or Config(), store, store / "site")
    index(workspace)
    summarize(workspace)
    return render_report(workspace), workspace


def project_files(workspace: Workspace) -> dict[str, bytes]:
    """Every file of the MkDocs project (pages, search data, mkdocs.yml) by its path."""
    root = workspace.project_dir
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def pages_rendered(report: RenderReport) -> int:
    """The file and module pages among the pages rendered: every other page (the overview,
    decisions, milestones, summaries) is rendered each time."""
    return report.rendered - sum(1 for page in report.pages if not page.startswith(("files/", "modules/")))


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
    assert pages_rendered(first) == len(SOURCES) + 3  # and the modules pkg, web and the root
    before = project_files(workspace)
    with (repo / "pkg/words.py").open("a", encoding="utf-8") as handle:
        handle.write('\n\ndef whisper(text: str) -> str:\n    """The text in small letters."""\n    return text.lower()\n')

    second, workspace = rendered(repo, store)

    assert pages_rendered(second) == 2  # words.py's page and its module's, whose public API grew
    after = project_files(workspace)
    assert after["docs/files/pkg/words.py.md"] != before["docs/files/pkg/words.py.md"]
    assert "whisper" in after["docs/files/pkg/words.py.md"].decode()
    assert_same_as_clean(tmp_path, repo, workspace)


def test_a_new_commit_renders_only_the_changed_pages_and_moves_every_source_link(tmp_path: Path) -> None:
    """The source links name the commit; a new one rewrites them in the pages not rendered
    again, which are then what a clean render at that commit writes."""
    config = Config(repo_url="https://github.com/acme/tiny")
    repo = write_repo(tmp_path / "repo", SOURCES)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    first_commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    store = tmp_path / "store"
    rendered(repo, store, config)
    numbers = store / "mkdocs/docs/files/pkg/numbers.py.md"
    assert f"/blob/{first_commit}/pkg/numbers.py#L" in numbers.read_text(encoding="utf-8")
    with (repo / "pkg/words.py").open("a", encoding="utf-8") as handle:
        handle.write('\n\ndef whisper(text: str) -> str:\n    """The text in small letters."""\n    return text.lower()\n')
    subprocess.run([*git, "commit", "-q", "-am", "two"], check=True)
    second_commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()

    report, workspace = rendered(repo, store, config)

    assert pages_rendered(report) == 2  # words.py's page and its module's
    text = numbers.read_text(encoding="utf-8")
    assert f"/blob/{second_commit}/pkg/numbers.py#L" in text and first_commit not in text
    _, clean = rendered(repo, tmp_path / "clean-store", config)
    incremental_files, clean_files = project_files(workspace), project_files(clean)
    assert [path for path in clean_files if incremental_files.get(path) != clean_files[path]] == []


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
    assert pages_rendered(report) == 3  # util.py's page, core.py's (whose links changed) and their module's
    assert_same_as_clean(tmp_path, repo, workspace)


@pytest.mark.parametrize(
    ("path", "old", "new", "page", "shown", "pages"),
    [
        # core.py's records do not change, only where a name in its docstring links: its
        # page, util.py's and their module's are rendered.
        ("pkg/util.py", "return x / 3.0\n", 'return x / 3.0\n\n\ndef quarter(x):\n    """A quarter."""\n    return x / 4\n',
         "docs/files/pkg/core.py.md", "util.py.md#chunk-quarter", 3),
        # words.py's summary is the same; the module page's public API shows the new signature.
        ("pkg/words.py", "(text: str)", "(text: str, *, loud: bool = True)", "docs/modules/pkg.md", "loud: bool = True", 2),
    ],
    ids=["docstring-link", "module-signature"],
)
def test_a_change_in_one_file_renders_the_other_pages_that_show_it(
    tmp_path: Path, path: str, old: str, new: str, page: str, shown: str, pages: int
) -> None:
    repo = write_repo(tmp_path / "repo", SOURCES)
    store = tmp_path / "store"
    _, workspace = rendered(repo, store)
    assert shown not in (workspace.project_dir / page).read_text(encoding="utf-8")
    source = repo / path
    source.write_text(source.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    report, workspace = rendered(repo, store)

    assert shown in (workspace.project_dir / page).read_text(encoding="utf-8")
    assert pages_rendered(report) == pages
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
    assert pages_rendered(report) == 1  # the module's page, which listed the file
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
    assert pages_rendered(report) == 3  # the two files' pages and their module's
    assert_same_as_clean(tmp_path, repo, workspace)


def test_a_guide_doc_renders_again_when_a_name_it_links_appears_and_matches_a_clean_render(tmp_path: Path) -> None:
    """A reST guide's `:func:` shows as code until the function exists, then as its link:
    the guide's page follows the change in another file, no other doc page does."""
    sources = {
        **SOURCES,
        "docs/guide.rst": "Guide\n=====\n\nCall :func:`pkg.words.whisper` to lower it.\n",
        "docs/other.md": "# Other\n\nNothing linked.\n",
    }
    repo = write_repo(tmp_path / "repo", sources)
    store = tmp_path / "store"
    rendered(repo, store)
    with (repo / "pkg/words.py").open("a", encoding="utf-8") as handle:
        handle.write('\n\ndef whisper(text: str) -> str:\n    """The text in small letters."""\n    return text.lower()\n')

    second, workspace = rendered(repo, store)

    assert pages_rendered(second) == 3  # words.py's page, its module's, and the guide's
    guide = (workspace.project_dir / "docs/files/docs/guide.rst.md").read_text(encoding="utf-8")
    assert "[`pkg.words.whisper`](../pkg/words.py.md#chunk-whisper)" in guide
    assert_same_as_clean(tmp_path, repo, workspace)
