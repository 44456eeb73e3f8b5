"""--report and --emit-test as a user runs them: the real CLI, the real reduction, the emitted test run by pytest."""

import os
import platform
import signal
import subprocess
import sys

import pytest

from autodd_lsp.engine import ReduceOptions, Stats, Summary
from autodd_lsp.report import bug_report, query_environment, regression_test
from autodd_lsp.syntax.metrics import size_of
from tests.support import (
    SLOW_SENTINEL,
    assert_one_line_error,
    autodd,
    leftover_processes,
    read_until,
    run_pytest,
    slow_program,
)

MESSAGE = "autodd-sentinel: too many values"

PROGRAM = '''\
import math


def noise(n):
    return sum(i * i for i in range(n))


def check(values):
    if len(values) > 3:
        raise ValueError("autodd-sentinel: too many values")


print("noise", noise(10), math.sqrt(16))
check([1, 2, 3, 4])
'''




def section(report: str, heading: str) -> str:
    return report.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.slow
def test_report_and_regression_test_of_a_finished_run(tmp_path, no_leftovers):
    source = tmp_path / "prog.py"
    source.write_text(PROGRAM)
    output, report, test = tmp_path / "prog.min.py", tmp_path / "prog.report.md", tmp_path / "test_prog.py"

    done = autodd(source, "--err-msg", MESSAGE, "-o", output, "--report", report, "--emit-test", test, "-q")

    assert done.returncode == 0, done.stderr
    assert f"autodd: wrote report {report}" in done.stderr and f"autodd: wrote test {test}" in done.stderr
    reproducer = output.read_text()
    text = report.read_text()
    assert f"```python\n{reproducer.rstrip()}\n```" in text
    assert "```bash\npython prog.min.py\n```" in text
    assert f"- Python {platform.python_version()} (CPython)" in text
    assert "packages the reproducer imports: none beyond the standard library" in text.lower()
    assert "GPU: no GPU used" in text
    failure = section(text, "The failure")
    shown = [line for line in failure.splitlines() if line.startswith(("original (prog.py):", "reproducer (prog.min.py):"))]
    assert len(shown) == 2, failure
    assert all(line.endswith(f" ValueError: {MESSAGE}") for line in shown), shown
    numbers = section(text, "Reduction")
    lines = sum(1 for line in PROGRAM.splitlines() if line.strip())
    assert f"| original `prog.py` | {lines} |" in numbers
    assert "candidates run" in numbers and "final re-run: still fails the same way" in numbers

    # The emitted test fails while the bug is there, and says what it saw.
    fresh = tmp_path / "maintainer"
    fresh.mkdir()
    (fresh / test.name).write_text(test.read_text())
    failing = run_pytest(fresh / test.name, fresh)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "the bug is still there" in failing.stdout and f"ValueError: {MESSAGE}" in failing.stdout

    # Fixed: the raise is gone from the embedded reproducer, and the test passes.
    fixed = test.read_text().replace('raise ValueError("autodd-sentinel', 'str("autodd-sentinel')
    assert fixed != test.read_text()
    (fresh / "test_fixed.py").write_text(fixed)
    passing = run_pytest(fresh / "test_fixed.py", fresh)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert sorted(p.name for p in fresh.iterdir()) == ["test_fixed.py", test.name]  # it wrote only in tmp_path


@pytest.mark.slow
def test_match_substring_is_accepted_and_reported(tmp_path):
    source = tmp_path / "prog.py"
    source.write_text(PROGRAM)
    done = autodd(source, "--err-msg", MESSAGE, "-o", tmp_path / "m.py", "--match", "substring",
                  "--report", tmp_path / "r.md", "-q")
    assert done.returncode == 0, done.stderr
    assert "- rule (how a candidate had to fail): message substring" in (tmp_path / "r.md").read_text()
    bad = autodd(source, "--err-msg", MESSAGE, "--match", "loose")
    assert_one_line_error(bad, 2, "--match")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--report", "{src}"], "--report {src}: must differ from SOURCE"),
        (["--emit-test", "{out}"], "--emit-test {out}: must differ from OUTPUT"),
        (["--report", "{dir}/r.md", "--emit-test", "{dir}/r.md"], "must differ from --report"),
        (["--report", "{dir}/no/such/r.md"], "does not exist"),
        (["--emit-test", "{dir}"], "is a directory"),
    ],
)
@pytest.mark.slow
def test_bad_report_paths_stop_before_anything_runs(tmp_path, args, fragment):
    source = tmp_path / "prog.py"
    source.write_text(PROGRAM)
    subs = {"src": source, "out": tmp_path / "out.py", "dir": tmp_path}
    args = [a.format(**subs) for a in args]
    done = autodd(source, "--err-msg", MESSAGE, "-o", tmp_path / "out.py", *args)
    assert_one_line_error(done, 2, fragment.format(**subs))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.py"]


