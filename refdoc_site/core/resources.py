"""Where the page templates, their fixed texts per language and the MkDocs configuration
template live.

In a wheel they are package data (`refdoc_site/templates`); in a source checkout or an
editable install they sit at the repository root, beside the package.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def _first_existing(name: str) -> Path:
    for candidate in (PACKAGE_DIR / name, PACKAGE_DIR.parent / name):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"{name}: not found beside the refdoc_site package; reinstall refdoc-site")


def templates_dir() -> Path:
    return _first_existing("templates")


def mkdocs_template() -> Path:
    return _first_existing("mkdocs.yml.template")


Labels = dict[str, object]
"""A language's table of the pages' fixed texts (`templates/labels/LANG.json`): a text, a
text with `{placeholders}`, a count's forms (`one`, `other`) or a table of names."""

DEFAULT_LANGUAGE = "en"


@lru_cache(maxsize=4)
def page_labels(language: str) -> Labels:
    """Headings and fixed texts of every page in the output language; English where no
    table exists for it (Material still translates its own interface)."""
    tables = templates_dir() / "labels"
    table = tables / f"{language}.json"
    if not table.is_file():
        table = tables / f"{DEFAULT_LANGUAGE}.json"
    return json.loads(table.read_text(encoding="utf-8"))
