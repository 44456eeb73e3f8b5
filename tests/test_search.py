"""ProbDD finds a minimal subset, and the parallel driver decides exactly as the sequential one."""

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from autodd_lsp.search import ProbDD, search


def run_search(size, needed, jobs, log=None, delay=0.0):
    """Applying edit i is fine unless i is in `needed`."""

    def test(indices, cancel):
        if log is not None:
            log.append(tuple(sorted(indices)))
        time.sleep(delay)
        return not (set(indices) & needed)

    with ThreadPoolExecutor(jobs) as pool:
        accepted_states = []
        applied = search(ProbDD(size), test, pool, jobs, accepted_states.append, lambda: False)
    return sorted(applied), accepted_states


def test_probdd_applies_everything_not_needed():
    applied, _ = run_search(40, {3, 17, 18, 39}, jobs=1)
    assert applied == [i for i in range(40) if i not in {3, 17, 18, 39}]


def test_probdd_with_everything_needed_applies_nothing():
    applied, states = run_search(8, set(range(8)), jobs=1)
    assert applied == [] and states == []


@pytest.mark.parametrize("jobs", [2, 3])
def test_parallel_driver_makes_the_sequential_decisions(jobs):
    needed = {1, 5, 6, 11, 20, 21, 22}
    sequential = run_search(30, needed, jobs=1)
    parallel = run_search(30, needed, jobs=jobs, delay=0.001)
    assert parallel == sequential


def test_parallel_driver_runs_candidates_concurrently():
    started = time.monotonic()
    run_search(12, set(range(12)), jobs=4, delay=0.05)
    parallel_time = time.monotonic() - started
    started = time.monotonic()
    run_search(12, set(range(12)), jobs=1, delay=0.05)
    sequential_time = time.monotonic() - started
    assert parallel_time < sequential_time * 0.75


def test_stale_work_is_cancelled_after_an_acceptance():
    cancelled = []

    def test(indices, cancel):
        if len(indices) == 6:  # the first proposal: apply everything
            time.sleep(0.2)
            return True
        cancelled.append(cancel.wait(5))  # speculative: should be cancelled, not finish
        return False

    with ThreadPoolExecutor(3) as pool:  # 2 jobs: 2 running and 1 prepared
        applied = search(ProbDD(6), test, pool, 2, lambda applied: None, lambda: False)
    assert sorted(applied) == list(range(6))
    assert cancelled == [True, True]


def test_one_more_candidate_than_jobs_is_prepared():
    """While `jobs` candidates run, the next is already being prepared (at -j 1 too)."""
    active, most = [0], [0]
    lock = threading.Lock()

    def test(indices, cancel):
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.01)
        with lock:
            active[0] -= 1
        return False

    with ThreadPoolExecutor(4) as pool:
        search(ProbDD(8), test, pool, 1, lambda applied: None, lambda: False)
    assert most[0] == 2


def sequential_decisions(size, needed):
    """The strategy alone, one proposal at a time: what any driver must decide."""
    strategy, accepted = ProbDD(size), []
    while (subset := strategy.propose()) is not None:
        interesting = not (set(strategy.applied + subset) & needed)
        strategy.feedback(subset, interesting)
        if interesting:
            accepted.append(list(strategy.applied))
    return sorted(strategy.applied), accepted


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_driver_decides_like_the_strategy_alone(jobs, seed):
    rng = random.Random(seed)
    needed = set(rng.sample(range(40), rng.randint(1, 12)))
    assert run_search(40, needed, jobs=jobs, delay=0.002) == sequential_decisions(40, needed)
