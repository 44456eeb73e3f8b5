"""Works with A, fails with B (engine/candidate/passing_side.py), on real programs and a real second venv.

A candidate counts only when it fails the same way where candidates run (B) and
passes on A: another environment variable, another interpreter. Without A the
same failure is kept by a program that no longer depends on what differs.
"""

import os
import subprocess
import sys

import pytest

from autodd_lsp.engine import NotReproducible, ReduceOptions, Reduction, UsageError
from autodd_lsp.engine.candidate.passing_side import describe_side, parse_env
from autodd_lsp.engine.spec.failure_spec import FailureSpec
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


@pytest.mark.slow
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


@pytest.mark.slow
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


PRECISION = '''\
import math
import numpy as np

SCALE = 1.0001
weights = np.ones(4, dtype=np.float32) * np.float32(0.1)
labels = ["w%d" % i for i in range(len(weights))]


def accumulate(ws, steps):
    acc = 0.0
    for _ in range(steps):
        for w in ws:
            acc = acc + w * SCALE  # numpy 2 (NEP 50): float32 * float stays float32
    return acc


def reference(ws, steps):
    return sum(float(w) * SCALE for _ in range(steps) for w in ws)


def describe(ws):
    return ", ".join(f"{name}={w:.3f}" for name, w in zip(labels, ws))


print("numpy", np.__version__, describe(weights))
total = accumulate(weights, 250)
assert math.isclose(total, reference(weights, 250), rel_tol=1e-9), (total, reference(weights, 250))
print("ok")
'''


@pytest.fixture(scope="module")
def numpy1_python(tmp_path_factory):
    """A real second virtual environment with numpy 1.26.4 (side A); skipped when pip cannot install it."""
    import numpy

    if not numpy.__version__.startswith("2."):
        pytest.skip(f"side B needs numpy 2 here, this environment has {numpy.__version__}")
    venv = tmp_path_factory.mktemp("numpy1") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "numpy==1.26.4"],
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        pytest.skip(f"pip cannot install numpy==1.26.4 here: {done.stderr.strip().splitlines()[-1:]}")
    return str(python)


@pytest.mark.slow
def test_another_interpreter_with_an_older_numpy_is_side_a(program, numpy1_python, no_leftovers):
    path = program("precision.py", PRECISION)
    reduction = Reduction(path.read_text(), str(path), ReduceOptions(
        failure=FailureSpec.wrong_answer(), cwd=str(path.parent), passes_with=numpy1_python), lambda event: None)
    summary = reduction.run()
    assert summary.verified, summary.describe()
    assert f"passes with {numpy1_python}" in summary.rule
    assert runs(summary.text, path.parent, python=numpy1_python)[0] == 0
    status, output = runs(summary.text, path.parent)
    assert status == 1 and "AssertionError" in output
    assert "describe" not in summary.text and "labels" not in summary.text
    from autodd_lsp.report import bug_report

    report = bug_report(summary, str(path), str(path.with_suffix(".min.py")), "",
                        ReduceOptions(failure=FailureSpec.wrong_answer(), passes_with=numpy1_python))
    section = report[report.index("## Works with A, fails with B"):]
    assert f"A (passes): `{numpy1_python}`" in section
    assert "| `numpy` | numpy 1.26.4 | numpy 2." in section and "differs" in section


POOL_TEST = '''\
import os


def reference_sum(values):
    return sum(values)


def fast_sum(values):
    return sum(values[:-1])  # BUG: drops the last value


def pooled(values):
    if os.environ.get("POOL_REFERENCE") == "1":
        return reference_sum(values)
    return fast_sum(values)


def test_reference():
    assert reference_sum([1]) == 1


def test_pool():
    values = [1, 2, 3]
    assert pooled(values) == 6, "pooled total is wrong"
'''


@pytest.mark.slow
def test_a_pytest_target_passes_on_side_a_under_pytest(tmp_path, no_leftovers):
    """Side A runs the test as B does (under pytest): the result passes there, fails here."""
    path = tmp_path / "test_pool.py"
    path.write_text(POOL_TEST)
    output = tmp_path / "test_pool.min.py"
    done = subprocess.run(
        [sys.executable, "-m", "autodd_lsp", f"{path}::test_pool", "--err-msg", "pooled total is wrong",
         "--passes-with-env", "POOL_REFERENCE=1", "-o", str(output), "-q"],
        cwd=tmp_path, capture_output=True, text=True, timeout=1200, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "passes with" in done.stdout + done.stderr and "POOL_REFERENCE=1" in done.stdout + done.stderr
    result = output.read_text()
    assert "POOL_REFERENCE" in result and "test_reference" not in result, result

    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "test_pool.py").write_text(result)

    def under_pytest(env):
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_pool.py::test_pool"],
                              cwd=alone, capture_output=True, text=True, timeout=120, check=False,
                              env={**os.environ, **env})

    assert under_pytest({"POOL_REFERENCE": "1"}).returncode == 0
    failed = under_pytest({})
    assert failed.returncode == 1 and "pooled total is wrong" in failed.stdout
