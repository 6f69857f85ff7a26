"""Corrections: what a maintainer wrote about the generated documentation, in a file of the
repository (`refdoc-corrections.yml`, or the name refdoc.yml's `corrections` gives).

The site is rebuilt on every push and every summary written again; a correction lives in
the repository, so it outlives the rebuild: the render phase applies each one over what the
summarizer or the model wrote (rendering/corrected.py). The file is a YAML list, one entry a
target:

    - definition: app/core.py#Parser.parse      # a chunk id without its window number
      summary: Parses one request line; the body is read by Body.read.
      note: Raises on an empty line since 2.3.
      hash: 3f2a9c0d4e5b6a71                      # the target's source when this was written
    - edge: app/web.py#handle -> app/db.py#query  # a call the graph has wrong
      wrong: true
    - decision: Uses SQLite for storage          # a decision log entry, by its title
      not_a_decision: true
    - section: index.md#how-it-works              # a section of a page, by its anchor
      note: The queue is drained by the worker, not the web process.

The file is repository input like refdoc.yml: validated the same way (every problem at
once, one line each naming the file, the entry's line and the key), its texts kept as plain
text wherever they land, and nothing in it is ever read as a path.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError, shown_value
from .records import Document
from .regular_files import read_regular
from .text import CONTROL

CORRECTIONS_NAME = "refdoc-corrections.yml"
"""The default corrections file at the repository root (refdoc.yml's `corrections` renames it)."""
TEXT_MAX_CHARS = 2000
"""A summary or note longer than this is refused: a correction is a paragraph, not a page."""
TARGET_MAX_CHARS = 1000
HASH_CHARS = 16
EDGE_ARROW = " -> "
MAINTAINER = "maintainer"
"""`ChunkSummary.source` of a summary a maintainer wrote: no template restates a docstring over it."""


class TargetKind(str, Enum):
    """What a correction is about."""

    DEFINITION = "definition"
    """A function, method or class, by `path#Qualified.name`."""
    EDGE = "edge"
    """A call edge, by `caller id -> callee id`."""
    DECISION = "decision"
    """An entry of the decision log, by its title."""
    SECTION = "section"
    """A section of a page, by `page.md#anchor`."""


ALLOWED: dict[TargetKind, tuple[str, ...]] = {
    TargetKind.DEFINITION: ("summary", "note"),
    TargetKind.EDGE: ("wrong", "note"),
    TargetKind.DECISION: ("not_a_decision", "summary", "note"),
    TargetKind.SECTION: ("summary", "note"),
}
"""What each kind of target may be told, besides `hash`: `summary` replaces the generated
text, `note` is shown beside it, `wrong`/`not_a_decision` (true) take the edge or decision out."""
FLAGS = ("wrong", "not_a_decision")


@dataclass(frozen=True, slots=True)
class Correction:
    """One entry of the corrections file."""

    kind: TargetKind
    """What it is about: the entry's target key."""
    target: str
    """The thing it names, as that key's value gives it (`path#Qualified.name`, …)."""
    line: int
    """1-based line of the entry in the file: every message about it names it."""
    summary: str = ""
    """Replaces the generated text: a definition's summary, a section's text, a decision."""
    note: str = ""
    """Shown beside the generated (or replaced) text, marked as a maintainer's."""
    removes: bool = False
    """`wrong: true` on an edge, `not_a_decision: true` on a decision."""
    hash: str = ""
    """The target's source hash (`source_hash`) when the entry was written; "" when the
    maintainer wrote none, so that its target changing cannot be seen."""

    @property
    def key(self) -> str:
        return f"{self.kind.value}:{self.target}"


def corrections_name_problem(value: Any) -> str | None:
    """refdoc.yml's `corrections`: a YAML file of the repository named from its root, never
    a way out of it (no absolute path, no `..`)."""
    if isinstance(value, str) and value and not value.startswith("/") and not CONTROL.search(value):
        if ".." not in value.replace("\\", "/").split("/") and value.endswith((".yml", ".yaml")):
            return None
    return f"expected a .yml file inside the repository, relative to its root (like {CORRECTIONS_NAME}), got {shown_value(value)}"


def source_hash(texts: Iterable[str]) -> str:
    """The hash a correction records of its target's source: what a later change of that
    source makes differ."""
    joined = "\0".join(texts)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]


def split_edge(target: str) -> tuple[str, str] | None:
    caller, arrow, callee = target.partition(EDGE_ARROW.strip())
    return (caller.strip(), callee.strip()) if arrow and caller.strip() and callee.strip() else None


