"""ProbDD finds a minimal subset, and the driver's rounds decide the same at any number of jobs."""

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from autodd_lsp.engine.candidate.candidates import CandidateTester
from autodd_lsp.search import (
    Chain,
    Halves,
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


@pytest.mark.parametrize("jobs", [2, 3, 8])
def test_the_driver_decides_the_same_at_any_jobs(jobs):
    needed = {1, 5, 6, 11, 20, 21, 22}
    sequential = run_search(30, needed, jobs=1)
    parallel = run_search(30, needed, jobs=jobs, delay=0.001)
    assert parallel == sequential
    assert sequential[0] == [i for i in range(30) if i not in needed]


def test_parallel_driver_runs_candidates_concurrently():
    started = time.monotonic()
    run_search(12, set(range(12)), jobs=4, delay=0.05)
    parallel_time = time.monotonic() - started
    started = time.monotonic()
    run_search(12, set(range(12)), jobs=1, delay=0.05)
    sequential_time = time.monotonic() - started
    assert parallel_time < sequential_time * 0.75


def fold_search(size, fails, jobs, delay=0.0):
    """One edit a member (prior 0.5): `fails(applied)` says whether the failure is lost."""
    log: list[tuple[int, ...]] = []
    accepted: list[list[int]] = []

    def test(indices, cancel):
        log.append(tuple(sorted(indices)))
        time.sleep(delay)
        return not fails(set(indices))

    with ThreadPoolExecutor(jobs + 1) as pool:
        applied = search(ProbDD(size, prior=0.5), test, pool, jobs, accepted.append, lambda: False)
    return sorted(applied), accepted, log


@pytest.mark.parametrize("jobs", [1, 3])
def test_a_round_tests_its_members_on_one_base_and_their_fold_once(jobs):
    """An acceptance throws nothing away: every member is judged alone on the same base,
    and the ones accepted are tried together in one run."""
    applied, accepted, log = fold_search(6, lambda applied: 2 in applied, jobs, delay=0.002)
    assert applied == [0, 1, 3, 4, 5] and accepted == [[0, 1, 3, 4, 5]]
    assert sorted(log[:6]) == [(i,) for i in range(6)]  # every member alone, none cancelled
    assert log[6:] == [(0, 1, 3, 4, 5)]  # the fold: one run


@pytest.mark.parametrize("jobs", [1, 2, 4, 8])
def test_a_fold_that_fails_keeps_its_longest_good_prefix(jobs):
    """Edits 2 and 4 are each fine alone, not together: the fold of all six fails, the longest
    prefix that still fails the same way ([0..3]) is accepted, 4 fails on it, and 5 is decided
    in the next round. At -j 1 the prefixes are tried longest first and the search stops at the
    first good one; at -j N up to N at once: the same prefix."""
    applied, accepted, log = fold_search(6, lambda applied: {2, 4} <= applied, jobs, delay=0.002)
    assert applied == [0, 1, 2, 3, 5]
    assert accepted == [[0, 1, 2, 3], [0, 1, 2, 3, 5]]
    assert log[6] == (0, 1, 2, 3, 4, 5)
    prefixes = log[7:-1]
    assert (0, 1, 2, 3, 4) in prefixes and (0, 1, 2, 3) in prefixes
    if jobs == 1:
        assert prefixes == [(0, 1, 2, 3, 4), (0, 1, 2, 3)]
    assert log[-1] == (0, 1, 2, 3, 5)


@pytest.mark.parametrize("jobs", [1, 4])
def test_members_proposed_on_the_guess_that_an_accepted_one_fails_are_moot(jobs):
    """ProbDD's first member is all six edits; the members after it were proposed on the guess
    that it fails. It does not: they are moot, their verdicts unread (at -j 1 never run)."""
    log: list[tuple[int, ...]] = []
    accepted: list[list[int]] = []

    def test(indices, cancel):
        log.append(tuple(sorted(indices)))
        if len(indices) < 6:
            cancel.wait(5)  # a moot member that started is cancelled, not waited for
        return not cancel.is_set()

    with ThreadPoolExecutor(jobs + 1) as pool:
        applied = search(ProbDD(6), test, pool, jobs, accepted.append, lambda: False)
    assert sorted(applied) == list(range(6)) and accepted == [list(range(6))]
    assert log[0] == tuple(range(6))
    if jobs == 1:
        assert len(log) <= 2  # the one prepared while the first ran, if any, cancelled before its run


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


def one_job(strategy, test):
    """What the driver decides with one job: what every -j must decide."""
    accepted: list[list[int]] = []
    with ThreadPoolExecutor(2) as pool:
        search(strategy, test, pool, 1, accepted.append, lambda: False)
    return sorted(strategy.applied), accepted


@pytest.mark.parametrize("jobs", [2, 3, 8])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("strategy", [ProbDD, lambda size: ProbDD(size, prior=0.5), Halves])
def test_driver_decides_the_same_with_any_strategy_and_jobs(jobs, seed, strategy):
    rng = random.Random(seed)
    needed = set(rng.sample(range(40), rng.randint(1, 12)))
    clash = set(rng.sample(sorted(set(range(40)) - needed), 2))  # each fine alone, not together

    def test(indices, cancel):
        time.sleep(rng.random() * 0.002)  # runs end in any order
        return not (set(indices) & needed) and not clash <= set(indices)

    applied, accepted = one_job(strategy(40), test)
    assert not set(applied) & needed and not clash <= set(applied)
    accepted_here: list[list[int]] = []
    chosen = strategy(40)
    with ThreadPoolExecutor(jobs + 1) as pool:
        search(chosen, test, pool, jobs, accepted_here.append, lambda: False)
    assert (sorted(chosen.applied), accepted_here) == (applied, accepted)


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
        alone = one_job(ProbDD(size), chain_oracle(needed))
        assert (sorted(chain.strategy.applied), seen) == alone
        assert alone[0] == [i for i in range(size) if i not in needed]


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
                                 threading.Event, lambda events: None,
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
    for region in range(3):  # each region was told the texts a run judged, in its own order
        sets = [applied for number, applied in told if number == region]
        assert sets == sorted(sets, key=len) and set(sets[-1]) <= set(regions[region]) - needed
        assert all(tuple(sorted(applied)) in log for applied in sets)


@pytest.mark.parametrize("jobs", [1, 4])
def test_a_region_whose_untested_fold_clashes_keeps_the_part_a_run_judged(jobs):
    """In region 0, edits 0 and 1 are each fine alone, not together: its round folds both
    without a test; the union of the regions fails, the regions are then added one at a
    time: region 0's whole set fails, its judged part ({0}) is kept, region 1 joins."""
    regions = [[0, 1], [2, 3]]
    outcome, log, _ = run_regions(regions, lambda applied: {0, 1} <= applied, jobs)
    union = log.index((0, 1, 2, 3))
    assert log[:union].count((0, 1)) == 1  # region 0's first member; its fold {0, 1} is not tested apart
    assert log[union + 1:].count((0, 1)) == 1  # then, the union failing, region 0's whole set: fails
    assert outcome.applied == [0, 2, 3]


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


@pytest.mark.parametrize("jobs", [1, 4])
def test_a_regions_round_holds_at_most_region_batch_members(jobs):
    """Region 0's first round: all 8 edits (fail: 0 is needed), 0-4 (fail), 5-7 (interesting), then
    proposals on the guess that 5-7 failed, judged on a base without them, up to REGION_BATCH members
    (with 16 the round went on with 3-4 and 1-2 on that base). The next run is made on 5-7."""
    regions = [list(range(8)), list(range(8, 12))]
    outcome, log, _ = run_regions(regions, lambda applied: bool(applied & {0, 9}), jobs)
    assert outcome.applied == [1, 2, 3, 4, 5, 6, 7, 8, 10, 11]
    region_runs = [set(run) for run in log if set(run) <= set(regions[0])]
    assert region_runs[:4] == [set(range(8)), set(range(5)), {5, 6, 7}, {0, 1, 2}]  # REGION_BATCH members
    assert region_runs[4] == {3, 4, 5, 6, 7}


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


def test_stale_counts_only_discarded_candidates_whose_run_had_started():
    tester = CandidateTester(backend=None, slots=None, jobs=1)  # type: ignore[arg-type]  # only its cancel flags are used
    ran, waiting, ran_too = tester.new_cancel_event(), tester.new_cancel_event(), tester.new_cancel_event()
    ran.started = ran_too.started = True
    tester.discarded([ran, waiting, ran_too])
    tester.discarded([])
    assert tester.counters.stale == 2
