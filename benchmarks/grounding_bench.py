"""How often grounding flags a name in prose that people wrote about the code.

    python benchmarks/grounding_bench.py [REPO] [--text FILE]

The repository (default: this checkout) is indexed offline into a temporary store, and
every paragraph of a Markdown file about it (default: its README.md) is grounded against
that index as the writers ground the doc model's text (refdoc_site/grounding.py). People
wrote these names, so a flagged one is either outside the index or a false alarm: the
table says how many names were checked, linked to a page, accepted as code without a page
of their own, and flagged, and lists the flagged ones to judge.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from refdoc_site.core.config import load_config  # noqa: E402
from refdoc_site.pipeline import Workspace, index, summarize  # noqa: E402
from refdoc_site.writing.grounding import Grounder  # noqa: E402
from refdoc_site.writing.names import NameIndex  # noqa: E402
from refdoc_site.writing.sources import SourceBook  # noqa: E402

FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", nargs="?", type=Path, default=HERE.parent)
    parser.add_argument("--text", type=Path, help="Markdown about the code (default: REPO/README.md)")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    text = (args.text or repo / "README.md").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as temporary:
        workspace = Workspace.create(repo, load_config(repo), Path(temporary) / "store", Path(temporary) / "site")
        index(workspace)
        hierarchy = summarize(workspace)
        names = NameIndex(workspace.load_state().documents, hierarchy)
    grounder = Grounder(names, SourceBook())
    paragraphs = [p for p in re.split(r"\n\s*\n", FENCED.sub("", text)) if p.strip()]
    segments = [s for paragraph in paragraphs for s in grounder.ground(paragraph, statement=False)]
    names_seen = [s for s in segments if "code" in s]
    report = grounder.report
    plain = len(names_seen) - report.linked_names - len(report.flagged_names)
    print(f"{repo.name}: {len(paragraphs)} paragraphs, {len(names_seen)} names in code spans or code-like words")
    print(f"  linked to a page    {report.linked_names}")
    print(f"  code, not linked    {plain}  (names the code has without a page of their own, and spans that are no name)")
    print(f"  flagged             {len(report.flagged_names)}: {', '.join(sorted(set(report.flagged_names))) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
