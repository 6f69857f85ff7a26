"""Mermaid's module build published in part (rendering/site.py `mermaid_modules`): the
entry, the loaders of the diagram kinds the pages draw, and all that these import; the
other kinds' loaders, and what only they reach, stay out of the site."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import TESTS_MERMAID, require_chromium, served_folder

from refdoc_site.rendering import site
from refdoc_site.rendering.site import MERMAID_MODULE, MERMAID_MODULE_CHUNKS, MERMAID_MODULE_DIR, MermaidScript, mermaid_modules

CHUNKS = MERMAID_MODULE_CHUNKS.as_posix()


def _dist(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_the_loaders_of_other_kinds_and_what_only_they_reach_are_left_out(tmp_path: Path) -> None:
    dist = _dist(tmp_path, {
        str(MERMAID_MODULE): f'import{{a}}from"./{CHUNKS}/chunk-A.mjs";var f=()=>import("./{CHUNKS}/flowDiagram-X1.mjs"),'
                             f'g=()=>import("./{CHUNKS}/ganttDiagram-Y2.mjs"),s=()=>import("./{CHUNKS}/sequenceDiagram-Z3.mjs");',
        f"{CHUNKS}/chunk-A.mjs": 'export*from"./chunk-B.mjs";',
        f"{CHUNKS}/chunk-B.mjs": "export var b=1;",
        f"{CHUNKS}/flowDiagram-X1.mjs": 'import"./chunk-B.mjs";var k=()=>import("./katex-K.mjs");',
        f"{CHUNKS}/katex-K.mjs": "export var k=1;",
        f"{CHUNKS}/sequenceDiagram-Z3.mjs": "export var s=1;",
        f"{CHUNKS}/ganttDiagram-Y2.mjs": 'import"./chunk-G.mjs";',
        f"{CHUNKS}/chunk-G.mjs": "export var g=1;",
    })
    found = mermaid_modules(dist / MERMAID_MODULE, dist)
    assert [p.relative_to(dist).as_posix() for p in found] == sorted(
        f"{CHUNKS}/{name}" for name in ("chunk-A.mjs", "chunk-B.mjs", "flowDiagram-X1.mjs", "katex-K.mjs", "sequenceDiagram-Z3.mjs")
    ) + [str(MERMAID_MODULE)]
    (dist / CHUNKS / "katex-K.mjs").unlink()
    assert mermaid_modules(dist / MERMAID_MODULE, dist) is None  # an import it cannot follow: all of them, as before


def test_a_module_outside_the_folder_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.mjs"
    outside.write_text('import"./missing.mjs";', encoding="utf-8")
    dist = _dist(tmp_path / "dist", {str(MERMAID_MODULE): 'import"../secret.mjs";import"./chunks/a.mjs";', "chunks/a.mjs": ""})
    assert [p.name for p in mermaid_modules(dist / MERMAID_MODULE, dist)] == ["a.mjs", MERMAID_MODULE.name]


needs_mermaid = pytest.mark.skipif(not TESTS_MERMAID.is_file(), reason="Mermaid not installed in tests/js (npm)")


@needs_mermaid
def test_the_real_build_is_published_in_part(tmp_path: Path) -> None:
    dist = Path(os.path.realpath(TESTS_MERMAID)).parent
    every = [dist / MERMAID_MODULE, *(dist / MERMAID_MODULE_CHUNKS).rglob("*.mjs")]
    found = mermaid_modules(dist / MERMAID_MODULE, dist)
    assert found is not None and any(p.name.startswith("flowDiagram-") for p in found) and any(p.name.startswith("sequenceDiagram-") for p in found)
    assert not any(p.name.startswith(("ganttDiagram-", "c4Diagram-", "mindmap-")) for p in found)
    assert sum(p.stat().st_size for p in found) < 0.7 * sum(p.stat().st_size for p in every)


@needs_mermaid
def test_the_published_part_draws_a_flowchart_and_a_sequence_diagram_in_chromium(browser, tmp_path: Path) -> None:
    require_chromium()
    docs = tmp_path / "site"
    asset = site._publish_mermaid(MermaidScript(TESTS_MERMAID), docs)
    assert asset == f"{MERMAID_MODULE_DIR}/{MERMAID_MODULE.as_posix()}"
    published = {p.name for p in (docs / MERMAID_MODULE_DIR).rglob("*.mjs")}
    assert not any(name.startswith("ganttDiagram-") for name in published)
    (docs / "index.html").write_text(
        '<!doctype html><body><script type="module">'
        f'import mermaid from "./{asset}";'
        "mermaid.initialize({startOnLoad: false, securityLevel: 'strict'});"
        'const flow = await mermaid.render("f", "flowchart LR\\n  a[Order] --> b[Payment]");'
        'const sequence = await mermaid.render("s", "sequenceDiagram\\n  Shop->>Bank: charge");'
        "document.body.dataset.drawn = [flow.svg, sequence.svg].map(svg => svg.includes('Payment') || svg.includes('charge')).join();"
        "</script></body>",
        encoding="utf-8",
    )
    context = browser.new_context()
    page = context.new_page()
    failed, errors = [], []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        with served_folder(docs) as url:
            page.goto(url, wait_until="load")
            page.wait_for_selector("body[data-drawn]", state="attached", timeout=30_000)
            assert page.evaluate("document.body.dataset.drawn") == "true,true"
    finally:
        context.close()
    assert failed == [] and errors == []
