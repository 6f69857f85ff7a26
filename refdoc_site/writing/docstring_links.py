"""Where a name a docstring marks as code (`:meth:`close``, `Context`) points in the site.

A docstring names things as its reader sees them from where it stands: `:meth:`close`` in
`Context`'s docstring is `Context.close`, not the first `close` of the repository. So a bare
name is first looked up among the members of the enclosing classes, then in the same file,
and only then in the whole index, where a short name that several definitions share links
nowhere rather than to a guess.
"""

from __future__ import annotations

from ..core.records import Document
from .links import Link, chunk_link
from .names import NameIndex, normalise_name

LINKED = frozenset({"chunk", "file", "module"})
"""Resolutions that have a page (or a section) to link to."""


class DocstringNames:
    """Links for the code names of one site's docstrings; answers are remembered."""

    def __init__(self, names: NameIndex) -> None:
        self.names = names
        self.found: dict[tuple[str, str, str], Link | None] = {}

    def target(self, raw: str, symbol: str, path: str) -> Link | None:
        """The section, file or module `raw` names, written in `symbol`'s docstring in `path`."""
        key = (raw, symbol, path)
        if key not in self.found:
            self.found[key] = self._target(normalise_name(raw), symbol, path)
        return self.found[key]

    def _target(self, name: str, symbol: str, path: str) -> Link | None:
        if not name:
            return None
        if "." not in name:
            for scope in _scopes(symbol):
                if found := _in_file(self.names.symbols.get(f"{scope}.{name}", []), path):
                    return chunk_link(found)
            candidates = self.names.symbols.get(name) or self.names.short_names.get(name, [])
            if candidates:
                found = _in_file(candidates, path)
                return chunk_link(found) if found else None
        resolution = self.names.resolve(name)
        return resolution.link if resolution.kind in LINKED else None


def _scopes(symbol: str) -> list[str]:
    """`A.B.m` → `A.B.m`, `A.B`, `A`: the definition itself, then what encloses it."""
    parts = symbol.split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def _in_file(candidates: list[Document], path: str) -> Document | None:
    """The candidate written in `path`, else the only one, else none (a guess would mislead)."""
    same_file = [d for d in candidates if d.chunk.path == path]
    if same_file:
        return same_file[0]
    return candidates[0] if len(candidates) == 1 else None
