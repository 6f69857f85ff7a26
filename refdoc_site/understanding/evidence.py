"""Decision log: architecture decisions as the repository itself records them.

Three sources, all offline and all optional, in this order:

1. decision records (ADR files) that the project keeps in Markdown;
2. dependency manifests: each dependency is a decision someone made, grouped by purpose
   so the log reads "Uses mkdocs and mkdocs-material for the documentation site" rather
   than listing every package;
3. commit messages that read like decisions ("switch to", "replace X with", …), when
   `git` is installed and the repository is a work tree.

Entries are plain JSON-able dicts, saved by the store as `evidence.json` and rendered by
`templates/decisions.md.jinja2`:

    {"title", "kind": "adr" | "dependency" | "commit", "status", "context", "decision",
     "consequences", "evidence": [{"label", "path", "anchor"}]}

An evidence `path` is always an indexed file (so the site has a page to link to) or ""
(then `label` alone carries the reference: a commit hash and date, a manifest that was
read but not indexed).
"""

from __future__ import annotations

import configparser
import json
import os
import posixpath
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: `parse_toml_loosely` reads the tables we need
    tomllib = None  # type: ignore[assignment]

from ..core.redact import Redactor
from ..core.store import FileEntry
from ..core.trust import is_inside
from ..core.reading import read_text
from ..core.text import clip, first_sentences
from ..languages.purposes import PURPOSES, PYTHON_IMPORT_NAMES
from .graph import RepoGraph

PROSE_LIMIT = 320
"""Characters of context, decision or consequences prose kept per entry."""
STATUS_LIMIT = 80
TITLE_LIMIT = 100
NAMES_IN_TITLE = 4
"""Dependencies named in a grouped entry's title before "and N more"."""
MAX_EVIDENCE_FILES = 6
"""Importing files (and manifests) linked per dependency entry."""
MAX_OTHER_DEPENDENCIES = 8
"""Dependencies without a known purpose that the catch-all entry describes."""

# --- decision records --------------------------------------------------------------------

ADR_DIRECTORY_NAMES = frozenset({"adr", "adrs", "decisions", "decision-records"})
"""A Markdown file inside a directory of one of these names (any depth, any case) is a
decision record: covers docs/adr, doc/decisions, architecture/decisions, adr/, …"""
ADR_FILE_NAMES = (
    re.compile(r"^\d{3,4}-[^/]+\.(?:md|markdown)$", re.IGNORECASE),
    re.compile(r"^adr[-_ ]?\d+[^/]*\.(?:md|markdown)$", re.IGNORECASE),
)
"""File names that mark a decision record wherever it lives (`0001-use-x.md`, `ADR-001.md`)."""
NOT_ADR_FILE_NAMES = re.compile(r"^(?:readme|index)\.|template|^\d{4}-\d{2}-\d{2}-", re.IGNORECASE)
"""Indexes, templates and dated blog posts (`2024-01-31-post.md`) that sit beside records."""
MARKDOWN_SUFFIXES = (".md", ".markdown")

