"""Run strategies with up to N candidates in flight: rounds whose decisions do not wait on one another.

A strategy (`probdd.ProbDD`, `halves.Halves`) proposes one subset at a time and
is told how it went. Run one proposal after another, every acceptance makes
the proposals started after it stale; with about one candidate in four
accepted, N jobs then do at most (1 - 0.75^N) / 0.25 decisions a round (2.7 at
-j 4). So a chain works in *rounds* (batch and fold, `notes/parallelism.md`):

1. The round's members: the proposals the strategy makes if each one before
   fails, up to the chain's `batch` of them (BATCH; a region's chain fewer,
   `regions.REGION_BATCH`), each tested alone on the same base (the
   strategy's applied edits). A member that shares an edit with an earlier
   member judged interesting is *moot* (it was proposed on the guess that one
   fails): it is not started, or cancelled, and its verdict is never read.
   Members are found moot only once every member before them is decided.
2. Every verdict in, in the members' order: up to the first interesting member
   each failure is told to the strategy, as one proposal after another would;
   after it, failures are told too (judged on the round's base, a step the
   delta-debugging assumption makes) and the interesting ones join a *fold*.
3. A fold of one member is accepted as it was judged. A fold of several is
   tested once, all together; if that text fails the same way, all are
   accepted. If not, the longest prefix of the fold that does is found
   (prefixes tried longest first, `jobs` at a time; a fold of one member was
   judged already) and accepted, the member after it is told it failed (it
   fails on the new base: that is the prefix one longer), and the members after
   that are left open for the next round.

Every decision depends only on verdicts, in the members' order, never on
which run ended first: the result is the same at any -j, -j 1 included. Which
runs start does depend on -j (a moot member may have started; the prefixes
tried at once), never what is decided. Every text accepted was judged by a run.

`search_chains` runs several chains at once (`regions.py`: one per region);
free jobs go to the chain with the fewest candidates in flight, ties to the
first. `jobs` run and one more is prepared meanwhile. `search` is the
one-chain case.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Protocol

from autodd_lsp.cancel import Cancel

# test(indices to apply, cancel event) -> interesting?
TestFn = Callable[[list[int], Cancel], bool]

BATCH = 16  # members of a round at most (Chain.batch): fixed, never derived from -j (the decisions would be)


class Strategy(Protocol):
    """A deterministic state machine over edit indices (`probdd.ProbDD`, `halves.Halves`)."""

    applied: list[int]

    def copy(self) -> Strategy: ...

    def propose(self) -> list[int] | None: ...

    def feedback(self, subset: list[int], interesting: bool) -> None: ...

    def open_or_needed(self) -> list[int]: ...


@dataclass
class Chain:
    """One strategy with its test, its acceptance callback and its cancel flags' factory;
    `fold_test`, if given, tests a fold's texts (members judged alone, tried together);
    `batch`: a round's members at most (a constant, never derived from -j).

    `merged`: the chain's folds are tested later, by its caller (`regions.py`: the regions'
    merge tests the union of every region's edits in one run): a fold of several members is
    applied without its own test, `on_accept` is told its first member (a text judged), and
    `judged` keeps the last applied set a run judged, for the caller to fall back to."""

    strategy: Strategy
    test: TestFn
    on_accept: Callable[[list[int]], None] = lambda applied: None
    new_event: Callable[[], Cancel] = threading.Event
    fold_test: TestFn | None = None
    merged: bool = False
    batch: int = BATCH
    judged: list[int] = field(default_factory=list)
    _round: _Round | None = field(default=None, repr=False)

    @property
    def unjudged(self) -> bool:
        """The applied edits hold a fold no run has judged (only with `merged`)."""
        return sorted(self.judged) != sorted(self.strategy.applied)

    def accepted(self, applied: list[int]) -> None:
        self.judged = list(applied)
        self.on_accept(list(applied))


@dataclass
class _Task:
    subset: list[int]  # what the run applies on top of the strategy's applied edits
    future: Future[bool]
    cancel: Cancel


class _Round:
    """One chain's round: its members, then its fold, then the fold's prefixes (module docstring)."""

    def __init__(self, chain: Chain, jobs: int) -> None:
        self.chain, self.jobs = chain, jobs
        strategy = chain.strategy.copy()
        self.members: list[list[int]] = []
        while len(self.members) < chain.batch and (subset := strategy.propose()) is not None:
            self.members.append(subset)
            strategy.feedback(subset, False)
        self.last = strategy.propose() is None  # nothing waits beyond this round (the chain's last)
        self.base = list(chain.strategy.applied)
        self.waiting = list(range(len(self.members)))  # members not started yet, in order
        self.started: dict[int, _Task] = {}
        self.moot: set[int] = set()
        self.todo: list[list[int]] = []  # after the members: the fold's texts not started yet
        self.tasks: list[_Task] = []  # started, in order
        self.fold: list[list[int]] = []
        self.phase = "members"
        self.prefixes: list[int] = []  # fold lengths still to try, longest first

    @property
    def empty(self) -> bool:
        return not self.members

    @property
    def ready(self) -> bool:
        """Something can start now."""
        return bool(self.waiting if self.phase == "members" else self.todo)

    def start_next(self, pool: ThreadPoolExecutor) -> Future[bool]:
        cancel = self.chain.new_event()
        if self.phase == "members":
            index = self.waiting.pop(0)
            subset, test = self.members[index], self.chain.test
        else:
            subset, test = self.todo.pop(0), self.chain.fold_test or self.chain.test
        task = _Task(subset, pool.submit(test, self.base + subset, cancel), cancel)
        if self.phase == "members":
            self.started[index] = task
        self.tasks.append(task)
        return task.future

    def settle(self, on_discard: Callable[[list[Cancel]], None]) -> None:
        """Members found moot (module docstring) are not started, or are cancelled: only where every
        member before them is decided, so that the same ones are moot whatever ended first."""
        if self.phase != "members":
            return
        accepted: list[set[int]] = []
        for index, subset in enumerate(self.members):
            if index in self.moot:
                continue
            if any(taken & set(subset) for taken in accepted):
                self.moot.add(index)
                if index in self.waiting:
                    self.waiting.remove(index)
                elif index in self.started:
                    self.started[index].cancel.set()
                    on_discard([self.started[index].cancel])
                continue
            task = self.started.get(index)
            if task is None or not task.future.done():
                return
            if task.future.result():
                accepted.append(set(subset))

    def decided(self) -> bool:
        return not self.ready and all(task.future.done() for task in self.tasks)

    def decide(self, on_discard: Callable[[list[Cancel]], None]) -> bool:
        """Every started run has its verdict: the next step. True when the round is over."""
        strategy = self.chain.strategy
        if self.phase == "members":
            for index, subset in enumerate(self.members):
                if index in self.moot:
                    continue
                if self.started[index].future.result():
                    self.fold.append(subset)
                else:
                    strategy.feedback(subset, False)
            if len(self.fold) <= 1:
                return self._accept(len(self.fold))
            if self.chain.merged:  # its caller's merge tests it (Chain's docstring)
                for member in self.fold:
                    strategy.feedback(member, True)
                self.chain.accepted(self.base + self.fold[0])
                return True
            self._try([i for member in self.fold for i in member], "fold")
            return False
        verdicts = [task.future.result() for task in self.tasks]
        if self.phase == "fold":
            if verdicts[0]:
                return self._accept(len(self.fold))
            self.prefixes = list(range(len(self.fold) - 1, 1, -1))
        else:  # "prefixes": the longest one that fails the same way, if any
            good = [len(task.subset) for task, interesting in zip(self.tasks, verdicts, strict=True) if interesting]
            if good:
                longest = max(good)
                on_discard([task.cancel for task in self.tasks if len(task.subset) != longest])
                return self._accept(self._members_in(longest))
        if not self.prefixes:
            return self._accept(1)  # judged alone on this base
        wave, self.prefixes = self.prefixes[:self.jobs], self.prefixes[self.jobs:]
        self.tasks, self.phase = [], "prefixes"
        self.todo = [[i for member in self.fold[:count] for i in member] for count in wave]
        return False

    def _members_in(self, length: int) -> int:
        total = 0
        for count, member in enumerate(self.fold, start=1):
            total += len(member)
            if total == length:
                return count
        raise AssertionError("a prefix's length is a sum of its members'")

    def _try(self, subset: list[int], phase: str) -> None:
        self.tasks, self.todo, self.phase = [], [subset], phase

    def _accept(self, count: int) -> bool:
        """The fold's first `count` members accepted; the next one failed on that base."""
        strategy = self.chain.strategy
        for member in self.fold[:count]:
            strategy.feedback(member, True)
        if count:
            self.chain.accepted(strategy.applied)
        if count < len(self.fold):
            strategy.feedback(self.fold[count], False)
        return True


