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
