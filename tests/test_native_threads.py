"""The forked workers of the index phase run numpy's BLAS on one thread each (issue 21):
numpy is loaded before the fork, so its pool is sized to every core in each worker."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from refdoc_site.core.processes import can_fork, forked_map


def blas_threads(_item: int) -> list[int]:
    """In the worker: the thread count of every BLAS pool numpy has loaded."""
    np.ones((4, 4)) @ np.ones((4, 4))
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


@pytest.mark.skipif(not can_fork(), reason="no forked workers here: one core or no fork")
def test_each_forked_worker_runs_blas_on_one_thread():
    np.ones((4, 4)) @ np.ones((4, 4))  # numpy's BLAS loaded in the parent, as in a build
    reports = forked_map(blas_threads, list(range(16)), "threads")
    assert reports and all(report == [1] for report in reports), reports


@pytest.mark.skipif(not can_fork(), reason="no forked workers here: one core or no fork")
def test_the_parent_keeps_its_own_blas_threads():
    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    forked_map(blas_threads, list(range(16)), "threads")
    assert [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"] == before


def test_work_done_in_this_process_runs_blas_on_one_thread_and_gives_the_pool_back():
    """Too few files for a pool (or language servers that stay in the process): the same
    limit as a worker's while the work runs, numpy's own pool after."""
    np.ones((4, 4)) @ np.ones((4, 4))
    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert forked_map(blas_threads, [1, 2], "threads", parallel=False) == [[1]] * 2
    assert [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"] == before
