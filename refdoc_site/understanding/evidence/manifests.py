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
from dataclasses import dataclass
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
    data = tomllib.loads(text)
    project = _table(data, "project")
    specs = _strings(project.get("dependencies"))
    for group in (*_table(project, "optional-dependencies").values(), *_table(data, "dependency-groups").values()):
        specs.extend(_strings(group))
    found = [r for r in map(python_requirement, specs) if r]
    poetry = _table(_table(data, "tool"), "poetry")
    tables = [_table(poetry, "dependencies"), _table(poetry, "dev-dependencies")]
    tables.extend(_table(group, "dependencies") for group in _table(poetry, "group").values() if isinstance(group, dict))
    for table in tables:
        found.extend(
            Requirement(name, _version_of(value)) for name, value in table.items() if name.lower() not in POETRY_NOT_PACKAGES
        )
    return found


def _setup_cfg(text: str) -> list[Requirement]:
    values = [_config_section(text, "options").get("install_requires", "")]
    values.extend(_config_section(text, "options.extras_require").values())
    return _requirements_txt("\n".join(values))


def _package_json(text: str) -> list[Requirement]:
    data = _json_object(text)
    return [
        Requirement(name, _version_of(version))
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
    data = tomllib.loads(text)
    tables = [_table(data, key) for key in CARGO_TABLES]
    tables.append(_table(_table(data, "workspace"), "dependencies"))
    return [Requirement(name, _version_of(value)) for table in tables for name, value in table.items()]


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
METADATA_NAME = re.compile(r"^Name:[ \t]*(\S[^\r\n]*)$", re.MULTILINE)
"""A wheel's or sdist's core metadata (`*.dist-info/METADATA`, `PKG-INFO`): `Name: click`."""
GO_MAJOR_VERSION = re.compile(r"^v\d+$")


def declared_name(kind: str, text: str) -> str:
    """The project name a manifest (a `MANIFESTS` kind, or "metadata") declares; "" when it
    declares none or does not parse."""
    reader = NAME_READERS.get(kind)
    if reader is None:
        return ""
    try:
        return reader(text).strip()
    except ValueError:  # TOML that is not TOML: the project has no name from it
        return ""


def declared_test_paths(kind: str, text: str) -> list[str]:
    """Folders a manifest says hold the tests, relative to the manifest's folder: pytest's
    `testpaths` (pyproject.toml, setup.cfg) and package.json's `directories.test`."""
    try:
        if kind == "pyproject":
            options = _table(_table(_table(tomllib.loads(text), "tool"), "pytest"), "ini_options")
            return _strings(options.get("testpaths"))
        if kind == "setup.cfg":
            return _config_section(text, "tool:pytest").get("testpaths", "").split()
        if kind == "package.json":
            test = _table(_json_object(text), "directories").get("test")
            return [test] if isinstance(test, str) else []
    except ValueError:
        return []
    return []


def _go_module_name(text: str) -> str:
    """The last element of the module path that is not a major-version suffix (`/v2`)."""
    found = GO_MODULE.search(text)
    if not found:
        return ""
    parts = [p for p in found.group(1).split("/") if p]
    while len(parts) > 1 and GO_MAJOR_VERSION.match(parts[-1]):
        parts.pop()
    return parts[-1] if parts else ""


def _metadata_name(text: str) -> str:
    found = METADATA_NAME.search(text.split("\n\n", 1)[0])
    return found.group(1) if found else ""


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


NAME_READERS: dict[str, Callable[[str], str]] = {
    "pyproject": lambda text: _string(_table(tomllib.loads(text), "project").get("name"))
    or _string(_table(_table(_table(tomllib.loads(text), "tool"), "poetry"), "name")),
    "setup.cfg": lambda text: _config_section(text, "metadata").get("name", ""),
    "package.json": lambda text: _string(_json_object(text).get("name")),
    "go.mod": _go_module_name,
    "cargo": lambda text: _string(_table(tomllib.loads(text), "package").get("name")),
    "metadata": _metadata_name,
}
"""Manifest kind → its declared project name."""


def _config_section(text: str, section: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    return dict(parser.items(section)) if parser.has_section(section) else {}


def _json_object(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
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
