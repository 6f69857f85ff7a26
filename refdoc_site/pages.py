"""Addresses inside the generated site: page paths and chunk anchors.

Shared by every stage that links to a page (rendering, decisions, plans), so that a link
and the page it points at are always named by the same rule.
"""

from __future__ import annotations

import re

from .graph import ROOT_MODULE

ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")
"""Underscores go too: Markdown would read `__init__` inside an attribute list as bold."""


def file_page(path: str) -> str:
    """`src/app.py` → `files/src/app.py.md`; spaces and non-ASCII names are kept."""
    return f"files/{path}.md"


def module_page(module: str) -> str:
    return f"modules/{'_root' if module == ROOT_MODULE else module}.md"


def chunk_anchor(symbol: str, part: int = 0) -> str:
    """The HTML id of a chunk's heading on its file page."""
    slug = ANCHOR_UNSAFE.sub("-", symbol).strip("-") or "chunk"
    return f"chunk-{slug}" + (f"-part{part}" if part else "")
