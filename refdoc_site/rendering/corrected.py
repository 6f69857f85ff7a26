"""The maintainers' corrections (core/corrections.py) applied to what the pages are rendered
from, after the summarizer and the doc model wrote it: a replacement summary takes the
generated one's place in the documents (so every page and the search data show it), a wrong
call edge leaves the graph, a decision that is none leaves the log; each page marks what a
maintainer wrote (`CorrectionView`, read by the templates) and says when the code it is
about changed since ("to review": the hash the entry recorded differs from the code's now).

Applied at render time over the stored records, a correction is never lost to a rebuild:
no phase before this one sees it, so neither the offline summarizer nor the LLM writes over it.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.corrections import Correction, TargetKind, correct_definition, definition_windows, remove_call, source_hash, split_edge
from ..core.decision_phrases import dependency_texts
from ..core.findings import Decision
from ..core.pages import chunk_anchor, file_page
from ..core.records import Document
from ..writing.grounding import Grounded, NameSegment, TextSegment
from .markup import code_span, escape_text

if TYPE_CHECKING:  # render.py imports this module for SiteData's field
    from .render import SiteData

CURRENT, TO_REVIEW, UNCHECKED = "current", "to review", "unchecked"


@dataclass(frozen=True)
class CorrectionView:
    """A correction as the pages show it, with the state of its target."""

    correction: Correction
    file: str
    """The corrections file, as the build names it."""
    status: str = UNCHECKED
    """`current`, `to review` (its target changed since it was written) or `unchecked` (no hash)."""
    name: str = ""
    """For an edge: the callee's qualified name, as the caller's page names it."""

    @property
    def kind(self) -> str:
        return self.correction.kind.value

    @property
    def target(self) -> str:
        return self.correction.target


def plain(text: Grounded) -> str:
    """A grounded text (a written decision's title) as the words it shows."""
    return "".join(s.text if isinstance(s, TextSegment) else s.code if isinstance(s, NameSegment) else "" for s in text).strip()


def target_sources(data: SiteData, kind: TargetKind, target: str, by_definition: dict[str, list[Document]]) -> list[str] | None:
    """The source texts a correction of `target` is about (hashed into its entry), or None
    when the site has no such target. A section's are its page's (`section_sources`)."""
    if kind is TargetKind.DEFINITION:
        windows = by_definition.get(target)
        return [d.chunk.content for d in windows] if windows else None
    if kind is TargetKind.EDGE:
        ends = split_edge(target)
        if ends is None or ends[0] not in by_definition or ends[1] not in by_definition:
            return None
        callee_ids = {d.chunk.id for d in by_definition[ends[1]]}
        if not any(set(data.graph.calls.get(d.chunk.id, ())) & callee_ids for d in by_definition[ends[0]]):
            return None
        return [d.chunk.content for d in by_definition[ends[0]]]
    if kind is TargetKind.DECISION:
        cited = decision_citations(data).get(target)
        if cited is None:
            return None
        return [d.chunk.content for path, anchor in cited for d in data_by_path(data).get(path, ()) if not anchor or chunk_anchor(d.chunk.symbol) == anchor] or [target]
    return None


def decision_citations(data: SiteData) -> dict[str, list[tuple[str, str]]]:
    """Each decision's title and the (file, anchor) its evidence cites, from the log the
    doc model wrote when there is one, else the offline one."""
    written = data.written.get("decisions")
    if written is not None:
        pages = {file_page(path): path for path in data.hierarchy.files}
        return {plain(e.title): [(pages[link.page], link.anchor) for link in e.evidence if link.page in pages] for e in written.entries}
    return {d.title: [(e.path, e.anchor) for e in d.evidence if e.path] for d in data.decisions}


def data_by_path(data: SiteData) -> dict[str, list[Document]]:
    found: dict[str, list[Document]] = defaultdict(list)
    for document in data.documents:
        found[document.chunk.path].append(document)
    return found


def apply_corrections(data: SiteData, corrections: list[Correction], label: str) -> list[str]:
    """Apply the corrections to `data` in place (`data.corrections` then holds what the
    pages show); returns a warning line for each whose target the site no longer has."""
    by_definition = definition_windows(data.documents)
    warnings = []
    views: dict[str, CorrectionView] = {}
    for correction in corrections:
        view = CorrectionView(correction, label)
        if correction.kind is TargetKind.SECTION:  # its state is known when its page is rendered (`correct_sections`)
            views[correction.key] = view
            continue
        sources = target_sources(data, correction.kind, correction.target, by_definition)
        if sources is None:
            warnings.append(f"{label}:{correction.line}: {correction.kind.value}: {correction.target!r} is not in the site (renamed or removed?); update the entry or delete it")
            continue
        views[correction.key] = replace(view, status=_status(correction.hash, sources))  # the code's now against the entry's
        if correction.kind is TargetKind.DEFINITION:
            correct_definition(by_definition[correction.target], correction)
        elif correction.kind is TargetKind.EDGE:
            caller, callee = split_edge(correction.target) or ("", "")
            views[correction.key] = replace(views[correction.key], name=by_definition[callee][0].chunk.symbol)
            if correction.removes:
                _remove_edge(data, by_definition[caller], by_definition[callee])
        else:
            _correct_decision(data, correction)
    data.corrections = views
    return warnings


def _status(recorded: str, sources: list[str]) -> str:
    if not recorded:
        return UNCHECKED
    return CURRENT if recorded == source_hash(sources) else TO_REVIEW


def _remove_edge(data: SiteData, callers: list[Document], callees: list[Document]) -> None:
    """The call out of the graph and out of both ends' metadata (the search data's)."""
    caller_ids, callee_ids = {d.chunk.id for d in callers}, {d.chunk.id for d in callees}
    for caller in callers:
        if caller.chunk.id in data.graph.calls:
            data.graph.calls[caller.chunk.id] = [c for c in data.graph.calls[caller.chunk.id] if c not in callee_ids]
    for callee in callees:
        if callee.chunk.id in data.graph.callers:
            data.graph.callers[callee.chunk.id] = [c for c in data.graph.callers[callee.chunk.id] if c not in caller_ids]
    remove_call(callers, callees)


def _correct_decision(data: SiteData, correction: Correction) -> None:
    written = data.written.get("decisions")
    if written is not None:
        kept = []
        for entry in written.entries:
            if plain(entry.title) == correction.target:
                if correction.removes:
                    continue
                if correction.summary:
                    entry = replace(entry, decision=[TextSegment(correction.summary)])
            kept.append(entry)
        data.written["decisions"] = replace(written, entries=kept)
        return
    kept_decisions = []
    for decision in data.decisions:
        if correction.target in _decision_titles(decision):
            if correction.removes:
                continue
            if correction.summary:
                decision = replace(decision, decision=correction.summary)
        kept_decisions.append(decision)
    data.decisions = kept_decisions


def _decision_titles(decision: Decision) -> set[str]:
    """The titles a decision's correction may name: the one shown and, for a dependency entry
    on a site in another language, its English one (what the stored log and `correct` wrote)."""
    titles = {decision.title}
    if decision.dependency is not None:
        titles.add(dependency_texts(decision.dependency)["title"])
    return titles


def for_definition(views: dict[str, CorrectionView], path: str, symbol: str) -> list[CorrectionView]:
    """What a definition's section shows: its own correction and those of the calls it makes."""
    own = f"{path}#{symbol}"
    found = [views[key] for key in (f"definition:{own}",) if key in views]
    found += [view for view in views.values() if view.kind == "edge" and (split_edge(view.target) or ("",))[0] == own]
    return found


# --- page sections ------------------------------------------------------------------------

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*(?:\{[ \t]*#([\w.:-]+)[ \t]*\})?[ \t]*$")


def slug(heading: str) -> str:
    """A heading's anchor as MkDocs' table of contents makes it (Python-Markdown's default
    `slugify`): what a `section` target names, as the page's URL shows it."""
    text = re.sub(r"<[^>]*>|\\(.)", r"\1", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def sections_of(text: str) -> dict[str, tuple[int, int, int]]:
    """Each section of a page's Markdown by anchor: (heading line, first and end line of its
    own body: up to the next heading of any level)."""
    lines = text.split("\n")
    found: dict[str, tuple[int, int, int]] = {}
    headings = [(i, HEADING.match(line)) for i, line in enumerate(lines)]
    headings = [(i, m) for i, m in headings if m]
    for index, (line, match) in enumerate(headings):
        end = headings[index + 1][0] if index + 1 < len(headings) else len(lines)
        anchor = match[3] or slug(match[2])
        found.setdefault(anchor, (line, line + 1, end))
    return found


def section_sources(text: str, anchor: str, commit: str = "") -> list[str] | None:
    """What a section correction's hash is of: the section's own text as generated, without
    the commit the site was built from (a source link names it: every push would put the
    correction to review); None when the page has no such section."""
    found = sections_of(text).get(anchor)
    if found is None:
        return None
    _, start, end = found
    return [_generated(text.split("\n"), start, end, commit)]


def _generated(lines: list[str], start: int, end: int, commit: str) -> str:
    text = "\n".join(lines[start:end]).strip()
    return text.replace(commit, "").replace(commit[:12], "") if commit else text


def section_pages(views: dict[str, CorrectionView]) -> set[str]:
    """The pages a section correction is on: rendered every time (its state is of their text)."""
    return {view.target.split("#", 1)[0] for view in views.values() if view.kind == "section"}


def correct_sections(page: str, text: str, views: dict[str, CorrectionView], labels: dict, commit: str = "") -> tuple[str, list[CorrectionView]]:
    """The page's Markdown with its sections' corrections applied: a replacement summary in
    place of the section's own text, a note after it, each marked (`maintainer_box`);
    returns it and the views placed, with their state (a section's hash is of its
    generated text, `section_sources`, as `refdoc-site correct` recorded it)."""
    wanted = [view for view in views.values() if view.kind == "section" and view.target.split("#", 1)[0] == page]
    if not wanted or not text:
        return text, []
    lines = text.split("\n")
    sections = sections_of(text)
    placed = []
    # from the last section up, so that each one's lines are where `sections_of` found them
    for view in sorted(wanted, key=lambda v: -sections.get(v.target.split("#", 1)[1], (-1, 0, 0))[0]):
        found = sections.get(view.target.split("#", 1)[1])
        if found is None:
            continue
        _, start, end = found
        view = replace(view, status=_status(view.correction.hash, [_generated(lines, start, end, commit)]))
        body = lines[start:end] if not view.correction.summary else ["", escape_text(view.correction.summary), ""]
        lines[start:end] = ["", maintainer_box([view], labels), *body]
        placed.append(view)
    return "\n".join(lines), placed


def corrected_sections_only(text: str, views: list[CorrectionView]) -> str:
    """A page's Markdown cut to the sections the corrections `views` were placed on, each
    its heading and own text: what the search indexes of a page it does not search whole
    (a file or component page), so that the maintainer's words find the section."""
    lines = text.split("\n")
    sections = sections_of(text)
    kept = [sections[anchor] for anchor in dict.fromkeys(v.target.split("#", 1)[1] for v in views) if anchor in sections]
    return "\n".join(line for heading, _, end in sorted(kept) for line in lines[heading:end])


def maintainer_box(views: list[CorrectionView], labels: dict) -> str:
    """The admonition that marks what maintainers wrote, "" for no correction: which part
    is theirs (file and line), their notes, and "to review" when the code changed since.
    Every text in it is the repository's, so escaped; the labels are the site's own."""
    if not views:
        return ""
    paragraphs = []
    for view in views:
        fix = view.correction
        where = {"file": escape_text(view.file), "line": fix.line}
        if view.kind == "edge":
            if fix.removes:
                paragraphs.append(labels["corrected_edge"].format(name=code_span(view.name), **where))
        elif fix.summary:
            paragraphs.append(labels["corrected_summary"].format(**where))
        if fix.note and view.kind == "definition":  # shown as the summary's notes, where the search finds it too
            paragraphs.append(labels["corrected_notes"].format(**where))
        elif fix.note:
            paragraphs.append(labels["corrected_note"].format(**where) + " " + escape_text(fix.note))
        if view.status == TO_REVIEW:
            paragraphs.append(f"**{labels['to_review']}**")
    body = "\n\n".join("    " + paragraph for paragraph in paragraphs)
    kind = "warning" if any(view.status == TO_REVIEW for view in views) else "note"
    return f'!!! {kind} "{labels["corrected"]}"\n\n{body}\n'
