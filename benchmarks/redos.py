"""CPU seconds per MB of hostile text through every stage that reads a file's text.

    python benchmarks/redos.py                      # 10 KB, 100 KB and 1 MB of each case
    python benchmarks/redos.py --cases single-line-triggers --stages redact
    python benchmarks/redos.py --sizes 2,20 --budget 5   # a quick look

Each case (`CASES`) is text made to make a backtracking regex work: lines of repeated
trigger words, thousands of `BEGIN PRIVATE KEY` lines, one 1 MB line, a 1 MB commit
message, deep nesting, long runs of `[\\w$@.-]`, unclosed comments. Each stage
(`redos_stages.STAGES`) is one step of the build on it: the redactor, the chunker of
each kind of file, both analysis tiers, the offline summaries, the search terms, the
docstring parser, the commit-message reader. `--sweep` adds every module-level regular
expression of the indexing, language, writing and search modules on its own, over the
whole text (more than the build gives most of them: a row there is a place to look).

A stage runs on the sizes in increasing order, in a forked child; the next size is
skipped when the growth so far predicts it would take over `--budget` seconds (the
prediction is shown instead), and a child that reports nothing for `--timeout` seconds
is killed and the stage marked `timeout`. Seconds per MB are those of the largest size
(measured or predicted); the exponent is the growth between the two largest measured
sizes (1 is linear, 2 quadratic). Target: ≤ 5 s/MB for every case and stage.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from redos_cases import CASES  # noqa: E402
from redos_stages import STAGES, sweep_stages  # noqa: E402

TARGET_SECONDS_PER_MB = 5.0
KB = 1000
QUADRATIC_EXPONENT = 1.5
"""Growth above this between the two largest sizes (and a stage that takes a while at
all) is marked as worse than linear."""
WARM_UP = 200
"""Characters of a first, untimed run of each stage."""
REPEATS = 5
REPEAT_BELOW = 0.5
NOISE_SECONDS = 0.05
GROWTH_FLOOR = 0.005
"""A smaller time than this gives no growth (a text too small to make a chunk takes none)."""
"""Below this a time says nothing about growth: too much of it is the clock."""


@dataclass
class Result:
    case: str
    stage: str
    seconds: dict[int, float] = field(default_factory=dict)
    """Measured seconds by size in bytes."""
    predicted: tuple[int, float] | None = None
    """(size, seconds) of a size skipped because the growth so far predicts too long."""
    timed_out: int = 0
    """The size at which the child stopped answering (0: it did not)."""
    error: str = ""

    def seconds_per_mb(self) -> float:
        if self.timed_out:
            return math.inf
        size, seconds = self.predicted or max(self.seconds.items())
        return seconds / (size / 1_000_000)

    def exponent(self) -> float | None:
        measured = sorted(self.seconds.items())
        if len(measured) < 2 or measured[-1][1] < NOISE_SECONDS or measured[-2][1] < GROWTH_FLOOR:
            return None
        (small, t_small), (large, t_large) = measured[-2:]
        return math.log(max(t_large, 1e-6) / max(t_small, 1e-6)) / math.log(large / small)

    def passed(self) -> bool:
        return not self.error and self.seconds_per_mb() <= TARGET_SECONDS_PER_MB

    def worse_than_linear(self) -> bool:
        exponent = self.exponent()
        return self.timed_out > 0 or (exponent is not None and exponent > QUADRATIC_EXPONENT)


def _predict(measured: list[tuple[int, float]], next_size: int) -> float:
    size, seconds = measured[-1]
    exponent = 1.0
    if len(measured) >= 2 and seconds >= NOISE_SECONDS and measured[-2][1] >= GROWTH_FLOOR:
        small, t_small = measured[-2]
        exponent = max(1.0, math.log(seconds / max(t_small, 1e-6)) / math.log(size / small))
    return seconds * (next_size / size) ** exponent


def _fastest(stage, prepared) -> float:
    """The fastest of up to `REPEATS` runs while they take under `REPEAT_BELOW` seconds in
    all, in CPU seconds of the child: on a shared machine the wall clock measures the other
    sessions' share of the cores (a 3 s stage took 25 s of wall time at a load of 16)."""
    times: list[float] = []
    while len(times) < REPEATS and sum(times) < REPEAT_BELOW:
        began = time.process_time()
        stage.run(prepared)
        times.append(time.process_time() - began)
    return min(times)


def _child(jobs, start: int, sizes: list[int], budget: float, connection) -> None:
    for index in range(start, len(jobs)):
        case, stage = jobs[index]
        measured: list[tuple[int, float]] = []
        try:
            stage.run(stage.prepare(CASES[case](WARM_UP)))  # imports and caches are not the stage's time
        except Exception:
            pass  # the measured runs report it
        for size in sizes:
            if measured and (guess := _predict(measured, size)) > budget:
                connection.send(("predicted", index, size, guess))
                break
            connection.send(("size", index, size))
            try:
                prepared = stage.prepare(CASES[case](size))
                seconds = _fastest(stage, prepared)
            except Exception as error:  # a stage that fails on a case is reported, the rest go on
                connection.send(("error", index, f"{type(error).__name__}: {error}"[:200]))
                break
            measured.append((size, seconds))
            connection.send(("time", index, size, seconds))
        connection.send(("done", index))
    connection.send(("finished",))


