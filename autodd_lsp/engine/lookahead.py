"""The fixpoint's next searches, predicted, so that their candidates run on idle jobs.

The fixpoint's steps wait on one another: each search starts from the text the
last one left. Most searches end in a round or two, and in their last round
most of the N jobs are idle; a cycle that changes little (the cycle that
confirms above all) is a long row of such searches, each refusing what it
tries. So at the start of each level of a pass the fixpoint hands its state
to `Lookahead.ahead`. A twin of it (`Fixpoint.twin`) goes on from there in a
thread of its own, on a host (`_Predicting`) that refuses every candidate and
asks for its text to run ahead (`ahead.py`): the twin proposes, in order, what
the fixpoint will propose if no search accepts anything more. A search that
later proposes such a text takes its verdict instead of running it. Verdicts,
and so decisions, are the ones -j 1 gets; only the time changes.

The prediction holds while the best text stays the one the twin started from:
an acceptance (`accepted`) stops the twin and drops what it asked for (what
runs is cancelled), and a new twin starts at the fixpoint's next level. The
twin asks for at most `jobs` texts not yet started, so it stays only a little
ahead of the runs. What it cannot know it leaves out: a pass that would wait
for the original's values ends the twin. It is a prediction only: a twin that
fails stops, and the searches run their candidates themselves.

On from -j 2, where the original's run takes at least `WORTH_IT` seconds, for
failures that are not intermittent (a verdict there is a decision over several
runs, and one run ahead is as costly as one asked for); the library has none
(its predicate is called one text at a time).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.ahead import POLL, Ahead
from autodd_lsp.engine.candidates import CandidateTester
from autodd_lsp.engine.fixpoint import Cursor, Fixpoint, FixpointHost
from autodd_lsp.engine.run_map import FailingPath
from autodd_lsp.engine.slots import JobSlots
from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.passes import ReductionPass
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span
from autodd_lsp.values import RecordedValues, ValueLookup

# Seconds the original's run must take for runs ahead to pay: below it the twin's own work (it
# proposes and renders what the fixpoint does) costs more than the runs it overlaps (the quick
# case, 1 ms a run, went from 1.3 s to 1.7 s at -j 2 with it).
WORTH_IT = 0.1


class Lookahead:
    def __init__(self, tester: CandidateTester, slots: JobSlots, run_seconds: Callable[[], float]) -> None:
        self._tester, self._run_seconds = tester, run_seconds
        self._ahead = tester.ahead = Ahead(tester, slots, tester.jobs)
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="autodd-twin")  # the twin's search (jobs 1)
        self._host: _Predicting | None = None
        self._threads: list[threading.Thread] = []  # the twins started (each ends once stopped)
        self.failed = ""  # what ended the last twin that failed (a prediction only: kept for tests)

    def ahead(self, fixpoint: Fixpoint, cursor: Cursor) -> None:
        """The fixpoint is at `cursor`: a twin goes on from here, unless the running one still holds."""
        if self._tester.rules.rate_test is not None or self._run_seconds() < WORTH_IT:
            return  # an intermittent failure, or runs too quick to be worth it: see the module's docstring
        if self._host is not None and self._host.holds():
            return
        if self._host is not None:
            self._host.stopped = True  # it ends on its own, soon: its searches see they are interrupted
        self._ahead.drop()
        host = self._host = _Predicting(fixpoint.host, self._ahead, self._tester.jobs)
        twin = fixpoint.twin(host)
        thread = threading.Thread(target=self._predict, args=(twin, cursor), name="autodd-twin", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _predict(self, twin: Fixpoint, cursor: Cursor) -> None:
        try:
            twin.resume(self._pool, cursor)
        except Exception as error:  # noqa: BLE001 - a prediction only: the searches run what it did not ask for
            self.failed = f"{type(error).__name__}: {error}"

    def accepted(self) -> None:
        """A search accepted a text (the best is that text now): unless the twin predicted it,
        the prediction went wrong."""
        host = self._host
        if host is None or not host.holds():
            if host is not None:
                host.stopped = True
            self._ahead.drop()

    def stop(self) -> None:
        """The cycles are over: nothing more is asked for, and what was asked for is dropped
        (the twin ends on its own, soon: its searches see they are interrupted)."""
        if self._host is not None:
            self._host.stopped = True
        self._ahead.drop()

    def close(self, wait: bool = True) -> None:
        """Nothing more runs ahead: what runs is cancelled and waited for; with `wait`, the twins'
        threads are waited for too (after the recorder stopped: a twin may be in a recording run)."""
        self.stop()
        self._ahead.close()
        if wait:
            for thread in self._threads:
                thread.join()
            self._threads.clear()
            self._pool.shutdown(wait=True)


class _Predicting:
    """The twin's host (`fixpoint.FixpointHost`): the real one's reads passed on; every candidate
    asked to run ahead, and accepted where its search expects it (`PassSearch.expects`),
    refused otherwise; nothing told or learned. Its best texts are the real best when the twin
    started, then each text it predicted accepted, in order; the prediction holds while the real
    best is one of them and no search refused the next one."""

    jobs = 1  # proposals one after another: they only ask

    def __init__(self, real: FixpointHost, ahead: Ahead, jobs: int) -> None:
        self.real, self._ahead, self._jobs = real, ahead, jobs
        self._bests, self._shadows = [real.best_so_far()], [real.shadow()]
        self._agreed = 0  # the real best is `_bests[_agreed]`
        self._lock = threading.Lock()
        self.stopped = False

    def holds(self) -> bool:
        """Whether the twin's prediction still holds (see the class docstring)."""
        with self._lock:
            if self.stopped or self.real.interrupted():
                return False
            real, bests = self.real.best_so_far(), self._bests
            if real is not bests[self._agreed]:
                later = [k for k in range(self._agreed + 1, len(bests)) if len(bests[k]) == len(real) and bests[k] == real]
                if not later:
                    self.stopped = True  # a search accepted what the twin did not predict
                    return False
                self._agreed = later[0]
                bests[self._agreed] = real  # the same text: the next look is by identity
            following = self._agreed + 1
            if following < len(bests) and self._ahead.refused(bests[following]):
                self.stopped = True  # what the twin predicted accepted next was refused
                return False
            return True

    # -- the search's host ------------------------------------------------------
    def test(self, text: str, cancel: Cancel, statements_of: StatementsOf | None = None,
             on_rejected: Callable[[RunResult], None] | None = None, expected: bool = False) -> bool:
        while self.holds() and self._ahead.pending() >= self._jobs:
            threading.Event().wait(POLL * 2)
        if not self.holds():
            return False
        self._ahead.request(text, statements_of)
        return expected

    def new_cancel_event(self) -> Cancel:
        return threading.Event()

    def new_chain(self) -> Callable[[], Cancel]:
        return threading.Event

    def discarded(self, events: Iterable[Cancel]) -> None:
        pass

    def shadow(self) -> str | None:
        return self._shadows[-1]

    def statements_of(self, shadow: Callable[[], str | None]) -> StatementsOf:
        return self.real.statements_of(shadow)

    def rejection_recorder(self, shadow_base: str | None) -> Callable[[RunResult, str], None] | None:
        return None  # the search that takes a verdict learns from its run

    def accept(self, text: str, shadow: str | None) -> None:
        with self._lock:
            self._bests.append(text)
            self._shadows.append(shadow)

    def show_smaller(self, text: str) -> None:
        pass

    def interrupted(self) -> bool:
        return not self.holds()

    def offer_waiting(self) -> bool:
        return False

    def tick(self) -> None:
        pass

    # -- the fixpoint's host ----------------------------------------------------
    def best_so_far(self) -> str:
        return self._bests[-1]

    def reduced_original(self) -> str:
        return self.real.reduced_original()

    @property
    def cancelled(self) -> bool:
        return not self.holds()

    def pass_started(self, reduction_pass: ReductionPass) -> RecordedValues | None:
        ready, values = self.real.values_now(reduction_pass)
        if not ready:
            self.stopped = True  # what the pass waits for has not come: predict no further
        return values

    def values_now(self, reduction_pass: ReductionPass) -> tuple[bool, RecordedValues | None]:
        return self.real.values_now(reduction_pass)

    def adopt_offer(self) -> bool:
        return False

    def protected(self, source: Source, shadow: str | None) -> list[Span]:
        return self.real.protected(source, shadow)

    def run_map(self) -> RecordedValues | None:
        return self.real.run_map()

    def failing_path(self) -> FailingPath | None:
        return self.real.failing_path()

    def best_run_map(self, text: str) -> ValueLookup | None:
        return self.real.best_run_map(text)  # recorded once per text, for whichever asks first

    def refused_without_a_run(self, edit: Edit, error: str) -> None:
        pass  # the fixpoint tells it when it gets there
