"""The name the project declares for itself, which titles the site when `site_name` is not
configured: a package is better known by its name than by the folder it was unpacked into
(a wheel's or an npm package's files sit in one called after nothing).

Read from the root manifests (`evidence/manifests.py` parses them), first found wins;
like every repository text it is hostile input, so it is cut to one short line here and
escaped where rendered.
"""

from __future__ import annotations

from pathlib import Path

from ..core.reading import read_text
from ..core.redact import Redactor
from ..core.text import clip
from .evidence.manifests import declared_name

NAME_SOURCES = (
    ("pyproject.toml", "pyproject"),
    ("setup.cfg", "setup.cfg"),
    ("package.json", "package.json"),
    ("Cargo.toml", "cargo"),
    ("go.mod", "go.mod"),
    ("PKG-INFO", "metadata"),
)
"""Root files that may declare the name, in the order they are asked (kind as in
`manifests.py`); an unpacked wheel's `*.dist-info/METADATA` comes last."""
NAME_LIMIT = 80


def declared_project_name(repo: Path, redactor: Redactor) -> str:
    """The declared name, on one line of printable characters; "" when none is declared."""
    sources = list(NAME_SOURCES) + [(f"{folder.name}/METADATA", "metadata") for folder in sorted(repo.glob("*.dist-info"))]
    for path, kind in sources:
        try:
            text = read_text(repo, path, redactor).text
        except OSError:  # absent, or not a regular file
            continue
        printable = "".join(c if c.isprintable() else " " for c in declared_name(kind, text))
        name = " ".join(printable.split())
        if name:
            return clip(name, NAME_LIMIT)
    return ""
