"""A reStructuredText section read by docutils once a build, not once a phase.

The index phase reads each section for its summary (`summarize.responsibility`) and the
render phase reads it again for its page (`rendering/doc_markdown.py`); docutils is the
slowest reader the build has (flask's 77 `.rst` files tripled its render). Within
`reading_once(directory)` each section read is kept as a small JSON file under the store,
named by the hash of its text and of the reader (this module's and doc_blocks.py's code and
docutils' version), so a later phase, or the next build, finds it there. A file that is
missing, damaged or of another shape is read again from the text, never trusted: its
blocks are decoded field by field into the records (no pickle; a store can come with a
repository). After each render the folder keeps only the sections the index still holds
(`keep_only`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import get_args, get_type_hints

from . import doc_blocks
from .doc_blocks import Block, DocSection, Inline, InlineKind

DOC_BLOCKS_DIR = "doc-blocks"
"""The store's folder of sections read (`Store.directory / DOC_BLOCKS_DIR`)."""

INLINE_KINDS = frozenset(get_args(InlineKind))
BLOCK_KINDS = frozenset(get_args(get_type_hints(Block)["kind"]))


class KeptSections:
    """The sections read, one JSON file each under `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, text: str) -> Path:
        digest = hashlib.sha256(f"{_reader_version()}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
        return self.directory / digest[:2] / f"{digest}.json"

    def get(self, text: str) -> DocSection | None:
        try:
            return decode_section(json.loads(self.path(text).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError):  # missing or not ours: read again
            return None

    def put(self, text: str, section: DocSection) -> None:
        target = self.path(text)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, delete=False, suffix=".tmp") as out:
                json.dump(encode_section(section), out, ensure_ascii=False, separators=(",", ":"))
            os.replace(out.name, target)  # workers writing the same section at once: one wins whole
        except (OSError, RecursionError, ValueError):  # a full disk or a read-only store: the next phase reads again
            return


def keep_only(directory: Path, texts: Iterable[str]) -> int:
    """Remove the kept sections whose text is none of `texts` (the reST sections the index
    holds now), so the folder does not grow with every edit; the number removed."""
    kept = KeptSections(directory)
    wanted = {kept.path(text) for text in texts}
    removed = 0
    for path in directory.glob("*/*.json") if directory.is_dir() else ():
        if path not in wanted:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


@contextmanager
def reading_once(directory: Path) -> Iterator[None]:
    """Within this block (and in the workers it forks), reStructuredText sections read are
    kept under `directory` and found there again."""
    before = doc_blocks.KEPT
    doc_blocks.KEPT = KeptSections(directory)
    try:
        yield
    finally:
        doc_blocks.KEPT = before


@lru_cache(maxsize=1)
def _reader_version() -> str:
    """What a kept section depends on besides its text: the reader's code and docutils'."""
    try:
        import docutils  # optional: without docutils no reST is read at all

        version = docutils.__version__
    except ImportError:
        version = ""
    code = b"".join(Path(module.__file__).read_bytes() for module in (doc_blocks,) if module.__file__)
    return hashlib.sha256(code + Path(__file__).read_bytes() + version.encode()).hexdigest()[:16]


# --- the records as JSON, and back with every field checked --------------------------------


def encode_section(section: DocSection) -> dict:
    return {"title": None if section.title is None else [_inline(i) for i in section.title], "blocks": [_block(b) for b in section.blocks]}


def decode_section(data: dict) -> DocSection:
    title = data["title"]
    return DocSection(None if title is None else [_read_inline(i) for i in _list(title)], [_read_block(b) for b in _list(data["blocks"])])


def _inline(inline: Inline) -> list:
    return [inline.kind, inline.text, inline.target, [_inline(c) for c in inline.children]]


def _block(block: Block) -> dict:
    out: dict = {"kind": block.kind}
    if block.inlines:
        out["inlines"] = [_inline(i) for i in block.inlines]
    for name in ("code", "language", "name"):
        if getattr(block, name):
            out[name] = getattr(block, name)
    if block.ordered:
        out["ordered"] = True
    if block.items:
        out["items"] = [[_block(b) for b in item] for item in block.items]
    if block.rows:
        out["rows"] = [[[_inline(i) for i in cell] for cell in row] for row in block.rows]
    return out


def _read_inline(data: list) -> Inline:
    kind, text, target, children = _list(data)
    if kind not in INLINE_KINDS:
        raise ValueError(f"inline kind {kind!r}")
    return Inline(kind, _str(text), _str(target), tuple(_read_inline(c) for c in _list(children)))


def _read_block(data: dict) -> Block:
    if not isinstance(data, dict) or data.get("kind") not in BLOCK_KINDS:
        raise ValueError("block")
    return Block(
        data["kind"],
        inlines=[_read_inline(i) for i in _list(data.get("inlines", []))],
        code=_str(data.get("code", "")),
        language=_str(data.get("language", "")),
        ordered=data.get("ordered", False) is True,
        items=[[_read_block(b) for b in _list(item)] for item in _list(data.get("items", []))],
        rows=[[[_read_inline(i) for i in _list(cell)] for cell in _list(row)] for row in _list(data.get("rows", []))],
        name=_str(data.get("name", "")),
    )


def _list(value: object) -> list:
    if not isinstance(value, list):
        raise TypeError("list expected")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("text expected")
    return value
