"""Which folders a language makes a package: the units its code is organised in, and so the
site's modules (`understanding/graph.py: assign_modules`).

A row names how a language marks a package. Python: a folder holding an `__init__.py`,
and below one every folder of `.py` files (a namespace subpackage: flask's `sansio/` has
no `__init__.py` and is imported as `flask.sansio`); a top folder of scripts without one
is no package. Go, Java, Kotlin, Scala and C#
(whose namespaces follow folders by convention): every folder holding a file of the
language; Rust: every folder of `.rs` files, a `mod` or a crate's `src/`. Languages
without a row (JavaScript, TypeScript: a file is a module, a folder only a place) leave
their folders to the size rule.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PackageRule:
    """How one language says a folder is a package."""

    marker: str = ""
    """A file name that makes its folder a package (`__init__.py`); empty: any file of the
    language does."""
    nested: bool = False
    """Whether, below a marked package, any folder holding a file of the language is one."""


PACKAGE_RULES: dict[str, PackageRule] = {
    "python": PackageRule(marker="__init__.py", nested=True),
    "go": PackageRule(),
    "java": PackageRule(),
    "kotlin": PackageRule(),
    "scala": PackageRule(),
    "csharp": PackageRule(),
    "rust": PackageRule(),
}


def package_folders(files: dict[str, str]) -> set[str]:
    """The folders (`a/b`, never the repository's top) that some file's language makes a
    package; `files` maps path → language."""
    folders: set[str] = set()
    candidates: set[str] = set()
    for path, language in files.items():
        rule = PACKAGE_RULES.get(language)
        folder, _, name = path.rpartition("/")
        if rule is None or not folder:
            continue
        if not rule.marker or name == rule.marker:
            folders.add(folder)
        elif rule.nested:
            candidates.add(folder)
    return folders | {folder for folder in candidates if _below_any(folder, folders)}


def _below_any(folder: str, packages: set[str]) -> bool:
    while "/" in folder:
        folder = folder.rsplit("/", 1)[0]
        if folder in packages:
            return True
    return False


MARKERS = frozenset(rule.marker for rule in PACKAGE_RULES.values() if rule.marker)


def implicit_import(path: str, target: str) -> bool:
    """Whether `path` importing `target` only says that `target` marks a package `path` is
    in: every module of a Python package runs its `__init__.py` first, and `from . import x`
    names it as well as `x`. No map draws such an import."""
    folder, _, name = target.rpartition("/")
    return name in MARKERS and (path.startswith(folder + "/") if folder else True) and path != target
