"""Run strategies with up to N candidates in flight, deterministically.

Most candidates fail, so while one runs we speculate that it fails and start the
proposals that would follow: `jobs` of them run, and one more is prepared
(rendered, compiled) meanwhile, ready to start the moment a job frees up. Results are consumed strictly in proposal order;
when one succeeds, everything started after it is stale: it is cancelled (its
processes killed) and the strategy goes on from the success. The sequence of
decisions is therefore exactly the sequential one, at any number of jobs.

`search_chains` runs several independent strategies (chains) at once, each
decided as above; free jobs go to the chain with the fewest candidates in
flight (its next proposal is the likeliest to be needed), ties to the first.
Each chain's decisions depend only on its own verdicts, so they too are the
same at any -j. `search` is the one-chain case.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Protocol

from autodd_lsp.cancel import Cancel

# test(indices to apply, cancel event) -> interesting?
TestFn = Callable[[list[int], Cancel], bool]


class Strategy(Protocol):
    """A deterministic state machine over edit indices (`probdd.ProbDD`, `halves.Halves`)."""

    applied: list[int]

    def copy(self) -> Strategy: ...

    def propose(self) -> list[int] | None: ...

    def feedback(self, subset: list[int], interesting: bool) -> None: ...

    def open_or_needed(self) -> list[int]: ...


@dataclass
class Chain:
    """One strategy with its test, its acceptance callback and its cancel flags' factory."""

    strategy: Strategy
    test: TestFn
    on_accept: Callable[[list[int]], None] = lambda applied: None
    new_event: Callable[[], Cancel] = threading.Event
    _speculative: Strategy | None = field(default=None, repr=False)
    _in_flight: deque = field(default_factory=deque, repr=False)
    _exhausted: bool = False  # the speculative copy has nothing more to propose


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
) -> list[int]:
    """Drive `strategy` to the end (or until `stopped()`); return the applied indices.

    `new_event` makes each candidate's cancel flag (a backend may react to it at once);
    `on_discard` gets the flags of the candidates thrown away after an acceptance.
    """
    search_chains([Chain(strategy, test, on_accept, new_event)], pool, jobs, stopped, on_result, on_discard)
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

    `on_idle(free)` is called when no chain has anything more to propose and
    `free` of the `jobs` are not in use (the caller may start work of its own).
    """
    for chain in chains:
        chain._speculative, chain._exhausted = chain.strategy.copy(), False
    try:
        while not stopped():
            _fill(chains, pool, jobs + 1)
            in_flight = sum(len(chain._in_flight) for chain in chains)
            if in_flight < jobs and all(chain._exhausted for chain in chains):
                on_idle(jobs - in_flight)
            heads = [chain._in_flight[0][1] for chain in chains if chain._in_flight]
            if not heads:
                break
            wait(heads, return_when=FIRST_COMPLETED)
            for chain in chains:
                while chain._in_flight and chain._in_flight[0][1].done():
                    subset, future, _ = chain._in_flight.popleft()
                    interesting = future.result()
                    on_result()
                    if stopped():
                        return
                    chain.strategy.feedback(subset, interesting)
                    if interesting:
                        chain.on_accept(list(chain.strategy.applied))
                        on_discard([cancel for _, _, cancel in chain._in_flight])
                        _cancel_all(chain._in_flight, wait=False)
                        chain._speculative, chain._exhausted = chain.strategy.copy(), False
    finally:
        for chain in chains:
            _cancel_all(chain._in_flight, wait=True)


def _fill(chains: list[Chain], pool: ThreadPoolExecutor, limit: int) -> None:
    """Start proposals until `limit` are in flight: each from the chain with the fewest in flight."""
    in_flight = sum(len(chain._in_flight) for chain in chains)
    while in_flight < limit:
        open_chains = [chain for chain in chains if not chain._exhausted]
        if not open_chains:
            return
        chain = min(open_chains, key=lambda chain: len(chain._in_flight))
        speculative = chain._speculative
        if speculative is None:
            raise RuntimeError("a chain proposes only inside search_chains")
        subset = speculative.propose()
        if subset is None:
            chain._exhausted = True
            continue
        cancel = chain.new_event()
        future = pool.submit(chain.test, speculative.applied + subset, cancel)
        chain._in_flight.append((subset, future, cancel))
        chain._speculative = speculative.copy()
        chain._speculative.feedback(subset, False)
        in_flight += 1


def _cancel_all(in_flight: deque, wait: bool) -> None:
    """Cancel what is in flight. Without `wait` they are dropped at once: a stale
    candidate still being prepared finishes that (a compile, ~1 ms) and then
    returns without running, while the next proposals are prepared already."""
    for _, _, cancel in in_flight:
        cancel.set()
    if wait:
        for _, future, _ in in_flight:
            future.exception()  # a cancelled run returns within milliseconds
    in_flight.clear()
