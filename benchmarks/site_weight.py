"""How heavy a built site is: its bytes, its files, its pages and each page's navigation.

    python benchmarks/site_weight.py SITE_DIR [SITE_DIR ...]

The site must stay linear in the code: a page's navigation (Material's primary sidebar,
`<nav class="md-nav md-nav--primary"`) must not grow with the number of modules, or the
site grows with modules × pages. `run.py` reports these figures for every corpus it builds.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

PRIMARY_NAV = '<nav class="md-nav md-nav--primary"'
NAV_TAG = re.compile(r"<(/?)nav\b")
FILE_PAGES = "files"
"""The folder of the site's file pages (one per source file)."""
FOR_MODELS = ("llms.txt", "llms-full.txt", "md")
KINDS = {
    "files": "file pages", "modules": "module pages", "map": "map pages", "summaries": "summaries",
    "md": "md copies", "search": "search data", "assets": "assets",
}
"""What each top folder of a site holds; the rest (home, decisions, plans, llms.txt) is "other"."""
OTHER = "other"


@dataclass(frozen=True)
class SiteWeight:
    total_bytes: int
    files: int
    pages: int
    """HTML pages (`*.html`)."""
    page_bytes_mean: float
    file_page_bytes_mean: float
    """Pages under `files/`: most of a site, one per source file."""
    nav_bytes_mean: float
    nav_bytes_max: int
    for_models_bytes: int = 0
    """`llms.txt`, `llms-full.txt` and the pages' Markdown copies under `md/` (rendering/llms.py)."""
    kinds: dict = None
    """Per kind (`KINDS`): {"bytes", "files", "pages", "nav_max", "nav_sum"}."""


def nav_bytes(page: str) -> int:
    """Size in bytes of the page's primary navigation element, nested `<nav>`s included."""
    start = page.find(PRIMARY_NAV)
    if start < 0:
        return 0
    depth = 0
    for match in NAV_TAG.finditer(page, start):
        depth += -1 if match[1] else 1
        if depth == 0:
            return len(page[start:page.index(">", match.end()) + 1].encode("utf-8"))
    return len(page[start:].encode("utf-8"))


def site_weight(site: Path) -> SiteWeight:
    """Measure every file under `site`; pages are its `*.html` files."""
    files = [path for path in site.rglob("*") if path.is_file()]
    page_sizes: list[int] = []
    file_page_sizes: list[int] = []
    navs: list[int] = []
    kinds: dict[str, dict] = {}
    for path in files:
        top = path.relative_to(site).parts[0]
        kind = kinds.setdefault(KINDS.get(top, OTHER) if top != path.name else OTHER, dict.fromkeys(("bytes", "files", "pages", "nav_max", "nav_sum"), 0))
        kind["bytes"] += path.stat().st_size
        kind["files"] += 1
        if path.suffix != ".html":
            continue
        data = path.read_bytes()
        page_sizes.append(len(data))
        if top == FILE_PAGES:
            file_page_sizes.append(len(data))
        navs.append(nav_bytes(data.decode("utf-8", errors="replace")))
        kind["pages"] += 1
        kind["nav_max"] = max(kind["nav_max"], navs[-1])
        kind["nav_sum"] += navs[-1]
    return SiteWeight(
        total_bytes=sum(path.stat().st_size for path in files),
        files=len(files),
        pages=len(page_sizes),
        page_bytes_mean=_mean(page_sizes),
        file_page_bytes_mean=_mean(file_page_sizes),
        nav_bytes_mean=_mean(navs),
        nav_bytes_max=max(navs, default=0),
        for_models_bytes=sum(path.stat().st_size for path in files if path.relative_to(site).parts[0] in FOR_MODELS),
        kinds=dict(sorted(kinds.items(), key=lambda item: -item[1]["bytes"])),
    )


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def describe(weight: SiteWeight) -> str:
    return (
        f"site {weight.total_bytes / 1e6:.1f} MB in {weight.files} files; {weight.pages} pages, "
        f"{weight.page_bytes_mean / 1000:.1f} KB a page (file pages {weight.file_page_bytes_mean / 1000:.1f} KB); "
        f"navigation {weight.nav_bytes_mean / 1000:.1f} KB a page (max {weight.nav_bytes_max / 1000:.1f} KB); "
        f"llms.txt and Markdown copies {weight.for_models_bytes / 1e6:.2f} MB"
    )


def describe_kinds(weight: SiteWeight, indexed_files: int = 0) -> str:
    """A table: each kind's MB, files, bytes per indexed file, and its pages' navigation (mean, max)."""
    rows = [("kind", "MB", "files", "bytes/indexed file", "pages", "nav KB mean", "nav KB max")]
    for name, kind in (weight.kinds or {}).items():
        per_file = f"{kind['bytes'] / indexed_files:,.0f}" if indexed_files else "-"
        nav_mean = f"{kind['nav_sum'] / kind['pages'] / 1000:.1f}" if kind["pages"] else "-"
        nav_max = f"{kind['nav_max'] / 1000:.1f}" if kind["pages"] else "-"
        rows.append((name, f"{kind['bytes'] / 1e6:.1f}", str(kind["files"]), per_file, str(kind["pages"]), nav_mean, nav_max))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))) for row in rows)


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        weight = site_weight(Path(argument))
        print(f"{argument}: {describe(weight)}")
        print(describe_kinds(weight))
