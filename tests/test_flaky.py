"""Intermittent failures: the original's rate is measured, candidates must fail about as often.

The programs here are deterministic "flaky" ones: `flakylib.maybe_fail(period)`
counts the runs of the very text that calls it (a counter per content hash, in
a folder named by an environment variable: candidates run in other folders, and
the variable is inherited), and fails on every `period`-th run, starting with
the first. Period 2 fails half the runs; period 4 a quarter; any other period
never. A counter per text keeps every candidate's sequence of run outcomes the
same whatever the number of jobs (see notes/parallelism.md).
"""

import hashlib
import math
import subprocess
import sys
from pathlib import Path

import pytest

from autodd_lsp.engine import (
    FailureRate,
    Notice,
    NotReproducible,
    ReduceOptions,
    UsageError,
)
from autodd_lsp.engine.candidate.candidates import CandidateTester, JobSlots, Rules
from autodd_lsp.engine.rules.judge import Judge
from autodd_lsp.engine.searching.run_map import SWITCH
from autodd_lsp.engine.spec.flaky import ALPHA, MAX_RUNS, RateTest
from autodd_lsp.execution import create_backend
from autodd_lsp.oracle import FailureOracle
from tests.support import reduce, run_standalone

MESSAGE = "flaky failure"
COUNTERS = "AUTODD_TEST_FLAKY_DIR"

FLAKYLIB = '''\
import fcntl, hashlib, os, sys


def _runs_before() -> int:
    """How often the text of this very program ran before."""
    with open(sys.modules["__main__"].__file__, "rb") as own:
        key = hashlib.sha1(own.read()).hexdigest()
    with open(os.path.join(os.environ["AUTODD_TEST_FLAKY_DIR"], key), "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        seen = len(counter.read())
        counter.write("x")
    return seen


def maybe_fail(period):
    seen = _runs_before()
    with open(os.path.join(os.environ["AUTODD_TEST_FLAKY_DIR"], "periods"), "a") as log:
        log.write(f"{period}\\n")
    if period in (2, 4) and seen % period == 0:
        raise RuntimeError("flaky failure")


def always_fail(size):
    with open(os.path.join(os.environ["AUTODD_TEST_FLAKY_DIR"], "periods"), "a") as log:
        log.write("always\\n")
    raise RuntimeError(f"deterministic failure of {size}")
'''

INTERMITTENT = '''\
import flakylib


class Settings:
    def __init__(self):
        self.period = 2
        self.name = "demo"
        self.retries = 3


def describe(settings):
    return f"{settings.name} x{settings.retries}"


def unused(values):
    total = 0
    for value in values:
        total += value * 2
    return total


settings = Settings()
print(describe(settings))
print(unused([1, 2, 3]))
flakylib.maybe_fail(settings.period)
'''

RARER = '''\
import flakylib

period = 4
sizes = [3, 1, 2]
period = 2  # without this line the failure shows in 1 run of 4, not 1 of 2
order = sorted(sizes)
print(order)
flakylib.maybe_fail(period)
'''


@pytest.fixture
def flaky(tmp_path, tmp_path_factory, monkeypatch):
    """Write flakylib beside the programs; return a function that starts a fresh set of counters
    (outside the program's folder: what runs write there is removed after each, engine/candidate/clean_runs.py)."""
    (tmp_path / "flakylib.py").write_text(FLAKYLIB)
    made: list[Path] = []
    outside = tmp_path_factory.mktemp("counters")

    def fresh_counters():
        folder = outside / f"counters{len(made)}"
        folder.mkdir()
        made.append(folder)
        monkeypatch.setenv(COUNTERS, str(folder))
        return folder

    fresh_counters()
    return fresh_counters


def reduce_flaky(path, message=MESSAGE, **options):
    # flakylib stands for an installed library with a race: inlined, its counting would be reduced too.
    options.setdefault("inline_modules", False)
    return reduce(path, message, **options)


def notices(events):
    """What the run said, less what it said of flakylib beside the program (whether it was inlined,
    that what its failing statement reads, its counter, differs between runs)."""
    return [e.message for e in events if isinstance(e, Notice) and "inlined" not in e.message
            and "flakylib.py" not in e.message]


