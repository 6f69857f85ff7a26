"""Test-only kill points: where a build may be cut short, numbered, so that a test can
SIGKILL the build at the k-th one and check that the next build finishes from what it left.

Set `REFDOC_TEST_KILL_AT=k` (k ≥ 1) and the process kills itself, outright and without
cleanup, right after its k-th kill point: each durable write to the store (an atomic
rename, an index journal line) and each phase boundary. While the variable is set, every
kill point passed is also printed to stderr (`kill point N: what`), so that a test counts
them on a whole build. Unset, a kill point costs one dictionary lookup. Forked children
never count nor kill: only the process that loaded this module first does.
"""

from __future__ import annotations

import os
import signal
import sys

KILL_AT_ENV = "REFDOC_TEST_KILL_AT"

_main_pid = os.getpid()
_passed = 0


def kill_point(what: str) -> None:
    """Count one kill point; SIGKILL this process when it is the one `REFDOC_TEST_KILL_AT` names."""
    global _passed
    wanted = os.environ.get(KILL_AT_ENV)
    if not wanted or os.getpid() != _main_pid:
        return
    _passed += 1
    print(f"kill point {_passed}: {what}", file=sys.stderr, flush=True)
    if _passed == int(wanted):
        os.kill(os.getpid(), signal.SIGKILL)