FRONT_MATTER = re.compile(r"\A---\s*\n.*?^---\s*$", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(?:```|~~~)")
TITLE_NUMBER = re.compile(
    r"^(?:(?:adr|rfc)[\s_-]*)?\d+(?:\.\d+)*(?:\s*[.:)\-–—]\s*|\s+)", re.IGNORECASE
)
"""Numbering in front of a record title: `1. `, `ADR-001: `, `0005 - `."""
SECTION_FIELDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("status", re.compile(r"^status\b")),
    ("consequences", re.compile(r"\b(?:consequences|implications)\b")),
    ("decision", re.compile(r"^(?:decision(?!\s+drivers)|chosen option|resolution)")),
    ("context", re.compile(r"^(?:context|problem|background|motivation)")),
)
"""Section headings of the Nygard and MADR layouts, by the field they fill; first match wins."""
STATUS_LINE = re.compile(
    r"^\s*(?:[-*+]\s*)?[*_]*status[*_]*\s*:[*_]*\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE
)
"""MADR front matter or bullet: `status: accepted`, `* Status: proposed`."""
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def adr_decisions(repo: Path, files: dict[str, FileEntry], redactor: Redactor | None = None) -> list[dict]:
    """One entry per decision record among the indexed files, in path order."""
    entries = []
    for path in sorted(files):
        if is_adr_path(path):
            text = _read(repo, path, redactor)
            if text is not None:
                entries.append(parse_adr(text, path))
    return entries


def is_adr_path(path: str) -> bool:
    """Markdown in a decisions directory, or named like a numbered record anywhere."""
    name = posixpath.basename(path)
    if not name.lower().endswith(MARKDOWN_SUFFIXES) or NOT_ADR_FILE_NAMES.search(name):
        return False
    directories = {part.lower() for part in posixpath.dirname(path).split("/")}
    return bool(directories & ADR_DIRECTORY_NAMES) or any(p.match(name) for p in ADR_FILE_NAMES)


def parse_adr(text: str, path: str) -> dict:
    """A decision entry from a Nygard or MADR record; missing sections stay empty."""
    title, sections = _markdown_sections(text)
    fields: dict[str, list[str]] = {name: [] for name, _ in SECTION_FIELDS}
    for heading, body in sections:
        normalised = TITLE_NUMBER.sub("", heading.strip("*_` ")).lower()
        name = next((n for n, pattern in SECTION_FIELDS if pattern.search(normalised)), None)
        if name:
            fields[name].append(body)
    status = _prose("\n\n".join(fields["status"]), STATUS_LIMIT)
    if not status:
        found = STATUS_LINE.search(text)
        status = _prose(found.group(1), STATUS_LIMIT) if found else ""
    status = status.rstrip(".")
    title = TITLE_NUMBER.sub("", title).strip() or _title_from_file_name(path)
    decision = _prose("\n\n".join(fields["decision"]), PROSE_LIMIT)
    return {
        "title": clip(title, TITLE_LIMIT),
        "kind": "adr",
        "status": status,
        "context": _prose("\n\n".join(fields["context"]), PROSE_LIMIT),
        "decision": decision or title,
        "consequences": _prose("\n\n".join(fields["consequences"]), PROSE_LIMIT),
        "evidence": [_evidence(path, path)],
    }


def _markdown_sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The first heading and the (heading, body) pairs after it, outside front matter and fences."""
    title = ""
    sections: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in FRONT_MATTER.sub("", text, count=1).splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = HEADING.match(line)
        if heading and not title:
            title = heading.group(2)
        elif heading:
            sections.append((heading.group(2), []))
        elif sections:
            sections[-1][1].append(line)
    return title, [(h, "\n".join(body)) for h, body in sections]


def _title_from_file_name(path: str) -> str:
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    words = TITLE_NUMBER.sub("", stem.replace("-", " ").replace("_", " ")).strip()
    return words[:1].upper() + words[1:]


def _prose(markdown: str, limit: int) -> str:
    """Markdown as plain sentences: list items become sentences, links their text."""
    pieces: list[str] = []
    for paragraph in re.split(r"\n\s*\n", HTML_COMMENT.sub("", markdown)):
        items: list[list[str]] = []
        for line in paragraph.splitlines():
            if BULLET.match(line) or not items:
                items.append([BULLET.sub("", line)])
            else:
                items[-1].append(line)
        for item in items:
            sentence = " ".join(" ".join(item).split())
            if sentence and sentence.strip("-=*_ "):
                pieces.append(sentence if sentence[-1] in ".!?:;" else sentence + ".")
    return first_sentences(LINK.sub(r"\1", " ".join(pieces)), limit)


# --- dependency manifests ----------------------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    """One dependency as a manifest declares it."""

    name: str
    constraint: str = ""
    """Version constraint as written; "" when the manifest gives none."""


REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;#]*)")
"""A PEP 508 requirement: name, optional extras, version constraint before any marker."""
URL = re.compile(r"^[\w+.-]+://")
"""A requirements line that is only a URL or VCS reference names no package directly."""
GO_REQUIRE_BLOCK = re.compile(r"^require\s*\((.*?)^\)", re.MULTILINE | re.DOTALL)
GO_REQUIRE_LINE = re.compile(r"^require\s+([^\s(]\S*)\s+(\S+)(.*)$", re.MULTILINE)
GO_REQUIRE_ENTRY = re.compile(r"^\s*([^\s/]\S*)\s+(\S+)(.*)$")
CARGO_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")
POETRY_NOT_PACKAGES = frozenset({"python"})
IGNORED_MANIFEST_DIRECTORIES = frozenset(
    {
        "node_modules",
        "vendor",
        "third_party",
        "fixtures",
        "testdata",
        "test_data",
        "examples",
        "example",
    }
)
"""Manifests here describe vendored code, test inputs or samples, not the project."""
ROOT_MANIFESTS = (
    "pyproject.toml",
    "setup.cfg",
    "requirements.txt",
    "package.json",
    "go.mod",
    "Cargo.toml",
)
"""Read at the repository root even when not indexed (discovery has no JSON language)."""
ECOSYSTEM_LANGUAGES = {
    "python": frozenset({"python"}),
    "npm": frozenset({"javascript", "typescript", "tsx"}),
    "go": frozenset({"go"}),
    "cargo": frozenset({"rust"}),
}
"""Which files' imports can use a package of each ecosystem."""


def manifest_kind(path: str) -> str:
    """The manifest format of `path` (a key of `MANIFESTS`), or "" when it is no manifest."""
    name = posixpath.basename(path)
    parent = posixpath.basename(posixpath.dirname(path))
    if re.fullmatch(r"requirements[\w.-]*\.txt", name) or (
        parent == "requirements" and name.endswith(".txt")
    ):
        return "requirements"
    return {
        "pyproject.toml": "pyproject",
        "setup.cfg": "setup.cfg",
        "package.json": "package.json",
        "go.mod": "go.mod",
        "Cargo.toml": "cargo",
    }.get(name, "")


def parse_manifest(kind: str, text: str) -> list[Requirement]:
    """The direct dependencies a manifest declares; an unreadable manifest declares none."""
    return MANIFESTS[kind][1](text)


def _python_requirement(spec: str) -> Requirement | None:
    match = REQUIREMENT.match(spec)
    if not match:
        return None
    constraint = match.group(2).strip()
    return Requirement(match.group(1), "" if constraint.startswith("@") else constraint)


def _requirements_txt(text: str) -> list[Requirement]:
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "-")) or URL.match(line):
            continue
        requirement = _python_requirement(line)
        if requirement:
            found.append(requirement)
    return found


