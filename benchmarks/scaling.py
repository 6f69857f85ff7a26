"""Does the per-file work stay linear in the file's size? Seconds per generated file.

    python benchmarks/scaling.py [--sizes 1,4,8,16] [--kinds python,javascript,markdown,text]
                                 [--baseline CHECKOUT]
    python benchmarks/scaling.py --kinds open-comment --sizes 0.25,0.5,1

For each kind, a deterministic file of each size (in MB) is generated and taken through
what the index phase does to one file: chunk, analyze (tree-sitter and regex tiers) and
summarize every chunk. The table shows the seconds and, per kind, the seconds per MB
relative to the smallest size: a linear pipeline keeps that ratio near 1, a quadratic
one doubles it with every doubling of the size. The kind `open-comment` (not run by
default) is a script whose first comment never closes, which the parser alone would take
quadratic time over.

`--baseline` runs the same measurement, in a child process, with the refdoc-site code
of another checkout (say a worktree of an older commit) and prints both side by side.
Files over `max_file_size` are skipped by discovery; this measures what happens when that
limit is raised.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MB = 1_000_000
WORDS = (
    "request response parse token cache value index store render module build config user "
    "account session payload buffer stream record entry handler worker queue limit retry"
).split()


PYTHON_BLOCK = """\
import module_{n%50}
from package_{n%30} import name_{n%7}

SETTING_{n} = {{'key': {n}, 'other': "{words3}"}}


class Service{n}(Base):
    \"\"\"{Words8}.\"\"\"

    def __init__(self, store, limit={n}):
        self.store = store
        self.limit = limit

    def handle_{n}(self, request):
        # {words6}
        value = self.store.get(request.key)
        if value is None:
            raise KeyError(request.key)
        return transform_{n}(value, self.limit)


async def transform_{n}(value, limit):
    \"\"\"{Words10}.\"\"\"
    for index in range(limit):
        value = await module_{n%50}.step(value, index)
    return open('out_{n}.txt').write(str(value))


print(Service{n}(None).handle_{n})

"""
"""A class with methods, a function, a few top-level statements and a comment."""

JAVASCRIPT_BLOCK = """\
import {{ helper{n%20} }} from './helpers{n%20}.js';

/** {Words8}. */
export class Service{n} extends Base {{
  constructor(store) {{
    super();
    this.store = store;
  }}

  async handle{n}(request) {{
    // {words6}
    const value = await this.store.get(request.key);
    if (!value) {{
      throw new Error('missing {n}');
    }}
    return transform{n}(value);
  }}
}}

export function transform{n}(value) {{
  return helper{n%20}(value).map((item) => item * {n});
}}

const setting{n} = {{ key: {n}, label: "{words3}" }};
console.log(setting{n});

"""
"""A class with methods, an exported function, an arrow function and a comment."""

MARKDOWN_BLOCK = """\
## Section {n}

{Words40}.
{Words30}.

- {words5}
- {words5}

```python
result = call_{n}(value)
```

### Detail {n}

{Words50}.

