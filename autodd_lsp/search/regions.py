"""Search independent regions of the program at once, then merge.

Why: a chain's round (`driver.py`) holds the proposals that share no edit
and waits for all of them; ProbDD's big first groups overlap, so a chain
alone has few members a round. Edits in different statements rarely
interact, so the search gives each region its own ProbDD on the same base
text (a candidate applies one region's edits only) and runs the regions as
independent chains: a free job takes another region's member, which is
needed whatever the others decide.

Regions: each top-level statement, and each statement of a top-level
function's or class's body (the engine gives their starts); a region of more
than MAX_REGION edits is cut by position, and neighbours are packed together
up to MAX_REGION edits (so that ProbDD's first big groups still remove many
small statements in one candidate). Fewer than MIN_EDITS edits, or one
region: a single ProbDD, as before.

The algorithm is the same at every -j (-j 1 runs it too):
  1. each region's ProbDD runs to its end (candidates: base + that region's edits),
     in the driver's rounds of at most REGION_BATCH members (the other regions'
     chains give the parallel runs; a region's later members, judged on a base
     its earlier acceptance has left, cost -j 1 runs); a round's fold of several
     members is applied without a test of its own (`Chain.merged`): the merge tests it;
  2. merge: the union of what the regions applied, tested once (when only one
     region applied anything and a run judged all of it, its last acceptance was
     that very text); if the union is not interesting (regions that interact, or
     a fold whose members clash), the regions' sets are added one at a time in
     order, each kept if the text still fails the same way (a region's set
     holding an untested fold that fails: the part of it a run judged).
Every decision depends on verdicts only, never on timing or -j; the union's
test may start early on an idle job (`_EarlyMerge`), which changes when it
runs, not what it decides. A region whose set the merge refused is not
"needed": its edits are left to the pass's next round.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from autodd_lsp.cancel import Cancel
from autodd_lsp.search.driver import Chain, TestFn, search_chains
from autodd_lsp.search.probdd import ProbDD

MIN_EDITS = 4  # fewer edits: one ProbDD (splitting costs a merge and ProbDD's big first tries)
MAX_REGION = 8  # edits of one region at most (more: cut by position)
REGION_BATCH = 4  # a region's round: members at most (notes/parallelism.md, "Regions")


@dataclass
class RegionOutcome:
    applied: list[int]  # edit indices applied in the end
    needed: list[int]  # found needed within their region (not: refused by the merge)


def regions_of(starts_of_edits: list[int], region_starts: list[int]) -> list[list[int]] | None:
    """Edit indices grouped by the region each edit begins in (regions begin at `region_starts`, sorted).

    None when there are fewer than MIN_EDITS edits or fewer than two regions
    hold edits: then one search over all of them is better.
    """
    if len(starts_of_edits) < MIN_EDITS:
        return None
    groups: dict[int, list[int]] = {}
    for index, start in enumerate(starts_of_edits):
        groups.setdefault(max(0, bisect.bisect_right(region_starts, start) - 1), []).append(index)
    regions: list[list[int]] = []
    for key in sorted(groups):  # neighbours packed up to MAX_REGION edits: ProbDD's groups work within
        for piece in _pieces(groups[key], starts_of_edits):
            if regions and len(regions[-1]) + len(piece) <= MAX_REGION:
                regions[-1] = sorted(regions[-1] + piece)
            else:
                regions.append(piece)
    return regions if len(regions) >= 2 else None


def _pieces(region: list[int], starts_of_edits: list[int]) -> list[list[int]]:
    """A region of more than MAX_REGION edits cut, by position, into runs of at most MAX_REGION
    (each keeps the search's order: big edits first). One long chain of acceptances would
    otherwise hold the others back (a big literal, one long expression)."""
    if len(region) <= MAX_REGION:
        return [region]
    by_place = sorted(region, key=lambda index: (starts_of_edits[index], index))
    count = -(-len(region) // MAX_REGION)
    size = -(-len(region) // count)
    cuts = [set(by_place[i:i + size]) for i in range(0, len(by_place), size)]
    return [[index for index in region if index in cut] for cut in cuts]


def search_regions(
    regions: list[list[int]],
    prior: float | list[float],
    test: TestFn,
    pool: ThreadPoolExecutor,
    jobs: int,
    stopped: Callable[[], bool],
    on_result: Callable[[], None],
    new_event: Callable[[], Cancel],
    on_discard: Callable[[list[Cancel]], None],
    on_region_accept: Callable[[int, list[int]], None] = lambda region, applied: None,
    fold_test: TestFn | None = None,
) -> RegionOutcome:
    """Run one ProbDD per region (edit indices, in order) as parallel chains, then merge.

    `new_event()` gives a candidate's cancel flag; `fold_test` tests what the
    search expects to fail the same way (a round's fold, the regions' union);
    `on_region_accept(r, applied)` is told, in each region's decision order,
    what region r has applied so far (the merge has not happened yet).
    """
    strategies = [ProbDD(len(region), prior=prior if isinstance(prior, float) else [prior[i] for i in region])
                  for region in regions]
    chains = [
        Chain(strategy, _in_region(test, region), new_event=new_event,
              on_accept=_told(on_region_accept, number, region),
              fold_test=_in_region(fold_test or test, region), merged=True, batch=REGION_BATCH)
        for number, (region, strategy) in enumerate(zip(regions, strategies, strict=False))
    ]
    merge_test = fold_test or test
    early = _EarlyMerge(regions, strategies, merge_test, pool, new_event)
    try:
        search_chains(chains, pool, jobs, stopped, on_result, on_discard, on_idle=early.start)
    finally:
        early.stop_unless_running_for(_union(regions, strategies) if not stopped() else None, on_discard)
    found = [[region[i] for i in strategy.applied] for region, strategy in zip(regions, strategies, strict=False)]
    judged = [[region[i] for i in chain.judged] for region, chain in zip(regions, chains, strict=False)]
    needed = sorted(region[i] for region, strategy in zip(regions, strategies, strict=False)
                    for i in strategy.open_or_needed())
    with_edits = [number for number, applied in enumerate(found) if applied]
    if stopped() or not with_edits:
        early.stop_unless_running_for(None, on_discard)
        return RegionOutcome(sorted(next((judged[n] for n in with_edits if judged[n]), [])), needed)
    if len(with_edits) == 1 and not chains[with_edits[0]].unjudged:
        early.stop_unless_running_for(None, on_discard)
        return RegionOutcome(sorted(found[with_edits[0]]), needed)  # that region's last text: judged
    union = _union(regions, strategies)
    if early.verdict_for(union, merge_test, new_event):
        return RegionOutcome(union, needed)
    kept: list[int] = []
    for number in with_edits:  # one region at a time, in order; a region's judged part if all of it fails
        if stopped():
            break
        unjudged = chains[number].unjudged
        for applied in [found[number]] + ([judged[number]] if unjudged and judged[number] else []):
            alone = not kept and (applied is judged[number] or not unjudged)  # a text judged already
            trial = sorted(kept + applied)
            if alone or merge_test(trial, new_event()):
                kept = trial
                break
    return RegionOutcome(kept, needed)


def _union(regions: list[list[int]], strategies: list[ProbDD]) -> list[int]:
    return sorted(region[i] for region, strategy in zip(regions, strategies, strict=False) for i in strategy.applied)


class _EarlyMerge:
    """The merge's test started before the search ends, on an idle job.

    When every region has proposed all it can and jobs are free, the union of
    what the regions applied so far is what the merge will test if the
    candidates still in flight fail (most do): it is started then, and the
    merge takes its verdict if the union came out the same. A verdict depends
    on the text only, so this changes when the merge runs, never what it
    decides. Started at most once per union; one not used is stale.
    """

    def __init__(self, regions, strategies, test: TestFn, pool: ThreadPoolExecutor, new_event) -> None:
        self._regions, self._strategies, self._test, self._pool = regions, strategies, test, pool
        self._new_event = new_event
        self._tried: set[tuple[int, ...]] = set()
        self._running: tuple[tuple[int, ...], Future[bool], Cancel] | None = None

    def start(self, free: int) -> None:
        union = tuple(_union(self._regions, self._strategies))
        if self._running is not None or union in self._tried:
            return
        if sum(1 for strategy in self._strategies if strategy.applied) < 2:
            return  # one region's set needs no merge test
        self._tried.add(union)
        cancel = self._new_event()
        self._running = (union, self._pool.submit(self._test, list(union), cancel), cancel)

    def stop_unless_running_for(self, union: list[int] | None, on_discard) -> None:
        """Cancel the early test (counted stale if it ran) unless it is the one for `union`."""
        if self._running is None or (union is not None and self._running[0] == tuple(union)):
            return
        _, future, cancel = self._running
        self._running = None
        cancel.set()
        future.exception()
        on_discard([cancel])

    def verdict_for(self, union: list[int], test: TestFn, new_event) -> bool:
        if self._running is not None and self._running[0] == tuple(union):
            _, future, _ = self._running
            self._running = None
            return future.result()
        return test(union, new_event())


def _told(on_region_accept, number: int, region: list[int]) -> Callable[[list[int]], None]:
    return lambda applied: on_region_accept(number, [region[i] for i in applied])


def _in_region(test: TestFn, region: list[int]) -> TestFn:
    """The test of a region's chain: its local indices mapped to the search's edit indices."""

    def region_test(local: list[int], cancel: Cancel) -> bool:
        return test([region[i] for i in local], cancel)

    return region_test
