"""Runs ahead of their search (engine/candidate/ahead.py, engine/searching/lookahead.py): the same decisions, fewer waits.

The run permits go to a search's candidate before a run ahead; a text run ahead
is run once, and its verdict is the search's own (counted, cached); a run ahead
that the prediction no longer wants is cancelled; and the real engine, with the
fixpoint's twin predicting, gives -j 1's result while taking verdicts from runs
ahead.
"""

import sys
import threading
import time
from typing import Any

import pytest

from autodd_lsp.engine.candidate.ahead import Ahead
from autodd_lsp.engine.candidate.candidates import CandidateTester, JobSlots, Rules
from autodd_lsp.engine.candidate.permits import RunPermits
from autodd_lsp.engine.rules.judge import Judge
from autodd_lsp.execution import create_backend
from autodd_lsp.oracle import FailureOracle
from tests.support import SLOW_SENTINEL, reduce, run_standalone, slow_program

FAILING = "raise ValueError('boom')\n"


def test_a_search_waiting_for_a_permit_gets_it_before_a_run_ahead():
    permits = RunPermits(1)
    permits.__enter__()  # a candidate runs
    got = threading.Event()

    def search_candidate():
        with permits:
            got.set()
            time.sleep(0.2)

    waiter = threading.Thread(target=search_candidate)
    waiter.start()
    deadline = time.monotonic() + 5
    while permits._waiting == 0 and time.monotonic() < deadline:  # the candidate waits for the permit
        time.sleep(0.01)
    assert not permits.take_idle(0.05)  # none free
    permits.give_back()
    assert got.wait(5)
    assert not permits.take_idle(0.05)  # the waiting candidate took it
    waiter.join()
    assert permits.take_idle(0.05)  # idle now: a run ahead may take it
    assert not permits.take_idle(0.01)
    permits.give_back()


class CountingBackend:
    """The real backend, counting its runs."""

    def __init__(self, backend):
        self.backend, self.runs = backend, 0

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def run(self, path, timeout, cancel=None, code=None, learn_imports=False):
        self.runs += 1
        return self.backend.run(path, timeout, cancel, code, learn_imports=learn_imports)


@pytest.fixture
def tester(tmp_path):
    backend: Any = CountingBackend(create_backend("subproc", python=sys.executable, cwd=str(tmp_path), jobs=2))
    slots = JobSlots(3, "candidate.py")
    tester = CandidateTester(backend, slots, 2)
    original = tester.run(FAILING, 30, tester.new_cancel_event())
    tester.judge_by(Rules(Judge(FailureOracle("boom", original.output, FAILING)), timeout=30))
    ahead = tester.ahead = Ahead(tester, slots, 2)
    yield tester, ahead, backend
    ahead.close()
    backend.close()
    slots.remove()


def wait_until(condition, seconds=20):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.mark.slow
def test_a_text_run_ahead_is_run_once_and_its_verdict_is_the_searchs(tester):
    tester, ahead, backend = tester
    runs = backend.runs
    ahead.request("import sys\nraise ValueError('boom')\n", None)
    ahead.request("print('fine')\n", None)
    wait_until(lambda: backend.runs == runs + 2 and ahead.pending() == 0)
    assert tester.test("import sys\nraise ValueError('boom')\n", tester.new_cancel_event())
    assert not tester.test("print('fine')\n", tester.new_cancel_event())
    assert backend.runs == runs + 2  # taken, not run again
    counters = tester.counters
    assert (counters.candidates_run, counters.ahead, counters.cache_hits) == (2, 2, 0)
    assert not tester.test("print('fine')\n", tester.new_cancel_event())  # now cached, as any verdict
    assert counters.cache_hits == 1 and backend.runs == runs + 2


@pytest.mark.slow
def test_a_text_a_search_has_judged_is_not_run_ahead(tester):
    tester, ahead, backend = tester
    assert not tester.test("print('fine')\n", tester.new_cancel_event())
    runs = backend.runs
    ahead.request("print('fine')\n", None)  # judged
    tester.set_best("x = 1\n")
    ahead.request("print('also fine')\n", None)  # not smaller than the best: a search would not run it
    time.sleep(0.3)
    assert ahead.pending() == 0 and backend.runs == runs


@pytest.mark.slow
def test_a_dropped_run_ahead_is_cancelled_and_counted_stale(tester):
    tester, ahead, backend = tester
    slow = "import time\ntime.sleep(30)\nraise ValueError('boom')\n"
    runs = backend.runs
    ahead.request(slow, None)
    wait_until(lambda: backend.runs == runs + 1)
    started = time.monotonic()
    ahead.drop()
    wait_until(lambda: tester.counters.stale == 1, seconds=10)
    assert time.monotonic() - started < 10  # killed, not waited for
    assert tester.counters.candidates_run == 0
    # a search that asks for it later runs it itself (a cancelled run is no verdict)
    quick = "raise ValueError('boom')  # again\n"
    ahead.request(quick, None)
    ahead.drop()  # dropped before it started, or cancelled: either way the search runs it
    assert tester.test(quick, tester.new_cancel_event())
    assert tester.counters.candidates_run == 1