"""
"""A heading, paragraphs, a list and a fenced code block."""

TEXT_BLOCK = "{Words45}.\n{Words35}.\n\n"
"""Plain paragraphs with no headings: one long run of token windows."""

OPEN_COMMENT_BLOCK = "function f{n}() {{ /* open {n}\n  return g{n}(); }}\n"
"""A script whose first `/*` never closes: tree-sitter re-reads the rest of the file from
each position after it, unless refdoc-site stops it."""

KINDS = {
    "python": ("python", PYTHON_BLOCK),
    "javascript": ("javascript", JAVASCRIPT_BLOCK),
    "markdown": ("markdown", MARKDOWN_BLOCK),
    "text": ("text", TEXT_BLOCK),
    "open-comment": ("javascript", OPEN_COMMENT_BLOCK),
}
"""Kind → (language, the block its files repeat)."""
DEFAULT_KINDS = ("python", "javascript", "markdown", "text")


class _Filler(dict):
    """Fills a block: `{n}` its number, `{n%50}` that modulo 50, `{words6}` six random
    words (`{Words6}` capitalised)."""

    def __init__(self, rng: random.Random, number: int) -> None:
        super().__init__()
        self.rng, self.number = rng, number

    def __missing__(self, key: str) -> str:
        if key == "n":
            return str(self.number)
        if key.startswith("n%"):
            return str(self.number % int(key[2:]))
        words = " ".join(self.rng.choice(WORDS) for _ in range(int(key[5:])))
        return words.capitalize() if key[0] == "W" else words


def generated_text(kind: str, size: float) -> str:
    """About `size` bytes of blocks of one kind, the same for every run."""
    rng = random.Random(f"{kind}-{size}")
    parts: list[str] = []
    length = 0
    number = 0
    while length < size:
        part = KINDS[kind][1].format_map(_Filler(rng, number))
        parts.append(part)
        length += len(part)
        number += 1
    return "".join(parts)


def time_one_file(kind: str, size: float) -> dict:
    """Seconds to chunk, analyze and summarize one generated file, and its chunk count."""
    import hashlib

    from refdoc_site.core.config import ChunkSettings
    from refdoc_site.core.records import SourceFile
    from refdoc_site.indexing.analyze import SyntaxAnalyzer
    from refdoc_site.indexing.chunk import chunk_file
    from refdoc_site.indexing.summarize import ExtractiveSummarizer

    text = generated_text(kind, size)
    data = text.encode("utf-8")
    language = KINDS[kind][0]
    source = SourceFile(f"generated-{kind}", language, len(data), hashlib.sha256(data).hexdigest())
    analyzer, summarizer = SyntaxAnalyzer(), ExtractiveSummarizer()
    started = time.perf_counter()
    chunks = chunk_file(source, text, ChunkSettings())
    analysis = analyzer.analyze(source, text, chunks)
    for chunk in chunks:
        summarizer.summarize(chunk, analysis.metadata[chunk.id])
    return {"seconds": time.perf_counter() - started, "chunks": len(chunks)}


def measure(kinds: list[str], sizes: list[float]) -> dict[str, dict[float, dict]]:
    results: dict[str, dict[float, dict]] = {}
    for kind in kinds:
        results[kind] = {}
        for size in sizes:
            results[kind][size] = time_one_file(kind, size * MB)
            print(f"  {kind} {size:g} MB: {results[kind][size]['seconds']:.2f} s", file=sys.stderr, flush=True)
    return results


def measure_in_child(checkout: Path, kinds: list[str], sizes: list[float]) -> dict[str, dict[float, dict]]:
    """The same measurement with another checkout's refdoc_site first on the import path."""
    command = [sys.executable, __file__, "--child", "--kinds", ",".join(kinds), "--sizes", ",".join(f"{s:g}" for s in sizes)]
    environment = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    output = subprocess.run(command, env=environment, check=True, stdout=subprocess.PIPE, text=True).stdout
    raw = json.loads(output)
    return {kind: {float(size): row for size, row in rows.items()} for kind, rows in raw.items()}


def table(columns: dict[str, dict[str, dict[float, dict]]], sizes: list[float]) -> str:
    """One row per kind and size; per code version, seconds and seconds/MB relative to the first size."""
    header = "| kind | MB | chunks |" + "".join(f" {name} s | {name} ratio |" for name in columns)
    lines = [header, "|" + "---|" * (3 + 2 * len(columns))]
    first = next(iter(columns.values()))
    for kind, rows in first.items():
        for size in sizes:
            cells = [kind, f"{size:g}", str(rows[size]["chunks"])]
            for results in columns.values():
                seconds = results[kind][size]["seconds"]
                per_mb_first = results[kind][sizes[0]]["seconds"] / sizes[0]
                cells += [f"{seconds:.2f}", f"{seconds / size / per_mb_first:.2f}"]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,4,8,16", help="file sizes in MB, comma-separated")
    parser.add_argument("--kinds", default=",".join(DEFAULT_KINDS), help="comma-separated: " + ", ".join(KINDS))
    parser.add_argument("--baseline", type=Path, help="another refdoc-site checkout to measure too")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = [float(size) for size in args.sizes.split(",")]
    kinds = args.kinds.split(",")
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"--kinds: unknown {', '.join(unknown)}; choose from {', '.join(KINDS)}")
    if args.child:
        print(json.dumps(measure(kinds, sizes)))
        return 0
    columns: dict[str, dict[str, dict[float, dict]]] = {}
    if args.baseline is not None:
        print(f"baseline: {args.baseline}", file=sys.stderr)
        columns["baseline"] = measure_in_child(args.baseline, kinds, sizes)
    print("current code", file=sys.stderr)
    columns["current"] = measure_in_child(HERE.parent, kinds, sizes)
    print(table(columns, sizes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
