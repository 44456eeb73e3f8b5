"""Run a strategy with up to N candidates in flight, deterministically.

Most candidates fail, so while one runs we speculate that it fails and start the
proposals that would follow: `jobs` of them run, and one more is prepared
(rendered, compiled) meanwhile, ready to start the moment a job frees up. Results are consumed strictly in proposal order;
when one succeeds, everything started after it is stale: it is cancelled (its
processes killed) and the strategy goes on from the success. The sequence of
decisions is therefore exactly the sequential one, at any number of jobs.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

from autodd_lsp.search.probdd import ProbDD

# test(indices to apply, cancel event) -> interesting?
TestFn = Callable[[list[int], threading.Event], bool]


def search(
    strategy: ProbDD,
    test: TestFn,
    pool: ThreadPoolExecutor,
    jobs: int,
    on_accept: Callable[[list[int]], None],
    stopped: Callable[[], bool],
    on_result: Callable[[], None] = lambda: None,
    new_event: Callable[[], threading.Event] = threading.Event,
) -> list[int]:
    """Drive `strategy` to the end (or until `stopped()`); return the applied indices.

    `new_event` makes each candidate's cancel flag (a backend may react to it at once).
    """
    in_flight: deque[tuple[list[int], Future, threading.Event]] = deque()
    speculative = strategy.copy()
    try:
        while not stopped():
            while len(in_flight) < jobs + 1:
                subset = speculative.propose()
                if subset is None:
                    break
                cancel = new_event()
                future = pool.submit(test, speculative.applied + subset, cancel)
                in_flight.append((subset, future, cancel))
                speculative = speculative.copy()
                speculative.feedback(subset, False)
            if not in_flight:
                break
            subset, future, _ = in_flight.popleft()
            interesting = future.result()
            on_result()
            if stopped():
                break
            strategy.feedback(subset, interesting)
            if interesting:
                on_accept(list(strategy.applied))
                _cancel_all(in_flight, wait=False)
                speculative = strategy.copy()
    finally:
        _cancel_all(in_flight, wait=True)
    return strategy.applied


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
