"""CPU seconds a piece of work may take, counted on the calling thread.

Hostile text is bounded by CPU time rather than wall time: on a loaded machine (a CI
runner shared with other jobs) wall time passes while the work waits, and an honest
file would be cut short. The call-argument reader and the redactor each
give a file a budget of their own and ask it whether it has run out (the parser in
`languages/`, below `core/`, reads the same clock itself).
"""

from __future__ import annotations

import time


class CpuBudget:
    """`seconds` of this thread's CPU time from now."""

    EVERY = 64
    """`passed()` reads the clock every this many questions (a question from each node of
    a tree must stay cheap)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.thread_time() + seconds
        self.asked = 0
        self.over = False

    def exceeded(self) -> bool:
        """Whether the budget is spent, by the clock now."""
        return time.thread_time() > self.end

    def passed(self) -> bool:
        """Whether the budget is spent, by the clock read every `EVERY` questions; once
        spent, it stays spent."""
        self.asked += 1
        if not self.over and self.asked % self.EVERY == 0:
            self.over = self.exceeded()
        return self.over
