"""The scaling table `run.py` ends with: does a site, and a build, stay linear in the code?
And what it measures besides the phase times: each phase's resident memory, and the
longest interval the build's log stayed silent.

Per corpus, from the full build's result: the site's bytes per indexed file, in all and
per page kind (site_weight.py's kinds), seconds per file, the largest navigation of a file
page and of a module page, peak RSS and the longest interval without a progress line;
then the targets of issue 21, each PASS or FAIL. Flat bytes and seconds per file from
click (~20 files) to homeassistant (~12,000) mean the site grows with the code, not with
the code times its modules.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

SITE_MB_TARGETS = {"django": 60.0, "homeassistant": 500.0}
"""Issue 21: homeassistant's site fits GitHub Pages' 1 GB twice over; django's in 60 MB."""
PEAK_RSS_TARGET_MB = {"homeassistant": 2048.0}
"""A CI runner's memory (7 GB, shared with the engine and the runner's own tools)."""
SILENCE_TARGET_S = 10.0
"""A progress line at least every 10 s, in every phase."""
KIND_COLUMNS = ("file pages", "module pages", "md copies", "search data")


def _kind_bytes(site: dict, name: str) -> int:
    return (site.get("kinds") or {}).get(name, {}).get("bytes", 0)


def _nav_max(site: dict, name: str) -> str:
    kind = (site.get("kinds") or {}).get(name)
    return f"{kind['nav_max'] / 1000:.1f}" if kind and kind["pages"] else "-"


def scale_rows(entries: list[tuple[dict, dict, dict]]) -> tuple[list[str], list[list[str]]]:
    headers = [
        "corpus", "files", "site MB", "B/file", *(f"{kind} B/file" for kind in KIND_COLUMNS), "rest B/file",
        "s/file", "nav KB max file page", "nav KB max module page", "peak RSS MB", "longest silence s",
    ]
    rows = []
    for info, result, _ in entries:
        full, site = result["full"], result.get("site") or {}
        files = max(full["files"], 1)
        total = site.get("total_bytes", 0)
        kinds = [_kind_bytes(site, kind) for kind in KIND_COLUMNS]
        rows.append([
            f"{info['name']} {info['version']}", str(full["files"]), f"{total / 1e6:.1f}", f"{total / files:,.0f}",
            *(f"{value / files:,.0f}" for value in kinds), f"{(total - sum(kinds)) / files:,.0f}",
            f"{sum(full['seconds'].values()) / files:.3f}", _nav_max(site, "file pages"), _nav_max(site, "module pages"),
            f"{full['peak_rss_mb']:.0f}", f"{full.get('longest_silence_s', 0.0):.1f}",
        ])
    return headers, rows


def verdicts(entries: list[tuple[dict, dict, dict]]) -> list[str]:
    """One line per target that applies to a corpus of the run."""
    lines = []
    for info, result, _ in entries:
        name, full, site = info["name"], result["full"], result.get("site") or {}
        if name in SITE_MB_TARGETS and site:
            mb = site["total_bytes"] / 1e6
            lines.append(f"{name}: site {mb:.1f} MB (target <= {SITE_MB_TARGETS[name]:.0f} MB: {'PASS' if mb <= SITE_MB_TARGETS[name] else 'FAIL'})")
        if name in PEAK_RSS_TARGET_MB:
            rss = full["peak_rss_mb"]
            lines.append(f"{name}: peak RSS {rss:.0f} MB (target <= {PEAK_RSS_TARGET_MB[name]:.0f} MB: {'PASS' if rss <= PEAK_RSS_TARGET_MB[name] else 'FAIL'})")
        silence = full.get("longest_silence_s", 0.0)
        lines.append(
            f"{name}: longest silence {silence:.1f} s, after {full.get('silent_after', '?')!r} "
            f"(target <= {SILENCE_TARGET_S:.0f} s: {'PASS' if silence <= SILENCE_TARGET_S else 'FAIL'})"
        )
    return lines


# --- measured in the build's process and from its log -------------------------------------


class RssSamples:
    """This process's resident memory every half second (the forked workers' are their own),
    to say which phase holds the peak."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        while not self.done.wait(0.5):
            try:
                resident = int(Path("/proc/self/statm").read_text().split()[1]) * page / 2**20
            except (OSError, ValueError, IndexError):
                return
            self.samples.append((time.monotonic(), resident))

    def stop(self) -> None:
        self.done.set()
        self.thread.join()

    def per_phase(self, started: float, seconds: dict[str, float]) -> dict[str, float]:
        """The largest sample within each phase, the phases taken in order from `started`."""
        peaks, start = {}, started
        for phase, length in seconds.items():
            inside = [rss for at, rss in self.samples if start <= at < start + length]
            peaks[phase] = round(max(inside, default=0.0))
            start += length
        return peaks


def logged_lines(process: subprocess.Popen, log) -> tuple[float, str]:
    """Copy the child's output into `log`, each line stamped; returns the longest interval
    without a line (from the start to the first, between two, from the last to the end)
    and the line it followed."""
    started = last = time.monotonic()
    longest, after = 0.0, "(start)"
    previous = "(start)"
    for line in process.stdout:
        now = time.monotonic()
        if now - last > longest:
            longest, after = now - last, previous
        last, previous = now, line.strip()[:120]
        log.write(f"{now - started:8.1f} {line}")
        log.flush()
    if time.monotonic() - last > longest:
        longest, after = time.monotonic() - last, previous
    return longest, after