SLOW = slow_program(4, 0.05, junk=10)


@pytest.mark.slow
def test_a_stopped_run_writes_neither(tmp_path):
    source = tmp_path / "slow.py"
    source.write_text(SLOW)
    out, report, test = tmp_path / "out.py", tmp_path / "r.md", tmp_path / "test_r.py"
    private = tmp_path / "private-tmp"
    private.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", SLOW_SENTINEL, "-o", str(out),
         "--report", str(report), "--emit-test", str(test)],
        stderr=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=str(private)),
    )
    before = read_until(proc.stderr, "autodd: smaller:")  # an improvement was accepted (and OUTPUT written)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    err = before + err
    assert proc.returncode == 130, err
    assert f"autodd: note: stopped early: {report} and {test} not written" in err
    assert not report.exists() and not test.exists()
    assert leftover_processes(str(private)) == []


def summary_of(text: str, **fields) -> Summary:
    size = size_of(text)
    return Summary(original=size, final=size, text=text, stats=Stats(candidates_run=7, elapsed=1.5), verified=True,
                   **fields)


@pytest.mark.slow
def test_the_environment_comes_from_the_candidate_interpreter(tmp_path):
    torch = pytest.importorskip("torch")
    (tmp_path / "helper.py").write_text("VALUE = 1\n")
    text = "import json\nimport torch\nfrom helper import VALUE\nimport no_such_module_here\n"

    environment = query_environment(text, sys.executable, str(tmp_path))

    assert environment.error == "" and environment.python == platform.python_version()
    described = [p.describe() for p in environment.packages]
    assert described[0] == f"`torch`: torch {torch.__version__}"
    assert described[1] == "`helper`: a local module beside the program (`helper.py`), not an installed package"
    assert described[2] == "`no_such_module_here`: not found by this interpreter"
    assert len(described) == 3  # json is the standard library
    if torch.cuda.is_available():
        assert torch.cuda.get_device_name(0) in environment.gpu() and str(torch.version.cuda) in environment.gpu()
    else:
        assert environment.gpu().startswith("no GPU")
    report = bug_report(summary_of(text, rule="same failure line", final_failure_line="ValueError: x"),
                        str(tmp_path / "p.py"), str(tmp_path / "p.min.py"), "x", ReduceOptions(err_msg="x"),
                        environment=environment)
    assert f"  - `torch`: torch {torch.__version__}" in report and "- rule (how a candidate had to fail): same" in report
    rows = [line.split() for line in section(report, "The failure").splitlines()]
    assert ["original", "(p.py):", "(not", "recorded)"] in rows and ["reproducer", "(p.min.py):", "ValueError:", "x"] in rows


def test_an_environment_query_that_cannot_run_says_why(tmp_path):
    report = bug_report(summary_of("import torch\n"), str(tmp_path / "p.py"), str(tmp_path / "p.min.py"), "x",
                        ReduceOptions(err_msg="x", python=str(tmp_path / "no-python")))
    assert "- Python: not determined (cannot run" in report
    assert "- Packages the reproducer imports: torch (versions not determined)" in report


def test_the_report_shows_both_failure_rates_when_measured(tmp_path):
    from autodd_lsp.engine import FailureRate

    args = (str(tmp_path / "p.py"), str(tmp_path / "p.min.py"), "x", ReduceOptions(err_msg="x", python=str(tmp_path / "no-python")))
    flaky = summary_of("x = 1\n", original_rate=FailureRate(11, 20), final_rate=FailureRate(9, 20))
    assert ("- failure rate: the original fails 11 of 20 runs (55%); the reproducer fails 9 of 20 runs (45%) "
            "(fresh interpreter)") in bug_report(flaky, *args)
    assert "failure rate" not in bug_report(summary_of("x = 1\n"), *args)


@pytest.mark.slow
def test_the_emitted_test_runs_the_reproducer_byte_for_byte(tmp_path):
    """Quotes, backslashes, a CRLF line, no final newline and a latin-1 coding cookie survive the embedding."""
    lines = [
        "# -*- coding: latin-1 -*-\n",
        "word = 'caf\u00e9'\n",
        "s = '''a\\\\b'''\r\n",
        "data = open(__file__, 'rb').read()\n",
        "if len(word) == 4 and s == 'a' + chr(92) + 'b' and data.count(b'\\r') == 1 and b'caf\\xe9' in data:\n",
        "    raise ValueError('autodd-sentinel: %s' % word)\n",
        "# the end'",
    ]
    test = tmp_path / "test_odd.py"
    test.write_text(regression_test(summary_of("".join(lines)), "odd.py", "odd.min.py", "autodd-sentinel: caf\u00e9",
                                    ReduceOptions(err_msg="x")))
    failing = run_pytest(test, tmp_path)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "ValueError: autodd-sentinel: caf\u00e9" in failing.stdout
