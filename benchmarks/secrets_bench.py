"""How many real credential formats the redactor removes, and how much else it touches.

    python benchmarks/secrets_bench.py                 # the table, PASS/FAIL per target
    python benchmarks/secrets_bench.py --misses        # and every sample the redactor got wrong
    python benchmarks/secrets_bench.py --json out.json

A labelled file set is made at run time from a fixed seed (`--seed`): positives of every
format in `secret_formats.py` (each in several of the contexts of `secret_contexts.py`)
and the structured ones of `secret_structures.py`; negatives and fixtures from
`secret_negatives.py`. Two scanners read it:

- `refdoc`: the shipped `Redactor().redact(text, path)`. A positive is caught when no
  piece of its value survives (no 10-character slice of it, or the whole of a shorter
  value, is in the output unless the rest of the file holds that slice too); a negative
  is a false positive when the output differs from the input in any way.
- `detect-secrets`: its default plugins and filters (`default_settings()`,
  `SecretsCollection.scan_file`) over the same files written to a temporary folder. It
  reports lines, not spans: a positive is caught when it reports a line the credential
  stands on, a negative is a false positive when it reports anything.

Targets: recall ≥ 0.98 over all positives, false positives ≤ 1 % of the negatives.
(The file is not called `secrets.py`: with `benchmarks/` on `sys.path`, as tests put it,
that name would stand in for the standard library's `secrets` module, which pydantic and
starlette import.)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from secret_contexts import NAMED, NEUTRAL  # noqa: E402
from secret_formats import FORMATS  # noqa: E402
from secret_negatives import FIXTURES, NEGATIVES  # noqa: E402
from secret_structures import structures  # noqa: E402

SEED = 20261201
RECALL_TARGET = 0.98
FALSE_POSITIVE_TARGET = 0.01
NEGATIVE_COPIES = 4
"""Each negative maker is run this many times, with fresh random values."""
PIECE = 10
"""A slice of a secret this long surviving in the output is a leak."""
COMMIT_FILE = "COMMIT_EDITMSG"
"""Where a commit message (path "") is written for detect-secrets, which needs a file."""


@dataclass(frozen=True)
class Sample:
    label: str
    """positive, negative or fixture."""
    provider: str
    """The table row: a credential kind for positives, a category for the others."""
    context: str
    path: str
    text: str
    values: tuple[str, ...] = ()
    """What must be gone from the redacted text (positives)."""
    region: str = ""
    """The stretch of text the credential takes, to match a reported line number."""


def labelled_samples(seed: int = SEED) -> list[Sample]:
    rng = random.Random(seed)
    samples: list[Sample] = []
    for index, fmt in enumerate(FORMATS):
        if fmt.prefixed:
            contexts = [NEUTRAL[(index + k) % len(NEUTRAL)] for k in (0, 4, 8)] + [NAMED[(index + k) % len(NAMED)] for k in (0, 7)]
        else:
            contexts = [NAMED[(index + k) % len(NAMED)] for k in (0, 3, 6, 9, 12)]
        for context in contexts:
            value = fmt.make(rng)
            path, text = context(fmt.name, fmt.client, value)
            samples.append(Sample("positive", fmt.provider, context.__name__, path, text, (value,), value))
    for provider, make in structures():
        path, text, values, region = make(rng)
        samples.append(Sample("positive", provider, "", path, text, values, region))
    for label, makers, copies in (("negative", NEGATIVES, NEGATIVE_COPIES), ("fixture", FIXTURES, 1)):
        for category, make in makers:
            made = {make(rng) for _ in range(copies)}  # a maker with nothing random counts once
            samples += [Sample(label, category, "", path, text) for path, text in sorted(made)]
    return samples


# --- judging --------------------------------------------------------------------------


def leaked(sample: Sample, output: str) -> bool:
    """Whether any piece of the sample's values is still in `output`."""
    rest = sample.text
    for value in sample.values:
        rest = rest.replace(value, "\0")
    for value in sample.values:
        size = min(PIECE, len(value))
        for start in range(len(value) - size + 1):
            piece = value[start : start + size]
            if piece in output and piece not in rest:
                return True
    return False


def region_lines(sample: Sample) -> set[int]:
    """The 1-based lines the credential stands on."""
    start = sample.text.find(sample.region)
    if start < 0:
        raise ValueError(f"{sample.provider}/{sample.context}: region not in its text")
    first = sample.text.count("\n", 0, start) + 1
    return set(range(first, first + sample.region.count("\n") + 1))


def judge_refdoc(samples: list[Sample]) -> list[bool]:
    """Per sample, whether the shipped redactor got it right."""
    from refdoc_site.core.redact import Redactor  # lazy: the benchmark's own imports stay light

    redactor = Redactor()
    verdicts = []
    for sample in samples:
        output = redactor.redact(sample.text, sample.path).text
        verdicts.append(not leaked(sample, output) if sample.label == "positive" else output == sample.text)
    return verdicts


