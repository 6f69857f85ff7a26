"""Rendering a store that lacks a summary record: the overview's answers are built again
from the stored summaries (the same page), any other record missing stops the render with
one line naming it and what to run, and that command stores it again."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from unittest.mock import patch

import pytest
from helpers import write_repo
from test_orientation import WEB_APP

from refdoc_site.core.config import Config
from refdoc_site.core.errors import StoreError
from refdoc_site.core.workspace import DECISIONS_NAME, ORIENTATION_NAME, PLANS_NAME
from refdoc_site.pipeline import Workspace, index, render, summarize


def summarized(tmp_path: Path) -> Workspace:
    repo = write_repo(tmp_path / "repo", WEB_APP)
    workspace = Workspace.create(repo, Config(site_name="Tiny"), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    return workspace


def overview(workspace: Workspace) -> str:
    """The overview a render of the store writes into a project it never wrote (a copied store's)."""
    shutil.rmtree(workspace.project_dir, ignore_errors=True)
    with patch("refdoc_site.pipeline.render_phase.find_mermaid", return_value=None):
        render(workspace)
    return (workspace.project_dir / "docs" / "index.md").read_text(encoding="utf-8")


def test_a_store_without_its_orientation_renders_the_same_overview(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    workspace = summarized(tmp_path)
    stored = overview(workspace)
    (workspace.store_dir / ORIENTATION_NAME).unlink()
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        rebuilt = overview(workspace)
    assert "wsgi_app" in stored and "## Where to start" in stored
    assert rebuilt == stored
    [warning] = [r.getMessage() for r in caplog.records if ORIENTATION_NAME in r.getMessage()]
    assert "missing" in warning and "refdoc-site summarize" in warning


@pytest.mark.parametrize("name", [DECISIONS_NAME, PLANS_NAME])
def test_a_store_without_another_summary_record_says_which_and_what_to_run(tmp_path: Path, name: str) -> None:
    workspace = summarized(tmp_path)
    (workspace.store_dir / name).unlink()
    with pytest.raises(StoreError) as raised:
        overview(workspace)
    message = str(raised.value)
    assert "\n" not in message and str(workspace.store_dir / name) in message and "`refdoc-site summarize`" in message
    summarize(Workspace.create(workspace.repo, Config(site_name="Tiny"), workspace.store_dir, tmp_path / "site"))
    assert (workspace.store_dir / name).is_file(), "summarizing again stores it"
