"""How `refdoc-site ask` answers without an LLM, on every labelled set: how often the
extractive answer's first sentence names a relevant definition (and its first name is
one), how often its top 3 cited sources hold one, how often a question about the code is
wrongly "not found", and how often a question about nothing in the repository is rightly
"not found"; per set, then pooled over the tuned sets and over the held-out ones.

    python benchmarks/ask_quality.py [--sets click,requests,...] [--cache DIR]
                                     [--corpus NAME=DIR ...] [--calibrate] [--json FILE]
                                     [--stores DIR]

The labelled sets and their corpora are `search_quality.py`'s (fetched the same way).
The off-topic questions are `eval/not-found.jsonl`: ten per labelled set, about what other
kinds of program do (in the set's own language: Japanese for httpx-ja), written before any
threshold was tried on them and asked of that set's corpus only. Every question goes through `ask()` itself, with no LLM; `median ms` is its wall
time per labelled question (the library already open).

The first sentence is read from the answer's text as a reader reads it: the paragraph
before the list, up to its first sentence stop (`.`, `!` or `?` and a space, or `。`);
a definition is named there when a link of that sentence goes to its anchor on the site
(`core/pages.chunk_url` of a relevant path and symbol). A summary that holds a stop of its
own ends the sentence early, so the measure can only undercount. `lead relevant` counts
the sentence's first link only.

`--calibrate` also prints, for a grid of the two relevance thresholds
(`asking/retrieval.py`: the question's cosine to a chunk, and the share of its terms the
chunk holds), the figures pooled over the tuned sets and over the held-out ones: the
thresholds were chosen on the tuned rows only (see benchmarks/README.md, "Ask").
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from run import _table
from search_quality import EVAL_DIR, add_set_options, chosen_sets

from refdoc_site.asking import retrieval
from refdoc_site.asking.answer import ask
from refdoc_site.asking.library import Library
from refdoc_site.core.config import Config
from refdoc_site.core.pages import chunk_url
from refdoc_site.pipeline import Workspace, index, summarize
from refdoc_site.search.evaluate import load_queries

NOT_FOUND_FILE = EVAL_DIR / "not-found.jsonl"
TOP = 3
SENTENCE_STOP = re.compile(r"(?<=[.!?])\s+|(?<=。)")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
COSINES = (-9.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 9.0)
COVERAGES = (-9.0, 0.25, 0.3, 0.34, 0.4, 0.5, 0.6, 0.67, 0.75, 0.8, 1.0, 9.0)
"""9.0: that signal off; -9.0: every hit kept (the row of both is the search without a threshold)."""


@dataclass
class Signals:
    """One question's ranked hits: (relevant?, cosine, coverage) each, best first."""

    hits: list[tuple[bool, float, float]]

    def kept(self, cosine: float, coverage: float) -> list[bool]:
        return [relevant for relevant, c, v in self.hits if c >= cosine or v >= coverage]


@dataclass
class Figures:
    questions: int = 0
    answered: int = 0
    top3: int = 0
    listed: int = 0
    """Answers with a relevant definition anywhere among the sources they list."""
    first: int = 0
    """Answers whose first sentence links to a relevant definition."""
    lead: int = 0
    """Answers whose first sentence's first link is to a relevant definition."""
    seconds: list[float] = field(default_factory=list)
    """Each `ask()`'s wall time."""

    def median_ms(self) -> str:
        return f"{statistics.median(self.seconds) * 1000:.0f}" if self.seconds else "-"

    def rate(self, count: int) -> str:
        return f"{count / self.questions:.3f}" if self.questions else "-"

    def add(self, other: Figures) -> None:
        self.questions += other.questions
        self.answered += other.answered
        self.top3 += other.top3
        self.listed += other.listed
        self.first += other.first
        self.lead += other.lead
        self.seconds += other.seconds


def first_sentence_links(text: str) -> list[str]:
    """The link targets of an answer's first sentence, in order (see the module's docstring)."""
    paragraph = text.split("\n\n", 1)[0]
    return LINK_TARGET.findall(SENTENCE_STOP.split(paragraph, 1)[0])