def judge_detect_secrets(samples: list[Sample]) -> list[bool]:
    """Per sample, whether detect-secrets with its defaults got it right."""
    from detect_secrets import SecretsCollection  # lazy: only this scanner needs it
    from detect_secrets.settings import default_settings

    with tempfile.TemporaryDirectory(prefix="secrets-bench-") as folder:
        names = []
        for index, sample in enumerate(samples):
            name = f"{index}/{sample.path or COMMIT_FILE}"
            (Path(folder) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / name).write_text(sample.text, encoding="utf-8")
            names.append(name)
        found = SecretsCollection(root=folder)
        with default_settings():
            for name in names:
                found.scan_file(name)
        reported = {name: {secret.line_number for secret in found[name]} for name in found.files}
    verdicts = []
    for sample, name in zip(samples, names):
        lines = reported.get(name, set())
        verdicts.append(bool(lines & region_lines(sample)) if sample.label == "positive" else not lines)
    return verdicts


SCANNERS = {"refdoc": judge_refdoc, "detect-secrets": judge_detect_secrets}


@dataclass
class Row:
    label: str
    provider: str
    samples: int
    right: dict[str, int]


def tally(samples: list[Sample], verdicts: dict[str, list[bool]]) -> list[Row]:
    rows: dict[tuple[str, str], Row] = {}
    for index, sample in enumerate(samples):
        row = rows.setdefault((sample.label, sample.provider), Row(sample.label, sample.provider, 0, defaultdict(int)))
        row.samples += 1
        for scanner, judged in verdicts.items():
            row.right[scanner] += judged[index]
    return list(rows.values())


def totals(rows: list[Row], scanner: str) -> dict[str, float]:
    positives = [r for r in rows if r.label == "positive"]
    negatives = [r for r in rows if r.label == "negative"]
    caught = sum(r.right[scanner] for r in positives)
    kept = sum(r.right[scanner] for r in negatives)
    n_pos, n_neg = sum(r.samples for r in positives), sum(r.samples for r in negatives)
    return {
        "positives": n_pos, "caught": caught, "recall": caught / n_pos if n_pos else 1.0,
        "negatives": n_neg, "false_positives": n_neg - kept, "false_positive_rate": (n_neg - kept) / n_neg if n_neg else 0.0,
    }


# --- the report -----------------------------------------------------------------------


def _table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *body)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, body)])


def report(rows: list[Row], scanners: list[str]) -> str:
    out = []
    positive_rows = [r for r in rows if r.label == "positive"]
    out.append(f"## Positives: recall per credential kind ({len(positive_rows)} kinds)\n")
    out.append(_table(["credential", "n", *scanners], [[r.provider, r.samples, *(f"{r.right[s]}/{r.samples}" for s in scanners)] for r in positive_rows]))
    for label, title in (("negative", "Negatives: false positives per category"), ("fixture", "Fixtures (neither target): files changed")):
        chosen = [r for r in rows if r.label == label]
        out.append(f"\n## {title}\n")
        out.append(_table(["category", "n", *scanners], [[r.provider, r.samples, *(r.samples - r.right[s] for s in scanners)] for r in chosen]))
    out.append("\n## Targets\n")
    body = []
    for scanner in scanners:
        t = totals(rows, scanner)
        body.append([scanner, f"{t['caught']}/{t['positives']}", f"{t['recall']:.3f}", "PASS" if t["recall"] >= RECALL_TARGET else "FAIL",
                     f"{t['false_positives']}/{t['negatives']}", f"{t['false_positive_rate']:.1%}",
                     "PASS" if t["false_positive_rate"] <= FALSE_POSITIVE_TARGET else "FAIL"])
    out.append(_table(["scanner", "caught", "recall", f"≥ {RECALL_TARGET}", "false positives", "rate", f"≤ {FALSE_POSITIVE_TARGET:.0%}"], body))
    return "\n".join(out)


def misses(samples: list[Sample], judged: list[bool]) -> str:
    lines = []
    for sample, right in zip(samples, judged):
        if right or sample.label == "fixture":
            continue
        where = sample.path or "(commit message)"
        kind = "missed" if sample.label == "positive" else "changed"
        first = next((line for line in sample.text.splitlines() if any(v[:12] in line for v in sample.values)), sample.text.splitlines()[0])
        lines.append(f"{kind}  {sample.provider}  {where}  [{sample.context}]  {first.strip()[:100]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--scanners", default=",".join(SCANNERS), help="comma-separated: " + ", ".join(SCANNERS))
    parser.add_argument("--every", type=int, default=1, help="keep every Nth sample (a quick slice)")
    parser.add_argument("--misses", action="store_true", help="list the samples the redactor got wrong")
    parser.add_argument("--json", type=Path, help="write the rows and totals here")
    args = parser.parse_args(argv)
    scanners = [s for s in args.scanners.split(",") if s]
    samples = labelled_samples(args.seed)[:: args.every]
    verdicts = {scanner: SCANNERS[scanner](samples) for scanner in scanners}
    rows = tally(samples, verdicts)
    print(f"{sum(s.label == 'positive' for s in samples)} positives, {sum(s.label == 'negative' for s in samples)} negatives, "
          f"{sum(s.label == 'fixture' for s in samples)} fixtures; seed {args.seed}\n")
    print(report(rows, scanners))
    if args.misses and "refdoc" in verdicts:
        print("\n## What the redactor got wrong\n")
        print(misses(samples, verdicts["refdoc"]))
    if args.json:
        args.json.write_text(json.dumps({"rows": [asdict(r) for r in rows], "totals": {s: totals(rows, s) for s in scanners}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
