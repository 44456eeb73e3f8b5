"""The user in the loop (engine/person/person.py): offered texts during a real run, what a run learned per line,
and one tried candidate after it. Real engine, real programs."""

import threading

import pytest

from autodd_lsp.engine import Notice, PassStarted, Reduction
from autodd_lsp.engine.person.person import FAILURE_GONE, without_line
from tests.support import (
    SLOW_SENTINEL,
    program_text,
    run_standalone,
    slow_program,
    start_reduction,
)

PROGRAM = program_text("loop_kept.py")  # also the VS Code test's fixture
SENTINEL = "loop-sentinel: too many values"

SLOW = slow_program(4)  # x0..x3 all needed; every run sleeps 0.3 s (frozen)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.slow
def test_hover_knowledge_says_what_happens_without_each_kept_line(program, no_leftovers):
    path = program("prog.py", PROGRAM)
    reduction = start_reduction(path, SENTINEL)
    summary = reduction.run()
    final = summary.text
    assert "print" not in final and "data = " in final

    without_raise = reduction.why_kept(line_of(final, "raise ValueError"))
    assert without_raise is not None and without_raise.outcome == FAILURE_GONE
    without_data = reduction.why_kept(line_of(final, "data = "))
    assert without_data is not None and without_data.together_with == 0
    # `check(data)` ran in the best's last run: the removal of `data = ...` is refused there
    # without running it again (engine/searching/best_run.py), and the line says so.
    assert without_data.outcome.startswith("NameError: name 'data' is not defined")
    assert reduction.why_kept(line_of(final, "check(data)")) is None  # frozen: never tried
    assert reduction.why_kept(len(final.splitlines()) + 5) is None


@pytest.mark.slow
def test_try_without_a_line_runs_that_one_candidate(program, no_leftovers):
    path = program("prog.py", PROGRAM)
    reduction = start_reduction(path, SENTINEL)
    final = reduction.run().text

    candidate = without_line(final, line_of(final, "data = "))
    assert candidate is not None and "data = " not in candidate
    verdict = reduction.try_text(candidate)
    assert not verdict.interesting and verdict.outcome == "NameError: name 'data' is not defined"
    assert reduction.try_text(final).interesting


def test_without_line_removes_the_statement_starting_there():
    text = "def f():\n    x = 1\n    return x\n\n\nif True:\n    f()\n"
    assert without_line(text, 1) == "\n\nif True:\n    f()\n"
    assert without_line(text, 7) == "def f():\n    x = 1\n    return x\n\n\nif True:\n    pass\n"
    assert without_line(text, 4) is None  # a blank line
    assert without_line("a = 1; b = 2\n", 1) is None


def offer_once_reducing(reduction: Reduction, text: str, at_pass: int = 1) -> tuple[list, list]:
    """Offer `text` when pass number `at_pass` starts (the run is going); collect the verdicts and events."""
    verdicts, events = [], []
    offered = threading.Event()
    passes = []

    def listener(event):
        events.append(event)
        if isinstance(event, PassStarted):
            passes.append(event)
        if isinstance(event, PassStarted) and len(passes) == at_pass and not offered.is_set():
            offered.set()
            reduction.offer(text).add_done_callback(lambda future: verdicts.append(future.result()))

    reduction._reporter.listener = listener
    return verdicts, events


@pytest.mark.slow
def test_an_offered_text_that_fails_the_same_way_is_adopted_frozen_code_included(program, no_leftovers):
    path = program("slow.py", SLOW)
    reduction = start_reduction(path, SLOW_SENTINEL)
    mine = SLOW.replace("import time\ntime.sleep(0.3)  # autodd: freeze\n", "")
    verdicts, events = offer_once_reducing(reduction, mine)
    summary = reduction.run()

    assert [(v.interesting, v.adopted) for v in verdicts] == [(True, True)]
    # The person removed the frozen sleep on purpose: the result goes on from their text.
    assert "sleep" not in summary.text and SLOW_SENTINEL in summary.text
    assert any(isinstance(e, Notice) and "the text you gave fails the same way" in e.message for e in events)
    out = path.parent / "min.py"
    out.write_text(summary.text)
    assert f"RuntimeError: {SLOW_SENTINEL}" in run_standalone(out)
    out.unlink()


@pytest.mark.slow
def test_the_run_goes_on_from_an_adopted_text_whenever_it_came(program):
    mine = SLOW.replace("import time\ntime.sleep(0.3)  # autodd: freeze\n", "").replace("if x0", "e = 5\nif x0")
    results = []
    for at_pass in (1, 3):
        path = program(f"slow{at_pass}.py", SLOW)
        reduction = start_reduction(path, SLOW_SENTINEL)
        verdicts, _ = offer_once_reducing(reduction, mine, at_pass)
        results.append(reduction.run().text)
        assert [v.adopted for v in verdicts] == [True], verdicts
    assert results[0] == results[1] and "e = 5" not in results[0]


@pytest.mark.slow
def test_an_offered_text_that_loses_the_failure_says_what_happened_instead(program, no_leftovers):
    path = program("slow.py", SLOW)
    reduction = start_reduction(path, SLOW_SENTINEL)
    lost = SLOW.replace("if x0", "if a")  # a name nothing binds (nor resembles: no "Did you mean")
    verdicts, _ = offer_once_reducing(reduction, lost)
    summary = reduction.run()

    assert [(v.interesting, v.adopted, v.outcome) for v in verdicts] == [
        (False, False, "NameError: name 'a' is not defined")
    ]
    assert "time.sleep(0.3)  # autodd: freeze" in summary.text  # the run's own rules stand


@pytest.mark.slow
def test_an_offer_after_the_run_is_refused(program):
    path = program("prog.py", PROGRAM)
    reduction = start_reduction(path, SENTINEL)
    summary = reduction.run()
    verdict = reduction.offer(summary.text).result(timeout=5)
    assert not verdict.interesting and verdict.outcome == "the run has ended"
