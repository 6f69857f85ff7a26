"""The change map (understanding/changes.py) as the site's "What changed" page and as the
Markdown of a pull request's comment.

Both list the same sections in the same order, most important first: security boundaries
gained, dependency cycles gained, the pages that may now be wrong (they cite what the
change edits: writing/stale.py), public definitions removed and changed, the callers
affected, then the rest. The page lists everything; the comment stops at a bound (GitHub
refuses a comment over 65,536 characters, and a reviewer reads a screenful) and counts what
it left out. Names come from the code, so every one is a code span, every text escaped;
in the comment, no text is one GitHub would make a mention or a link of (`inert_text`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.pages import chunk_anchor, file_page, module_page
from ..understanding.changes import (
    BoundaryChange,
    ChangeMap,
    ChangeStatus,
    CycleChange,
    DefinitionChange,
    StalePage,
)
from .render import (
    Labels,
    _environment,
    code_span,
    escape_text,
    fill,
    link_target,
    page_file,
    page_labels,
    plural,
)

CHANGES_PAGE = "changes.md"
COMMENT_MAX_LINES = 60
COMMENT_MAX_CHARS = 65_000
"""Below GitHub's 65,536 characters, with room for what the workflow adds around it."""
NAME_MAX_CHARS = 160
"""A name longer than this is cut in a list line: the comment's bound is for items, not one name."""
WORD_JOINER = "\u2060"
"""Invisible, and it ends what GitHub reads as a mention, an issue reference or an autolink."""
_GITHUB_TRIGGERS = re.compile(r"(?i)@|\bgh-(?=\d)|#(?=\d)|www(?=\.)|:(?=//)")
"""Where GitHub starts a mention (`@user`, `@org/team`, an e-mail address), an issue or pull
request reference (`#12`, `GH-12`, `owner/repo#12`) or an autolink (`www.`, `https://`)."""


@dataclass
class Item:
    """One line of a section: a name in code, where it is, and a detail in plain text."""

    name: str
    page: str = ""
    """Its page in the revision's site ("" when it has none: a removed definition)."""
    anchor: str = ""
    where: str = ""
    """The file or module it sits in, shown after the name."""
    detail: str = ""


@dataclass
class Section:
    heading: str
    items: list[Item] = field(default_factory=list)


def change_sections(changes: ChangeMap, labels: Labels) -> list[Section]:
    """The map's sections, most important first; empty ones left out."""
    by_status = {status: [d for d in changes.definitions if d.status is status] for status in ChangeStatus}
    statuses = labels["change_status"]
    sections = [
        Section(labels["change_boundaries_gained"], [_boundary_item(b, labels) for b in changes.boundaries if b.gained]),
        Section(labels["change_cycles_gained"], [_cycle_item(c) for c in changes.cycles if c.gained]),
        Section(labels["change_stale"], [_stale_item(s, labels) for s in changes.stale]),
        Section(labels["change_api_removed"], [_definition_item(d) for d in by_status[ChangeStatus.REMOVED] if d.public]),
        Section(labels["change_api_changed"], [_definition_item(d) for d in by_status[ChangeStatus.CHANGED] if d.public]),
        Section(labels["change_callers"], [
            Item(c.symbol, file_page(c.path) if c.present else "", chunk_anchor(c.symbol), c.path,
                 fill(labels["change_calls"], names=", ".join(_short(call.split("#", 1)[-1]) for call in c.calls))
                 + ("" if not c.edited else " " + labels["change_edited"]))
            for c in changes.callers
        ]),
        Section(labels["change_added"], [_definition_item(d) for d in by_status[ChangeStatus.ADDED]]),
        Section(labels["change_private"], [
            _definition_item(d, statuses[d.status.value]) for d in changes.definitions
            if d.status is not ChangeStatus.ADDED and not d.public
        ]),
        Section(labels["change_boundaries_lost"], [_boundary_item(b, labels) for b in changes.boundaries if not b.gained]),
        Section(labels["change_cycles_lost"], [_cycle_item(c) for c in changes.cycles if not c.gained]),
        Section(labels["change_files"], [
            Item(f.path, file_page(f.path) if f.status is not ChangeStatus.REMOVED and not f.not_indexed else "", "", f.module,
                 statuses[f.status.value] + (f"; {fill(labels['change_not_indexed'], reason=f.not_indexed)}" if f.not_indexed else ""))
            for f in changes.files
        ]),
    ]
    return [section for section in sections if section.items]


def _definition_item(change: DefinitionChange, detail: str = "") -> Item:
    page = file_page(change.path) if change.status is not ChangeStatus.REMOVED else ""
    return Item(change.symbol, page, chunk_anchor(change.symbol), change.path, detail)


def _stale_item(stale: StalePage, labels: Labels) -> Item:
    kind = labels["stale_kinds"][stale.kind]
    detail = fill(labels["stale_cites"], kind=kind, name=stale.cited) if stale.cited else fill(labels["stale_review"], kind=kind)
    return Item(stale.title, stale.page, stale.anchor, stale.page, detail)


