"""Dependency manifests of six formats, read into the requirements they declare directly,
and into the project's declared name and test folders.

pyproject.toml (PEP 621, dependency groups, Poetry), requirements files, setup.cfg,
package.json, go.mod and Cargo.toml. TOML goes through `tomllib` (the `tomli` backport
before Python 3.11) and Python requirement strings through `packaging`; go.mod, which no
library at hand reads, by its few line shapes.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement as PythonRequirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # the backport has the same interface
    import tomli as tomllib


@dataclass(frozen=True)
class Requirement:
    """One dependency as a manifest declares it."""

    name: str
    constraint: str = ""
    """Version constraint as written; "" when the manifest gives none (or a URL)."""
    runtime: bool = True
    """False for what only develops the project (npm's devDependencies, a `dev`, `test`
    or `docs` extra or group, Cargo's dev- and build-dependencies): not the product's choice."""


DEVELOPMENT_GROUP = re.compile(r"^(?:dev|develop|development|tests?|testing|docs?|documentation|lint|linting|typing|types|mypy|style|check|ci|bench|benchmarks?|build|release|coverage|pre-commit)$", re.IGNORECASE)
"""An extra's or a dependency group's name that says it serves development only."""


REQUIREMENTS_LINE_TAIL = re.compile(r"\s+(?:#|--?[A-Za-z]).*$")
"""What follows a requirement on a requirements-file line: a comment or per-line options
(`--hash=…`), which are not part of PEP 508."""
EXTRAS = re.compile(r"^\s*\[[^\]]*\]")
URL = re.compile(r"^[\w+.-]+://")
"""A requirements line that is only a URL or VCS reference names no package directly."""
GO_REQUIRE_BLOCK = re.compile(r"^require\s*\((.*?)^\)", re.MULTILINE | re.DOTALL)
GO_REQUIRE_LINE = re.compile(r"^require\s+([^\s(]\S*)\s+(\S+)(.*)$", re.MULTILINE)
GO_REQUIRE_ENTRY = re.compile(r"^\s*([^\s/]\S*)\s+(\S+)(.*)$")
CARGO_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")
POETRY_NOT_PACKAGES = frozenset({"python"})
MANIFEST_NAMES = {
    "pyproject.toml": "pyproject",
    "setup.cfg": "setup.cfg",
    "package.json": "package.json",
    "go.mod": "go.mod",
    "Cargo.toml": "cargo",
}


def manifest_kind(path: str) -> str:
    """The manifest format of `path` (a key of `MANIFESTS`), or "" when it is no manifest."""
    name = posixpath.basename(path)
    parent = posixpath.basename(posixpath.dirname(path))
    if re.fullmatch(r"requirements[\w.-]*\.txt", name) or (parent == "requirements" and name.endswith(".txt")):
        return "requirements"
    return MANIFEST_NAMES.get(name, "")


def parse_manifest(kind: str, text: str) -> list[Requirement]:
    """The direct dependencies a manifest declares; a requirement that does not parse is left
    out. Raises `ValueError` (`tomllib.TOMLDecodeError`) for a TOML file that is not TOML:
    the caller names the file."""
    return MANIFESTS[kind][1](text)


def python_requirement(spec: str) -> Requirement | None:
    """A PEP 508 requirement's name and its version constraint as written (markers and
    extras dropped; a URL requirement has none); None when `packaging` rejects it."""
    try:
        parsed = PythonRequirement(spec)
    except InvalidRequirement:
        return None
    if parsed.url:
        return Requirement(parsed.name)
    before_marker = spec.split(";", 1)[0].strip()
    written = EXTRAS.sub("", before_marker[len(parsed.name) :]).strip()
    return Requirement(parsed.name, "".join(written.removeprefix("(").removesuffix(")").split()))


def _requirements_txt(text: str) -> list[Requirement]:
    found = []
    for line in text.splitlines():
        line = REQUIREMENTS_LINE_TAIL.sub("", line.strip())
        if not line or line.startswith(("#", "-")) or URL.match(line):
            continue
        requirement = python_requirement(line)
        if requirement:
            found.append(requirement)
    return found


def _pyproject(text: str) -> list[Requirement]:
    data = read_toml(text)
    project = _table(data, "project")
    specs = [(spec, True) for spec in _strings(project.get("dependencies"))]
    for name, group in _table(project, "optional-dependencies").items():
        specs.extend((spec, not DEVELOPMENT_GROUP.match(name)) for spec in _strings(group))
    for group in _table(data, "dependency-groups").values():  # PEP 735: development groups
        specs.extend((spec, False) for spec in _strings(group))
    found = [replace(r, runtime=runtime) for spec, runtime in specs for r in [python_requirement(spec)] if r]
    poetry = _table(_table(data, "tool"), "poetry")
    tables = [(_table(poetry, "dependencies"), True), (_table(poetry, "dev-dependencies"), False)]
    tables.extend((_table(group, "dependencies"), not DEVELOPMENT_GROUP.match(name)) for name, group in _table(poetry, "group").items() if isinstance(group, dict))
    for table, runtime in tables:
        found.extend(
            Requirement(name, _version_of(value), runtime) for name, value in table.items() if name.lower() not in POETRY_NOT_PACKAGES
        )
    return found


def _setup_cfg(text: str) -> list[Requirement]:
    found = _requirements_txt(_config_section(text, "options").get("install_requires", ""))
    for name, value in _config_section(text, "options.extras_require").items():
        found.extend(replace(r, runtime=not DEVELOPMENT_GROUP.match(name)) for r in _requirements_txt(value))
    return found


def _package_json(text: str) -> list[Requirement]:
    data = read_json_object(text)
    return [
        Requirement(name, _version_of(version), key != "devDependencies")
        for key in ("dependencies", "devDependencies")
        for name, version in _table(data, key).items()
    ]


def _go_mod(text: str) -> list[Requirement]:
    """Direct requirements only: `// indirect` ones were chosen by other modules."""
    entries = [(m.group(1), m.group(2), m.group(3)) for m in GO_REQUIRE_LINE.finditer(text)]
    for block in GO_REQUIRE_BLOCK.finditer(text):
        for line in block.group(1).splitlines():
            entry = GO_REQUIRE_ENTRY.match(line)
            if entry:
                entries.append((entry.group(1), entry.group(2), entry.group(3)))
    return [Requirement(path, version) for path, version, rest in entries if "indirect" not in rest]


def _cargo_toml(text: str) -> list[Requirement]:
    data = read_toml(text)
    tables = [(_table(data, key), key == "dependencies") for key in CARGO_TABLES]
    tables.append((_table(_table(data, "workspace"), "dependencies"), True))
    return [Requirement(name, _version_of(value), runtime) for table, runtime in tables for name, value in table.items()]


MANIFESTS: dict[str, tuple[str, Callable[[str], list[Requirement]]]] = {
    "pyproject": ("python", _pyproject),
    "requirements": ("python", _requirements_txt),
    "setup.cfg": ("python", _setup_cfg),
    "package.json": ("npm", _package_json),
    "go.mod": ("go", _go_mod),
    "cargo": ("cargo", _cargo_toml),
}
"""Manifest kind → (ecosystem, parser)."""


GO_MODULE = re.compile(r"^module\s+\"?([^\s\"]+)", re.MULTILINE)
GO_MAJOR_VERSION = re.compile(r"^v\d+$")
"""A Go module path's major-version suffix (`example.com/tool/v2`), which names no project."""


