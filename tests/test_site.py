"""A real MkDocs build of the fixture repository: strict, local assets only, escaped text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from refdoc_site.cli import main

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "golden_repo"


@pytest.fixture(scope="module")
def built_site(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("site")
    repo = work / "shop"
    shutil.copytree(FIXTURE, repo)
    assert main(["build", str(repo), "--out", str(work / "out")]) == 0
    return work / "out"


def test_every_page_kind_is_built(built_site: Path) -> None:
    for page in (
        "index.html",
        "decisions/index.html",
        "plans/milestones/index.html",
        "summaries/system/index.html",
        "summaries/hierarchy.json.gz",
        "modules/app/index.html",
        "files/app/service.py/index.html",
        "files/web/src/client.ts/index.html",
        "files/go/server/server.go/index.html",
        "files/notes/design notes é.md/index.html",
    ):
        assert (built_site / page).exists(), page


def test_site_loads_nothing_from_other_hosts(built_site: Path) -> None:
    for page in built_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for attribute in re.findall(r'<(?:script|link|img)\b[^>]*?(?:src|href)="([^"]+)"', html):
            assert not re.match(r"(?:https?:)?//", attribute), f"{page}: {attribute}"
        assert "fonts.googleapis" not in html


def test_docstring_markup_shows_as_text(built_site: Path) -> None:
    html = (built_site / "files" / "app" / "service.py" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_chunk_anchors_and_links_resolve(built_site: Path) -> None:
    html = (built_site / "files" / "app" / "service.py" / "index.html").read_text(encoding="utf-8")
    assert 'id="chunk-UserService.create-user"' in html
    util = (built_site / "files" / "app" / "util.py" / "index.html").read_text(encoding="utf-8")
    assert "service.py/#chunk-UserService.create-user" in util.replace("%20", " ")
