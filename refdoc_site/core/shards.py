"""Shards of the index: the files of a repository split across the jobs of a CI matrix.

`refdoc-site index --shard K/N` indexes only the files of shard K (a file belongs to the
shard its path's hash names, so adding or removing a file never moves another one to a
different shard) into a store of its own: an ordinary store holding a subset of the files,
plus `shard.json` (which shard it is, and the lines of the files and chunks that failed,
by file, so that the merged store reports them exactly as a one-machine build would).

`build --from-shards DIR…` (or `index --from-shards`) takes the shards' documents as
finished files of its own index phase. Everything that looks across files (the call graph,
callers and callees, the summaries of modules and of the system) is computed after that,
by the phases that compute it in every build, so the merged store and site are the ones a
single machine builds from the same commit.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import RefdocError, StoreError
from .store import Store

SHARD_NAME = "shard.json"
_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
MAX_SHARDS = 256
"""An Actions matrix runs at most 256 jobs."""


@dataclass(frozen=True)
class Shard:
    """Shard `number` (1-based) of `count`."""

    number: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` as the command line gives it; a one-line error otherwise."""
        match = _SPEC.fullmatch(text)
        if match is None:
            raise RefdocError(f"--shard {text!r}: expected K/N, e.g. --shard 2/4 for the second of four shards")
        number, count = int(match[1]), int(match[2])
        if not 1 <= count <= MAX_SHARDS or not 1 <= number <= count:
            raise RefdocError(f"--shard {text}: K must be from 1 to N, and N from 1 to {MAX_SHARDS}")
        return cls(number, count)

    def holds(self, path: str) -> bool:
        """Whether the file at `path` (relative, as discovery names it) is this shard's."""
        return shard_of(path, self.count) == self.number

    def __str__(self) -> str:
        return f"{self.number}/{self.count}"


def shard_of(path: str, count: int) -> int:
    """The shard (1-based) of `count` that holds the file at `path`: its SHA-256, not
    Python's `hash`, which changes from one process to the next."""
    digest = hashlib.sha256(path.encode("utf-8", errors="surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass
class ShardRecord:
    """`shard.json`: which shard a store holds and what failed in it."""

    shard: Shard
    failed: dict[str, list[str]]
    """Per file, the lines of what failed in it (the file, or chunks of it), in order."""


def write_shard_record(store: Store, record: ShardRecord) -> None:
    store.write_json(SHARD_NAME, {"shard": str(record.shard), "failed": record.failed})


def read_shard_record(directory: Path) -> ShardRecord | None:
    """The shard record of the store in `directory`, or None for an ordinary store."""
    if not (directory / SHARD_NAME).is_file():
        return None
    data = Store(directory).read_json(SHARD_NAME)
    try:
        shard = Shard.parse(str(data["shard"]))
        failed = {str(path): [str(line) for line in lines] for path, lines in dict(data.get("failed", {})).items()}
    except (RefdocError, KeyError, TypeError, ValueError, AttributeError):
        raise StoreError(f"{directory / SHARD_NAME}: not a shard record; rerun `refdoc-site index --shard K/N` for it") from None
    return ShardRecord(shard, failed)


def missing_shards(records: list[ShardRecord]) -> list[str]:
    """The shards (`K/N`) of the count the records name that none of them is; a mix of
    counts is named as such."""
    counts = sorted({record.shard.count for record in records})
    if len(counts) > 1:
        return [f"shards of {', '.join(map(str, counts))} mixed"]
    if not counts:
        return []
    present = {record.shard.number for record in records}
    return [f"{number}/{counts[0]}" for number in range(1, counts[0] + 1) if number not in present]
