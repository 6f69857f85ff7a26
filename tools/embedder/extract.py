"""Turn the downloaded packages into training texts for the static embedder.

    .venv/bin/python tools/embedder/extract.py --cache /work/train-cache --out /work/train-cache/texts.jsonl

Runs with the project's own environment (no torch): each package is unpacked and indexed
by the product's pipeline, so the `chunk` texts are exactly what the build embeds
(`signature + "\\n\\n" + responsibility + "\\n" + inputOutput`). Besides those, it keeps
what reads like a user's query or a description of code: docstrings (first sentence,
first paragraph, the whole), signatures with identifiers split into words, and comment
blocks. One JSON line per text: `{"text", "kind", "package"}`; texts are deduplicated and
capped per package and kind so that no single big package dominates.

Files under a `click/`, `httpx/` or `requests/` folder are dropped (the evaluation
corpora, which some packages vendor).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import shutil
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, index
from refdoc_site.core.store import Store

FORBIDDEN_DIRS = {"click", "httpx", "requests", "express", "koa"}
CODE_GLOBS = ("*.py", "*.js", "*.mjs", "*.cjs", "*.ts")
CAPS = {"chunk": 500, "doc_sentence": 500, "doc_paragraph": 300, "doc_full": 150, "signature": 300, "comment": 300}
MAX_CHARS = 1500

IDENT_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(])")
LICENSE_RE = re.compile(r"licen[cs]e|copyright|SPDX|all rights reserved|warranty", re.IGNORECASE)
SIGNATURE_KEYWORDS = re.compile(r"^(async )?(def|class|function|export|const|let|var) ")
NOISE_RE = re.compile(r"^(type: ?ignore|noqa|pragma|pylint|eslint|istanbul|TODO:?$|-\*-)", re.IGNORECASE)


def split_words(text: str) -> str:
    return " ".join(w.lower() for w in IDENT_RE.findall(text))


def unpack(archive: Path, target: Path) -> bool:
    try:
        if archive.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(archive) as zf:
                names = [n for n in zf.namelist() if n.endswith(tuple(g[1:] for g in CODE_GLOBS))]
                for name in names:
                    zf.extract(name, target)
        elif archive.name.endswith((".tar.gz", ".tgz")):
            with tarfile.open(archive) as tf:
                members = [
                    m for m in tf.getmembers()
                    if m.isfile() and m.name.endswith(tuple(g[1:] for g in CODE_GLOBS))
                    and ".." not in m.name and not m.name.startswith("/")
                ]
                tf.extractall(target, members=members, filter="data")
        else:
            return False
    except Exception as error:  # noqa: BLE001 - a broken archive is skipped
        logging.getLogger(__name__).warning("%s: %s", archive.name, error)
        return False
    for path in list(target.rglob("*")):
        if path.is_dir() and path.name in FORBIDDEN_DIRS and path.exists() or path.is_dir() and path.name in ("node_modules", "dist", "umd", "min") and path.exists():
            shutil.rmtree(path)
    return True


def first_paragraph(doc: str) -> str:
    return re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]


def first_sentence(doc: str) -> str:
    para = " ".join(first_paragraph(doc).split())
    return SENTENCE_END.split(para, maxsplit=1)[0]


def good_prose(text: str, minimum: int = 15) -> bool:
    if len(text) < minimum or LICENSE_RE.search(text) or NOISE_RE.search(text):
        return False
    letters = sum(c.isalpha() or c.isspace() for c in text)
    return letters / max(1, len(text)) > 0.7 and len(text.split()) >= 3


def comment_blocks(content: str, language: str) -> list[str]:
    marker = "#" if language == "python" else "//"
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in content.splitlines():
        stripped = line.strip()
        if stripped.startswith(marker) and not stripped.startswith("#!"):
            current.append(stripped[len(marker):].strip())
        else:
            if current:
                blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return [" ".join(" ".join(b).split()) for b in blocks]


def indexed_documents(root: Path) -> list:
    """The product's documents for an unpacked package, indexed in a throwaway store."""
    store_dir = Path(tempfile.mkdtemp(prefix="refdoc-train-"))
    try:
        workspace = Workspace.create(root, Config(include=CODE_GLOBS), store_dir, store_dir / "site")
        index(workspace)
        return Store(store_dir).load().documents
    finally:
        shutil.rmtree(store_dir, ignore_errors=True)


def texts_of_package(root: Path) -> dict[str, list[str]]:
    documents = indexed_documents(root)
    found: dict[str, list[str]] = {k: [] for k in CAPS}
    for document in documents:
        chunk, summary = document.chunk, document.summary
        if chunk.kind.value in ("module", "window", "section"):
            continue
        found["chunk"].append(chunk.signature + "\n\n" + summary.responsibility + "\n" + summary.inputOutput)
        signature_words = SIGNATURE_KEYWORDS.sub("", split_words(chunk.signature))
        if len(signature_words.split()) >= 3:
            found["signature"].append(signature_words)
        doc = chunk.docstring.strip()
        if doc and not LICENSE_RE.search(doc[:300]):
            sentence = first_sentence(doc)
            if good_prose(sentence):
                found["doc_sentence"].append(sentence)
            paragraph = " ".join(first_paragraph(doc).split())
            if paragraph != sentence and good_prose(paragraph, 40):
                found["doc_paragraph"].append(paragraph)
            if len(doc) > len(paragraph) + 40:
                found["doc_full"].append(doc)
        for block in comment_blocks(chunk.content, chunk.language):
            if good_prose(block, 20):
                found["comment"].append(block)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cache", type=Path, default=Path("/work/train-cache"))
    parser.add_argument("--out", type=Path, default=Path("/work/train-cache/texts.jsonl"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    rng = random.Random(args.seed)
    archives = sorted(p for sub in ("pypi", "npm") for p in (args.cache / sub).glob("*") if not p.name.startswith("."))
    seen: set[str] = set()
    total = 0
    with args.out.open("w", encoding="utf-8") as out:
        for archive in archives:
            package = re.split(r"-\d", archive.name, maxsplit=1)[0]
            work = Path(tempfile.mkdtemp(prefix="refdoc-pkg-"))
            try:
                if not unpack(archive, work):
                    continue
                try:
                    found = texts_of_package(work)
                except Exception as error:  # noqa: BLE001 - a failing package is skipped
                    print(f"{package}: failed: {error}", flush=True)
                    continue
            finally:
                shutil.rmtree(work, ignore_errors=True)
            counts = {}
            for kind, texts in found.items():
                unique = [t[:MAX_CHARS] for t in dict.fromkeys(texts) if t[:MAX_CHARS] not in seen]
                rng.shuffle(unique)
                kept = unique[: CAPS[kind]]
                for text in kept:
                    seen.add(text)
                    out.write(json.dumps({"text": text, "kind": kind, "package": package}) + "\n")
                counts[kind] = len(kept)
                total += len(kept)
            print(f"{package}: {counts} total={total}", flush=True)


if __name__ == "__main__":
    main()
