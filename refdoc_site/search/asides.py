"""Which chunks are asides: code and text kept beside the project's own that a search for
behaviour does not want first.

A test, fixture, example, vendored copy or generated file (their role by the folder and
file-name conventions of `languages/roles.py`, as `understanding/roles.py` reads them) and
a project's release notes (`CHANGELOG.md`, `History.md`) repeat the words of the code
they exercise or describe: on gin, tests filled a third of the top-10 slots of
questions about what the framework does. The fusion weighs them down (`aside_weight` in
`browser/settings.json`) unless the query asks for them with one of `aside_cues` ("test",
"example", "changelog"…), in Python and in the browser alike: the site's chunk table
carries the mark, so the browser needs no copy of the conventions.
"""

from __future__ import annotations

import posixpath

from ..core.records import FileRole
from ..languages.roles import RELEASE_NOTES_NAMES
from ..understanding.roles import role_by_path


def path_role(path: str) -> FileRole:
    """A file's role by its path alone (no `.gitattributes`, no manifests: the search
    index is built from the chunks, which carry only their path)."""
    return role_by_path(path)


def is_aside(path: str) -> bool:
    """Whether a file's chunks rank below the project's own code and guides."""
    return path_role(path) is not FileRole.SOURCE or bool(RELEASE_NOTES_NAMES.match(posixpath.basename(path)))


def asks_for_asides(terms: list[str], cues: list[str]) -> bool:
    """Whether a query's words ask for tests, examples or release notes themselves."""
    return not set(cues).isdisjoint(terms)