def _pyproject(text: str) -> list[Requirement]:
    data = load_toml(text)
    project = _table(data, "project")
    specs = _strings(project.get("dependencies"))
    for group in (
        *_table(project, "optional-dependencies").values(),
        *_table(data, "dependency-groups").values(),
    ):
        specs.extend(_strings(group))
    found = [r for r in map(_python_requirement, specs) if r]
    poetry = _table(_table(data, "tool"), "poetry")
    tables = [_table(poetry, "dependencies"), _table(poetry, "dev-dependencies")]
    tables.extend(
        _table(group, "dependencies")
        for group in _table(poetry, "group").values()
        if isinstance(group, dict)
    )
    for table in tables:
        found.extend(
            Requirement(name, _version_of(value))
            for name, value in table.items()
            if name.lower() not in POETRY_NOT_PACKAGES
        )
    return found


def _setup_cfg(text: str) -> list[Requirement]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    values = [parser.get("options", "install_requires", fallback="")]
    if parser.has_section("options.extras_require"):
        values.extend(value for _, value in parser.items("options.extras_require"))
    return _requirements_txt("\n".join(values))


def _package_json(text: str) -> list[Requirement]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
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
    data = load_toml(text)
    tables = [_table(data, key) for key in CARGO_TABLES]
    tables.append(_table(_table(data, "workspace"), "dependencies"))
    return [
        Requirement(name, _version_of(value)) for table in tables for name, value in table.items()
    ]


