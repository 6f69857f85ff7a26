"""The name the project declares for itself, which titles the site when `site_name` is not
configured: a package is better known by its name than by the folder it was unpacked into
(a wheel's or an npm package's files sit in one called after nothing).

Read from the manifests at the repository's top (`evidence/manifests.py` parses them);
like every repository text it is hostile input, so it is cut to one short line here and
escaped where rendered.
"""

from __future__ import annotations

from ..core.text import clip
from .evidence.manifests import Declaration

NAME_LIMIT = 80


def project_title(declared: Declaration) -> str:
    """The declared name on one line of printable characters; "" when none is declared."""
    printable = "".join(c if c.isprintable() else " " for c in declared.name)
    return clip(" ".join(printable.split()), NAME_LIMIT)
