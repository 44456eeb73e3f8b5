"""ProbDD finds a minimal subset, and the parallel driver decides exactly as the sequential one."""

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.candidates import CandidateTester
from autodd_lsp.search import (
    Chain,
    ProbDD,
    regions_of,
    search,
    search_chains,
    search_regions,
)
from autodd_lsp.search.regions import MAX_REGION, MIN_EDITS


def run_search(size, needed, jobs, log=None, delay=0.0):
    """Applying edit i is fine unless i is in `needed`."""

    def test(indices, cancel):
        if log is not None:
            log.append(tuple(sorted(indices)))
        time.sleep(delay)
        return not (set(indices) & needed)

    with ThreadPoolExecutor(jobs) as pool:
        accepted_states: list[list[int]] = []
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
    speculating = threading.Semaphore(0)

    def test(indices, cancel):
        if len(indices) == 6:  # the first proposal: apply everything, once the two after it run
            assert speculating.acquire(timeout=5) and speculating.acquire(timeout=5)
            return True
        speculating.release()
        cancelled.append(cancel.wait(5))  # speculative: should be cancelled, not finish
        return False

    discarded: list[list[Cancel]] = []
    with ThreadPoolExecutor(3) as pool:  # 2 jobs: 2 running and 1 prepared
        applied = search(ProbDD(6), test, pool, 2, lambda applied: None, lambda: False, on_discard=discarded.append)
    assert sorted(applied) == list(range(6))
    assert cancelled == [True, True]
    assert len(discarded) == 1 and len(discarded[0]) == 2 and all(event.is_set() for event in discarded[0])


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


# -- independent chains and regions (search/driver.search_chains, search/regions.py) --

def chain_oracle(needed):
    return lambda indices, cancel: not (set(indices) & needed)


@pytest.mark.parametrize("jobs", [1, 2, 5])
@pytest.mark.parametrize("seed", range(3))
def test_each_chain_decides_like_its_strategy_alone(jobs, seed):
    rng = random.Random(seed)
    sizes = [rng.randint(1, 25) for _ in range(4)]
    needs = [set(rng.sample(range(size), rng.randint(0, size))) for size in sizes]
    accepted: list[list[list[int]]] = [[] for _ in sizes]
    chains = [
        Chain(ProbDD(size), chain_oracle(needed), on_accept=accepted[number].append)
        for number, (size, needed) in enumerate(zip(sizes, needs, strict=False))
    ]
    with ThreadPoolExecutor(jobs + 1) as pool:
        search_chains(chains, pool, jobs, lambda: False)
    for chain, size, needed, seen in zip(chains, sizes, needs, accepted, strict=False):
        assert (sorted(chain.strategy.applied), seen) == sequential_decisions(size, needed)


def test_free_jobs_go_to_the_heads_of_other_chains_first():
    """With as many jobs as chains, every chain's next proposal runs at once (none is speculative)."""
    started = []
    gate = threading.Barrier(3, timeout=5)

    def test_of(number):
        def test(indices, cancel):
            started.append(number)
            if len(started) <= 3:
                gate.wait()  # the first three run together: one per chain
            return False
        return test

    chains = [Chain(ProbDD(4), test_of(number)) for number in range(3)]
    with ThreadPoolExecutor(4) as pool:
        search_chains(chains, pool, 2, lambda: False)  # 2 run + 1 prepared: three in flight
    assert sorted(started[:3]) == [0, 1, 2]


def test_regions_group_edits_by_the_statement_they_start_in():
    starts = [0, 100, 200, 300]
    edit_starts = [5, 150, 10, 250, 120, 99, 0, 201, 1, 2, 350]
    # by statement: [0, 2, 5, 6, 8, 9], [1, 4], [3, 7], [10]; neighbours packed up to MAX_REGION
    assert MAX_REGION == 8
    assert regions_of(edit_starts, starts) == [[0, 1, 2, 4, 5, 6, 8, 9], [3, 7, 10]]
    assert regions_of(edit_starts[:MIN_EDITS - 1], starts) is None  # too few edits to be worth splitting
    assert regions_of([1] * MIN_EDITS, starts) is None  # one region only
    assert regions_of([5, 150, 250, 350], starts) is None  # packed into one