def _boundary_item(change: BoundaryChange, labels: Labels) -> Item:
    if not change.symbol:  # a file that is not indexed: it has no page, the boundary is the file's
        return Item(change.path, detail=f"{change.reason}; {fill(labels['change_not_indexed'], reason=change.not_indexed)}")
    return Item(change.symbol, file_page(change.path) if change.gained else "", chunk_anchor(change.symbol), change.path, change.reason)


def _cycle_item(change: CycleChange) -> Item:
    return Item(" ↔ ".join(change.modules), module_page(change.modules[0]) if change.gained else "")


def _short(name: str) -> str:
    return name if len(name) <= NAME_MAX_CHARS else name[: NAME_MAX_CHARS - 1] + "…"


def inert_text(value: object) -> str:
    """Text for a pull request comment: escaped as on a page, and with a word joiner after
    each start of a mention, reference or autolink, so that a path such as
    `@acme/security-team/notify.py` notifies no one and `www.login.example/x.py` links
    nowhere. Code spans need none: GitHub reads neither in code."""
    return _GITHUB_TRIGGERS.sub(lambda found: found[0] + WORD_JOINER, escape_text(value))


def item_markdown(item: Item, url: Callable[[str, str], str], text: Callable[[object], str] = escape_text) -> str:
    """A list line: the name as a code span (a link when it has a page), where, and the
    detail, both shown through `text`."""
    name = code_span(_short(item.name))
    target = url(item.page, item.anchor) if item.page else ""
    line = f"[{name}]({target})" if target else name
    if item.where:
        line += f" ({text(_short(item.where))})"
    if item.detail:
        line += f": {text(item.detail)}"
    return f"- {line}"


def summary_line(changes: ChangeMap, labels: Labels, shown: Callable[[str], str] = code_span) -> str:
    """The counts in one sentence; `shown` sets the base's name (a code span in Markdown)."""
    counts = {status: sum(1 for d in changes.definitions if d.status is status) for status in ChangeStatus}
    files = plural(labels["change_files_count"], len(changes.files))
    if unindexed := sum(1 for f in changes.files if f.not_indexed):
        files += f" ({fill(labels['change_files_unindexed'], n=unindexed)})"
    return fill(
        labels["change_summary"],
        base=shown(changes.base),
        files=files,
        added=counts[ChangeStatus.ADDED],
        changed=counts[ChangeStatus.CHANGED],
        removed=counts[ChangeStatus.REMOVED],
        modules=plural(labels["change_modules_count"], len(changes.modules)),
    )


def changes_page(changes: ChangeMap, language: str, pages: set[str]) -> str:
    """The "What changed" page, at the site's root: every section, each item linked to its
    page among the site's `pages` (a name whose page the revision lacks stays unlinked, so
    the strict MkDocs build finds no broken link)."""
    labels = page_labels(language)

    def relative(page: str, anchor: str) -> str:
        return page + (f"#{anchor}" if anchor else "") if page in pages else ""

    sections = [(s.heading, [item_markdown(item, relative) for item in s.items]) for s in change_sections(changes, labels)]
    modules = [item_markdown(Item(name, module_page(name)), relative).removeprefix("- ") for name in changes.modules]
    body = _environment().get_template("changes.md.jinja2").render(
        t=labels, summary=summary_line(changes, labels), sections=sections, modules=modules, empty=changes.empty
    )
    return page_file(None, body)


def comment_markdown(
    changes: ChangeMap,
    language: str,
    site_url: str = "",
    max_lines: int = COMMENT_MAX_LINES,
    max_chars: int = COMMENT_MAX_CHARS,
) -> str:
    """The pull request comment: the summary, then the sections in order of importance until
    `max_lines` or `max_chars`, then how many items were left out (linked to the page when
    `site_url` says where the preview is)."""
    labels = page_labels(language)
    base_url = site_url.rstrip("/") + "/" if site_url else ""

    def absolute(page: str, anchor: str) -> str:
        if not base_url:
            return ""
        return link_target(base_url + _directory_url(page) + (f"#{anchor}" if anchor else ""))

    lines = [f"### {labels['change_map']}", "", summary_line(changes, labels)]
    if changes.empty:
        lines += ["", labels["change_none"]]
        return "\n".join(lines) + "\n"
    tail_room = 2  # the blank line and the "and N more" line
    used = sum(len(line) + 1 for line in lines)
    left_out = 0
    for section in change_sections(changes, labels):
        heading = ["", f"**{section.heading}**"]
        for index, item in enumerate(section.items):
            line = item_markdown(item, absolute, inert_text)
            needed = (heading if index == 0 else []) + [line]
            cost = sum(len(text) + 1 for text in needed)
            if left_out or len(lines) + len(needed) + tail_room > max_lines or used + cost + 400 > max_chars:
                left_out += 1
                continue
            lines += needed
            used += cost
    if left_out:
        more = fill(labels["change_more"], n=left_out)
        page_url = absolute(CHANGES_PAGE, "")
        lines += ["", f"[{more}]({page_url})" if page_url else more]
    return "\n".join(lines) + "\n"


def _directory_url(page: str) -> str:
    """A page's address on a site built with `use_directory_urls`: `files/a.py.md` → `files/a.py/`."""
    stem = page[: -len(".md")]
    return "" if stem == "index" else posixpath.join(stem, "")