def measure(jobs: list[tuple[str, object]], sizes: list[int], budget: float, timeout: float, progress: bool = False) -> list[Result]:
    """Every (case, stage) job at the sizes, in forked children: one runs the jobs in order,
    and a new one takes over after the job a killed one was stuck in."""
    context = multiprocessing.get_context("fork")
    results = [Result(case, stage.name) for case, stage in jobs]
    start = 0
    while start < len(jobs):
        receiver, sender = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(jobs, start, sizes, budget, sender), daemon=True)
        child.start()
        sender.close()
        current, size_now = start, 0
        while True:
            if not receiver.poll(timeout):
                child.kill()
                results[current].timed_out = size_now or sizes[0]
                if progress:
                    print(f"{current + 1}/{len(jobs)} {results[current].case}: {results[current].stage} timeout", file=sys.stderr)
                start = current + 1
                break
            try:
                message = receiver.recv()
            except EOFError:
                results[current].error = results[current].error or "the child died"
                start = current + 1
                break
            kind = message[0]
            if kind == "finished":
                start = len(jobs)
                break
            current = message[1]
            if kind == "size":
                size_now = message[2]
            elif kind == "time":
                results[current].seconds[message[2]] = message[3]
            elif kind == "predicted":
                results[current].predicted = (message[2], message[3])
            elif kind == "error":
                results[current].error = message[2]
            elif kind == "done":
                size_now = 0
                if progress:
                    print(f"{current + 1}/{len(jobs)} {results[current].case}: {results[current].stage} {_cell(results[current])}", file=sys.stderr)
        child.join(1)
        receiver.close()
    return results


def _cell(result: Result) -> str:
    if result.error:
        return "error"
    if result.timed_out:
        return f"timeout@{result.timed_out // KB}K"
    rate = result.seconds_per_mb()
    mark = "" if result.passed() else " ✗"
    prefix = "≈" if result.predicted else ""
    return f"{prefix}{rate:.3g}{mark}"


def _table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *body)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, body)])


def report(results: list[Result], cases: list[str], sizes: list[int]) -> str:
    by_key = {(r.case, r.stage): r for r in results}
    stages = list(dict.fromkeys(r.stage for r in results))
    out = [f"seconds per MB at {sizes[-1] // KB} KB (≈ predicted from the growth, ✗ over {TARGET_SECONDS_PER_MB:g} s/MB)\n"]
    pipeline = [s for s in stages if not s.startswith("re ")]
    columns = list(range(len(cases)))
    out.append(_table(["stage", *(f"c{i + 1}" for i in columns)], [[s, *(_cell(by_key[(cases[i], s)]) for i in columns)] for s in pipeline]))
    out.append("\n" + "\n".join(f"c{i + 1} = {case}" for i, case in enumerate(cases)))
    swept = [r for r in results if r.stage.startswith("re ")]
    if swept:
        flagged = [r for r in swept if not r.passed() or r.worse_than_linear()]
        out.append(f"\nregex sweep: {len({r.stage for r in swept})} expressions × {len(cases)} cases, {len(flagged)} flagged")
    failing = [r for r in results if not r.passed() or r.worse_than_linear()]
    if failing:
        out.append("\n## Over the target or worse than linear\n")
        body = []
        for r in failing:
            times = ", ".join(f"{size // KB} KB {seconds:.3g} s" for size, seconds in sorted(r.seconds.items()))
            if r.predicted:
                times += f", {r.predicted[0] // KB} KB ≈{r.predicted[1]:.3g} s"
            if r.timed_out:
                times += f", {r.timed_out // KB} KB timeout"
            exponent = r.exponent()
            body.append([r.case, r.stage, times, "" if exponent is None else f"{exponent:.2f}", "PASS" if r.passed() else "FAIL"])
        out.append(_table(["case", "stage", "seconds", "exponent", f"≤ {TARGET_SECONDS_PER_MB:g} s/MB"], body))
    verdict = "PASS" if all(r.passed() for r in results) else "FAIL"
    out.append(f"\n{verdict}: {sum(r.passed() for r in results)}/{len(results)} case × stage pairs within {TARGET_SECONDS_PER_MB:g} s/MB")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,10,100,1000", help="sizes in KB, increasing (default 1,10,100,1000)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated, of: " + ", ".join(CASES))
    parser.add_argument("--stages", default="", help="comma-separated stage names (default all)")
    parser.add_argument("--sweep", action="store_true", help="also every module-level regex on its own")
    parser.add_argument("--budget", type=float, default=600.0, help="skip a size predicted to take longer (CPU s); "
                        "high by default, since the product's own budgets cut growth short that a prediction extends")
    parser.add_argument("--timeout", type=float, default=120.0, help="kill a child silent this long (wall s)")
    parser.add_argument("--quiet", action="store_true", help="no line per finished stage on stderr")
    args = parser.parse_args(argv)
    sizes = [int(float(s) * KB) for s in args.sizes.split(",")]
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        parser.error(f"--cases: unknown {', '.join(unknown)}; choose from {', '.join(CASES)}")
    stages = [s for s in STAGES if not args.stages or s.name in args.stages.split(",")]
    if args.sweep:
        stages += sweep_stages()
    jobs = [(case, stage) for case in cases for stage in stages]
    began = time.perf_counter()
    results = measure(jobs, sizes, args.budget, args.timeout, progress=not args.quiet)
    print(report(results, cases, sizes))
    print(f"({time.perf_counter() - began:.0f} s in all; {multiprocessing.cpu_count()} cores)")
    return 0 if all(r.passed() for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
