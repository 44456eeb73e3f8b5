"""The same wrong answer: a failing numeric comparison keeps its operands (oracle/operands.py).

Real programs, run probed by the real interpreter: the probe changes nothing the
program prints, records the operands, and the rule rejects a candidate that keeps
the comparison but feeds it other values. End to end, a reduction with the
comparison's message keeps the buggy function, where `--match substring` lets the
same failure line come from `zeros`.
"""

import subprocess
import sys
from dataclasses import replace

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction
from autodd_lsp.engine.rules.operand_probe import probed_text, split_markers
from autodd_lsp.engine.rules.operand_rule import from_runs
from autodd_lsp.engine.spec.failure_spec import FailureSpec
from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.operands import difference_summary, same_operands
from autodd_lsp.report import bug_report, regression_test
from autodd_lsp.server.request import failure_from_arguments
from tests.support import program_text

SOFTMAX = program_text("softmax_wrong.py")
MESSAGE = "Not equal to tolerance"

NAN = '''\
import math
import numpy as np

def stable_log(x):
    return np.log(np.maximum(x, 0.0))  # BUG: log(0) is -inf, and 0 * -inf gives NaN below

def entropy(p):
    return -(p * stable_log(p)).sum(axis=-1)

def entropy_ref(p):
    out = np.zeros(p.shape[0])
    for i, row in enumerate(p):
        out[i] = -sum(v * math.log(v) for v in row if v > 0)
    return out

p = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.0, 1.0, 0.0], [0.1, 0.1, 0.8]])
print("rows", p.shape[0])
assert math.isclose(sum(p[1]), 1.0)
assert np.allclose(entropy(p), entropy_ref(p))
'''


def run(path, text):
    path.write_text(text)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, timeout=120, cwd=path.parent, check=False)
    return split_markers(RunResult(done.stdout, done.stderr, done.returncode))


def reduce(path, failure, **options):
    reduction = Reduction(path.read_text(), str(path), ReduceOptions(failure=failure, cwd=str(path.parent), **options),
                          lambda event: None)
    return reduction.run()


@pytest.mark.slow
def test_the_probe_changes_no_line_and_nothing_printed(tmp_path):
    plain = run(tmp_path / "plain.py", NAN)
    probed_source = probed_text(NAN)
    assert probed_source is not None and probed_source.count("\n") == NAN.count("\n")
    probed = run(tmp_path / "plain.py", probed_source)
    assert probed.stdout == plain.stdout and probed.returncode == plain.returncode == 1
    assert probed.stderr == plain.stderr.replace(b"plain.py", b"plain.py")  # the same traceback, same lines
    assert plain.comparisons == ()
    (record,) = probed.comparisons  # math.isclose passed: only the failing comparison is recorded
    assert record["function"] == "numpy.allclose" and record["line"] == 19
    actual = record["operands"][0]
    assert actual["shape"] == [4] and actual["nan"] == 2 and actual["nan_mask"]
    assert "2 NaN" in difference_summary(record)


@pytest.mark.slow
def test_a_candidate_that_keeps_the_comparison_but_changes_its_operands_is_rejected(tmp_path):
    path = tmp_path / "softmax.py"
    originals = [run(path, probed_text(SOFTMAX)) for _ in range(2)]
    lines = SOFTMAX.splitlines()
    compare = next(i + 1 for i, line in enumerate(lines) if "assert_allclose(softmax_fast" in line)
    # every line its own statement: enough for this test's candidates, which keep the line numbers
    rule, note = from_runs(originals, "last", lambda line: frozenset({line}), compare)
    assert rule is not None and note == "" and rule.original["line"] == compare
    smaller = SOFTMAX.replace("    check_layer_norm(x)\n", "    pass\n").replace(
        '    log(f"bench {bench(softmax_fast, x):.6f}")\n', "    pass\n")
    kept = run(path, probed_text(smaller))
    assert rule.accepts(kept.comparisons, lambda line: frozenset({line}))
    # the slip: the same comparison, the same failure line, another actual operand
    slipped_text = SOFTMAX.replace("assert_allclose(softmax_fast(x)", "assert_allclose(np.zeros_like(x)")
    slipped = run(path, probed_text(slipped_text))
    assert b"Not equal to tolerance" in slipped.stderr and slipped.comparisons
    assert not rule.accepts(slipped.comparisons, lambda line: frozenset({line}))
    assert not same_operands(rule.original, slipped.comparisons[-1])
    # another seed: the same shapes and dtypes, other values
    reseeded = run(path, probed_text(SOFTMAX.replace('"seed": 3', '"seed": 4')))
    assert not rule.accepts(reseeded.comparisons, lambda line: frozenset({line}))