MANIFESTS: dict[str, tuple[str, Callable[[str], list[Requirement]]]] = {
    "pyproject": ("python", _pyproject),
    "requirements": ("python", _requirements_txt),
    "setup.cfg": ("python", _setup_cfg),
    "package.json": ("npm", _package_json),
    "go.mod": ("go", _go_mod),
    "cargo": ("cargo", _cargo_toml),
}
"""Manifest kind → (ecosystem, parser)."""


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


def load_toml(text: str) -> dict[str, Any]:
    """TOML through `tomllib` when it exists and the file is valid, else loosely."""
    if tomllib is not None:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            pass
    return parse_toml_loosely(text)


TOML_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
TOML_KEY_VALUE = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=\s*(.*)$""")
TOML_QUOTED = re.compile(r""""((?:[^"\\]|\\.)*)"|'([^']*)'""")
TOML_KEY_PART = re.compile(r""""[^"]*"|'[^']*'|[^.\s]+""")
TOML_INLINE_PAIR = re.compile(r"""([A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')""")


def parse_toml_loosely(text: str) -> dict[str, Any]:
    """Tables, strings, string arrays and inline tables of strings; anything else as raw text.

    Enough to read dependency tables on Python 3.10 (no `tomllib`) and to get something
    out of a manifest a strict parser rejects.
    """
    root: dict[str, Any] = {}
    table = root
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        header = TOML_HEADER.match(line)
        if header:
            table = root
            for part in TOML_KEY_PART.findall(header.group(1)):
                child = table.get(part.strip("\"'"))
                if not isinstance(child, dict):
                    child = table[part.strip("\"'")] = {}
                table = child
            continue
        pair = TOML_KEY_VALUE.match(line)
        if not pair:
            continue
        value = pair.group(2)
        if value.lstrip().startswith("["):
            while _bracket_depth(value) > 0 and index < len(lines):
                value += "\n" + lines[index]
                index += 1
        table[pair.group(1).strip("\"'")] = _loose_value(value.strip())
    return root


def _bracket_depth(value: str) -> int:
    bare = re.sub(r"#.*", "", TOML_QUOTED.sub("", value))
    return bare.count("[") - bare.count("]")


def _loose_value(value: str) -> Any:
    if value.startswith("["):
        return [double or single for double, single in TOML_QUOTED.findall(value)]
    if value.startswith("{"):
        return {key: quoted[1:-1] for key, quoted in TOML_INLINE_PAIR.findall(value)}
    quoted = TOML_QUOTED.match(value)
    if quoted:
        return quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
    return value.split("#", 1)[0].strip()


@dataclass
class _Dependency:
    """A package declared by one or more manifests, with the files that import it."""

    ecosystem: str
    key: str
    """Normalised name: the key into `PURPOSES`."""
    name: str
    constraint: str
    manifests: list[dict] = field(default_factory=list)
    importers: list[str] = field(default_factory=list)

    @property
    def described(self) -> str:
        return (
            f"{self.name} ({self.constraint})"
            if self.constraint and self.constraint != "*"
            else self.name
        )


