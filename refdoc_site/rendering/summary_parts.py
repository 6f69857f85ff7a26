"""The file and module summaries of a large repository, on pages of a bounded size.

`summaries/files.md` lists every indexed file with its one-line summary and
`summaries/modules.md` every module with its summary: on homeassistant 3.1 MB and 1.2 MB
of HTML, a page a reader waits for and that every pull request's preview carried again. Past
`PART_ENTRIES` entries the list is cut into runs in path order, each on a page of its own
(`summaries/files/FIRST.md`, named by its first entry), and the summary page lists the runs.

Where a run ends does not depend on the entries' positions, so that an edit rewrites one
page and an added or removed entry only the run it falls in: a run starts where a folder
starts whose name hashes into the first of `every` buckets (`every` a power of two that
makes a run about half of `PART_ENTRIES` long for the repository's mean folder size), or
where the run before has reached `PART_ENTRIES`.
"""

from __future__ import annotations

import hashlib
import math
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..core.pages import file_page, module_page
from ..core.records import Hierarchy

PART_ENTRIES = 400
"""At most this many entries on one page (a file's line is about 260 bytes of HTML)."""


@dataclass(frozen=True)
class SummaryPart:
    """One run of the summaries, on its own page."""

    page: str
    keys: tuple[str, ...]
    """The run's entries (file paths or module names), in order."""

    @property
    def first(self) -> str:
        return self.keys[0]

    @property
    def last(self) -> str:
        return self.keys[-1]

    @property
    def span(self) -> str:
        """"first … last", or the one entry of a run of one."""
        return self.first if len(self.keys) == 1 else f"{self.first} … {self.last}"


def summary_parts(keys: Iterable[str], folder_of: Callable[[str], str], page_of: Callable[[str], str], limit: int | None = None) -> list[SummaryPart]:
    """The runs of the sorted `keys` (none when they fit on one page), each named by
    `page_of` its first key; `folder_of` a key's folder; at most `limit` (PART_ENTRIES)
    keys a run."""
    limit = limit or PART_ENTRIES
    ordered = sorted(keys)
    if len(ordered) <= limit:
        return []
    folders = [folder_of(key) for key in ordered]
    mean_folder = len(ordered) / len(set(folders))
    every = 1 << max(0, round(math.log2(max(1.0, limit / 2 / mean_folder))))
    runs: list[list[str]] = []
    for position, key in enumerate(ordered):
        starts_folder = position == 0 or folders[position] != folders[position - 1]
        if not runs or len(runs[-1]) >= limit or (starts_folder and _bucket(folders[position], every) == 0):
            runs.append([])
        runs[-1].append(key)
    return [SummaryPart(page_of(run[0]), tuple(run)) for run in runs]


def site_summary_parts(hierarchy: Hierarchy) -> dict[str, list[SummaryPart]]:
    """The runs of a site's file and module summaries, by the summary page that lists them."""
    return {
        "summaries/files.md": summary_parts(hierarchy.files, posixpath.dirname, lambda path: f"summaries/{file_page(path)}"),
        "summaries/modules.md": summary_parts(hierarchy.modules, posixpath.dirname, lambda name: f"summaries/{module_page(name)}"),
    }


def _bucket(folder: str, every: int) -> int:
    return int.from_bytes(hashlib.sha256(folder.encode("utf-8")).digest()[:4], "big") % every
