"""Where the page templates and the MkDocs configuration template live.

In a wheel they are package data (`refdoc_site/templates`); in a source checkout or an
editable install they sit at the repository root, beside the package.
"""

from __future__ import annotations

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