def off_topic(name: str) -> list[str]:
    """The off-topic questions written for the labelled set `name`."""
    items = [json.loads(line) for line in NOT_FOUND_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [item["query"] for item in items if item["set"] == name]


def open_library(folder: Path, temporary: Path) -> Library:
    workspace = Workspace.create(folder, Config(), temporary / "store", temporary / "site")
    index(workspace)
    summarize(workspace)
    return Library.open(workspace)


def measure(library: Library, labelled, questions: list[str]) -> tuple[Figures, Figures, list[Signals], list[Signals]]:
    """`ask()` on the labelled queries (answered, top 3 relevant) and the off-topic ones
    (answered wrongly), and the signals of both for the calibration grid."""
    found, off = Figures(), Figures()
    found_signals, off_signals = [], []
    for query in labelled:
        started = time.perf_counter()
        answer = ask(query.query, library, None)
        found.seconds.append(time.perf_counter() - started)
        found.questions += 1
        found.answered += answer.mode != "not_found"
        found.top3 += any((s.path, s.symbol) in query.relevant for s in answer.sources[:TOP])
        found.listed += any((s.path, s.symbol) in query.relevant for s in answer.sources)
        if answer.mode == "extractive":
            anchors = {chunk_url(path, symbol) for path, symbol in query.relevant}
            links = first_sentence_links(answer.text)
            found.first += any(link in anchors for link in links)
            found.lead += bool(links) and links[0] in anchors
        ranked = retrieval.ranked(query.query, library)
        found_signals.append(Signals([((r.hit.path, r.hit.symbol) in query.relevant, r.cosine, r.coverage) for r in ranked]))
    for question in questions:
        answer = ask(question, library, None)
        off.questions += 1
        off.answered += answer.mode != "not_found"
        off_signals.append(Signals([(False, r.cosine, r.coverage) for r in retrieval.ranked(question, library)]))
    return found, off, found_signals, off_signals


def grid(found: list[Signals], off: list[Signals]) -> list[list[str]]:
    rows = []
    for cosine in COSINES:
        for coverage in COVERAGES:
            top3 = sum(any(s.kept(cosine, coverage)[:TOP]) for s in found)
            answered = sum(bool(s.kept(cosine, coverage)) for s in found)
            rejected = sum(not s.kept(cosine, coverage) for s in off)
            rows.append([
                _cell(cosine), _cell(coverage),
                f"{top3 / max(len(found), 1):.3f}", f"{answered / max(len(found), 1):.3f}", f"{rejected / max(len(off), 1):.3f}",
            ])
    return rows


TARGETS = (
    ("off-topic questions \"not found\"", lambda found, off: (off.questions - off.answered) / max(off.questions, 1), ">=", 0.95),
    ("answerable ones wrongly \"not found\"", lambda found, off: (found.questions - found.answered) / max(found.questions, 1), "<=", 0.05),
    ("first sentence names a relevant definition", lambda found, off: found.first / max(found.questions, 1), ">=", 0.80),
)
"""Issue 23's targets for the answer without an LLM, each on the pooled figures."""


def verdicts(found: Figures, off: Figures) -> list[str]:
    lines = []
    for name, measure_of, sense, target in TARGETS:
        value = measure_of(found, off)
        passed = value >= target if sense == ">=" else value <= target
        lines.append(f"{'PASS' if passed else 'FAIL'}  {name}: {value:.3f} (target {sense} {target:.2f})")
    return lines


def row(name: str, language: str, tuned: str, found: Figures, off: Figures | None) -> list[str]:
    return [
        name, language, tuned, str(found.questions), found.rate(found.first), found.rate(found.lead), found.rate(found.top3),
        found.rate(found.listed), found.rate(found.questions - found.answered),
        str(off.questions) if off else "", off.rate(off.questions - off.answered) if off else "", found.median_ms(),
    ]


def _cell(threshold: float) -> str:
    return "off" if threshold > 1 else "all" if threshold < 0 else f"{threshold:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_set_options(parser)
    parser.add_argument("--calibrate", action="store_true", help="also print the threshold grid, tuned and held-out apart")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--stores", type=Path, help="keep each corpus's store under DIR/CORPUS and reuse it on the next run")
    args = parser.parse_args(argv)
    wanted, folders = chosen_sets(parser, args)

    rows, report = [], {}
    signals: dict[bool, tuple[list[Signals], list[Signals]]] = {True: ([], []), False: ([], [])}
    pooled: dict[bool, tuple[Figures, Figures]] = {True: (Figures(), Figures()), False: (Figures(), Figures())}
    for corpus, folder in folders.items():
        sets = [s for s in wanted if s.corpus == corpus]
        with tempfile.TemporaryDirectory() as temporary:
            library = open_library(folder, args.stores / corpus if args.stores else Path(temporary))
            for labelled in sets:
                questions = off_topic(labelled.name)
                found, off, found_signals, off_signals = measure(library, load_queries(EVAL_DIR / labelled.file), questions)
                signals[labelled.tuned][0].extend(found_signals)
                signals[labelled.tuned][1].extend(off_signals)
                pooled[labelled.tuned][0].add(found)
                pooled[labelled.tuned][1].add(off)
                rows.append(row(labelled.name, labelled.language, "tuned" if labelled.tuned else "", found, off if questions else None))
                report[labelled.name] = {
                    "tuned": labelled.tuned, "queries": found.questions, "first_sentence": found.first, "lead": found.lead,
                    "top3": found.top3, "listed": found.listed, "not_found": found.questions - found.answered,
                    "off_topic": off.questions, "off_topic_not_found": off.questions - off.answered,
                    "median_seconds": statistics.median(found.seconds) if found.seconds else None,
                }
    for tuned, label in ((True, "tuned"), (False, "held-out")):
        found, off = pooled[tuned]
        if found.questions:
            rows.append(row(f"({label})", "pooled", "tuned" if tuned else "", found, off))
    print(f"thresholds: cosine >= {retrieval.MIN_COSINE}, or term coverage >= {retrieval.MIN_COVERAGE}")
    print(_table(["set", "language", "tuned", "n", "first sentence relevant", "lead relevant", f"top {TOP} relevant",
                  "listed relevant", "wrongly not found", "off-topic n", "off-topic not found", "median ms"], rows, right_from=3))
    print()
    for tuned, label in ((True, "tuned"), (False, "held-out")):
        found, off = pooled[tuned]
        if found.questions:
            for line in verdicts(found, off):
                print(f"{label:<8}  {line}")
    if args.calibrate:
        for tuned, label in ((True, "tuned"), (False, "held-out")):
            found_signals, off_signals = signals[tuned]
            if not found_signals:
                continue
            print(f"\ngrid, pooled over the {label} sets ({len(found_signals)} labelled, {len(off_signals)} off-topic questions):")
            print(_table(["cosine", "coverage", f"top {TOP} relevant", "answered", "off-topic not found"], grid(found_signals, off_signals), right_from=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