# --- over the stored chunks -------------------------------------------------------------
# The part of a correction that lands in the chunks themselves, shared by the render phase
# (rendering/corrected.py, which also corrects the graph, the decisions and the pages) and
# by what answers from the store (asking/library.py): both show the same summary and calls.


def definition_windows(documents: list[Document]) -> dict[str, list[Document]]:
    """Each definition's windows by `path#Qualified.name`, in order: what a `definition`
    target names (every window of a split one is the one definition)."""
    found: dict[str, list[Document]] = defaultdict(list)
    for document in documents:
        found[f"{document.chunk.path}#{document.chunk.symbol}"].append(document)
    for windows in found.values():
        windows.sort(key=lambda d: d.chunk.part)
    return found


def correct_definition(windows: list[Document], correction: Correction) -> None:
    for document in windows:
        summary = document.summary
        if correction.summary:  # the generated text is what the maintainer found wrong: none of it stays
            phrased = {name: said for name, said in summary.phrases.items() if name not in ("responsibility", "inputOutput", "notes")}
            summary = replace(summary, responsibility=correction.summary, inputOutput="", notes="", source=MAINTAINER, phrases=phrased)
        if correction.note:
            summary = replace(summary, notes=correction.note, phrases={name: said for name, said in summary.phrases.items() if name != "notes"})
        document.summary = summary


def remove_call(callers: list[Document], callees: list[Document]) -> None:
    """The call out of both ends' metadata (what the search data and the library read)."""
    caller_ids, callee_ids = {d.chunk.id for d in callers}, {d.chunk.id for d in callees}
    for caller in callers:
        caller.metadata.callees = [c for c in caller.metadata.callees if c not in callee_ids]
    for callee in callees:
        callee.metadata.callers = [c for c in callee.metadata.callers if c not in caller_ids]


def correct_documents(documents: list[Document], corrections: list[Correction]) -> int:
    """The definition and edge corrections applied to the chunks in place, as the render
    phase applies them; one whose target the chunks lack is skipped (the build warns of it).
    Returns how many were applied."""
    by_definition = definition_windows(documents)
    applied = 0
    for correction in corrections:
        if correction.kind is TargetKind.DEFINITION and correction.target in by_definition:
            correct_definition(by_definition[correction.target], correction)
            applied += 1
        elif correction.kind is TargetKind.EDGE:
            caller, callee = split_edge(correction.target) or ("", "")
            if caller not in by_definition or callee not in by_definition:
                continue
            if correction.removes:
                remove_call(by_definition[caller], by_definition[callee])
            applied += 1
    return applied


def load_corrections(path: Path, label: str) -> list[Correction]:
    """The corrections in `path` ([] when there is no such file); every problem at once as
    one ConfigError, a line each: `label:LINE: key: problem`."""
    if not path.exists() and not path.is_symlink():
        return []
    try:
        text = read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError([f"{label}: cannot be read ({error}); make it a regular UTF-8 file of the repository"]) from None
    return parse_corrections(text, label)


def parse_corrections(text: str, label: str) -> list[Correction]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError([f"{label}{where}: {getattr(error, 'problem', None) or 'not valid YAML'}; fix the YAML syntax"]) from None
    if raw is None:
        return []
    if not isinstance(raw, list) or not isinstance(node, yaml.SequenceNode):
        raise ConfigError([f"{label}:1: expected a list of corrections (`- definition: path#name`), got {type(raw).__name__}"])
    problems: list[str] = []
    corrections = []
    for item, item_node in zip(raw, node.value):
        line = item_node.start_mark.line + 1
        lines = {key.value: key.start_mark.line + 1 for key, _ in item_node.value} if isinstance(item_node, yaml.MappingNode) else {}
        found = _entry(item, line, lines, label, problems)
        if found is not None:
            corrections.append(found)
    seen: dict[str, int] = {}
    for correction in corrections:
        if correction.key in seen:
            problems.append(f"{label}:{correction.line}: {correction.kind.value}: {correction.target!r} is corrected already at line {seen[correction.key]}; merge the two entries")
        seen.setdefault(correction.key, correction.line)
    if problems:
        raise ConfigError(problems)
    return corrections