def declared_test_paths(kind: str, text: str) -> list[str]:
    """Folders a manifest says hold the tests, relative to the manifest's folder: pytest's
    `testpaths` (pyproject.toml, setup.cfg) and package.json's `directories.test`."""
    try:
        if kind == "pyproject":
            options = _table(_table(_table(read_toml(text), "tool"), "pytest"), "ini_options")
            return _strings(options.get("testpaths"))
        if kind == "setup.cfg":
            return _config_section(text, "tool:pytest").get("testpaths", "").split()
        if kind == "package.json":
            test = _table(read_json_object(text), "directories").get("test")
            return [test] if isinstance(test, str) else []
    except ValueError:
        return []
    return []


def _config_section(text: str, section: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    return dict(parser.items(section)) if parser.has_section(section) else {}


class TooDeepError(ValueError):
    """A manifest nested deeper than the parser's recursion allows (`[[[[…]]]]` a hundred
    thousand deep is 200 KB): one warning names the file, the build goes on."""

    def __str__(self) -> str:
        return "nested too deeply to read"


def manifest_problem(error: ValueError) -> str:
    """What is wrong with a manifest a parser rejected, for the warning that names it."""
    return str(error) if isinstance(error, TooDeepError) else f"not valid TOML ({error})"


def read_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`, whose recursion on nested arrays and tables raises `TooDeepError`."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise TooDeepError from None


def read_json_object(text: str) -> dict[str, Any]:
    """The JSON object `text` holds ({} for anything else, or no JSON); `TooDeepError` when
    it nests too deeply to read."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise TooDeepError from None
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _version_of(value: Any) -> str:
    """`"^1.2"` or `{version = "1.2", …}` → the version; a path or git source → ""."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("version"), str):
        return value["version"]
    return ""


# --- what a package says it is --------------------------------------------------------------


@dataclass(frozen=True)
class Declaration:
    """The name, one-line description and source repository a package's metadata declares."""

    name: str = ""
    description: str = ""
    repository: str = ""
    """The URL it gives for its source, as written (core/repository.py decides whether it is
    one the site may link to)."""


METADATA_HEADER = re.compile(r"^(Name|Summary):[ \t]*(.*)$", re.MULTILINE)
METADATA_PROJECT_URL = re.compile(r"^Project-URL:[ \t]*([^,\n]+),[ \t]*(\S+)[ \t]*$", re.MULTILINE)
SOURCE_URL_LABELS = ("source", "source code", "repository", "code", "github", "gitlab")
"""Project-URL labels that name the source repository, preferred in this order."""
CODE_HOSTS = ("github.com", "gitlab.com", "codeberg.org", "bitbucket.org")
"""Hosts where a homepage is the repository itself (else a homepage is a web site)."""


def _source_url(urls: dict[str, Any]) -> str:
    """The source repository among a package's labelled project URLs: a label of
    `SOURCE_URL_LABELS`, else a homepage on one of `CODE_HOSTS`."""
    labelled = {label.strip().lower(): url for label, url in urls.items() if isinstance(url, str)}
    found = next((labelled[label] for label in SOURCE_URL_LABELS if label in labelled), "")
    homepage = labelled.get("homepage", "") or labelled.get("home", "")
    on_code_host = any(f"//{host}/" in homepage.lower() for host in CODE_HOSTS)
    return found or (homepage if on_code_host else "")


def _pyproject_declaration(text: str) -> Declaration:
    data = read_toml(text)
    project, poetry = _table(data, "project"), _table(_table(data, "tool"), "poetry")
    poetry_urls = {"repository": _text(poetry, "repository"), "homepage": _text(poetry, "homepage"), **_table(poetry, "urls")}
    return Declaration(
        _text(project, "name") or _text(poetry, "name"),
        _text(project, "description") or _text(poetry, "description"),
        _source_url(_table(project, "urls")) or _source_url(poetry_urls),
    )


def _setup_cfg_declaration(text: str) -> Declaration:
    metadata = _config_section(text, "metadata")
    return Declaration(metadata.get("name", ""), metadata.get("description", ""))


NPM_REPOSITORY_SHORTHAND = re.compile(r"^(?:(github|gitlab|bitbucket):)?([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)$")
"""npm's `repository` shorthands: `owner/repo` (GitHub) and `github:`, `gitlab:` or
`bitbucket:` before it."""
NPM_SHORTHAND_HOSTS = {"github": "github.com", "gitlab": "gitlab.com", "bitbucket": "bitbucket.org"}


def _npm_repository_url(written: str) -> str:
    """package.json's `repository` as a URL: a shorthand becomes `https://host/owner/repo`,
    anything else stays as written (core/repository.py vets it)."""
    shorthand = NPM_REPOSITORY_SHORTHAND.match(written.strip())
    if not shorthand:
        return written
    host = NPM_SHORTHAND_HOSTS[shorthand[1] or "github"]
    return f"https://{host}/{shorthand[2]}"


def _package_json_declaration(text: str) -> Declaration:
    data = read_json_object(text)
    repository = data.get("repository")
    url = _text(repository, "url") if isinstance(repository, dict) else repository if isinstance(repository, str) else ""
    return Declaration(_text(data, "name"), _text(data, "description"), _npm_repository_url(url))


def _cargo_declaration(text: str) -> Declaration:
    package = _table(read_toml(text), "package")
    return Declaration(_text(package, "name"), _text(package, "description"), _text(package, "repository"))


def _core_metadata_declaration(text: str) -> Declaration:
    """A wheel's `METADATA` or an sdist's `PKG-INFO`: e-mail style headers above the body."""
    head = text.split("\n\n", 1)[0]
    headers = dict(METADATA_HEADER.findall(head))
    urls = dict(METADATA_PROJECT_URL.findall(head))
    return Declaration(headers.get("Name", "").strip(), headers.get("Summary", "").strip(), _source_url(urls))


def _go_mod_declaration(text: str) -> Declaration:
    """go.mod names the module and describes nothing (the README does); the name is the
    module path's last element that is not a major-version suffix (`/v2`)."""
    match = GO_MODULE.search(text)
    parts = [part for part in match.group(1).split("/") if part] if match else []
    while len(parts) > 1 and GO_MAJOR_VERSION.match(parts[-1]):
        parts.pop()
    return Declaration(parts[-1] if parts else "")


DECLARATIONS: dict[str, Callable[[str], Declaration]] = {
    "pyproject.toml": _pyproject_declaration,
    "setup.cfg": _setup_cfg_declaration,
    "package.json": _package_json_declaration,
    "Cargo.toml": _cargo_declaration,
    "METADATA": _core_metadata_declaration,
    "PKG-INFO": _core_metadata_declaration,
    "go.mod": _go_mod_declaration,
}
"""File name → how to read the package's declared name and description from it."""


def declared_package(texts: dict[str, str]) -> Declaration:
    """The package a repository declares, from the texts of its metadata files by path: the
    shallowest file that gives a description wins (in `DECLARATIONS` order at one depth), and
    a name comes from the same file or, failing that, the shallowest that gives one."""
    found: list[tuple[int, int, Declaration]] = []
    order = list(DECLARATIONS)
    for path, text in texts.items():
        name = posixpath.basename(path)
        if name not in DECLARATIONS:
            continue
        try:
            declaration = DECLARATIONS[name](text)
        except ValueError:  # a TOML file that is not TOML describes nothing
            continue
        found.append((path.count("/"), order.index(name), declaration))
    found.sort(key=lambda item: item[:2])
    described = next((d for _, _, d in found if d.description), None)
    named = next((d.name for _, _, d in found if d.name), "")
    repository = next((d.repository for _, _, d in found if d.repository), "")
    if described:
        return Declaration(described.name or named, " ".join(described.description.split()), repository)
    return Declaration(named, repository=repository)


def _text(data: Any, key: str) -> str:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) else ""
