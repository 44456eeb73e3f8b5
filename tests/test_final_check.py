"""The final check's runs at -j N (engine/lifecycle/verify.py, engine/candidate/verdict.py): several at once, each
alone in an empty folder of its own, judged in the order they started; and a RecursionError,
whose values at the limit differ between the warm runner and a fresh interpreter."""

import itertools
import threading
import time

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction
from autodd_lsp.engine.candidate.verdict import FixedRuns, run_until_decided
from autodd_lsp.engine.spec.flaky import FINAL_RUNS
from autodd_lsp.execution import RunResult


def _runs(outcomes):
    """`run_once` giving the results `outcomes` says (True: it shows the failure), in the order
    the runs start; it counts the runs started and the most in flight at once."""
    lock, seen = threading.Lock(), {"started": 0, "in_flight": 0, "most": 0}

    def run_once():
        with lock:
            index = seen["started"]
            seen["started"] += 1
            seen["in_flight"] += 1
            seen["most"] = max(seen["most"], seen["in_flight"])
        time.sleep(0.05)
        with lock:
            seen["in_flight"] -= 1
        return RunResult(stdout=b"", stderr=b"boom" if outcomes[index] else b"", returncode=1, duration=0.05)

    return run_once, seen


def _shows(result):
    return result.stderr == b"boom"


@pytest.mark.parametrize("outcomes", [[True] * 5, [True, True, False, True, True], [False] * 5])
def test_runs_at_once_decide_what_runs_one_after_another_decide(outcomes):
    run_once, _ = _runs(outcomes)
    alone = run_until_decided(run_once, _shows, FixedRuns(5), timeout_rejects=False)
    run_once, seen = _runs(outcomes)
    together = run_until_decided(run_once, _shows, FixedRuns(5), timeout_rejects=False, at_once=3, most=5)
    assert (together.decision, together.failures, together.runs) == (alone.decision, alone.failures, alone.runs)
    assert seen["started"] == 5  # never more than the rule can ask for
    assert seen["most"] > 1


def test_an_early_decision_waits_for_the_runs_in_flight_and_uses_none_of_them():
    run_once, seen = _runs([True] * 6)
    decided = run_until_decided(run_once, _shows, FixedRuns(5, until_first_failure=True),
                                timeout_rejects=False, at_once=3, most=5)
    assert (decided.decision, decided.failures, decided.runs) == (True, 1, 1)
    assert seen["started"] == 3 and seen["in_flight"] == 0  # the two others ran to their end, unused


@pytest.mark.slow
def test_the_final_runs_go_at_once_each_alone_in_an_empty_folder(tmp_path, no_leftovers):
    log, project = tmp_path / "final-runs", tmp_path / "project"  # not watched: nothing removes the notes
    log.mkdir()
    project.mkdir()
    source = project / "meet.py"
    # In AutoDD's private temporary folder (only the final check's fresh interpreters run there),
    # the program notes where it ran, what it found there, and when it ran (2 s at least).
    source.write_text(
        "import os\n"
        "# autodd: freeze-start\n"
        "import time\n"
        "if 'autodd-' in os.getcwd():\n"
        f"    note = os.path.join({str(log)!r}, str(os.getpid()))\n"
        "    with open(note, 'w') as f:\n"
        "        f.write(f'{os.getcwd()}\\n{sorted(os.listdir())}\\n{time.time()}\\n')\n"
        "    time.sleep(2)\n"
        "    with open(note, 'a') as f:\n"
        "        f.write(f'{time.time()}\\n')\n"
        "# autodd: end-freeze\n"
        "unused = [1, 2, 3]\n"
        "raise ValueError('boom')\n"
    )
    summary = Reduction(source.read_text(), str(source), ReduceOptions(err_msg="boom", jobs=2)).run()
    assert summary.verified and "unused" not in summary.text
    seen = [entry.read_text().split("\n") for entry in log.iterdir()]
    assert len(seen) >= FINAL_RUNS  # and the frozen code's probe, after them
    assert len({folder for folder, *_ in seen}) == 2  # two folders: two runs at once never share one
    assert {listing for _, listing, *_ in seen} == {"['meet.py']"}  # nothing but the program there
    spans = sorted((float(start), float(end)) for _, _, start, end, *_ in seen)
    assert any(later[0] < earlier[1] for earlier, later in itertools.pairwise(spans))  # some ran at once


RECURSION = """def pick(first, total, left, chosen, found):
    if left == 0:
        found.append(chosen[:])
        return
    for value in range(first, total - left + 2):
        chosen.append(value)
        pick(value + 1, total, left - 1, chosen, found)
        chosen.pop()


def choose(total, size):
    found = []
    pick(1, total, size, [], found)
    return found


print(choose(4, 2))
print(choose(10, -1))
"""


@pytest.mark.slow
def test_a_recursion_error_is_verified_by_its_line_and_place(tmp_path, no_leftovers):
    """`choose(10, -1)` never reaches `left == 0`. At the limit the failing statement saw
    `left` and `first` as deep as the stack let them get, which depends on how deep it was
    when the program began: the warm runner's candidates all began alike, the final check's
    fresh interpreter did not, and every text back to the original failed there ("NOT
    reproduced", the original given back). Its line and place are the failure's."""
    source = tmp_path / "choose.py"
    source.write_text(RECURSION)
    summary = Reduction(source.read_text(), str(source), ReduceOptions(err_msg="RecursionError")).run()
    assert summary.verified, summary.describe()
    # the recursive call is the failing statement: it keeps the user's words (less the argument
    # nothing reads), and the result is well under the original
    assert "pick(value + 1, total, left - 1, chosen" in summary.text, summary.text
    assert "def pick(" in summary.text and summary.final.nodes < summary.original.nodes * 2 / 3, summary.text
    assert summary.final_failure_line.startswith("RecursionError: maximum recursion depth exceeded")
