"""The real engine on real programs, with both execution backends."""

import threading
import time

import pytest

from autodd_lsp.engine import (
    Accepted,
    Event,
    Notice,
    NotReproducible,
    Summary,
    UsageError,
)
from tests.support import (
    SLOW_SENTINEL,
    reduce,
    run_standalone,
    slow_program,
    start_reduction,
)

BACKENDS = ["runner", "subproc"]
MESSAGE = "inventory invariant violated"


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_reduces_a_program_under_a_main_guard(program, backend, no_leftovers):
    path = program("inventory.py")
    original = path.read_text()
    summary, events = reduce(path, MESSAGE, backend=backend)
    assert summary.verified and not summary.cancelled
    # the program raises its failure itself: the check that decides to raise stays (oracle.md, rule 5)
    assert "if self.total() > limit:" in summary.text
    assert summary.final.nodes < summary.original.nodes / 2
    assert MESSAGE in summary.text
    assert path.read_text() == original  # the source is never touched
    out = path.parent / "min.py"
    out.write_text(summary.text)
    assert f"ValueError: {MESSAGE}" in run_standalone(out)
    accepted = [e for e in events if isinstance(e, Accepted)]
    assert accepted and accepted[-1].text == summary.text
    sizes = [e.size.nodes for e in accepted]
    assert sizes == sorted(sizes, reverse=True)
    assert not [e for e in events if isinstance(e, Notice)]  # nothing slower than asked


@pytest.mark.slow
def test_a_runner_that_cannot_start_is_said_once_and_subproc_takes_over(program, python_without_runner):
    path = program("inventory.py")
    summary, events = reduce(path, MESSAGE, python=str(python_without_runner))
    assert summary.verified and summary.final.nodes < summary.original.nodes / 2
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert len(notices) == 1
    assert "runner backend is unavailable" in notices[0] and "no fork server here" in notices[0]
    assert "\n" not in notices[0]


@pytest.mark.slow
def test_output_keeps_the_users_own_text_and_adds_nothing(program):
    path = program("keep.py", (
        "import sys\n"
        "\n"
        "def check(values):\n"
        "    # The bug: the limit is off by one.\n"
        "    if len(values) > 2:\n"
        "        raise RuntimeError('too many values: %d' % len(values))  # see issue 42\n"
        "\n"
        "print('noise')\n"
        "check([1, 2, 3])\n"
    ))
    summary, _ = reduce(path, "too many values")
    assert "# The bug: the limit is off by one.\n" in summary.text
    assert "raise RuntimeError('too many values: %d'" in summary.text
    assert summary.text.endswith("  # see issue 42\n")
    for artifact in ("*args", "**kwargs", "__freeze__", "= 0\n"):
        assert artifact not in summary.text


@pytest.mark.slow
def test_same_result_at_any_number_of_jobs(program):
    path = program("inventory.py")
    one, _ = reduce(path, MESSAGE, jobs=1)
    more = {jobs: reduce(path, MESSAGE, jobs=jobs)[0].text for jobs in (2, 4, 8)}
    three, _ = reduce(path, MESSAGE, jobs=3, backend="subproc")
    assert more == dict.fromkeys((2, 4, 8), one.text)
    assert three.text == one.text


@pytest.mark.slow
@pytest.mark.parametrize(("name", "message"), [("invoices.py", "has no attribute"), ("orders.py", "KeyError")])
def test_the_search_decides_the_same_at_1_2_4_and_8_jobs(program, name, message):
    """The driver's rounds (search/driver.py): members judged on one base, folded, the runs ahead
    of the lookahead's twin from -j 2. Which runs start changes with -j; the text does not."""
    path = program(name)
    texts = {jobs: reduce(path, message, jobs=jobs)[0] for jobs in (1, 2, 4, 8)}
    assert all(summary.verified for summary in texts.values())
    assert {jobs: summary.text for jobs, summary in texts.items()} == dict.fromkeys((1, 2, 4, 8), texts[1].text)



@pytest.mark.slow
def test_runs_thrown_away_are_counted_as_stale_and_decide_nothing(program, no_leftovers):
    """Every candidate sleeps 0.2 s. At -j 3 the fixpoint's next searches run ahead on idle jobs
    (lookahead.py) and members found moot may have started (search/driver.py): what no search
    took is counted as stale, and the decisions, and the result, are -j 1's."""
    path = program("slow.py", slow_program(0, 0.2, junk=12))
    one, _ = reduce(path, SLOW_SENTINEL, jobs=1)
    parallel, _ = reduce(path, SLOW_SENTINEL, jobs=3)
    assert parallel.verified and "junk" not in parallel.text
    assert parallel.text == one.text
    assert parallel.stats.stale >= 1
    assert f"{parallel.stats.stale} started and discarded as stale" in parallel.describe()


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_candidates_see_python_file_semantics(program, backend):
    path = program("semantics.py", (
        "import os, sys\n"
        "assert __name__ == '__main__', __name__\n"
        "assert os.path.abspath(__file__) == os.path.abspath(sys.argv[0]), (__file__, sys.argv)\n"
        "assert len(sys.argv) == 1, sys.argv\n"
        "assert sys.stdin.read() == ''\n"
        "extra = 'padding'\n"
        "raise SystemExit('semantics ok: ' + os.path.basename(__file__))\n"
    ))
    summary, _ = reduce(path, "semantics ok: semantics.py", backend=backend)
    assert summary.verified
    assert "semantics ok" in summary.text


