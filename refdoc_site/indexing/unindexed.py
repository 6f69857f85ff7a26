"""The files discovery saw but did not index, kept for the change map.

A pull request must not hide code from the map by making a file look minified (one long
comment line), oversized, binary or generated, by excluding it in `refdoc.yml`, or by
committing it in a built site or a folder never indexed (`node_modules/`, `.venv/`): each such file is listed with its content hash, so the map
shows it added, changed or removed (counted as not indexed), and, when it is text of a
known language small enough to read, with the security boundary its text holds (the
regex tier's reasons, on the redacted text), so a boundary gained in it is found.

A file a `.gitignore` hides (and git does not track) is no part of any change; a secret,
a link or a special file is never read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..core.reading import read_text
from ..core.serial import from_json
from ..core.store import Store
from ..core.workspace import DISCOVERY_NAME
from ..core.records import SkippedFile, SkipReason
from ..core.redact import Redactor, secret_file_rule
from ..core.regular_files import read_regular
from ..languages import language_for
from .discover import PRUNED_FOLDER
from .regex_tier import security_reason

LISTED_REASONS = frozenset({
    SkipReason.MINIFIED, SkipReason.OVERSIZED, SkipReason.BINARY, SkipReason.GENERATED,
    SkipReason.BUILT_SITE, SkipReason.OWN_CONFIG,
})
LISTED_IGNORES = frozenset({"exclude glob", "not included", PRUNED_FOLDER})
"""Ignored by the configuration, which the pull request may change, or tracked in a folder
never indexed (`node_modules/`): listed. Ignored by a `.gitignore` (an untracked file):
not part of the change."""
HASH_MAX_BYTES = 64 * 1024 * 1024
"""A bigger file is listed by its size, not read."""
SCAN_MAX_BYTES = 4 * 1024 * 1024
"""A bigger file is hashed but its text not scanned for a boundary."""


@dataclass
class UnindexedFile:
    """A file of the repository that has no page, as the change map compares it."""

    path: str
    reason: str
    """Why discovery skipped it (a `SkipReason` value)."""
    sha256: str
    """Its content's hash (`size:N` for a file too big to read)."""
    boundary: str = ""
    """Why its text sits on a security boundary (regex_tier.security_reason), or ""."""


def unindexed_files(
    repo: Path, skipped: list[SkippedFile], redactor: Redactor, previous: dict[str, UnindexedFile]
) -> list[UnindexedFile]:
    """The listed files among `skipped`, each hashed and scanned; a file whose hash is the
    one `previous` has keeps its scan."""
    listed = []
    for file in skipped:
        if file.path.endswith("/") or not (file.reason in LISTED_REASONS or file.detail in LISTED_IGNORES):
            continue
        if secret_file_rule(file.path.rsplit("/", 1)[-1]) is not None:  # never read, even for a hash
            continue
        try:
            data = read_regular(repo / file.path, limit=HASH_MAX_BYTES)
        except OSError:  # gone, or no longer a regular file: nothing to compare
            continue
        digest = hashlib.sha256(data).hexdigest() if len(data) <= HASH_MAX_BYTES else f"size:{(repo / file.path).stat().st_size}"
        old = previous.get(file.path)
        if old is not None and old.sha256 == digest:
            listed.append(UnindexedFile(file.path, file.reason.value, digest, old.boundary))
            continue
        listed.append(UnindexedFile(file.path, file.reason.value, digest, _boundary(repo, file.path, len(data), redactor)))
    return listed


def stored_unindexed(store: Store) -> dict[str, UnindexedFile]:
    """The files the store's last index run listed, by path (none from a store an older
    refdoc-site wrote, or none at all)."""
    if not (store.directory / DISCOVERY_NAME).is_file():
        return {}
    listed = store.read_json(DISCOVERY_NAME).get("unindexed", [])
    return {file.path: file for file in (from_json(UnindexedFile, entry) for entry in listed)}


def _boundary(repo: Path, path: str, size: int, redactor: Redactor) -> str:
    spec = language_for(path)
    if spec is None or size > SCAN_MAX_BYTES:
        return ""
    try:
        text = read_text(repo, path, redactor).text
    except OSError:
        return ""
    return security_reason(text, spec.name)
