"""How much of the offline summaries is filler: sentences that only restate a name.

    python benchmarks/filler.py [--corpora click,httpx,express] [--cache DIR] [--examples N]

Each corpus is indexed and summarised offline (`refdoc-site index` + `summarize
--no-llm`, default configuration) into a temporary store, then every summary text a page
shows is put to one test, `is_filler`: a sentence is filler when its content words are
only the summarised thing's own name fragments (its name, parent, kind, path) and stock
words that fit any definition ("handles", "type", "constructor", "defines", …). A field
is filler when one of its sentences is; an empty field is not shown, so not counted.

Chunk fields: responsibility, inputOutput, sideEffects, mainDependencies and notes of
every function, method and class chunk. Hierarchy: each file's role, each module's text
and the system text. The corpora are `run.py`'s wheels and `call_edges.py`'s express
tarball, in the same cache.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from call_edges import build_store, corpus_sources
from run import DEFAULT_CACHE, _table

CHUNK_FIELDS = ("responsibility", "inputOutput", "sideEffects", "mainDependencies", "notes")
DEFINITION_KINDS = frozenset({"function", "method", "class"})

STOPWORDS = frozenset(
    """a an the of and or to in on for with by at as from into it its is are be this that
    these those no not any all each some there here""".split()
)
STOCK_WORDS = frozenset(
    """handle type class constructor define function method about create initialise
    initialize instance new object tell whether convert build iterate over top level code
    module file line take argument return nothing none detected beyond language itself use
    public part longer member value data helper main top-level mostly largest entry layer
    foundation between dependency without other each python javascript typescript go rust
    java markdown text config process run get set do make call""".split()
)
"""Words that fit any definition, so say nothing about this one (compared after `stem`)."""


def stem(word: str) -> str:
    """A word's rough base form, so "handles", "defines", "classes" meet their stock word."""
    word = word.lower()
    if len(word) <= 3 or word.endswith("ss"):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def words_of(text: str) -> list[str]:
    """Lower-case word pieces of `text`, identifiers split (`getEta` → get, eta)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w.lower() for w in re.findall(r"[A-Za-z]+", spaced)]


def is_filler(sentence: str, own_words: set[str]) -> bool:
    """Whether `sentence` says nothing beyond its subject's own name and stock words."""
    own = {stem(w) for w in own_words}
    content = {stem(w) for w in words_of(sentence) if w not in STOPWORDS and len(w) > 1}
    return not (content - own - {stem(w) for w in STOCK_WORDS})


def field_is_filler(text: str, own_words: set[str]) -> bool:
    sentences = [s for s in re.split(r"(?<=[.!?;:])\s+", text.strip()) if s.strip()]
    return any(is_filler(s, own_words) for s in sentences)


def chunk_own_words(chunk: dict) -> set[str]:
    return set(words_of(" ".join((chunk["name"], chunk.get("parent") or "", chunk["kind"], chunk["symbol"]))))


def measure(store: Path) -> dict:
    """Filler counts per field of a built store, with a few filler examples."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    examples: dict[str, list[str]] = defaultdict(list)
    with (store / "index.jsonl").open(encoding="utf-8") as records:
        for line in records:
            document = json.loads(line)
            chunk, summary = document["chunk"], document["summary"]
            if chunk["kind"] not in DEFINITION_KINDS:
                continue
            own = chunk_own_words(chunk)
            for name in CHUNK_FIELDS:
                text = summary.get(name, "")
                counts[name][1] += 1
                if text and field_is_filler(text, own):
                    counts[name][0] += 1
                    examples[name].append(f"{chunk['symbol']}: {text}")
    hierarchy = json.loads((store / "summaries" / "hierarchy.json").read_text(encoding="utf-8"))
    definitions_by_path: dict[str, set[str]] = defaultdict(set)
    with (store / "index.jsonl").open(encoding="utf-8") as records:
        for line in records:
            chunk = json.loads(line)["chunk"]
            definitions_by_path[chunk["path"]].update(words_of(chunk["name"]))
    for path, summary in hierarchy["files"].items():
        own = set(words_of(path)) | definitions_by_path[path]
        counts["file role"][1] += 1
        if summary["role"] and field_is_filler(summary["role"], own):
            counts["file role"][0] += 1
            examples["file role"].append(f"{path}: {summary['role']}")
    module_words = set(words_of(" ".join(hierarchy["modules"])))
    for name, summary in hierarchy["modules"].items():
        own = module_words | {w for path in summary["files"] for w in set(words_of(path)) | definitions_by_path[path]}
        counts["module"][1] += 1
        if field_is_filler(summary["text"], own):
            counts["module"][0] += 1
            examples["module"].append(f"{name}: {summary['text']}")
    all_words = module_words | {w for words in definitions_by_path.values() for w in words} | {w for p in hierarchy["files"] for w in words_of(p)}
    counts["system"] = [int(field_is_filler(hierarchy["system"]["text"], all_words)), 1]
    examples["system"].append(hierarchy["system"]["text"])
    return {"counts": dict(counts), "examples": dict(examples)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="click,httpx,express")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--examples", type=int, default=3, help="filler examples shown per field")
    parser.add_argument("--json", type=Path, help="write the raw numbers here")
    args = parser.parse_args(argv)
    results = {}
    for name, repo, _language, version in corpus_sources(args.corpora.split(","), args.cache):
        with tempfile.TemporaryDirectory(prefix=f"filler-{name}-") as work:
            print(f"  {name}: refdoc-site index + summarize", flush=True)
            build_store(repo, Path(work) / "store")
            results[f"{name} {version}"] = measure(Path(work) / "store")
    fields = [*CHUNK_FIELDS, "file role", "module", "system"]
    rows = []
    for corpus, result in results.items():
        chunk_filler = sum(result["counts"][f][0] for f in CHUNK_FIELDS)
        chunk_total = sum(result["counts"][f][1] for f in CHUNK_FIELDS)
        cells = [f"{result['counts'][f][0]}/{result['counts'][f][1]}" for f in fields]
        rows.append([corpus, *cells, f"{chunk_filler / max(chunk_total, 1):.2f}"])
    print(_table(["corpus", *fields, "chunk share"], rows))
    for corpus, result in results.items():
        for field, shown in result["examples"].items():
            for example in shown[: args.examples]:
                print(f"{corpus} {field}: {example}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