def dependency_decisions(
    repo: Path, files: dict[str, FileEntry], graph: RepoGraph, redactor: Redactor | None = None
) -> list[dict]:
    """Entries grouping the declared dependencies by purpose, sorted by title.

    Packages of known purpose share an entry per purpose; packages of unknown purpose
    that the code imports share one more entry, described by their importing files;
    the rest (unknown and never imported) are not notable enough to list.
    """
    dependencies: dict[tuple[str, str], _Dependency] = {}
    for kind, evidence, text in _manifests(repo, files, redactor):
        ecosystem, parser = MANIFESTS[kind]
        for requirement in parser(text):
            key = _normalise(ecosystem, requirement.name)
            dependency = dependencies.setdefault(
                (ecosystem, key),
                _Dependency(ecosystem, key, requirement.name, requirement.constraint),
            )
            if evidence not in dependency.manifests:
                dependency.manifests.append(evidence)
    for dependency in dependencies.values():
        dependency.importers = _importers(dependency, files, graph)
    by_purpose: dict[str, list[_Dependency]] = {}
    others: list[_Dependency] = []
    for _, dependency in sorted(dependencies.items()):
        purpose = PURPOSES.get(dependency.key)
        if purpose:
            by_purpose.setdefault(purpose, []).append(dependency)
        elif dependency.importers:
            others.append(dependency)
    entries = [_purpose_entry(purpose, group) for purpose, group in by_purpose.items()]
    entries.sort(key=lambda entry: entry["title"].lower())
    if others:
        entries.append(_others_entry(others))
    return entries


def _manifests(repo: Path, files: dict[str, FileEntry], redactor: Redactor | None) -> list[tuple[str, dict, str]]:
    """(kind, evidence, text) per readable manifest: indexed ones, then unindexed root ones
    (never one linked from outside the repository, which discovery skipped for that)."""
    found = []
    for path in sorted(files):
        kind = manifest_kind(path)
        directories = set(posixpath.dirname(path).lower().split("/"))
        if kind and not directories & IGNORED_MANIFEST_DIRECTORIES:
            text = _read(repo, path, redactor)
            if text is not None:
                found.append((kind, _evidence(path, path), text))
    for name in ROOT_MANIFESTS:
        if name not in files and (repo / name).is_file() and is_inside(repo, repo / name):
            text = _read(repo, name, redactor)
            if text is not None:
                found.append((manifest_kind(name), _evidence(f"{name} (not indexed)", ""), text))
    return found


def _normalise(ecosystem: str, name: str) -> str:
    if ecosystem == "python":
        return re.sub(r"[-_.]+", "-", name).lower()
    if ecosystem == "go":
        return re.sub(r"/v\d+$", "", name)
    if ecosystem == "cargo":
        return name.lower().replace("_", "-")
    return name.lower()


def _import_names(dependency: _Dependency) -> tuple[str, ...]:
    if dependency.ecosystem == "python":
        return PYTHON_IMPORT_NAMES.get(dependency.key, (dependency.key.replace("-", "_"),))
    if dependency.ecosystem == "cargo":
        return (dependency.key.replace("-", "_"),)
    return (dependency.name,)


def _importers(dependency: _Dependency, files: dict[str, FileEntry], graph: RepoGraph) -> list[str]:
    """Indexed files of the package's ecosystem whose external imports name it (or a subpackage)."""
    names = [n.lower() for n in _import_names(dependency)]
    languages = ECOSYSTEM_LANGUAGES[dependency.ecosystem]
    return sorted(
        path
        for path, imported in graph.external_imports.items()
        if path in files
        and files[path].language in languages
        and any(i.lower() == n or i.lower().startswith(n + "/") for i in imported for n in names)
    )


def _purpose_entry(purpose: str, group: list[_Dependency]) -> dict:
    manifests = _unique_evidence(m for d in group for m in d.manifests)
    importers = sorted({path for d in group for path in d.importers})
    if importers:
        shown = _and_more(importers, MAX_EVIDENCE_FILES)
        consequences = f"Imported directly by {_plural(len(importers), 'file')}: {shown}."
    else:
        consequences = (
            "No indexed file imports " + ("it" if len(group) == 1 else "them") + " directly."
        )
    return {
        "title": clip(
            f"Uses {_and_more([d.name for d in group], NAMES_IN_TITLE)} for {purpose}", TITLE_LIMIT
        ),
        "kind": "dependency",
        "status": "",
        "context": f"Declared in {_and_more([m['label'] for m in manifests], MAX_EVIDENCE_FILES)}.",
        "decision": f"Depend on {_and_more([d.described for d in group], len(group))} "
        f"for {purpose}.",
        "consequences": consequences,
        "evidence": manifests[:MAX_EVIDENCE_FILES]
        + [_evidence(p, p) for p in importers[:MAX_EVIDENCE_FILES]],
    }


