"""Which files' items a crate makes public: the module tree of languages whose modules
are files declared by a parent file (`languages/exports.py: MODULE_FILES`, Rust).

A `pub fn` of `src/chain.rs` is API only when `src/lib.rs` declares `pub mod chain;`; in
a private module it is reachable only through its public type (a method of `Error`,
defined in the root), a crate-wide definition (an exported macro) or a `pub use` of a
public file, which that file's API lists."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from dataclasses import dataclass, field

from ..core.records import ChunkKind, Document
from ..languages.exports import MODULE_FILES, ModuleFiles


@dataclass
class CrateApi:
    """The files of a private module and what of theirs is public anyway."""

    private_files: set[str] = field(default_factory=set)
    public_types: set[str] = field(default_factory=set)
    """Types exported by a public file (defined or re-exported there): their methods are
    API wherever the `impl` stands."""

    def reachable(self, document: Document) -> bool:
        """Whether an exported definition of a file is public from the crate's root."""
        chunk = document.chunk
        if chunk.path not in self.private_files:
            return True
        rules = MODULE_FILES.get(chunk.language)
        if rules is not None and rules.crate_wide.search(chunk.signature):
            return True
        return bool(chunk.parent) and chunk.parent.split(".")[0] in self.public_types


def crate_api(languages: dict[str, str], documents: list[Document]) -> CrateApi:
    """The crate API of every language with module files (nothing private for others)."""
    module_text: dict[str, str] = defaultdict(str)
    for document in documents:
        if document.chunk.kind is ChunkKind.MODULE and document.chunk.language in MODULE_FILES:
            module_text[document.chunk.path] += document.chunk.content + "\n"
    result = CrateApi()
    visibility: dict[str, bool] = {}
    for path, language in sorted(languages.items()):
        rules = MODULE_FILES.get(language)
        if rules is not None and posixpath.basename(path) in rules.roots:
            _walk(path, True, rules, languages, module_text, visibility)
    result.private_files = {path for path, public in visibility.items() if not public}
    for document in documents:
        chunk = document.chunk
        if chunk.language not in MODULE_FILES or chunk.path in result.private_files or not document.metadata.exports:
            continue
        if chunk.kind is ChunkKind.CLASS or chunk.kind is ChunkKind.MODULE:
            result.public_types.update(name.split(".")[-1] for name in document.metadata.exports)
    return result


def _walk(path: str, public: bool, rules: ModuleFiles, languages: dict[str, str], module_text: dict[str, str], visibility: dict[str, bool]) -> None:
    """Mark `path` and, through the modules its text declares, every file below it."""
    if path in visibility:
        return
    visibility[path] = public
    folder = posixpath.dirname(path)
    if posixpath.basename(path) not in rules.folder_files:
        folder = posixpath.join(folder, posixpath.splitext(posixpath.basename(path))[0])
    lines = module_text.get(path, "").split("\n")
    for row, line in enumerate(lines):
        declaration = rules.declaration.match(line)
        if declaration is None:
            continue
        name = declaration["name"]
        above = row - 1
        while above >= 0 and rules.attribute.match(lines[above]):
            above -= 1
        hidden = any(rules.hidden.search(lines[r]) for r in range(above + 1, row))
        child_public = public and declaration["public"] == "pub" and not hidden
        for candidate in (f"{folder}/{name}.rs", f"{folder}/{name}/mod.rs"):
            if candidate in languages:
                _walk(candidate, child_public, rules, languages, module_text, visibility)
                break
