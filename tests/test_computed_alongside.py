"""`computed_alongside` (core/processes.py): a value worked out in a forked process while the
caller goes on, the same value it would compute itself, its errors raised where asked."""

from __future__ import annotations

import os

import pytest

from refdoc_site.core.processes import can_fork, computed_alongside


def _where(number: int) -> tuple[int, int]:
    return os.getpid(), number * 2


def _fails(number: int) -> int:
    raise ValueError(f"no {number}")


def test_the_value_is_worked_out_in_another_process_while_the_body_runs() -> None:
    assert can_fork()  # CI's machine has two cores
    with computed_alongside(_where, (21,)) as value:
        mine = os.getpid()
        pid, doubled = value()
        assert value() == (pid, doubled)  # asked again, the same answer
    assert doubled == 42 and pid != mine


def test_without_forking_the_value_is_worked_out_here_once() -> None:
    calls = []

    def counted(number: int) -> tuple[int, int]:
        calls.append(number)
        return _where(number)

    with computed_alongside(counted, (4,), parallel=False) as value:
        assert calls == []  # not before it is asked
        assert value() == (os.getpid(), 8) and value() == (os.getpid(), 8)
    assert calls == [4]


@pytest.mark.parametrize("parallel", [True, False])
def test_an_error_is_raised_where_the_value_is_asked(parallel: bool) -> None:
    with computed_alongside(_fails, (3,), parallel) as value:
        with pytest.raises(ValueError, match="no 3"):
            value()