def search(
    strategy: Strategy,
    test: TestFn,
    pool: ThreadPoolExecutor,
    jobs: int,
    on_accept: Callable[[list[int]], None],
    stopped: Callable[[], bool],
    on_result: Callable[[], None] = lambda: None,
    new_event: Callable[[], Cancel] = threading.Event,
    on_discard: Callable[[list[Cancel]], None] = lambda events: None,
    fold_test: TestFn | None = None,
) -> list[int]:
    """Drive `strategy` to the end (or until `stopped()`); return the applied indices.

    `new_event` makes each candidate's cancel flag (a backend may react to it at once);
    `on_discard` gets the flags of runs whose verdicts no decision used.
    """
    search_chains([Chain(strategy, test, on_accept, new_event, fold_test)], pool, jobs, stopped, on_result, on_discard)
    return strategy.applied


def search_chains(
    chains: list[Chain],
    pool: ThreadPoolExecutor,
    jobs: int,
    stopped: Callable[[], bool],
    on_result: Callable[[], None] = lambda: None,
    on_discard: Callable[[list[Cancel]], None] = lambda events: None,
    on_idle: Callable[[int], None] = lambda free: None,
) -> None:
    """Drive every chain's strategy to its end (or until `stopped()`), `jobs` runs (+1 prepared) in all.

    `on_idle(free)` is called when every chain is in its last round with all of it
    started and `free` of the `jobs` are not in use (the caller may start work of its own).
    """
    live = [chain for chain in chains if _next_round(chain, jobs)]
    running: dict[Future[bool], Chain] = {}
    try:
        while live and not stopped():
            _fill(live, running, pool, jobs + 1)
            if len(running) < jobs and all(chain._round is not None and chain._round.last
                                           and not chain._round.ready for chain in live):
                on_idle(jobs - len(running))
            if not running:
                raise RuntimeError("a live chain has nothing to run")
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                running.pop(future)
                on_result()
            if stopped():
                return
            for chain in list(live):  # a live chain always has a round (`_next_round`)
                assert chain._round is not None
                chain._round.settle(on_discard)
                while chain._round.decided():  # a round over: the next one, which has members to start
                    if chain._round.decide(on_discard) and not _next_round(chain, jobs):
                        live.remove(chain)
                        break
    finally:
        for future in running:
            future.cancel()
        events = [task.cancel for chain in chains if chain._round is not None for task in chain._round.tasks
                  if not task.future.done()]
        for cancel in events:
            cancel.set()
        for chain in chains:
            if chain._round is not None:
                for task in chain._round.tasks:
                    if not task.future.cancelled():
                        task.future.exception()  # a cancelled run returns within milliseconds
        on_discard(events)


def _next_round(chain: Chain, jobs: int) -> bool:
    """Start the chain's next round; False when its strategy has nothing more to propose."""
    chain._round = _Round(chain, jobs)
    return not chain._round.empty


def _fill(live: list[Chain], running: dict[Future[bool], Chain], pool: ThreadPoolExecutor, limit: int) -> None:
    """Start runs until `limit` are in flight: each from the chain with the fewest in flight."""
    while len(running) < limit:
        ready = [chain for chain in live if chain._round is not None and chain._round.ready]
        if not ready:
            return
        chain = min(ready, key=lambda chain: sum(1 for owner in running.values() if owner is chain))
        assert chain._round is not None
        running[chain._round.start_next(pool)] = chain
