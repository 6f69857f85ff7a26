"""Which definitions a file makes public: the analysis's `exports`, by each language's
rules (`languages/exports.py`: `EXPORT_RULES` for the keyword or naming convention,
`VISIBILITY` for what surrounds a definition: the enclosing types and scopes, the
attributes above it, the kind of file it is in)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.records import Chunk, ChunkKind
from ..languages.exports import EXPORT_RULES, HEADER_EXTENSIONS, VISIBILITY, Visibility, exported_object, marked_private


@dataclass
class ExportContext:
    """The rest of a file, for what a chunk's own declaration does not say: the
    definitions around it, the attributes above it, the scopes it is declared in."""

    text: str
    chunks: list[Chunk]
    lines: list[str] = field(init=False)
    by_symbol: dict[str, Chunk] = field(init=False)
    _scopes: dict[str, bool] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.lines = self.text.split("\n")
        self.by_symbol = {}
        for chunk in self.chunks:
            if chunk.kind not in (ChunkKind.MODULE, ChunkKind.SECTION, ChunkKind.WINDOW):
                self.by_symbol.setdefault(chunk.symbol, chunk)

    def lines_above(self, chunk: Chunk, above: re.Pattern[str]) -> list[str]:
        """The attribute and doc lines written directly above a chunk."""
        return self._above(chunk.start_line - 2, above)

    def _above(self, row: int, above: re.Pattern[str]) -> list[str]:
        found = []
        while row >= 0 and above.match(self.lines[row]):
            found.append(self.lines[row])
            row -= 1
        return found

    def scopes(self, visibility: Visibility) -> dict[str, bool]:
        """Each scope the file declares (a Rust inline `mod`) by name: whether it is public
        and not hidden; read once a file."""
        if self._scopes is None:
            self._scopes = {}
            pattern = visibility.scope_declaration
            for row, line in enumerate(self.lines if pattern is not None else ()):
                declared = pattern.match(line)
                if declared is None:
                    continue
                above = self._above(row - 1, visibility.above) if visibility.above else []
                hidden = bool(visibility.hidden_above) and any(visibility.hidden_above.search(a) for a in above)
                public = (declared["public"] or "").strip() == visibility.public_scope
                self._scopes.setdefault(declared["name"], public and not hidden)
        return self._scopes


def is_exported(chunk: Chunk, public: list[str] | None, context: ExportContext | None = None) -> bool:
    """Whether other files can use the chunk's definition: declared public (`__all__`,
    `export`, a member of the exported object or of a name bound to it), or public by the
    language's rule (no leading underscore, a capital letter, `pub`, `public`, a member
    of an interface) inside definitions and scopes that are public themselves."""
    if chunk.kind in (ChunkKind.MODULE, ChunkKind.SECTION, ChunkKind.WINDOW):
        return False
    rule = EXPORT_RULES.get(chunk.language)
    top = chunk.symbol.split(".")[0]
    if rule == "underscore":
        if any(part.startswith("_") for part in chunk.symbol.split(".")):
            return False
        return public is None or top in public
    if rule == "export":
        if marked_private(chunk.name, chunk.docstring, chunk.language):
            return False
        return bool(exported_object(chunk.symbol, chunk.language)) or bool(public) and (top in public or chunk.symbol in public)
    if rule == "capitalized":  # a method of an unexported type is not reachable either
        return all(part[:1].isupper() for part in chunk.symbol.split("."))
    visibility = VISIBILITY.get(chunk.language, Visibility())
    above = context.lines_above(chunk, visibility.above) if context is not None and visibility.above else []
    if visibility.hidden_above and any(visibility.hidden_above.search(line) for line in above):
        return False
    if visibility.public_above and any(visibility.public_above.search(line) for line in above):
        return True
    parent = context.by_symbol.get(chunk.parent) if context is not None else None
    if rule in ("pub", "public"):
        declared = bool(visibility.public and visibility.public.search(chunk.signature))
        member_of_interface = (
            parent is not None
            and visibility.members_public_in is not None
            and bool(visibility.members_public_in.search(parent.signature))
            and not (visibility.private_member and visibility.private_member.search(chunk.signature))
        )
        if not (declared or member_of_interface):
            return False
    elif rule == "not static":
        if chunk.signature.startswith("static"):
            return False
        if visibility.header_only and visibility.header_only.search(chunk.signature) and not chunk.path.endswith(HEADER_EXTENSIONS):
            return False
    else:
        return False
    return context is None or _scopes_public(chunk, public, context, visibility)


def _scopes_public(chunk: Chunk, public: list[str] | None, context: ExportContext, visibility: Visibility) -> bool:
    """Whether every definition and declared scope (a Rust inline `mod`) around a chunk is
    API; a scope the file does not declare (a type of another file) is taken as public."""
    parts = chunk.parent.split(".") if chunk.parent else []
    for depth in range(len(parts), 0, -1):
        enclosing = context.by_symbol.get(".".join(parts[:depth]))
        if enclosing is not None:
            if not is_exported(enclosing, public, context):
                return False
            continue
        scope = context.scopes(visibility).get(parts[depth - 1])
        if scope is not None and not scope:
            return False
    return True