def _others_entry(others: list[_Dependency]) -> dict:
    ranked = sorted(others, key=lambda d: (-len(d.importers), d.name.lower()))
    shown = ranked[:MAX_OTHER_DEPENDENCIES]
    described = [f"{d.described}, imported by {_and_more(d.importers, 3)}" for d in shown]
    rest = len(ranked) - len(shown)
    manifests = _unique_evidence(m for d in others for m in d.manifests)
    importers = sorted({path for d in shown for path in d.importers})
    return {
        "title": clip(f"Uses {_and_more([d.name for d in ranked], NAMES_IN_TITLE)}", TITLE_LIMIT),
        "kind": "dependency",
        "status": "",
        "context": f"Declared in {_and_more([m['label'] for m in manifests], MAX_EVIDENCE_FILES)}; "
        f"the files that import {'it' if len(ranked) == 1 else 'them'} show what for.",
        "decision": "Depend on " + "; ".join(described) + (f"; and {rest} more." if rest else "."),
        "consequences": "",
        "evidence": manifests[:MAX_EVIDENCE_FILES]
        + [_evidence(p, p) for p in importers[:MAX_EVIDENCE_FILES]],
    }


def _unique_evidence(items: Any) -> list[dict]:
    unique: dict[str, dict] = {}
    for item in items:
        unique.setdefault(item["label"], item)
    return [unique[label] for label in sorted(unique)]


# --- commit messages ---------------------------------------------------------------------

GIT_LOG_LIMIT = 2000
GIT_TIMEOUT_SECONDS = 20
MAX_COMMIT_DECISIONS = 15
FIELD_SEPARATOR = "\x1f"
RECORD_SEPARATOR = "\x1e"
GIT_FORMAT = "%H%x1f%ad%x1f%s%x1f%b%x1e"
BODY_SCANNED = 600
"""Characters of a commit body searched for decision wording (the rest is detail)."""

DECISION_WORDING: tuple[tuple[str, int], ...] = (
    (r"\bswitch(?:ed|es|ing)?\s+(?:\S+\s+){0,2}?(?:from\s+\S+(?:\s+\S+)?\s+)?to\b", 2),
    (r"\bmigrat(?:e|ed|es|ing|ion)\s+(?:\S+\s+){0,2}?(?:from|to|away)\b", 2),
    (r"\breplac(?:e|ed|es|ing)\s+\S+(?:\s+\S+){0,2}?\s+with\b", 2),
    (r"\badopt(?:s|ed|ing)?\b", 2),
    (r"\buse[sd]?\s+\S+(?:\s+\S+){0,2}?\s+instead\s+of\b", 2),
    (r"\bin\s+favou?r\s+of\b", 2),
    (r"\bdrop(?:s|ped|ping)?\s+support\b", 2),
    (r"\bno\s+longer\s+(?:use|support|depend)", 2),
    (r"\bdecid(?:e|ed|ing)\s+(?:to|on|against)\b", 2),
    (r"\bdeprecat(?:e|es|ing)\b", 2),
    (r"\binstead\s+of\b", 1),
    (r"\brather\s+than\b", 1),
    (r"\bbecause\b", 1),
    (r"\bintroduc(?:e|ed|es|ing)\b", 1),
)
"""(pattern, weight): strong wording alone marks a decision, weak wording needs a second cue."""
DECISION_PATTERNS = tuple(
    (re.compile(pattern, re.IGNORECASE), weight) for pattern, weight in DECISION_WORDING
)
DECISION_SCORE = 2
ROUTINE_SUBJECT = re.compile(
    r"^(?:revert\b|fixup!|squash!|amend!|merge\b|bump\b|release\b|v?\d+\.\d+)", re.IGNORECASE
)
"""Subjects that are bookkeeping even when they quote decision wording (`Revert "Switch to X"`)."""
TRAILER = re.compile(r"^[A-Z][\w-]*-by:|^(?:Change-Id|Cc|Fixes|Closes|Refs?):", re.IGNORECASE)


