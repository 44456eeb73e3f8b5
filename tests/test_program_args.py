"""Programs as users run them: their own arguments (`-- ARG...`) and input (`--stdin FILE`).

Real engine, real programs: every run of the program (the original's checks, the recording
run, candidates on each local backend, the final re-run), the suggestion run, the report's
command and the emitted regression test get the arguments and the input.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import assert_one_line_error, autodd, run_pytest

pytestmark = pytest.mark.slow  # every test here starts an interpreter

CLI = '''\
import argparse
import json

PRICES = {1: 10, 2: 20}


def helper(x):
    return x * 2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--name", default="shop")
    options = parser.parse_args()
    unused = helper(options.size)
    print(json.dumps({"name": options.name, "n": unused}))
    return PRICES[options.size]


main()
'''

FILTER = '''\
import sys


TOTALS = {}


def parse(line):
    name, amount = line.split(",")
    return name.strip(), int(amount)


for raw in sys.stdin:
    if not raw.strip():
        continue
    name, amount = parse(raw)
    TOTALS[name] = TOTALS.get(name, 0) + amount
    if TOTALS[name] > 100:
        raise OverflowError(f"budget exceeded for {name}")
print(TOTALS)
'''


@pytest.mark.parametrize("backend", ["runner", "subproc"])
def test_arguments_reach_every_run(tmp_path, backend, no_leftovers):
    source = tmp_path / "cli.py"
    source.write_text(CLI)
    output, report, test = tmp_path / "min.py", tmp_path / "bug.md", tmp_path / "test_min.py"
    done = autodd(source, "--err-msg", "KeyError: 3", "-o", output, "--backend", backend, "--report", report,
                  "--emit-test", test, "--", "--size", "3")
    assert done.returncode == 0, done.stderr
    reduced = output.read_text()
    assert len(reduced.splitlines()) < len(CLI.splitlines())
    plain = subprocess.run([sys.executable, output.name, "--size", "3"], cwd=tmp_path, capture_output=True, text=True,
                           check=False)
    assert "KeyError: 3" in plain.stderr
    assert "python min.py --size 3" in report.read_text()
    assert run_pytest(test, tmp_path).returncode == 1  # the bug is there: the emitted test fails


def test_without_a_failure_the_suggestion_run_gets_the_arguments(tmp_path):
    source = tmp_path / "cli.py"
    source.write_text(CLI)
    done = autodd(source, "-j", "2", "--backend", "subproc", "--", "--size", "3")
    assert done.returncode == 2
    assert "--err-msg \"KeyError: 3\"" in done.stderr or "--err-msg 'KeyError: 3'" in done.stderr, done.stderr
    assert "the following arguments are required" not in done.stderr
    suggested = [line for line in done.stderr.splitlines() if line.strip().startswith("autodd ")]
    assert suggested and all(line.endswith("-j 2 --backend subproc -- --size 3") for line in suggested), suggested


@pytest.mark.parametrize("backend", ["runner", "subproc"])
def test_stdin_file_is_read_by_every_run(tmp_path, backend, no_leftovers):
    source = tmp_path / "totals.py"
    source.write_text(FILTER)
    data = tmp_path / "input.csv"
    data.write_text("a, 10\nb, 60\nb, 50\na, 5\n")
    output, report, test = tmp_path / "min.py", tmp_path / "bug.md", tmp_path / "test_min.py"
    done = autodd(source, "--err-msg", "budget exceeded for b", "--stdin", data, "-o", output, "--backend", backend,
                  "--report", report, "--emit-test", test)
    assert done.returncode == 0, done.stderr
    with data.open("rb") as handle:
        plain = subprocess.run([sys.executable, output.name], cwd=tmp_path, stdin=handle, capture_output=True,
                               text=True, check=False)
    assert "budget exceeded for b" in plain.stderr
    assert f"< {data}" in report.read_text()
    assert run_pytest(test, tmp_path).returncode == 1  # the emitted test feeds the same input


def test_a_missing_stdin_file_is_one_line(tmp_path):
    source = tmp_path / "totals.py"
    source.write_text(FILTER)
    done = autodd(source, "--err-msg", "budget", "--stdin", tmp_path / "nope.csv")
    assert_one_line_error(done, 2, "--stdin")
    assert "no such file" in done.stderr
