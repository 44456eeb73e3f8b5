"""The fixpoint's next searches, predicted, so that their candidates run on idle jobs.

The fixpoint's steps wait on one another: each search starts from the text the
last one left. Most searches end in a round or two, and in their last round
most of the N jobs are idle; a cycle that changes little (the cycle that
confirms above all) is a long row of such searches, each refusing what it
tries. So at the start of each level of a pass the fixpoint hands its state
to `Lookahead.ahead`, which keeps a copy of it (`Fixpoint.twin`). A twin made
from that copy goes on from there (`Fixpoint.resume`) in a thread of its own,
on a host (`_Predicting`) that answers each candidate itself: with the verdict
a search gave, where one is known (the cache, or a run ahead); else it asks
for the text to run ahead (`ahead.py`) and guesses: accepted where the search
expects it (`PassSearch.expects`), refused otherwise. So the twin proposes, in
order, what the fixpoint will propose if the searches decide as it guessed. A
search that later proposes such a text takes its verdict instead of running
it: verdicts, and so decisions, are the ones -j 1 gets; only the time changes.

The twin's best texts start at the real best of its cursor; the prediction
holds while they agree with the texts the searches accepted since, the
next one it took as accepted was not refused, and no text it guessed refused
was judged interesting (a round's member that joins its fold, `search/driver.py`:
what the twin predicted after that round is wrong before any search accepts). When a guess goes wrong, what it
asked for is dropped (what runs is cancelled) and a new twin starts from the
same copy: it replays what the searches decided since (known verdicts, nothing
runs), then guesses on (not when the replay would be longer than
`REPLAY_MOST` verdicts: the next cursor starts one then). A twin still right
at the next cursor goes on. A twin works only while a run permit is idle and
asks for at most `jobs` texts not yet started, so it stays a little ahead of
the runs and never takes the engine's time when the searches use every job.
What it cannot know it leaves out: a pass that would wait for the original's
values ends the twin. It is a prediction only: a twin that fails stops, and
the searches run their candidates themselves.

On from -j 2, where the original's run takes at least `WORTH_IT` seconds, for
failures that are not intermittent (a verdict there is a decision over several
runs, and one run ahead is as costly as one asked for); the library has none
(its predicate is called one text at a time).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.ahead import POLL, Ahead
from autodd_lsp.engine.candidate.candidates import BestOrder, CandidateTester
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.candidate.verdict import text_key
from autodd_lsp.engine.searching.fixpoint import Cursor, Fixpoint, FixpointHost
from autodd_lsp.engine.searching.pass_search import PlainCancels
from autodd_lsp.engine.searching.run_map import FailingPath
from autodd_lsp.execution import RunResult
from autodd_lsp.files import source_bytes
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.passes import ReductionPass
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span
from autodd_lsp.values import RecordedValues, ValueLookup

# Seconds the original's run must take for runs ahead to pay: below it the twin's own work (it
# proposes and renders what the fixpoint does) costs more than the runs it overlaps (the quick
# case, 1 ms a run, went from 1.3 s to 1.7 s at -j 2 with it).
WORTH_IT = 0.1
# The most verdicts a new twin would replay (what the searches judged since the last cursor): past
# it, no twin until the next cursor (a replay proposes and renders each of them again).
REPLAY_MOST = 200


class Lookahead:
    def __init__(self, tester: CandidateTester, slots: JobSlots, run_seconds: Callable[[], float]) -> None:
        self._tester, self._slots, self._run_seconds = tester, slots, run_seconds
        self._ahead: Ahead | None = None  # made when a twin first starts: until then no run goes ahead
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="autodd-twin")  # the twin's search (jobs 1)
        self._lock = threading.RLock()
        self._host: _Predicting | None = None
        # The fixpoint's state at the last cursor (a copy), the cursor, and the best's shadow then.
        self._origin: tuple[Fixpoint, Cursor, str | None] | None = None
        self._judged = 0  # the searches' verdicts when it was taken (a replay from it redoes those)
        self._stopped = False
        self._threads: list[threading.Thread] = []  # the twins started (each ends once stopped)
        self.failed = ""  # what ended the last twin that failed (a prediction only: kept for tests)

    def ahead(self, fixpoint: Fixpoint, cursor: Cursor) -> None:
        """The fixpoint is at `cursor`: its state is kept (`_origin`) and a twin goes on from
        here, unless the running one still holds (it goes on, from the best text now)."""
        if self._tester.rules.rate_test is not None or self._run_seconds() < WORTH_IT:
            return  # an intermittent failure, or runs too quick to be worth it: see the module's docstring
        real = fixpoint.host
        with self._lock:
            if self._ahead is None:
                self._ahead = self._tester.ahead = Ahead(self._tester, self._slots, self._tester.jobs)
            self._stopped = False
            self._origin, self._judged = (fixpoint.twin(real), cursor, real.shadow()), self._verdicts()
            host = self._host
            if host is not None and host.holds() and host.rebase():
                return
            self._start([real.best_so_far()])

    def _verdicts(self) -> int:
        counters = self._tester.counters
        return counters.candidates_run + counters.cache_hits + counters.rejected_unparsable

    def _start(self, real_bests: list[str]) -> None:
        """A new twin from `_origin` (the lock held), `real_bests` the real best texts since: it
        replays what the searches decided since (their verdicts are known), then predicts. Not
        when that replay would be long."""
        ahead = self._ahead
        assert ahead is not None  # made by `ahead`, the only way here
        if self._host is not None:
            self._host.stopped = True  # it ends on its own, soon: its searches see they are interrupted
        ahead.drop()
        self._host = None
        if self._origin is None or self._stopped or self._verdicts() - self._judged > REPLAY_MOST:
            return
        origin, cursor, shadow = self._origin
        host = self._host = _Predicting(origin.host, ahead, self._tester.jobs, real_bests, shadow)
        thread = threading.Thread(target=self._predict, args=(origin.twin(host), cursor, host),
                                  name="autodd-twin", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _predict(self, twin: Fixpoint, cursor: Cursor, host: _Predicting) -> None:
        try:
            twin.resume(self._pool, cursor)
        except Exception as error:  # noqa: BLE001 - a prediction only: the searches run what it did not ask for
            self.failed = f"{type(error).__name__}: {error}"
        with self._lock:
            if host is self._host and host.wrong:
                self._start(list(host.real_bests))  # it guessed wrong: again, with what is known now

    def accepted(self) -> None:
        """A search accepted a text (the best is that text now): unless the twin predicted it,
        the prediction went wrong, and a new twin replays from the last cursor."""
        with self._lock:
            host = self._host
            if host is None:
                return
            host.real_accepted()
            if host.holds():
                return
            if host.wrong:
                self._start(list(host.real_bests))
            elif self._ahead is not None:
                self._ahead.drop()  # it had stopped: what it asked for came from a best that is gone

    def stop(self) -> None:
        """The cycles are over: nothing more is asked for, and what was asked for is dropped
        (the twin ends on its own, soon: its searches see they are interrupted)."""
        with self._lock:
            self._stopped = True
            if self._host is not None:
                self._host.stopped = True
            self._host = self._origin = None
        if self._ahead is not None:
            self._ahead.drop()

    def close(self, wait: bool = True) -> None:
        """Nothing more runs ahead: what runs is cancelled and waited for; with `wait`, the twins'
        threads are waited for too (after the recorder stopped: a twin may be in a recording run)."""
        self.stop()
        if self._ahead is not None:
            self._ahead.close()
        if wait:
            for thread in list(self._threads):
                thread.join()
            self._threads.clear()
            self._pool.shutdown(wait=True)


class _Predicting(PlainCancels):
    """The twin's host (`fixpoint.FixpointHost`): the real one's reads passed on; each candidate
    judged as a search did where its verdict is known (the cache, a run ahead), else asked to run
    ahead, and accepted where its search expects it (`PassSearch.expects`), refused otherwise;
    nothing told or learned. Its best texts start at the real best where the twin started; the
    prediction holds while they agree with the real ones (`real_bests`: that one, then each text a
    search accepted), no search refused the next text it predicted accepted, and no text it
    guessed refused was judged interesting."""

    jobs = 1  # proposals one after another: they only ask

    def __init__(self, real: FixpointHost, ahead: Ahead, jobs: int, real_bests: list[str], shadow: str | None) -> None:
        self.real, self._ahead, self._jobs = real, ahead, jobs
        self.real_bests = real_bests
        self._bests, self._shadows = [real_bests[0]], [shadow]
        self._order = BestOrder()
        self._order.set(real_bests[0])
        self._agreed = 1  # how many of both lists are known equal
        self._lock = threading.Lock()
        self.stopped = False
        self.wrong = False  # stopped because it guessed wrong (else: told to stop, or nothing to wait for)
        self._guessed_refused: list[bytes] = []  # texts (their keys) guessed refused, no verdict yet

    def real_accepted(self) -> None:
        with self._lock:
            self.real_bests.append(self.real.best_so_far())

    def rebase(self) -> bool:
        """Go on from the real best now (a new cursor): what both lists agree on before it goes.
        False where the twin is behind (still replaying): a new one starts from the cursor."""
        with self._lock:
            drop = len(self.real_bests) - 1
            if len(self._bests) <= drop:
                return False
            del self._bests[:drop], self._shadows[:drop], self.real_bests[:drop]
            self._agreed = 1
            return True

    def holds(self) -> bool:
        """Whether the twin's prediction still holds (see the class docstring)."""
        with self._lock:
            if self.stopped or self.real.interrupted():
                return False
            real, bests = self.real_bests, self._bests
            for k in range(self._agreed, min(len(real), len(bests))):
                if real[k] is not bests[k] and real[k] != bests[k]:
                    self.stopped = self.wrong = True  # a search accepted what the twin did not predict
                    return False
            self._agreed = max(self._agreed, min(len(real), len(bests)))
            if len(bests) > len(real) and self._ahead.verdict_of(bests[len(real)]) is False:
                self.stopped = self.wrong = True  # what the twin predicted accepted next was refused
                return False
            unknown = []
            for digest in self._guessed_refused:
                verdict = self._ahead.verdict_by_key(digest)
                if verdict:  # a member of a round it guessed refused was not: it folds (search/driver.py)
                    self.stopped = self.wrong = True
                    return False
                if verdict is None:
                    unknown.append(digest)
            self._guessed_refused = unknown
            return True

    # -- the search's host ------------------------------------------------------
    def test(self, text: str, cancel: Cancel, statements_of: StatementsOf | None = None,
             on_rejected: Callable[[RunResult], None] | None = None, expected: bool = False) -> bool:
        # Only while a job is idle: when the searches use them all, the twin's work (its
        # proposals, its replay) would only take the engine's time.
        while self.holds() and (self._ahead.pending() >= self._jobs or not self._ahead.idle()):
            threading.Event().wait(POLL * 2)
        if not self.holds():
            return False
        if not self._order.smaller(text):
            return False  # as a search would refuse it
        key = text_key(source_bytes(text))
        known = self._ahead.verdict_by_key(key)
        if known is not None:
            return known  # a search judged it (the twin replays), or it ran ahead
        self._ahead.request(text, statements_of, key)
        if not expected:
            with self._lock:
                self._guessed_refused.append(key)
        return expected

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
        self._order.set(text)

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

    def pass_failed(self, reduction_pass: ReductionPass, error: BaseException) -> None:
        pass  # the fixpoint tells it when it gets there