@pytest.mark.slow
def test_argparse_program_does_not_see_the_reducers_arguments(program):
    path = program("cli_tool.py", (
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--err-msg')\n"
        "args = parser.parse_args()\n"
        "print('parsed', args.err_msg)\n"
    ))
    # The reference tool's candidates see its own argv, which holds the message.
    with pytest.raises(NotReproducible) as caught:
        reduce(path, "SECRET-MESSAGE")
    assert "parsed None" in caught.value.output_tail


@pytest.mark.slow
def test_original_that_does_not_fail_is_reported_with_its_output(program, no_leftovers):
    path = program("fine.py", "print('all good')\n")
    with pytest.raises(NotReproducible) as caught:
        reduce(path, "boom")
    assert "does not print 'boom'" in str(caught.value)
    assert "all good" in caught.value.output_tail


def test_bad_input_is_a_usage_error(program):
    path = program("broken.py", "x = (\n")
    with pytest.raises(UsageError, match=r"broken.py:1:\d+: syntax error"):
        reduce(path, "boom")
    good = program("good.py", "print(1)\n")
    with pytest.raises(UsageError, match="jobs"):
        reduce(good, "boom", jobs=0)
    with pytest.raises(UsageError, match="timeout"):
        reduce(good, "boom", timeout=0)
    with pytest.raises(UsageError, match="backend"):
        reduce(good, "boom", backend="magic")


@pytest.mark.slow
def test_deletions_that_hang_cost_little_and_never_win(program):
    path = program("hang.py", (
        "import time\n"
        "done = True\n"
        "while not done:\n"
        "    time.sleep(0.01)\n"
        "print('noise')\n"
        "raise KeyError('hang test failure')\n"
    ))
    started = time.monotonic()
    summary, _ = reduce(path, "hang test failure", timeout=3)
    assert summary.verified
    assert time.monotonic() - started < 30
    out = path.parent / "min.py"
    out.write_text(summary.text)
    assert "hang test failure" in run_standalone(out, timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_crashing_candidates_keep_their_output(program, backend):
    path = program("crash.py", (
        "import os, signal, sys\n"
        "unused = [1, 2, 3]\n"
        "sys.stdout.write('native failure: bad tile\\n')\n"
        "sys.stdout.flush()\n"
        "os.kill(os.getpid(), signal.SIGSEGV)\n"
    ))
    summary, _ = reduce(path, "native failure", backend=backend)
    assert summary.verified
    assert "unused" not in summary.text


@pytest.mark.slow
def test_huge_output_is_bounded_and_the_failure_still_found(program):
    path = program("loud.py", (
        "import sys\n"
        "for _ in range(400):\n"
        "    sys.stdout.write('x' * 100_000 + '\\n')\n"
        "raise ValueError('loud failure')\n"
    ))
    summary, _ = reduce(path, "loud failure", backend="runner")
    assert summary.verified


@pytest.mark.slow
def test_cancel_returns_quickly_with_the_best_so_far(program, no_leftovers):
    path = program("slow.py", slow_program(4, 0.05, junk=30))
    events: list[Event] = []
    accepted = threading.Event()

    def listen(event: Event) -> None:
        events.append(event)
        if isinstance(event, Accepted):
            accepted.set()

    reduction = start_reduction(path, SLOW_SENTINEL, listen)
    outcome: dict[str, Summary] = {}
    worker = threading.Thread(target=lambda: outcome.update(summary=reduction.run()))
    worker.start()
    assert accepted.wait(60), "nothing was accepted in time"
    reduction.cancel()
    stopped_at = time.monotonic()
    worker.join(10)
    assert not worker.is_alive()
    assert time.monotonic() - stopped_at < 1.5
    summary = outcome["summary"]
    assert summary.cancelled
    assert summary.text == [e for e in events if isinstance(e, Accepted)][-1].text


@pytest.mark.slow
def test_result_is_verified_standalone_even_when_the_runner_was_fooled(program):
    # The warm runner preloads xml.dom.minidom, so a candidate without that import
    # still works there; in a fresh interpreter it does not. The final check catches it.
    path = program("preloaded.py", (
        "import xml.dom\n"
        "import xml.dom.minidom as unused_alias\n"
        "doc = xml.dom.minidom.parseString('<root/>')\n"
        "raise RuntimeError('parsed ' + doc.documentElement.tagName)\n"
    ))
    summary, _ = reduce(path, "parsed root", backend="runner")
    assert summary.verified
    assert "import xml.dom.minidom as unused_alias\n" in summary.text
    out = path.parent / "min.py"
    out.write_text(summary.text)
    assert "parsed root" in run_standalone(out)


def test_missing_interpreter_is_a_usage_error(program, no_leftovers):
    path = program("inventory.py")
    for backend in BACKENDS:
        with pytest.raises(UsageError, match="cannot run candidates"):
            reduce(path, MESSAGE, backend=backend, python=str(path.parent / "no-such-python"))


def test_a_stopped_run_does_not_claim_its_result_failed_the_check():
    """A stop skips the final standalone check: the summary says so, not "NOT reproduced"."""
    from autodd_lsp.engine import Size, Stats, Summary

    size = Size(lines=3, nodes=10, tokens=None, chars=30)
    stopped = Summary(size, size, "x = 1\n", Stats(), cancelled=True, verified=False).describe()
    unverified = Summary(size, size, "x = 1\n", Stats(), cancelled=False, verified=False).describe()
    assert "not re-run (stopped early)" in stopped and "NOT reproduced" not in stopped
    assert "re-run: NOT reproduced" in unverified
