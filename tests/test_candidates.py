"""The candidate tester with a real backend: cheap checks first, cancelled candidates never run."""

import sys

import pytest

from autodd_lsp.engine.candidate.candidates import CandidateTester, JobSlots, Rules
from autodd_lsp.engine.rules.judge import Judge
from autodd_lsp.execution import create_backend
from autodd_lsp.oracle import FailureOracle

pytestmark = pytest.mark.slow  # every test here starts an interpreter

FAILING = "raise ValueError('boom')\n"


def make_tester(tmp_path, jobs=1, wrap=lambda backend: backend):
    backend = wrap(create_backend("subproc", python=sys.executable, cwd=str(tmp_path), jobs=jobs))
    slots = JobSlots(jobs + 1, "candidate.py")
    tester = CandidateTester(backend, slots, jobs)
    original = tester.run(FAILING, 30, tester.new_cancel_event())
    tester.judge_by(Rules(Judge(FailureOracle("boom", original.output, FAILING)), timeout=30))
    return tester, backend, slots


def test_an_interesting_verdict_cancels_no_other_candidate(tmp_path):
    """A search's round uses the verdicts of all its members (`search/driver.py`): an
    interesting one leaves the candidates proposed after it to run and be judged."""
    tester, backend, slots = make_tester(tmp_path)
    try:
        earlier, this, later = (tester.new_cancel_event() for _ in range(3))
        assert tester.test(FAILING, this)
        assert not later.is_set() and not earlier.is_set()
        runs = tester.counters.candidates_run
        assert not tester.test("print('boom')\nx = 1\n", later)  # judged by a run
        assert tester.counters.candidates_run == runs + 1
    finally:
        backend.close()
        slots.remove()


class LateCancel:
    """The real backend, whose runs end before the cancel meant for them lands (a Ray run
    looks at its flag every 50 ms): the flag is set just after the run ended."""

    def __init__(self, backend):
        self.backend = backend

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def run(self, path, timeout, cancel=None, code=None, learn_imports=False):
        result = self.backend.run(path, timeout, cancel, code, learn_imports=learn_imports)
        if cancel is not None:
            cancel.set()
        return result


def test_a_stale_candidate_that_still_fails_cancels_nothing(tmp_path):
    """Cancelled (thrown away by its search) after its run ended interesting: the candidates
    after it are not cancelled by it. They were once: on a Ray cluster the next search's
    head came back cancelled, taken as a rejection, and the output differed from -j 1's."""
    tester, backend, slots = make_tester(tmp_path, wrap=LateCancel)
    try:
        stale, later = tester.new_cancel_event(), tester.new_cancel_event()
        tester.test(FAILING, stale)
        assert stale.is_set() and not later.is_set()
    finally:
        backend.close()
        slots.remove()


def test_an_uninteresting_verdict_cancels_nothing(tmp_path):
    tester, backend, slots = make_tester(tmp_path)
    try:
        this, later = tester.new_cancel_event(), tester.new_cancel_event()
        assert not tester.test("print('fine')\n", this)
        assert not later.is_set()
        assert tester.test(FAILING, later)
    finally:
        backend.close()
        slots.remove()


def test_only_smaller_texts_run_and_equal_lengths_compare_their_literals(tmp_path):
    tester, backend, slots = make_tester(tmp_path)
    best = "n = 50\nraise ValueError('boom', n)\n"
    tester.set_best(best)
    try:
        runs = tester.counters.candidates_run
        for bigger in (best.replace("50", "100"), best, best.replace("50", "51")):
            assert not tester.test(bigger, tester.new_cancel_event())
        assert tester.counters.candidates_run == runs  # refused without running
        assert tester.test(best.replace("50", "49"), tester.new_cancel_event())  # same length, smaller literal
        assert tester.test(best.replace("50", "7"), tester.new_cancel_event())  # shorter
        assert tester.counters.candidates_run == runs + 2
    finally:
        backend.close()
        slots.remove()
