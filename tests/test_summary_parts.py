"""A large repository's file and module summaries on pages of a bounded size
(rendering/summary_parts.py): runs in path order, cut where no position decides."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import pytest
from helpers import write_repo

import refdoc_site.rendering.summary_parts as summary_parts_module
from refdoc_site.cli import main
from refdoc_site.rendering.summary_parts import summary_parts


def _paths(count: int, per_folder: int = 7) -> list[str]:
    return [f"pkg/components/c{n // per_folder:04d}/m{n % per_folder}.py" for n in range(count)]


def _parts(keys: list[str], limit: int = 400) -> list:
    return summary_parts(keys, posixpath.dirname, lambda key: f"summaries/files/{key}.md", limit)


def test_a_list_that_fits_is_one_page() -> None:
    assert _parts(_paths(400)) == []


def test_runs_hold_every_entry_once_in_order_within_the_bound() -> None:
    keys = _paths(11_808)
    parts = _parts(keys)
    assert [key for part in parts for key in part.keys] == sorted(keys)
    assert all(1 <= len(part.keys) <= 400 for part in parts)
    assert 11_808 / 400 < len(parts) < 11_808 / 100  # runs of about half the bound, not a page a folder
    assert all(part.page == f"summaries/files/{part.first}.md" for part in parts)


def test_an_edit_moves_nothing_and_an_added_or_removed_entry_only_its_run() -> None:
    keys = _paths(6_000)
    before = {part.page: part.keys for part in _parts(keys)}
    assert {part.page: part.keys for part in _parts(list(reversed(keys)))} == before
    for changed in (keys + ["pkg/components/c0420/added.py"], [key for key in keys if key != keys[2_999]]):
        after = {part.page: part.keys for part in _parts(changed)}
        differing = {page for page in before.keys() | after.keys() if before.get(page) != after.get(page)}
        assert 1 <= len(differing) <= 2, differing


@pytest.fixture(scope="module")
def parted_site(tmp_path_factory) -> Path:
    """Twelve files in four folders, built with a bound of three entries a page."""
    work = tmp_path_factory.mktemp("parts")
    files = {f"app/part{folder}/mod{n}.py": f'"""Module {n} of part {folder}."""\n\n\ndef run{n}():\n    return {n}\n' for folder in range(4) for n in range(3)}
    repo = write_repo(work / "repo", files)
    patch = pytest.MonkeyPatch()
    patch.setattr(summary_parts_module, "PART_ENTRIES", 3)
    try:
        assert main(["build", str(repo), "--out", str(work / "out")]) == 0
    finally:
        patch.undo()
    return work / "out"


def _links(page: Path) -> list[str]:
    return [href for href in re.findall(r'href="([^"#]+)"', page.read_text(encoding="utf-8")) if "://" not in href]


def test_the_summary_page_links_its_runs_and_the_runs_list_every_file_once(parted_site: Path) -> None:
    index = parted_site / "summaries/files/index.html"
    runs = sorted({(index.parent / href).resolve() for href in _links(index) if "/summaries/files/" in str((index.parent / href).resolve())} - {index.parent.resolve()})
    assert len(runs) >= 4
    listed = []
    for run in runs:
        page = run / "index.html"
        files = [href for href in _links(page) if "/files/app/" in href and "/summaries/" not in href]
        assert 1 <= len(files) <= 3, page
        listed += [(page.parent / href).resolve() for href in files]
        assert any((page.parent / href).resolve() == index.parent.resolve() for href in _links(page))  # back to the list
    assert len(listed) == len(set(listed)) == 12
    assert all((target / "index.html").is_file() for target in listed)
    modules = parted_site / "summaries/modules/index.html"
    assert "Too many for one page" in modules.read_text(encoding="utf-8")