@pytest.mark.slow
def test_the_engine_takes_verdicts_run_ahead_and_decides_as_with_one_job(program, no_leftovers):
    """Every candidate sleeps 0.2 s. At -j 3 (and -j 8, the most runs ahead) the fixpoint's twin
    predicts the next searches' candidates and they run on the jobs a search leaves idle; the
    result is -j 1's."""
    path = program("slow.py", slow_program(6, 0.2, junk=8))
    one, _ = reduce(path, SLOW_SENTINEL, jobs=1)
    three, _ = reduce(path, SLOW_SENTINEL, jobs=3)
    eight, _ = reduce(path, SLOW_SENTINEL, jobs=8)
    assert one.text == three.text == eight.text and three.verified
    assert "junk" not in three.text and "x5 = 5" in three.text
    assert one.stats.ahead == 0  # -j 1: no idle job
    assert three.stats.ahead >= 1  # 6 to 8 of 10 or 11 here; fewer on a loaded machine
    assert f"{three.stats.ahead} of them ahead of their search" in three.describe()
    assert "ahead" not in one.describe()
    reproducer = path.parent / "reproducer.py"
    reproducer.write_text(three.text)
    assert SLOW_SENTINEL in run_standalone(reproducer)


@pytest.mark.slow
def test_a_search_candidate_finding_no_permit_free_stops_a_run_ahead(tester):
    tester, ahead, backend = tester
    runs = backend.runs
    for seconds in (30, 31):  # both permits taken by runs ahead nobody asked for yet
        ahead.request(f"import time\ntime.sleep({seconds})\nraise ValueError('boom')\n", None)
    wait_until(lambda: backend.runs == runs + 2)
    started = time.monotonic()
    assert tester.test("raise ValueError('boom')  # the search's own\n", tester.new_cancel_event())
    assert time.monotonic() - started < 10  # one run ahead gave its permit back
    assert tester.counters.stale >= 1


class RealBest:
    """The real fixpoint's host as the twin's host reads it: its best text changes on acceptance."""

    def __init__(self, best):
        self.best = best

    def best_so_far(self):
        return self.best

    def shadow(self):
        return None

    def interrupted(self):
        return False


@pytest.mark.slow
def test_a_prediction_holds_while_the_real_best_follows_it(tester):
    from autodd_lsp.engine.searching.lookahead import _Predicting

    tester, ahead, _ = tester
    real: Any = RealBest("x = 1\ny = 2\nraise ValueError('boom')\n")
    twin = _Predicting(real, ahead, 2, [real.best], None)
    assert twin.holds()
    assert not twin.test("y = 2\nraise ValueError('boom')\n", threading.Event())  # not expected: refused
    assert twin.test("raise ValueError('boom')\n", threading.Event(), expected=True)  # expected: accepted
    twin.accept("raise ValueError('boom')\n", None)
    assert twin.best_so_far() == "raise ValueError('boom')\n" and twin.holds()
    real.best = "".join(["raise ValueError(", "'boom')\n"])  # the search accepted it too: an equal text
    twin.real_accepted()
    assert twin.holds()
    # another twin predicts the same, and the search accepts another text first
    real.best = "x = 1\ny = 2\nraise ValueError('boom')\n"
    other = _Predicting(real, ahead, 2, [real.best], None)
    other.accept("raise ValueError('boom')\n", None)
    real.best = "y = 2\nraise ValueError('boom')\n"
    other.real_accepted()
    assert not other.holds() and other.stopped and other.wrong


@pytest.mark.slow
def test_a_twin_replays_the_verdicts_a_search_has_given(tester):
    """Started behind the real best, a twin takes the verdicts the searches gave, and holds while it catches up."""
    from autodd_lsp.engine.searching.lookahead import _Predicting

    tester, ahead, _ = tester
    start, accepted = "x = 1\nraise ValueError('boom')\n", "raise ValueError('boom')\n"
    assert tester.test(accepted, tester.new_cancel_event())  # a search accepted it
    assert not tester.test("x = 1\n", tester.new_cancel_event())  # and refused this one
    real: Any = RealBest(accepted)
    twin = _Predicting(real, ahead, 2, [start, accepted], None)
    assert twin.holds()  # behind: replaying
    assert not twin.test("x = 1\n", threading.Event(), expected=True)  # known refused, whatever it expects
    assert twin.test(accepted, threading.Event())  # known accepted, though not expected
    twin.accept(accepted, None)
    assert twin.holds() and not twin.wrong


@pytest.mark.slow
def test_a_prediction_ends_when_the_text_it_expected_accepted_is_refused(tester):
    from autodd_lsp.engine.searching.lookahead import _Predicting

    tester, ahead, _ = tester
    real: Any = RealBest("x = 1\nprint('fine')\n")
    twin = _Predicting(real, ahead, 2, [real.best], None)
    twin.accept("print('fine')\n", None)
    assert twin.holds()
    assert not tester.test("print('fine')\n", tester.new_cancel_event())  # a search refuses it
    assert not twin.holds()


@pytest.mark.slow
def test_a_prediction_ends_when_a_text_it_guessed_refused_is_accepted(tester):
    """A round's member whose verdict the twin could not know it guesses refused (and asks to
    run ahead). Judged interesting (it joins the round's fold, search/driver.py), what the twin
    predicted after that round is wrong: it stops at once, before any search accepts a text.
    A guess that the verdict confirms changes nothing."""
    from autodd_lsp.engine.searching.lookahead import _Predicting

    tester, ahead, _ = tester
    real: Any = RealBest("x = 1\ny = 2\nraise ValueError('boom')\n")
    right = _Predicting(real, ahead, 2, [real.best], None)
    assert not right.test("x = 1\ny = 2\n", threading.Event())  # guessed refused: it is
    wait_until(lambda: ahead.verdict_of("x = 1\ny = 2\n") is False)
    assert right.holds()
    wrong = _Predicting(real, ahead, 2, [real.best], None)
    assert not wrong.test("y = 2\nraise ValueError('boom')\n", threading.Event())  # guessed refused
    wait_until(lambda: not wrong.holds())  # its run ahead: interesting
    assert wrong.wrong and right.holds()