def test_a_big_region_is_cut_by_position_and_keeps_the_search_order():
    edit_starts = [40 - i for i in range(2 * MAX_REGION + 1)]  # the search lists them last place first
    regions = regions_of(edit_starts, [0])
    assert regions is not None and len(regions) == 3 and all(len(region) <= MAX_REGION for region in regions)
    assert sorted(i for region in regions for i in region) == list(range(len(edit_starts)))
    assert all(region == sorted(region) for region in regions)  # the search's order inside each
    places = [[edit_starts[i] for i in region] for region in regions]
    assert max(places[0]) < min(places[1]) and max(places[1]) < min(places[2])


def run_regions(regions, fails, jobs):
    """`fails(applied)`: whether the program loses its failure with those edits applied."""
    log = []

    def test(indices, cancel):
        log.append(tuple(sorted(indices)))
        time.sleep(0.001)
        return not fails(set(indices))

    told = []
    with ThreadPoolExecutor(jobs + 1) as pool:
        outcome = search_regions(regions, 0.1, test, pool, jobs, lambda: False, lambda: None,
                                 lambda: threading.Event, lambda events: None,
                                 lambda region, applied: told.append((region, applied)))
    return outcome, log, told


@pytest.mark.parametrize("jobs", [1, 3, 8])
def test_regions_are_searched_apart_and_merged_in_one_test(jobs):
    regions = [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9, 10, 11]]
    needed = {1, 5, 9, 10}
    outcome, log, told = run_regions(regions, lambda applied: bool(applied & needed), jobs)
    assert outcome.applied == [0, 2, 3, 4, 6, 7, 8, 11]
    assert outcome.needed == [1, 5, 9, 10]
    # Candidates apply one region's edits; the others are the merge's union (started early,
    # on idle jobs, while the last regions finish: only the final one decides).
    several = [c for c in log if len({r for r, region in enumerate(regions) if set(c) & set(region)}) > 1]
    assert tuple(outcome.applied) in several
    assert all(set(c) <= set(outcome.applied) for c in several)
    for region in range(3):  # each region was told its acceptances in its own order
        sets = [applied for number, applied in told if number == region]
        assert sets == sorted(sets, key=len) and set(sets[-1]) == set(regions[region]) - needed


@pytest.mark.parametrize("jobs", [1, 4])
def test_regions_that_interact_are_merged_one_at_a_time_in_order(jobs):
    """Edits 1 and 5 are each fine alone, not together: the union fails, region 0 is kept,
    region 1 (which applied 5) is refused, region 2 joins; 5 is not found "needed"."""
    regions = [[0, 1], [4, 5], [7, 8]]
    outcome, log, _ = run_regions(regions, lambda applied: {1, 5} <= applied, jobs)
    assert outcome.applied == [0, 1, 7, 8]
    assert outcome.needed == []
    assert (0, 1, 4, 5, 7, 8) in log
    assert log[-2:] == [(0, 1, 4, 5), (0, 1, 7, 8)]


def test_regions_give_the_same_result_and_tests_at_any_jobs():
    rng = random.Random(7)
    regions = [list(range(start, start + 9)) for start in range(0, 45, 9)]
    needed = set(rng.sample(range(45), 12))
    results = [run_regions(regions, lambda applied: bool(applied & needed), jobs) for jobs in (1, 2, 6)]
    outcomes = [outcome for outcome, _, _ in results]
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert outcomes[0].applied == sorted(set(range(45)) - needed)
    # each region's acceptances, in its order, are the same (regions interleave differently)
    per_region = [[[a for r, a in told if r == region] for region in range(5)] for _, _, told in results]
    assert per_region[0] == per_region[1] == per_region[2]


def test_an_acceptance_cancels_later_candidates_of_its_own_chain_only():
    tester = CandidateTester(backend=None, slots=None, jobs=1)  # type: ignore[arg-type]  # only its cancel flags are used
    one, other = tester.new_chain(), tester.new_chain()
    head, later, elsewhere = one(), one(), other()
    tester._cancel_later_than(head)
    assert later.is_set() and not elsewhere.is_set() and not head.is_set()


def test_stale_counts_only_discarded_candidates_whose_run_had_started():
    tester = CandidateTester(backend=None, slots=None, jobs=1)  # type: ignore[arg-type]  # only its cancel flags are used
    chain = tester.new_chain()
    ran, waiting, ran_too = chain(), chain(), chain()
    ran.started = ran_too.started = True
    tester.discarded([ran, waiting, ran_too])
    tester.discarded([])
    assert tester.counters.stale == 2
