"""The route to the failure goes (passes/route.py): the function that holds the failing
statement is called directly, with the values of the original's run, by the real engine."""

import subprocess
import sys

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction

pytestmark = pytest.mark.slow


def test_a_method_reached_through_a_chain_of_objects_is_called_directly(program, no_leftovers):
    """A ledger settles through its account, the account pays through its splitter, the splitter
    divides by the people left to pay: a person calls the splitter with the values of the failing
    call, and so does the result; the ledger, the account and the loop over payments go. The
    failing line stays as the user wrote it."""
    path = program("layered_pricing.py")
    original = path.read_text()
    summary = Reduction(original, str(path), ReduceOptions(err_msg="float division by zero")).run()
    assert summary.verified
    assert ".share(0.0, 3)\n" in summary.text, summary.text  # the failing call's values
    assert "Ledger" not in summary.text and "Account" not in summary.text, summary.text
    assert "return round(left / (self.people - paid), self.rounding)" in summary.text
    assert path.read_text() == original
    alone = path.parent / "alone"
    alone.mkdir()
    (alone / "split.py").write_text(summary.text)
    run = subprocess.run([sys.executable, "split.py"], cwd=alone, capture_output=True, text=True, check=False)
    assert run.stderr.rstrip().endswith("ZeroDivisionError: float division by zero"), run.stderr


def test_a_collapsed_route_that_changes_the_failures_operands_is_refused(program, no_leftovers):
    """The failing method reads state earlier calls built. Called on a new instance with its
    recorded argument, it fails on the same line with the same message words, but reading 2
    where the user's run read 12: the failing statement's operands differ, so the judge refuses
    the collapsed route like any other candidate, and the ticks that built the reading stay."""
    text = (
        "class Meter:\n    def __init__(self, start):\n        self.count = start\n\n"
        "    def tick(self, n):\n        self.count += n\n\n"
        "    def check(self, day):\n"
        "        assert self.count % 5 != 2, f'day {day}: reading {self.count}'\n\n\n"
        "meter = Meter(2)\nfor day, n in enumerate([4, 3, 3]):\n    meter.tick(n)\n    meter.check(day)\n"
    )
    path = program("meter.py", text)
    summary = Reduction(text, str(path), ReduceOptions(err_msg="reading")).run()
    assert summary.verified and summary.final_failure_line.endswith("reading 12"), summary.final_failure_line
    assert ".check(2)\n" not in summary.text.replace("meter.check(2)", ""), summary.text
    assert "self.count += n" in summary.text, summary.text
    assert "assert self.count % 5 != 2, f'day {day}: reading {self.count}'" in summary.text
