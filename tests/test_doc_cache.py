"""reStructuredText is read by docutils once a build (indexing/doc_cache.py): the render
finds the sections the index read, and a kept file that is damaged or forged is read again
from the text, never trusted."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import patch

from helpers import write_repo

from refdoc_site.core.config import Config
from refdoc_site.indexing import doc_blocks
from refdoc_site.indexing.doc_cache import DOC_BLOCKS_DIR, KeptSections, decode_section, encode_section, reading_once
from refdoc_site.indexing.doc_blocks import read_section
from refdoc_site.pipeline import Workspace, index, render, summarize

GUIDE = """
Serving requests
================

The application turns each request into a response, and :func:`handle` does the work.

.. note:: The server calls it once per request.

Handling errors
---------------

An error becomes a response through :ref:`errors`.

.. code-block:: python

    app.handle(request)
"""


def counting_reads():
    real = doc_blocks.rst_section
    calls: list[str] = []

    def counted(text: str):
        calls.append(text)
        return real(text)

    return calls, patch.object(doc_blocks, "rst_section", counted)


def test_the_render_reads_no_section_the_index_read(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {"docs/serving.rst": GUIDE, "app.py": 'def handle(request):\n    """Handle it."""\n    return request\n'})
    workspace = Workspace.create(repo, Config(site_name="Tiny"), tmp_path / "store", tmp_path / "site")
    calls, counted = counting_reads()
    with counted, patch("refdoc_site.pipeline.render_phase.find_mermaid", return_value=None):
        index(workspace)
        read_by_index = len(calls)
        summarize(workspace)
        render(workspace)
    assert read_by_index >= 2, "each section read once, for its summary"
    assert len(calls) == read_by_index, "the render found every section the index read"
    page = (workspace.project_dir / "docs" / "files" / "docs" / "serving.rst.md").read_text(encoding="utf-8")
    assert "Handling errors" in page and "app.handle(request)" in page and "once per request" in page
    assert list((tmp_path / "store" / DOC_BLOCKS_DIR).rglob("*.json"))


def test_a_kept_section_decodes_to_what_was_read(tmp_path: Path) -> None:
    section = read_section(GUIDE, "restructuredtext")
    assert decode_section(json.loads(json.dumps(encode_section(section)))) == section


def test_a_damaged_or_forged_kept_file_is_read_again_from_the_text(tmp_path: Path) -> None:
    kept = KeptSections(tmp_path / DOC_BLOCKS_DIR)
    text = "Title\n=====\n\nThe real text of the section.\n"
    truth = doc_blocks.rst_section(text)
    forged = {"title": None, "blocks": [{"kind": "<script>", "inlines": [["text", "forged", "", []]]}]}
    for content in ("{not json", json.dumps(forged), json.dumps({"title": None, "blocks": [{"kind": "paragraph", "code": 7}]}), "[]"):
        kept.path(text).parent.mkdir(parents=True, exist_ok=True)
        kept.path(text).write_text(content, encoding="utf-8")
        with reading_once(kept.directory):
            assert read_section(text, "restructuredtext") == truth, content
    assert doc_blocks.KEPT is None, "the block ends where it ends"


def test_a_render_keeps_only_the_sections_the_index_still_holds(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {"docs/serving.rst": GUIDE})
    workspace = Workspace.create(repo, Config(site_name="Tiny"), tmp_path / "store", tmp_path / "site")
    stale = KeptSections(tmp_path / "store" / DOC_BLOCKS_DIR)
    stale.put("Gone\n====\n\nA section since deleted.\n", read_section("Gone\n====\n\nA section since deleted.\n", "restructuredtext"))
    assert stale.path("Gone\n====\n\nA section since deleted.\n").is_file()
    with patch("refdoc_site.pipeline.render_phase.find_mermaid", return_value=None):
        index(workspace)
        summarize(workspace)
        render(workspace)
    assert not stale.path("Gone\n====\n\nA section since deleted.\n").exists()
    assert list((tmp_path / "store" / DOC_BLOCKS_DIR).rglob("*.json")), "the current sections stay for the next render"
