"""Import resolution as data: how each language's imports name files of the repository.

The graph (understanding/graph.py) asks `rules_for(language)` what an import as written
points at. A language's `ImportRules` holds small functions over `RepoFiles` (the
repository's files, indexed once) and, when the language has a manifest that names the
repository's own module (go.mod's `module`, Cargo.toml's `[package] name`), a
`ManifestRule` that reads it. Adding a language is adding a row to `IMPORT_RULES`; a
language without a row resolves nothing and reports an external import's first dotted part.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property

JS_SUFFIXES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js")
TS_SOURCES_OF = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
"""The TypeScript sources an emitted extension in an import stands for."""
GO_MODULE_LINE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
CARGO_PACKAGE_NAME = re.compile(r"^\[package\][^\[]*?^name\s*=\s*[\"']([^\"']+)[\"']", re.MULTILINE | re.DOTALL)


class RepoFiles:
    """The repository's files (path → language) as import rules look them up, with the
    repository's own module names per language (`module_roots`)."""

    def __init__(
        self,
        languages: Mapping[str, str],
        roots: Mapping[str, Mapping[str, str]] | None = None,
        namespaces: Mapping[str, list[str]] | None = None,
        defined: Mapping[str, set[str]] | None = None,
        used: Mapping[str, set[str]] | None = None,
    ) -> None:
        self.languages = languages
        self.roots = roots or {}
        self.namespaces = namespaces or {}
        """Path → the namespaces the file declares (C#)."""
        self.defined = defined or {}
        """Path → the type names the file defines, for languages with `ImportRules.implicit`."""
        self.used = used or {}
        """Path → the identifiers its code uses, for the same languages."""
        self.paths = set(languages)
        self.by_suffix: dict[str, list[str]] = defaultdict(list)
        self.directories: dict[str, list[str]] = defaultdict(list)
        for path in languages:
            self.directories[posixpath.dirname(path)].append(path)
            parts = path.split("/")
            for start in range(len(parts)):
                self.by_suffix["/".join(parts[start:])].append(path)

    @cached_property
    def module_names(self) -> dict[str, dict[str, list[str]]]:
        """Language → every name a file of it may be imported by (`ImportRules.module_names`) → the files."""
        names: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for path, language in self.languages.items():
            named = rules_for(language).module_names
            for name in named(path) if named else ():
                names[language][name].append(path)
        return names

    @cached_property
    def by_namespace(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = defaultdict(list)
        for path, names in sorted(self.namespaces.items()):
            for name in names:
                found[name].append(path)
        return found

    def roots_of(self, language: str) -> Mapping[str, str]:
        return self.roots.get(language, {})

    def unique_suffix(self, suffix: str) -> list[str]:
        """The one file whose path ends with `suffix`, or none when there are several."""
        matches = self.by_suffix.get(suffix, [])
        return matches if len(matches) == 1 else []


@dataclass(frozen=True)
class ManifestRule:
    """A manifest that names the repository's own module, so imports of it resolve."""

    filename: str
    read: Callable[[str, str], tuple[str, str] | None]
    """(the manifest's path, its text) → (the module's name as imports spell it, its folder)."""


@dataclass(frozen=True)
class ImportRules:
    """How one language's imports are resolved."""

    resolve: Callable[[RepoFiles, str, str], list[str]]
    """(the repository's files, the importing file, the import as written) → files."""
    top_level: Callable[[str], str]
    """An external import's package, as the build lists dependencies."""
    module_names: Callable[[str], list[str]] | None = None
    """The names a file of this language may be imported by (Python's dotted paths)."""
    manifest: ManifestRule | None = None
    implicit: Callable[[RepoFiles, str], list[str]] | None = None
    """(the repository's files, a file) → the files it uses without an import naming them
    (C#: the types of its own namespace and the namespaces around it)."""


def _resolves_nothing(files: RepoFiles, path: str, name: str) -> list[str]:
    return []


def _first_dotted_part(name: str) -> str:
    return re.split(r"[.:]", name)[0]


def _whole_name(name: str) -> str:
    return name


# --- Python ---------------------------------------------------------------------------------


def _python_module_names(path: str) -> list[str]:
    """`pkg/sub/mod.py` → `pkg.sub.mod`, `sub.mod`, `mod` (a package by its `__init__.py`)."""
    dotted = path[: -len(".py")] if path.endswith(".py") else path.rsplit(".", 1)[0]
    pieces = dotted.removesuffix("/__init__").replace("/", ".").split(".")
    return [".".join(pieces[start:]) for start in range(len(pieces))]


def _python(files: RepoFiles, path: str, name: str) -> list[str]:
    if name.startswith("."):
        dots = len(name) - len(name.lstrip("."))
        package = posixpath.dirname(path).split("/") if posixpath.dirname(path) else []
        package = package[: len(package) - (dots - 1)] if dots > 1 else package
        rest = name[dots:]
        candidate = "/".join(package + ([rest.replace(".", "/")] if rest else []))
        for suffix in (".py", "/__init__.py"):
            if candidate + suffix in files.paths:
                return [candidate + suffix]
        return []
    pieces = name.split(".")
    while pieces:
        matches = files.module_names["python"].get(".".join(pieces), [])
        if len(matches) == 1:
            return matches
        if len(matches) > 1:
            return [min(matches, key=len)]
        pieces = pieces[:-1]
    return []


# --- JavaScript, TypeScript -----------------------------------------------------------------


def _javascript(files: RepoFiles, path: str, name: str) -> list[str]:
    if not name.startswith("."):
        return []
    base = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
    found = next(([base + s] for s in JS_SUFFIXES if base + s in files.paths), [])
    stem, extension = posixpath.splitext(base)
    if not found and extension in TS_SOURCES_OF:
        # TypeScript written for ES modules imports `./x.js`, the file its `./x.ts` becomes.
        found = next(([stem + s] for s in TS_SOURCES_OF[extension] if stem + s in files.paths), [])
    return found


def _npm_package(name: str) -> str:
    """`@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`."""
    return "/".join(name.split("/")[:2]) if name.startswith("@") else name.split("/")[0]


# --- C, C++, Java ---------------------------------------------------------------------------


def _c_include(files: RepoFiles, path: str, name: str) -> list[str]:
    local = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
    if local in files.paths:
        return [local]
    return files.unique_suffix(name)


def _java(files: RepoFiles, path: str, name: str) -> list[str]:
    """`a.b.C` is `…/a/b/C.java`; a static import `a.b.C.member` names the same file, and
    `a.b.*` (stored as `a.b`) the package: one file of its folder stands for it."""
    pieces = name.split(".")
    for end in range(len(pieces), 1, -1):
        found = files.unique_suffix("/".join(pieces[:end]) + ".java")
        if found:
            return found
    folder = "/".join(pieces)
    members = sorted(p for d, paths in files.directories.items() if d == folder or d.endswith("/" + folder) for p in paths if p.endswith(".java"))
    return members[:1]


# --- Go -------------------------------------------------------------------------------------


def _go(files: RepoFiles, path: str, name: str) -> list[str]:
    for module, folder in sorted(files.roots_of("go").items(), key=lambda item: -len(item[0])):
        if name == module or name.startswith(module + "/"):
            directory = posixpath.join(folder, name[len(module) :].lstrip("/")).strip("/")
            return _go_package(files, directory)
    parts = name.split("/")
    for start in range(len(parts)):
        members = _go_package(files, "/".join(parts[start:]))
        if members:
            return members
    return []


def _go_package(files: RepoFiles, directory: str) -> list[str]:
    """A package stands for its first non-test file (one edge per imported package)."""
    members = [p for p in files.directories.get(directory, []) if p.endswith(".go") and not p.endswith("_test.go")]
    return sorted(members)[:1]


def _go_mod(path: str, text: str) -> tuple[str, str] | None:
    match = GO_MODULE_LINE.search(text)
    return (match.group(1).strip('"'), posixpath.dirname(path)) if match else None


# --- Rust -----------------------------------------------------------------------------------


def _rust(files: RepoFiles, path: str, name: str) -> list[str]:
    pieces = [p for p in name.split("::") if p not in ("crate", "self", "super")]
    root = path.split("/src/")[0] + "/src" if "/src/" in path else "src"
    crates = files.roots_of("rust")
    if pieces and pieces[0] in crates:
        # `use mycrate::x` from the crate's tests, examples or benches.
        root = crates[pieces[0]]
        found = _rust_module(files, root, path, pieces[1:])
        return found or next(([f"{root}/{n}"] for n in ("lib.rs", "main.rs") if f"{root}/{n}" in files.paths), [])
    return _rust_module(files, root, path, pieces)


def _rust_module(files: RepoFiles, root: str, path: str, pieces: list[str]) -> list[str]:
    while pieces:
        stem = "/".join(pieces)
        for candidate in (f"{root}/{stem}.rs", f"{root}/{stem}/mod.rs", f"{posixpath.dirname(path)}/{stem}.rs"):
            if candidate in files.paths:
                return [candidate]
        pieces = pieces[:-1]
    return []


def _cargo_toml(path: str, text: str) -> tuple[str, str] | None:
    """The crate as `use` spells it (`my-crate` → `my_crate`) and its `src` folder."""
    match = CARGO_PACKAGE_NAME.search(text)
    return (match.group(1).replace("-", "_"), posixpath.join(posixpath.dirname(path), "src")) if match else None


# --- C# -------------------------------------------------------------------------------------


def _csharp(files: RepoFiles, path: str, name: str) -> list[str]:
    """`using MediatR.Pipeline;` names a namespace: the files declaring it whose types the
    file uses, else one file of each folder declaring it (the namespace is the repository's)."""
    declaring = [p for p in files.by_namespace.get(name, []) if p != path]
    used = [p for p in declaring if files.defined.get(p, set()) & files.used.get(path, set())]
    return used or _one_per_folder(declaring)


def _csharp_implicit(files: RepoFiles, path: str) -> list[str]:
    """A file sees the types of its namespace and of every namespace around it with no
    `using`: those it uses, defined in another folder (MediatR's `IRequest`, declared in
    `namespace MediatR;` by the Contracts project)."""
    visible: list[str] = []
    for name in files.namespaces.get(path, []):
        pieces = name.split(".")
        visible.extend(".".join(pieces[:end]) for end in range(len(pieces), 0, -1))
    folder = posixpath.dirname(path)
    words = files.used.get(path, set())
    return [
        other
        for namespace in dict.fromkeys(visible)
        for other in files.by_namespace.get(namespace, [])
        if posixpath.dirname(other) != folder and files.defined.get(other, set()) & words
    ]


def _one_per_folder(paths: list[str]) -> list[str]:
    return list({posixpath.dirname(p): p for p in sorted(paths, reverse=True)}.values())[::-1]


# --- the table ------------------------------------------------------------------------------

DEFAULT_RULES = ImportRules(_resolves_nothing, _first_dotted_part)
JS_RULES = ImportRules(_javascript, _npm_package)
C_RULES = ImportRules(_c_include, _whole_name)
IMPORT_RULES: dict[str, ImportRules] = {
    "python": ImportRules(_python, _first_dotted_part, module_names=_python_module_names),
    "javascript": JS_RULES,
    "typescript": JS_RULES,
    "tsx": JS_RULES,
    "c": C_RULES,
    "cpp": C_RULES,
    "java": ImportRules(_java, _first_dotted_part),
    "csharp": ImportRules(_csharp, _first_dotted_part, implicit=_csharp_implicit),
    "go": ImportRules(_go, _whole_name, manifest=ManifestRule("go.mod", _go_mod)),
    "rust": ImportRules(_rust, _first_dotted_part, manifest=ManifestRule("Cargo.toml", _cargo_toml)),
}
MANIFESTS: frozenset[str] = frozenset(r.manifest.filename for r in IMPORT_RULES.values() if r.manifest)
"""The file names whose texts `module_roots` reads."""


def rules_for(language: str) -> ImportRules:
    return IMPORT_RULES.get(language, DEFAULT_RULES)


def module_roots(manifest_texts: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Language → {the repository's own module name → its folder}, from manifest texts keyed
    by path (`go.mod` → Go module paths, `Cargo.toml` → crate names)."""
    roots: dict[str, dict[str, str]] = {}
    for language, rules in IMPORT_RULES.items():
        if rules.manifest is None:
            continue
        for path, text in manifest_texts.items():
            if posixpath.basename(path) == rules.manifest.filename and (found := rules.manifest.read(path, text)):
                roots.setdefault(language, {})[found[0]] = found[1]
    return roots
