"""Addresses inside the generated site: page paths and chunk anchors.

Shared by every stage that links to a page (rendering, decisions, plans), so that a link
and the page it points at are always named by the same rule.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from .graph import ROOT_MODULE

ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")
"""Underscores go too: Markdown would read `__init__` inside an attribute list as bold."""


SYSTEM_PAGE = "summaries/system.md"


def file_page(path: str) -> str:
    """`src/app.py` → `files/src/app.py.md`; spaces and non-ASCII names are kept."""
    return f"files/{path}.md"


def module_page(module: str) -> str:
    return f"modules/{'_root' if module == ROOT_MODULE else module}.md"


def chunk_anchor(symbol: str, part: int = 0) -> str:
    """The HTML id of a chunk's heading on its file page."""
    slug = ANCHOR_UNSAFE.sub("-", symbol).strip("-") or "chunk"
    return f"chunk-{slug}" + (f"-part{part}" if part else "")


RESERVED_PLAN_SLUGS = frozenset({"milestones"})
PLAN_SLUG_CHARS = 60
PLAN_SLUG_UNSAFE = re.compile(r"[^\w]+")
"""Letters of any script stay (a Japanese query keeps its words); everything else is a dash."""


def plan_slug(query: str) -> str:
    """`"Add rate limiting!"` → `add-rate-limiting`; a slug that would clash or be empty gets a hash."""
    text = unicodedata.normalize("NFKC", query).lower()
    slug = PLAN_SLUG_UNSAFE.sub("-", text).strip("-_")[:PLAN_SLUG_CHARS].strip("-_")
    if not slug or slug in RESERVED_PLAN_SLUGS:
        slug = f"{slug or 'plan'}-{hashlib.sha256(query.encode()).hexdigest()[:8]}"
    return slug


def plan_page(slug: str) -> str:
    return f"plans/{slug}.md"