def is_decision_like(subject: str, body: str = "") -> bool:
    """Whether a commit message records a choice rather than routine work."""
    if ROUTINE_SUBJECT.match(subject.strip()):
        return False
    text = f"{subject}\n{_without_trailers(body)[:BODY_SCANNED]}"
    return (
        sum(weight for pattern, weight in DECISION_PATTERNS if pattern.search(text))
        >= DECISION_SCORE
    )


def commit_decisions(repo: Path, redactor: Redactor | None = None) -> list[dict]:
    """Decision-like commits touching `repo`, most recent first; [] when git cannot tell.
    Messages are redacted like files: a token pasted into one must not reach the site."""
    git = shutil.which("git")
    if git is None:
        return []
    command = [
        git,
        "-C",
        str(repo),
        "-c",
        "log.showSignature=false",
        "log",
        "--no-merges",
        f"--max-count={GIT_LOG_LIMIT}",
        "--date=short",
        f"--format={GIT_FORMAT}",
        "--",
        ".",
    ]
    try:
        completed = subprocess.run(
            command,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if completed.returncode != 0:
        return []
    entries = []
    redactor = redactor or Redactor()
    for record in completed.stdout.decode("utf-8", errors="replace").split(RECORD_SEPARATOR):
        fields = record.lstrip("\n").split(FIELD_SEPARATOR)
        if len(fields) != 4:
            continue
        sha, date = fields[:2]
        subject, body = (redactor.redact(text).text for text in fields[2:])
        if is_decision_like(subject, body):
            entries.append(_commit_entry(sha, date, subject, body))
            if len(entries) == MAX_COMMIT_DECISIONS:
                break
    return entries


def _commit_entry(sha: str, date: str, subject: str, body: str) -> dict:
    subject = " ".join(subject.split())
    return {
        "title": clip(subject, TITLE_LIMIT),
        "kind": "commit",
        "status": "",
        "context": _prose(_without_trailers(body), PROSE_LIMIT),
        "decision": subject if subject[-1:] in ".!?" else subject + ".",
        "consequences": "",
        "evidence": [_evidence(f"{sha[:8]} ({date}): {clip(subject, TITLE_LIMIT)}", "")],
    }


def _without_trailers(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if not TRAILER.match(line.strip()))


# --- assembly ----------------------------------------------------------------------------


def collect_decisions(
    repo: Path, files: dict[str, FileEntry], graph: RepoGraph, redactor: Redactor | None = None
) -> list[dict]:
    """Every decision entry the repository gives evidence for: ADRs, dependencies, commits.

    Every text is read redacted (by `redactor`, else the default rules), as the index reads it.
    """
    return [
        *adr_decisions(repo, files, redactor),
        *dependency_decisions(repo, files, graph, redactor),
        *commit_decisions(repo, redactor),
    ]


def _evidence(label: str, path: str) -> dict:
    """Whole files and commits are the evidence here, so no anchor inside a page."""
    return {"label": label, "path": path, "anchor": ""}


def _read(repo: Path, path: str, redactor: Redactor | None) -> str | None:
    try:
        return read_text(repo, path, redactor or Redactor()).text
    except OSError:
        return None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _and_more(items: list[str], limit: int) -> str:
    """`a`, `a and b`, `a, b and c`, or `a, b and 3 more` past `limit` items."""
    shown = items[:limit]
    rest = len(items) - len(shown)
    if rest:
        return ", ".join(shown) + f" and {rest} more"
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]
