"""Judging one text by its runs: run it until a stopping rule decides. The one loop for it.

Three places judge a text by running it, each with its own stopping rule:

* a candidate (`candidates.py`): one run for a deterministic failure
  (`ONE_RUN`), the sequential rate test for an intermittent one
  (`flaky.RateTest`);
* a person's text (`person.judge_text`): the same rules as a candidate;
* the final check (`verify.py`): a fixed number of runs that measures the
  result's failure rate (`FixedRuns`), or, bisecting the history, runs up to
  the first failure.

All of them go through `run_until_decided`. What differs on purpose stays
with the caller, said there: the time limit of a run (the candidates' adaptive
one, or the full `--timeout` for a fresh interpreter), whether a run that timed
out rejects at once (`timeout_rejects`), and the frozen-code probe (a second
run: in the candidate's own slot, in a fresh interpreter, or none for a
person's text, which brings its own frozen regions).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from autodd_lsp.execution import RunResult


class StoppingRule(Protocol):
    """After `runs` runs of which `failures` showed the failure: True (it fails the same way),
    False (it does not), or None (run it again). `flaky.RateTest` is one."""

    def decide(self, failures: int, runs: int) -> bool | None: ...


class _OneRun:
    """A deterministic failure: one run decides."""

    def decide(self, failures: int, runs: int) -> bool | None:
        return failures > 0


ONE_RUN: StoppingRule = _OneRun()


@dataclass(frozen=True)
class FixedRuns:
    """`runs` runs, counted whatever they show (a rate measured); with `until_first_failure`,
    the first failure ends them (is this text still failing at all?)."""

    runs: int
    until_first_failure: bool = False

    def decide(self, failures: int, runs: int) -> bool | None:
        if (failures and self.until_first_failure) or runs >= self.runs:
            return failures > 0
        return None


@dataclass(frozen=True)
class Decided:
    """What the runs said: `decision` None when a run was cancelled (incomplete: never cached);
    `last` is the last run (the one that decided, or was cancelled)."""

    decision: bool | None
    failures: int
    runs: int
    last: RunResult | None


def run_until_decided(
    run_once: Callable[[], RunResult],
    shows_failure: Callable[[RunResult], bool],
    rule: StoppingRule,
    timeout_rejects: bool,
    at_once: int = 1,
    most: int = 1,
) -> Decided:
    """Run (`run_once`) and judge (`shows_failure`) until `rule` decides, or a run is cancelled.

    With `timeout_rejects`, a run that times out without showing the failure
    decides "no" at once: it left the original's path (an original that itself
    timed out does not set it, see `original.py`).

    With `at_once` > 1, that many runs are in flight while the first is judged,
    never more than `most` in all (the most the rule can ask for): the runs are
    judged in the order they started, so the decision is the one a run after
    another gives; a run started before the decision came is waited for, not used.
    """
    if at_once <= 1:
        return _decided(iter(run_once, None), shows_failure, rule, timeout_rejects)
    with ThreadPoolExecutor(at_once, thread_name_prefix="autodd-runs") as pool:
        started = deque(pool.submit(run_once) for _ in range(min(at_once, most)))

        def in_order() -> Iterator[RunResult]:
            submitted = len(started)
            while started:
                yield started.popleft().result()
                if submitted < most:  # undecided: one more in flight
                    started.append(pool.submit(run_once))
                    submitted += 1

        return _decided(in_order(), shows_failure, rule, timeout_rejects)


def _decided(results: Iterator[RunResult], shows_failure: Callable[[RunResult], bool], rule: StoppingRule,
             timeout_rejects: bool) -> Decided:
    failures = 0
    for runs, result in enumerate(results, start=1):
        if result.cancelled:
            return Decided(None, failures, runs - 1, result)
        if shows_failure(result):
            failures += 1
        elif result.timed_out and timeout_rejects:
            return Decided(False, failures, runs, result)
        decision = rule.decide(failures, runs)
        if decision is not None:
            return Decided(decision, failures, runs, result)
    raise AssertionError("the stopping rule asked for more runs than `most`")


@dataclass(frozen=True)
class Verdict:
    """What a candidate's runs decided."""

    decision: bool | None  # None: cancelled
    runs: int
    last: RunResult | None
    oracle_rejected: bool  # the runs did not fail the same way (not the frozen probe)
    unparsable: bool = False  # rejected without a run: it does not compile, or breaks frozen code


UNPARSABLE = Verdict(False, 0, None, oracle_rejected=False, unparsable=True)
CANCELLED = Verdict(None, 0, None, oracle_rejected=False)


def text_key(data: bytes) -> bytes:
    """The key a candidate's verdict is known by: a hash of its text's bytes (a verdict depends on
    the text alone: the tester's cache and the runs ahead, `ahead.py`, both go by it)."""
    return hashlib.blake2b(data, digest_size=16).digest()