# -- the sequential test on its own -------------------------------------------------------


def decide(test, pattern):
    """Run `test` on an endless repetition of `pattern` (1: the run failed); (decision, runs)."""
    failures = runs = 0
    while True:
        failures += pattern[runs % len(pattern)]
        runs += 1
        decision = test.decide(failures, runs)
        if decision is not None:
            return decision, runs


def rotations(pattern):
    return [pattern[i:] + pattern[:i] for i in range(len(pattern))]


def test_the_rate_test_accepts_as_often_and_rejects_rarer_whatever_the_phase():
    test = RateTest(0.5)
    for pattern in rotations([1, 0]):
        assert decide(test, pattern)[0] is True
    for pattern in rotations([1, 0, 0, 0]):  # half the original's rate: rarer
        assert decide(test, pattern)[0] is False
    assert decide(test, [1, 1, 0])[0] is True  # a little more often is about as often
    assert decide(test, [1]) == (False, 5)  # a race made certain: the guard that made it a race went
    assert decide(RateTest(0.9), [1]) == (True, 5)  # a failure the user saw in most runs may become certain
    assert decide(test, [0]) == (False, 6) == (False, test.runs_to_reject_a_candidate_that_never_fails())


def test_a_candidate_that_never_failed_is_never_accepted():
    for p0 in (0.01, 0.05, 0.3, 0.5, 0.9, 0.99):
        test = RateTest(p0)
        assert all(test.decide(0, runs) is not True for runs in range(1, MAX_RUNS + 1))
        assert test.decide(0, MAX_RUNS) is False


def test_every_test_ends_by_the_cap():
    for p0 in (0.02, 0.1, 0.5):
        test = RateTest(p0)
        for failures in range(MAX_RUNS + 1):
            assert test.decide(failures, MAX_RUNS) is not None


def test_the_error_rate_at_half_the_original_rate_is_the_constant():
    """Exactly, by summing over the paths of the test (no sampling): P(accept | p = p0 / 2) <= ALPHA."""
    test = RateTest(0.5)
    p = 0.25
    undecided = {0: 1.0}  # failures -> probability of being undecided after `runs` runs
    accepted = 0.0
    for runs in range(1, MAX_RUNS + 1):
        after: dict[int, float] = {}
        for failures, chance in undecided.items():
            for failed, step in ((1, p), (0, 1 - p)):
                f = failures + failed
                decision = test.decide(f, runs)
                if decision is None:
                    after[f] = after.get(f, 0.0) + chance * step
                elif decision:
                    accepted += chance * step
        undecided = after
    assert not undecided and accepted <= ALPHA


@pytest.mark.slow
def test_the_cache_keeps_the_tests_decision_not_one_runs_verdict(tmp_path, flaky):
    (tmp_path / "flakylib.py").write_text(FLAKYLIB)
    backend = create_backend("subproc", python=sys.executable, cwd=str(tmp_path), jobs=1, extra_sys_path=[str(tmp_path)])
    slots = JobSlots(2, "candidate.py")
    tester = CandidateTester(backend, slots, 1)
    try:
        original = "import flakylib\nflakylib.maybe_fail(2)\n"
        result = tester.run(original, 30, tester.new_cancel_event())
        tester.judge_by(Rules(Judge(FailureOracle(MESSAGE, result.output, original)), timeout=30, rate_test=RateTest(0.5)))
        rarer = "import flakylib\nflakylib.maybe_fail(4)\n"  # its first run fails
        later = tester.new_cancel_event()
        assert not tester.test(rarer, tester.new_cancel_event())
        assert not later.is_set()  # a rejection cancels nothing
        assert tester.counters.runs == 20 and tester.counters.candidates_run == 1
        assert not tester.test(rarer, tester.new_cancel_event())  # the decision, from the cache
        assert tester.counters.runs == 20 and tester.counters.cache_hits == 1
        this, later = tester.new_cancel_event(), tester.new_cancel_event()
        assert tester.test("import flakylib;flakylib.maybe_fail(2)\n", this)
        assert not later.is_set()  # nor does an acceptance: a round reads all its members (search/driver.py)
        assert tester.counters.runs == 20 + 17 and tester.counters.candidates_run == 2
    finally:
        backend.close()
        slots.remove()


