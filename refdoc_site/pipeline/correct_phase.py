"""`refdoc-site correct TARGET`: a maintainer's correction written into the repository's
corrections file (core/corrections.py), with the hash of its target's source as the last
build stored it, so that a later change of that source shows the entry as "to review"."""

from __future__ import annotations

from ..core.corrections import Correction, TargetKind, append_correction, definition_windows, source_hash
from ..core.errors import RefdocError
from ..core.store import Store
from ..core.workspace import FACTS_NAME, Workspace
from ..rendering.corrected import TO_REVIEW, apply_corrections, section_sources, target_sources
from ..rendering.render import corrected_pages
from .render_phase import CORRECTIONS_STATE, load_site_data, workspace_corrections


def parse_target(text: str) -> tuple[TargetKind, str]:
    """`edge:A -> B`, `decision:Title`, `section:page.md#anchor`, or a definition's
    `path#Qualified.name` (also as `definition:…`)."""
    kind, colon, rest = text.partition(":")
    for known in TargetKind:
        if colon and kind == known.value:
            return known, rest.strip()
    return TargetKind.DEFINITION, text.strip()


def correct(workspace: Workspace, target: str, summary: str = "", note: str = "", removes: bool = False) -> Correction:
    """Write (or replace) the entry for `target`; raises a one-line RefdocError when the
    last build's site has no such target."""
    if not (workspace.store_dir / FACTS_NAME).is_file():
        raise RefdocError(f"{workspace.store_dir}: not built; run `refdoc-site build` first, so that the target's source can be hashed")
    kind, name = parse_target(target)
    label = workspace.config.corrections
    data = load_site_data(workspace)
    if kind is TargetKind.SECTION:  # hashed as the render phase sees it: after the other corrections
        others = [c for c in workspace_corrections(workspace) if c.key != f"{kind.value}:{name}"]
        apply_corrections(data, others, label)
        page, _, anchor = name.partition("#")
        texts, _ = corrected_pages(data, {page})
        sources = section_sources(texts[page], anchor, data.commit) if page in texts else None
    else:
        sources = target_sources(data, kind, name, definition_windows(data.documents))
    if sources is None:
        raise RefdocError(f"{target}: no such {kind.value} in the last build's site; give a definition as path#Qualified.name, or edge:, decision:, section: page.md#anchor")
    before = next((c for c in workspace_corrections(workspace) if c.key == f"{kind.value}:{name}"), None)
    if before is not None:  # what this call does not say again, the entry keeps
        summary, note, removes = summary or before.summary, note or before.note, removes or before.removes
    correction = Correction(kind, name, 0, summary.strip(), note.strip(), removes, source_hash(sources))
    append_correction(workspace.repo / label, label, correction)
    return correction


def correction_states(store: Store) -> list[str]:
    """`stats`' lines about the corrections the last render applied: how many, and each one
    to review or whose target is gone, with its file and line."""
    if not (store.directory / CORRECTIONS_STATE).is_file():
        return []
    state = store.read_json(CORRECTIONS_STATE)
    views = [entry for entry in state.get("corrections", []) if isinstance(entry, dict)]
    review = [v for v in views if v.get("status") == TO_REVIEW]
    lines = [f"corrections: {len(views)} applied, {len(review)} to review, {len(state.get('warnings', []))} whose target is gone"]
    lines += [
        f"  to review: {v['file']}:{v['correction']['line']}: {v['correction']['kind']} {v['correction']['target']!r} (its code changed since it was written)"
        for v in review
    ]
    lines += [f"  gone: {warning}" for warning in state.get("warnings", [])]
    return lines