def _entry(item: Any, line: int, lines: dict[str, int], label: str, problems: list[str]) -> Correction | None:
    kinds = ", ".join(kind.value for kind in TargetKind)
    if not isinstance(item, dict):
        problems.append(f"{label}:{line}: expected a mapping with one of {kinds}, got {shown_value(item)}")
        return None
    named = [kind for kind in TargetKind if kind.value in item]
    if len(named) != 1:
        problems.append(f"{label}:{line}: expected exactly one target key of {kinds}, got {', '.join(k.value for k in named) or 'none'}")
        return None
    kind = named[0]
    before = len(problems)

    def problem(key: str, text: str) -> None:
        problems.append(f"{label}:{lines.get(key, line)}: {key}: {text}")

    target = item[kind.value]
    if not isinstance(target, str) or not target.strip() or len(target) > TARGET_MAX_CHARS or CONTROL.search(target):
        problem(kind.value, f"expected the target as one line of text (at most {TARGET_MAX_CHARS} characters), got {shown_value(target)}")
    elif kind is TargetKind.EDGE and split_edge(target) is None:
        problem(kind.value, f"expected `caller id -> callee id`, got {shown_value(target)}")
    elif kind in (TargetKind.DEFINITION, TargetKind.SECTION) and "#" not in target:
        problem(kind.value, f"expected {'path#Qualified.name' if kind is TargetKind.DEFINITION else 'page.md#anchor'}, got {shown_value(target)}")
    allowed = ALLOWED[kind]
    for key, value in item.items():
        if key == kind.value:
            continue
        if key == "hash":
            if not (isinstance(value, str) and len(value) == HASH_CHARS and all(c in "0123456789abcdef" for c in value)):
                problem(key, f"expected the {HASH_CHARS} hex digits `refdoc-site correct` writes, got {shown_value(value)}")
        elif key not in allowed:
            problem(str(key), f"unknown key for a {kind.value}; known are {', '.join((*allowed, 'hash'))}")
        elif key in FLAGS:
            if value is not True:
                problem(key, f"expected true, got {shown_value(value)}")
        elif not isinstance(value, str) or not value.strip() or len(value) > TEXT_MAX_CHARS:
            problem(key, f"expected text of at most {TEXT_MAX_CHARS} characters, got {shown_value(value)}")
    if not any(key in item for key in allowed):
        problems.append(f"{label}:{line}: {kind.value}: says nothing; give one of {', '.join(allowed)}")
    if len(problems) > before:
        return None
    return Correction(
        kind, target.strip(), line, summary=item.get("summary", "").strip(), note=item.get("note", "").strip(),
        removes=any(item.get(flag) is True for flag in FLAGS), hash=item.get("hash", ""),
    )


def correction_yaml(correction: Correction) -> str:
    """The entry as the file holds it: a YAML list item, every text quoted by the dumper."""
    entry: dict[str, Any] = {correction.kind.value: correction.target}
    if correction.summary:
        entry["summary"] = correction.summary
    if correction.note:
        entry["note"] = correction.note
    if correction.removes:
        entry["wrong" if correction.kind is TargetKind.EDGE else "not_a_decision"] = True
    if correction.hash:
        entry["hash"] = correction.hash
    return yaml.safe_dump([entry], allow_unicode=True, sort_keys=False, width=100)


def append_correction(path: Path, label: str, correction: Correction) -> None:
    """Add the entry to the file (created when missing), in place of an entry for the same
    target (one written before its target changed), after checking that the file and the new
    entry parse together: a correction that would make the file invalid is never written."""
    existing = read_regular(path).decode("utf-8") if path.exists() or path.is_symlink() else ""
    existing = _without_entry(existing, correction.key)
    if existing and not existing.endswith("\n"):
        existing += "\n"
    updated = existing + correction_yaml(correction)
    parse_corrections(updated, label)
    path.write_text(updated, encoding="utf-8")


def _without_entry(text: str, key: str) -> str:
    """The file's text without the entry for `key`, its lines cut whole (the comments of
    the other entries stay); the text as it is when no entry has that target."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader) if text.strip() else None
    except yaml.YAMLError:
        return text
    if not isinstance(node, yaml.SequenceNode):
        return text
    starts = [text.rfind("\n", 0, item.start_mark.index) + 1 for item in node.value]
    for index, item in enumerate(node.value):
        pairs = {k.value: v.value for k, v in item.value} if isinstance(item, yaml.MappingNode) else {}
        if any(f"{kind.value}:{str(pairs.get(kind.value, '')).strip()}" == key for kind in TargetKind if kind.value in pairs):
            end = starts[index + 1] if index + 1 < len(starts) else len(text)
            return text[: starts[index]] + text[end:]
    return text