def test_rates_describe_themselves():
    assert FailureRate(11, 20).describe() == "fails 11 of 20 runs (55%)"
    assert FailureRate(20, 20).always and not FailureRate(0, 20).always


def test_repeat_is_checked_like_the_other_options():
    for bad in (1, -3, 10**6):
        with pytest.raises(UsageError, match="--repeat must be 0"):
            ReduceOptions(err_msg="x", repeat=bad).validate()
    ReduceOptions(err_msg="x", repeat=2).validate()


# -- the engine on intermittent programs ------------------------------------------------


@pytest.mark.slow
def test_an_intermittent_program_reduces_and_keeps_its_rate(program, flaky, tmp_path, no_leftovers):
    path = program("intermittent.py", INTERMITTENT)
    summary, events = reduce_flaky(path)
    said = notices(events)
    assert len(said) == 1 and "intermittent: the original fails 10 of 20 runs (50%)" in said[0], said
    assert summary.verified and not summary.cancelled
    assert summary.original_rate == FailureRate(10, 20)
    assert summary.final_rate.runs == 20 and summary.final_rate.failures >= 8  # about the original's
    assert "fails 10 of 20 runs (50%)" in summary.describe() and "re-run 20 times" in summary.describe()
    assert summary.final.nodes < summary.original.nodes / 3
    # the failing call keeps its own words (what it reads stays an expression: notes/passes.md)
    assert "flakylib.maybe_fail(settings.period)" in summary.text and "unused" not in summary.text
    assert summary.stats.runs > summary.stats.candidates_run  # the sequential test ran some again
    out = tmp_path / "alone"
    out.mkdir()
    (out / "result.py").write_text(summary.text)
    (out / "flakylib.py").write_text(FLAKYLIB)
    flaky()
    outputs = [run_standalone(out / "result.py") for _ in range(2)]
    assert [MESSAGE in output for output in outputs] == [True, False]  # its first run fails, the next does not


@pytest.mark.slow
def test_a_candidate_that_makes_the_failure_rarer_is_not_accepted(program, flaky, monkeypatch):
    # Without the run map: with it, once `period = 4` is gone the removal of `period = 2` (its
    # only binding left, read by the call) waits for the cycle that confirms and fails there
    # with a NameError, so the rarer candidate this test is about is never made.
    monkeypatch.setenv(SWITCH, "off")
    path = program("rarer.py", RARER)
    counters = flaky()
    summary, _ = reduce_flaky(path)
    assert summary.original_rate == FailureRate(10, 20)
    periods = (counters / "periods").read_text().split()
    assert "4" in periods  # candidates without `period = 2` ran: they fail 1 run in 4
    assert summary.verified and summary.final_rate.failures >= 8
    assert "period = 2" in summary.text or "maybe_fail(2)" in summary.text
    assert "sizes" not in summary.text


@pytest.mark.slow
def test_the_same_result_at_any_number_of_jobs(program, flaky):
    path = program("intermittent.py", INTERMITTENT)
    one, _ = reduce_flaky(path, jobs=1)
    flaky()
    two, _ = reduce_flaky(path, jobs=2)
    assert one.text == two.text and one.verified and two.verified
    assert one.original_rate == two.original_rate == FailureRate(10, 20)


@pytest.mark.slow
def test_repeat_measures_the_rate_of_a_deterministic_failure_too(program):
    path = program("always.py", "def check(n):\n    raise ValueError('always fails', n)\n\npad = 1\ncheck(3)\n")
    summary, events = reduce_flaky(path, "always fails", repeat=5)
    assert not notices(events)  # not intermittent
    assert summary.original_rate == FailureRate(5, 5) and summary.final_rate == FailureRate(5, 5)
    assert summary.stats.runs == summary.stats.candidates_run  # one run each
    assert "re-run 5 times: still fails the same way, fails 5 of 5 runs (100%)" in summary.describe()


