"""Where a page's bytes go: its parts, summed over the pages of each kind of a built site.

    python benchmarks/page_anatomy.py SITE_DIR [--kind "file pages"]

A page of the Material theme is its head, its header, the primary navigation, the table of
contents (the secondary navigation), the article and its footer and scripts; inside the
article, the code blocks, and inside them the tags of the highlighter's spans. Issue 21
asks for bytes per indexed file bounded on every page kind: this says which part to cut.
`run.py` prints it for the file pages of every corpus it builds.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from site_weight import KINDS, OTHER, nav_bytes

PARTS = ("head", "header", "primary nav", "toc", "article", "footer and scripts", "rest")
ARTICLE_PARTS = ("code text", "code span tags", "code runs", "code other markup", "article text and markup")
ENCLOSED = {
    name: re.compile(pattern, re.S)
    for name, pattern in (
        ("head", r"<head>.*?</head>"), ("header", r'<header class="md-header.*?</header>'),
        ("footer and scripts", r'<footer class="md-footer.*'),
    )
}
"""Parts that are one element each (the footer with everything after it)."""
ARTICLE = re.compile(r'<article class="md-content__inner.*?</article>', re.S)
CODE = re.compile(r"<pre\b.*?</pre>", re.S)
SPAN_TAG = re.compile(r'<span class="[^"]*">|</span>')
TAG = re.compile(r"<[^>]*>")
SPAN_CLASS = re.compile(r'<span class="([^"]*)">')
RUNS = re.compile(r' data-refdoc-hl="[^"]*"')
"""A code block's tokens as runs (rendering/page_weight.py), drawn as spans by the page's script."""
TOC = '<nav class="md-nav md-nav--secondary"'


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _nav_at(page: str, marker: str) -> int:
    """Bytes of the `<nav>` that starts with `marker`, nested ones included (site_weight.nav_bytes)."""
    start = page.find(marker)
    return 0 if start < 0 else nav_bytes(page[start:].replace(marker, '<nav class="md-nav md-nav--primary"', 1))


def anatomy(page: str, span_classes: Counter | None = None) -> dict[str, int]:
    """The bytes of each of `PARTS` and `ARTICLE_PARTS` in one page; with `span_classes`,
    the bytes of the highlighter's span tags are added to it by class."""
    parts = dict.fromkeys(PARTS + ARTICLE_PARTS, 0)
    total = _size(page)
    for name, pattern in ENCLOSED.items():
        found = pattern.search(page)
        parts[name] = _size(found[0]) if found else 0
    parts["primary nav"] = nav_bytes(page)
    parts["toc"] = _nav_at(page, TOC)
    article = ARTICLE.search(page)
    text = article[0] if article else ""
    parts["article"] = _size(text)
    for block in CODE.findall(text):
        tags = SPAN_TAG.findall(block)
        parts["code span tags"] += sum(map(_size, tags))
        parts["code text"] += _size(TAG.sub("", block))
        parts["code runs"] += sum(map(_size, RUNS.findall(block)))
        if span_classes is not None:
            for tag in tags:
                match = SPAN_CLASS.match(tag)
                span_classes[match[1] if match else "(closing)"] += _size(tag)
    code = sum(parts[name] for name in ARTICLE_PARTS[:3])
    parts["code other markup"] = sum(_size(block) for block in CODE.findall(text)) - code
    parts["article text and markup"] = parts["article"] - code - parts["code other markup"]
    parts["rest"] = total - sum(parts[name] for name in PARTS[:-1])
    return parts


def site_anatomy(site: Path, kind: str = "file pages") -> tuple[int, dict[str, int], Counter]:
    """The pages of `kind` (site_weight.KINDS' names) in `site`: how many, their parts' bytes
    summed, and their code's span tag bytes by class."""
    folders = [folder for folder, name in KINDS.items() if name == kind]
    pages = [path for folder in folders for path in (site / folder).rglob("*.html") if path.is_file()] if kind != OTHER else [
        path for path in site.rglob("*.html") if path.is_file() and path.relative_to(site).parts[0] not in KINDS
    ]
    totals = dict.fromkeys(PARTS + ARTICLE_PARTS, 0)
    classes: Counter = Counter()
    for path in pages:
        for name, value in anatomy(path.read_text(encoding="utf-8", errors="replace"), classes).items():
            totals[name] += value
    return len(pages), totals, classes


def describe_anatomy(count: int, totals: dict[str, int], classes: Counter, indexed_files: int = 0) -> str:
    """A table of the parts: MB, bytes a page, bytes per indexed file, share of the pages."""
    whole = sum(totals[name] for name in PARTS) or 1
    rows = [("part", "MB", "B/page", "B/indexed file", "share")]
    for name in PARTS + ARTICLE_PARTS:
        label = f"  {name}" if name in ARTICLE_PARTS else name
        per_file = f"{totals[name] / indexed_files:,.0f}" if indexed_files else "-"
        rows.append((label, f"{totals[name] / 1e6:.1f}", f"{totals[name] / max(count, 1):,.0f}", per_file, f"{100 * totals[name] / whole:.1f}%"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    table = "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in rows)
    top = ", ".join(f"{name} {value / 1e6:.1f} MB" for name, value in classes.most_common(8))
    return f"{table}\ncode span tags by class: {top}"


if __name__ == "__main__":
    arguments = sys.argv[1:]
    kind = "file pages"
    if "--kind" in arguments:
        at = arguments.index("--kind")
        kind = arguments[at + 1]
        del arguments[at:at + 2]
    for argument in arguments:
        count, totals, classes = site_anatomy(Path(argument), kind)
        print(f"{argument}: {count} {kind}")
        print(describe_anatomy(count, totals, classes))