@pytest.mark.slow
def test_a_wrong_answer_reduces_and_keeps_the_buggy_function(program):
    path = program("softmax.py", SOFTMAX)
    summary = reduce(path, FailureSpec.message(MESSAGE))
    assert summary.verified, summary.describe()
    assert "the same operands at np.testing.assert_allclose" in summary.rule
    result = summary.text
    assert "softmax_fast" in result and "1e-3" in result  # the bug stays
    assert "layer_norm" not in result and "bench" not in result and "argparse" not in result
    assert summary.original_comparison is not None and summary.final_comparison is not None
    assert same_operands(summary.original_comparison, summary.final_comparison)
    # its regression test checks the comparison, not only the message
    test = path.parent / "test_softmax.py"
    test.write_text(regression_test(summary, str(path), str(path.with_suffix(".min.py")), MESSAGE,
                                    ReduceOptions(failure=FailureSpec.message(MESSAGE))))
    assert "COMPARISON = 'numpy.testing.assert_allclose'" in test.read_text()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          capture_output=True, text=True, timeout=120, cwd=path.parent, check=False)
    assert done.returncode == 1 and "numpy.testing.assert_allclose fails at line" in done.stdout, done.stdout
    # without the rule, the same failure line slips to values the program never had
    loose = reduce(path, FailureSpec.message(MESSAGE), match="substring")
    assert "1e-3" not in loose.text, loose.text


@pytest.mark.slow
def test_wrong_answer_keeps_the_nans_where_they_were(program):
    path = program("entropy.py", NAN)
    summary = reduce(path, FailureSpec.wrong_answer())
    assert summary.verified, summary.describe()
    assert summary.rule.startswith("a numeric comparison fails")
    result = summary.text
    assert "np.log" in result and "math.log" in result  # the computation and the reference
    assert "print(" not in result and "isclose" not in result
    final = summary.final_comparison
    assert final is not None and final["operands"][0]["nan"] == 2
    assert final["operands"][0]["nan_mask"] == summary.original_comparison["operands"][0]["nan_mask"]
    options = ReduceOptions(failure=FailureSpec.wrong_answer())
    report = bug_report(summary, str(path), str(path.with_suffix(".min.py")), "", options)
    assert "The numeric comparison that fails" in report and "2 NaN" in report
    # the regression test fails while the comparison fails, and passes once it is fixed
    test = path.parent / "test_entropy.py"
    test.write_text(regression_test(summary, str(path), str(path.with_suffix(".min.py")), "", options))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          capture_output=True, text=True, timeout=120, cwd=path.parent, check=False)
    assert done.returncode == 1 and "numpy.allclose fails at line" in done.stdout, done.stdout
    fixed = replace(summary, text=summary.text.replace("np.log(", "np.log1p(0 * ").replace("math.log(", "0 * math.log("))
    test.write_text(regression_test(fixed, str(path), str(path.with_suffix(".min.py")), "", options))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          capture_output=True, text=True, timeout=120, cwd=path.parent, check=False)
    assert done.returncode == 0, done.stdout


@pytest.mark.slow
def test_wrong_answer_needs_a_failing_comparison(program):
    from autodd_lsp.engine import NotReproducible

    path = program("fine.py", "import numpy as np\nassert np.allclose(np.ones(3), np.ones(3))\nraise ValueError('x')\n")
    with pytest.raises(NotReproducible, match="no numeric comparison failed"):
        reduce(path, FailureSpec.wrong_answer())


def test_the_server_takes_wrong_answer():
    spec = failure_from_arguments({"wrongAnswer": True})
    assert spec == FailureSpec.wrong_answer()
    assert spec.arguments() == {"wrongAnswer": True}
    assert spec.command_line() == ["--wrong-answer"]


@pytest.mark.slow
def test_the_cli_suggests_wrong_answer_with_what_differed(tmp_path):
    path = tmp_path / "entropy.py"
    path.write_text(NAN)
    done = subprocess.run([sys.executable, "-m", "autodd_lsp", str(path)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, check=False)
    assert done.returncode == 2
    line = next(line for line in done.stderr.splitlines() if "--wrong-answer" in line)
    assert "# keep this wrong answer: np.allclose at line 19: 2 of 4 elements differ" in line and "2 NaN" in line


@pytest.mark.slow
def test_a_line_of_a_mismatch_report_keeps_the_comparison_and_its_operands(program, no_leftovers):
    """Issue 40: given a line NumPy prints under a failing assert_allclose (not the exception line),
    the failure is still the comparison's: its operands must stay the same. Before, that line had no
    place (a blank line in the report ended the exception's text), the rule was 'same failure line'
    alone, and nothing held the compared values."""
    pytest.importorskip("numpy")
    path = program("matmul_off_by_one.py")
    summary = Reduction(path.read_text(), str(path), ReduceOptions(err_msg="[2, 2]: 0.0 (ACTUAL), 16.0 (DESIRED)")).run()
    assert summary.verified, summary.describe()
    assert "the same operands at np.testing.assert_allclose" in summary.describe()
    assert summary.original_comparison is not None and summary.final_comparison is not None
    assert "range(2)" in summary.text or "range(m - 1)" in summary.text  # the off-by-one loop stays
