"""Works with A, fails with B (engine/passing_side.py), on real programs and a real second venv.

A candidate counts only when it fails the same way where candidates run (B) and
passes on A: another environment variable, another interpreter. Without A the
same failure is kept by a program that no longer depends on what differs.
"""

import os
import subprocess
import sys

import pytest

from autodd_lsp.engine import NotReproducible, ReduceOptions, Reduction, UsageError
from autodd_lsp.engine.failure_spec import FailureSpec
from autodd_lsp.engine.passing_side import describe_side, parse_env
from autodd_lsp.server.request import MinimizeRequest

FAST_PATH = '''\
import os
import time

CONFIG = {"size": 10, "repeat": 3}


def log(*args):
    if os.environ.get("VERBOSE"):
        print(*args)


def reference_sum(values):
    total = 0
    for v in values:
        total += v
    return total


def fast_sum(values):
    total = 0
    for i in range(0, len(values) - 1, 2):  # BUG: drops the last element of an odd-length list
        total += values[i] + values[i + 1]
    return total


def pick_sum():
    if os.environ.get("NO_FAST_PATH") == "1":
        return reference_sum
    return fast_sum


def bench(fn, values):
    start = time.perf_counter()
    for _ in range(CONFIG["repeat"]):
        fn(values)
    return time.perf_counter() - start


values = list(range(1, 2 * CONFIG["size"]))
log("bench", bench(pick_sum(), values))
total = pick_sum()(values)
expected = reference_sum(values)
if total != expected:
    raise ValueError(f"sum mismatch: {total} != {expected}")
print("ok")
'''


def reduce(path, **options):
    reduction = Reduction(path.read_text(), str(path), ReduceOptions(
        failure=FailureSpec.message("sum mismatch"), cwd=str(path.parent), **options), lambda event: None)
    return reduction.run()


def runs(text, folder, env=None, python=sys.executable):
    path = folder / "alone.py"
    path.write_text(text)
    done = subprocess.run([python, str(path)], cwd=folder, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})}, check=False)
    return done.returncode, done.stdout + done.stderr


def test_an_environment_variable_side_keeps_what_the_variable_switches(program, no_leftovers):
    path = program("fast.py", FAST_PATH)
    summary = reduce(path, passes_with_env=("NO_FAST_PATH=1",))
    assert summary.verified, summary.describe()
    assert f"passes with {sys.executable} with NO_FAST_PATH=1" in summary.rule
    status, output = runs(summary.text, path.parent)
    assert status == 1 and "ValueError: sum mismatch: 171 != 190" in output
    status, output = runs(summary.text, path.parent, {"NO_FAST_PATH": "1"})
    assert status == 0, output
    assert "NO_FAST_PATH" in summary.text and "bench" not in summary.text
    # without side A the reduction drops the switch: the result fails with the variable set too
    loose = reduce(path)
    assert "NO_FAST_PATH" not in loose.text
    assert runs(loose.text, path.parent, {"NO_FAST_PATH": "1"})[0] == 1


def test_the_original_must_pass_on_side_a(program, no_leftovers):
    path = program("fast.py", FAST_PATH)
    with pytest.raises(NotReproducible, match=r"does not pass with .* with NO_FAST_PATH=0: it exited with status 1"):
        reduce(path, passes_with_env=("NO_FAST_PATH=0",))


def test_bad_sides_are_one_line_errors(tmp_path):
    with pytest.raises(UsageError, match="NAME=VALUE"):
        parse_env(["NOEQUALS"])
    with pytest.raises(UsageError, match="no Python interpreter"):
        ReduceOptions(err_msg="x", passes_with=str(tmp_path / "nothing")).validate()
    assert describe_side("/v/bin/python", {"A": "1", "B": "2"}) == "/v/bin/python with A=1 B=2"


def test_the_server_takes_passes_with():
    request = MinimizeRequest.parse(({"uri": "file:///x.py", "errMsg": "boom", "passesWith": sys.executable,
                                      "passesWithEnv": ["NO_FAST_PATH=1"]},))
    options = request.options(None, "/tmp").reduce
    assert options.passes_with == sys.executable and options.passes_with_env == ("NO_FAST_PATH=1",)
    with pytest.raises(Exception, match="passesWithEnv must be a list of strings"):
        MinimizeRequest.parse(({"uri": "file:///x.py", "errMsg": "boom", "passesWithEnv": "A=1"},)).options(None, "/")
