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
FOR_MODELS = ("llms.txt", "llms-full.txt", "md")
"""The folder of the site's file pages (one per source file)."""


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
    for path in files:
        if path.suffix != ".html":
            continue
        data = path.read_bytes()
        page_sizes.append(len(data))
        if path.relative_to(site).parts[0] == FILE_PAGES:
            file_page_sizes.append(len(data))
        navs.append(nav_bytes(data.decode("utf-8", errors="replace")))
    return SiteWeight(
        total_bytes=sum(path.stat().st_size for path in files),
        files=len(files),
        pages=len(page_sizes),
        page_bytes_mean=_mean(page_sizes),
        file_page_bytes_mean=_mean(file_page_sizes),
        nav_bytes_mean=_mean(navs),
        nav_bytes_max=max(navs, default=0),
        for_models_bytes=sum(path.stat().st_size for path in files if path.relative_to(site).parts[0] in FOR_MODELS),
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


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        print(f"{argument}: {describe(site_weight(Path(argument)))}")