@pytest.mark.slow
def test_a_failure_that_shows_late_is_found_with_repeat(program, flaky):
    late = RARER.replace("period = 2  #", "period = 4  #")  # fails 1 run in 4
    path = program("late.py", late)
    counters = flaky()
    (counters / hashlib.sha1(late.encode()).hexdigest()).write_text("x")  # as if run once: the next 3 pass
    summary, events = reduce_flaky(path, repeat=8)
    assert summary.original_rate == FailureRate(2, 8)
    assert any("fails 2 of 8 runs (25%)" in n for n in notices(events))
    assert summary.verified


@pytest.mark.slow
def test_an_original_that_never_fails_in_its_runs_is_not_reproducible(program, flaky, no_leftovers):
    path = program("never.py", "import flakylib\nflakylib.maybe_fail(3)\n")
    with pytest.raises(NotReproducible) as caught:
        reduce_flaky(path, repeat=6)
    assert str(caught.value) == (
        "the original program did not print 'flaky failure' in any of its 6 runs (the last: exit status 0)"
    )
    with pytest.raises(NotReproducible, match=r"does not print .*--repeat N runs it N times"):
        reduce_flaky(path)


@pytest.mark.slow
def test_a_deterministic_failure_runs_each_candidate_once(program, flaky):
    """Counted by the program itself: the original twice, each candidate once, the result once."""
    counters = flaky()
    path = program("counted.py", (
        "import flakylib\n"
        "unused = [1, 2, 3]\n"
        "def check(values):\n"
        "    if len(values) > 1:\n"
        "        flakylib.always_fail(len(values))\n"
        "check(unused)\n"
    ))
    summary, events = reduce_flaky(path, "deterministic failure")
    assert not notices(events) and summary.verified
    assert summary.original_rate is None and summary.final_rate is None
    assert summary.stats.runs == summary.stats.candidates_run
    assert "runs)" not in summary.describe() and "re-run: still fails the same way" in summary.describe()
    # A candidate that fails calls always_fail; one that does not may not have reached it.
    # One more: the recording run (the failure is raised in library code: values are recorded).
    runs = (counters / "periods").read_text().split()
    stats = summary.stats
    assert 2 + stats.accepted + 1 <= len(runs) <= 2 + stats.candidates_run + 1 + 1
    assert len(runs) < 2 * stats.candidates_run


# -- the command line -------------------------------------------------------------------


def autodd(*args, env=None):
    """The CLI on a program that imports flakylib (kept: it stands for an installed library)."""
    return subprocess.run(
        [sys.executable, "-m", "autodd_lsp", *map(str, args), "--keep-imports"],
        capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL, check=False,
    )


@pytest.mark.slow
def test_the_command_line_reports_both_rates(program, flaky, tmp_path):
    path = program("intermittent.py", INTERMITTENT)
    done = autodd(path, "--err-msg", MESSAGE, "-o", tmp_path / "min.py", "--repeat", "12")
    assert done.returncode == 0, done.stderr
    assert "autodd: note: the failure is intermittent: the original fails 6 of 12 runs (50%)" in done.stderr
    summary = [line for line in done.stderr.splitlines() if line.startswith("Done:")]
    assert summary and "re-run 12 times: still fails the same way, fails 6 of 12 runs (50%)" in summary[0]
    assert "the original fails 6 of 12 runs (50%)" in summary[0]


@pytest.mark.slow
def test_the_command_line_says_when_no_run_failed(program, flaky, tmp_path):
    path = program("never.py", "import flakylib\nflakylib.maybe_fail(3)\n")
    done = autodd(path, "--err-msg", MESSAGE, "-o", tmp_path / "min.py", "--repeat", "4")
    assert done.returncode == 1
    assert "did not print 'flaky failure' in any of its 4 runs" in done.stderr
    bad = autodd(path, "--err-msg", MESSAGE, "-o", tmp_path / "min.py", "--repeat", "1")
    assert bad.returncode == 2 and "--repeat must be 0 (automatic) or a number of runs from 2" in bad.stderr


def test_ratios_of_the_test_are_what_the_notes_say():
    """notes/oracle.md quotes these numbers."""
    test = RateTest(0.5)
    assert math.isclose(test.up, math.log(2)) and math.isclose(test.accept_at, math.log(18))
    assert [RateTest(p).runs_to_reject_a_candidate_that_never_fails() for p in (0.9, 0.5, 0.2, 0.05)] == [2, 6, 20, 60]
