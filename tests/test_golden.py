"""Golden test: the Markdown pages and a compact dump of the records for a small
multi-language repository (Python, TypeScript, Go, Markdown).

Regenerate after an intended change with:

    python tests/test_golden.py

then read the diff of tests/golden/ before committing it.
"""

from __future__ import annotations

import difflib
import shutil
import sys
from pathlib import Path
from unittest.mock import patch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from refdoc_site.core.config import Config  # noqa: E402
from refdoc_site.pipeline import GRAPH_NAME, Workspace, index, render, summarize  # noqa: E402

FIXTURE = HERE / "fixtures" / "golden_repo"
GOLDEN = HERE / "golden"
REGENERATE = "python tests/test_golden.py"


def build_outputs(workdir: Path) -> dict[str, str]:
    """Index, summarize and render a copy of the fixture; return every golden file's text."""
    repo = workdir / "shop"
    shutil.copytree(FIXTURE, repo)
    workspace = Workspace.create(repo, Config(site_name="Shop"), workdir / "store", workdir / "site")
    index(workspace)
    summarize(workspace)
    # Whether a local Mermaid script exists depends on the machine; the pages must not.
    with patch("refdoc_site.pipeline.render_phase.find_mermaid", return_value=None):
        render(workspace)
    outputs = {}
    docs = workspace.project_dir / "docs"
    for page in sorted(docs.rglob("*.md")):
        outputs[f"pages/{page.relative_to(docs).as_posix()}"] = page.read_text(encoding="utf-8")
    outputs["records.txt"] = dump_records(workspace)
    return outputs


def dump_records(workspace: Workspace) -> str:
    """One line per chunk and per summary level: what a reviewer reads in a diff."""
    state = workspace.store.load()
    graph = workspace.store.read_json(GRAPH_NAME)
    lines = []
    for document in sorted(state.documents, key=lambda d: (d.chunk.path, d.chunk.start_line, d.chunk.part)):
        chunk, summary, metadata = document.chunk, document.summary, document.metadata
        flags = [name for name, on in (("async", metadata.isAsync), ("throws", metadata.throwsException), ("public", bool(metadata.exports))) if on]
        lines.append(f"{chunk.path}:{chunk.start_line}-{chunk.end_line} {chunk.kind.value} {chunk.symbol} [{', '.join(flags)}]")
        lines.append(f"    signature: {chunk.signature}")
        lines.append(f"    responsibility: {summary.responsibility}")
        lines.append(f"    inputOutput: {summary.inputOutput}")
        lines.append(f"    sideEffects: {summary.sideEffects}")
        if metadata.securityBoundary:
            lines.append(f"    security: {metadata.securityBoundary}")
        if graph["calls"].get(chunk.id):
            lines.append(f"    calls: {', '.join(graph['calls'][chunk.id])}")
    lines.append("")
    lines.append(f"module deps: {graph['module_deps']}")
    lines.append(f"file imports: { {k: v for k, v in graph['file_imports'].items() if v} }")
    hierarchy = workspace.store.read_json("summaries/hierarchy.json")
    lines.append(f"system: {hierarchy['system']['text']}")
    for name, module in hierarchy["modules"].items():
        lines.append(f"module {name}: {module['text']}")
    for path, summary in hierarchy["files"].items():
        lines.append(f"file {path}: {summary['text']}")
    return "\n".join(lines) + "\n"


def test_golden(tmp_path: Path) -> None:
    outputs = build_outputs(tmp_path)
    expected = {p.relative_to(GOLDEN).as_posix(): p.read_text(encoding="utf-8") for p in GOLDEN.rglob("*") if p.is_file()}
    assert sorted(outputs) == sorted(expected), f"golden file set changed; regenerate with `{REGENERATE}`"
    for name, text in outputs.items():
        if text != expected[name]:
            diff = "".join(difflib.unified_diff(expected[name].splitlines(True), text.splitlines(True), f"golden/{name}", "now", n=1))
            raise AssertionError(f"{name} differs from its golden copy; regenerate with `{REGENERATE}`\n{diff[:4000]}")


def regenerate() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as workdir:
        outputs = build_outputs(Path(workdir))
    if GOLDEN.exists():
        shutil.rmtree(GOLDEN)
    for name, text in outputs.items():
        target = GOLDEN / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    print(f"wrote {len(outputs)} golden files under {GOLDEN}")


if __name__ == "__main__":
    regenerate()
