"""Failures without a message: --crash, --exit-code, --hang, --err-regex, on real programs.

Each reduces, and the result, run standalone, fails the same way: the same
signal, the same exit status, still running at the limit, a line matching the
expression. The parts (signal names, faulthandler dumps, regex matches, the
spec's checks) are tested on their own below.
"""

import re
import signal
import subprocess
import sys

import pytest

from autodd_lsp.engine import (
    NotReproducible,
    ReduceOptions,
    UsageError,
)
from autodd_lsp.engine.spec.failure_spec import FailureSpec
from autodd_lsp.oracle.regex_match import compile_regex, regex_lines
from autodd_lsp.oracle.same import Observer
from autodd_lsp.oracle.signals import CrashOracle, fault_places, parse_signal
from tests.support import reduce

BACKENDS = ["runner", "subproc"]


def run_alone(text, folder, timeout=30):
    """The result as a user runs it: `python min.py`, a fresh interpreter; (returncode, output) or None if it hung."""
    path = folder / "min.py"
    path.write_text(text)
    try:
        done = subprocess.run([sys.executable, str(path)], cwd=folder, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return None
    return done.returncode, done.stdout + done.stderr


SEGFAULT = '''\
import ctypes
import json

settings = json.loads('{"retries": 3, "verbose": false}')
print("settings", settings)


def helper(n):
    return n * 2


def read_buffer(address):
    return ctypes.string_at(address)


total = helper(21)
if total > 10:
    read_buffer(0)
print("unreachable")
'''


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_ctypes_segfault_reduces_and_still_dies_by_sigsegv(program, backend, no_leftovers):
    path = program("segv.py", SEGFAULT)
    summary, _ = reduce(path, FailureSpec.crash("SIGSEGV"), backend=backend)
    assert summary.verified and not summary.cancelled
    assert summary.final.nodes < summary.original.nodes / 2
    assert "json" not in summary.text and "helper" not in summary.text
    assert summary.signal == signal.SIGSEGV
    assert summary.rule.startswith("killed by SIGSEGV; same failure line, same place")
    assert "killed by SIGSEGV" in summary.describe()
    assert summary.final_failure_line == "Fatal Python error: Segmentation fault"
    returncode, _ = run_alone(summary.text, path.parent)
    assert returncode == -signal.SIGSEGV


TWO_CRASHES = '''\
import ctypes
def first():
    return ctypes.string_at(0)
def second():
    ctypes.memset(0, 0, 1)
mode = "first"
if mode == "first":
    first()
second()
'''


@pytest.mark.slow
def test_a_crash_stays_where_its_faulthandler_dump_shows_it(program):
    """Both crash by SIGSEGV; only the original's place (ctypes' string_at) is the same crash."""
    path = program("two.py", TWO_CRASHES)
    same, _ = reduce(path, FailureSpec.crash())
    assert same.verified and "string_at" in same.text and "memset" not in same.text
    assert same.rule.startswith("killed by SIGSEGV")  # any signal asked, the original's required
    loose, _ = reduce(path, FailureSpec.crash(), match="substring")
    assert loose.verified and loose.rule == "killed by SIGSEGV"
    assert run_alone(loose.text, path.parent)[0] == -signal.SIGSEGV


ABORT = '''\
import os
import sys

config = {"mode": "strict", "level": 3}
print("configured", config["mode"])


def check(level):
    if level > 2:
        os.abort()
    return level


for name in ["a", "b"]:
    print(name)
check(config["level"])
'''


@pytest.mark.slow
def test_os_abort_reduces_and_still_dies_by_sigabrt(program, no_leftovers):
    path = program("abort.py", ABORT)
    summary, _ = reduce(path, FailureSpec.crash())
    assert summary.verified and summary.signal == signal.SIGABRT
    assert "os.abort()" in summary.text and "print" not in summary.text
    assert summary.rule.startswith("killed by SIGABRT")
    returncode, _ = run_alone(summary.text, path.parent)
    assert returncode == -signal.SIGABRT


@pytest.mark.slow
def test_the_original_must_die_by_the_signal_named(program, no_leftovers):
    with pytest.raises(NotReproducible, match=r"^the original was killed by SIGABRT, not by SIGSEGV$"):
        reduce(program("abort.py", ABORT), FailureSpec.crash("SIGSEGV"))
    with pytest.raises(NotReproducible, match=r"^the original exited with status 0, not by a signal$") as caught:
        reduce(program("fine.py", "print('all good')\n"), FailureSpec.crash())
    assert "all good" in caught.value.output_tail


EXIT_DEEP = '''\
import sys
import json

data = json.loads('{"a": 1, "b": 2}')
print("loaded", data)


def level3(d):
    if d["b"] == 2:
        sys.exit(3)


def level2(d):
    return level3(d)


def level1(d):
    size = len(d)
    return level2(d)


level1(data)
print("never")
'''


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_exit_status_deep_in_a_call_chain_reduces(program, backend, no_leftovers):
    path = program("exits.py", EXIT_DEEP)
    summary, _ = reduce(path, FailureSpec.exit_code(3), backend=backend)
    assert summary.verified and summary.rule == "exit status 3"  # no exception line to keep
    assert "json" not in summary.text and "sys.exit(3)" in summary.text
    assert summary.final.nodes < summary.original.nodes / 3
    returncode, _ = run_alone(summary.text, path.parent)
    assert returncode == 3


EXIT_AFTER_TRACEBACK = '''\
import sys
import traceback

steps = ["load", "parse"]
print("steps", steps)


def parse(text):
    return int(text)


try:
    parse("x1")
except ValueError:
    traceback.print_exc()
    sys.exit(4)
'''


@pytest.mark.slow
def test_an_exit_status_keeps_the_exception_line_the_original_printed(program):
    path = program("printed.py", EXIT_AFTER_TRACEBACK)
    summary, _ = reduce(path, FailureSpec.exit_code(4))
    line = "ValueError: invalid literal for int() with base 10: 'x1'"
    assert summary.verified and summary.rule == "exit status 4; same failure line, same place"
    assert summary.original_failure_line == summary.final_failure_line == line
    returncode, output = run_alone(summary.text, path.parent)
    assert returncode == 4 and line in output
    loose, _ = reduce(path, FailureSpec.exit_code(4), match="substring")
    assert loose.verified and loose.final.nodes < summary.final.nodes  # the status alone keeps less


@pytest.mark.slow
def test_the_original_must_exit_with_the_status(program):
    with pytest.raises(NotReproducible, match=r"^the original exited with status 3, not with status 5$"):
        reduce(program("exits.py", EXIT_DEEP), FailureSpec.exit_code(5))


HANG = '''\
import sys
total = sum(range(100))
print("total", total)
items = [1, 2, 3]
while True:
    pass
'''


@pytest.mark.slow
def test_a_hang_reduces_and_still_hangs(program, no_leftovers):
    path = program("hangs.py", HANG)
    summary, _ = reduce(path, FailureSpec.hang(), timeout=1)
    # Every hanging candidate costs the limit: a few of them (15 with the search's rounds, 9 before;
    # counted, not timed: the time is the machine's).
    assert summary.stats.candidates_run <= 20
    assert summary.verified and summary.rule == "hangs past 1 s"
    assert "while True" in summary.text and "print" not in summary.text and "items" not in summary.text
    assert run_alone(summary.text, path.parent, timeout=2) is None  # still running


@pytest.mark.slow
def test_a_program_that_ends_is_no_hang(program, no_leftovers):
    with pytest.raises(NotReproducible, match=r"^the original exited with status 0 instead of running past the 2 s"):
        reduce(program("fine.py", "print('all good')\n"), FailureSpec.hang(), timeout=2)


REGEX = '''\
import math
values = [3, 1, 2]
print("sorted", sorted(values), math.pi)


def validate(v):
    if len(v) != 4:
        print(f"ERROR E{len(v)}42: wrong length {len(v)}")
        print("ERROR E742: another check")
        return False
    return True


ok = validate(values)
print("done", ok)
'''


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_regex_failure_reduces_and_keeps_the_matched_line(program, backend, no_leftovers):
    path = program("regex.py", REGEX)
    summary, _ = reduce(path, FailureSpec.regex(r"ERROR E\d+42: \w+"), backend=backend)
    assert summary.verified and summary.rule == r"matches /ERROR E\d+42: \w+/; same failure line"
    # The original's matched line is its last: the same-failure rule keeps that one, not the first.
    assert summary.original_failure_line == summary.final_failure_line == "ERROR E742: another check"
    assert "math" not in summary.text and "wrong length" not in summary.text
    _, output = run_alone(summary.text, path.parent)
    assert re.search(r"ERROR E\d+42: \w+", output) and "ERROR E742: another check" in output


@pytest.mark.slow
def test_a_regex_searches_across_lines_as_re_search_does(program):
    path = program("lines.py", "print('shape check')\nprint('unrelated')\nprint('failed: K')\nprint('noise')\n")
    summary, _ = reduce(path, FailureSpec.regex(r"(?s)shape check.*failed: K"))
    assert summary.verified and "noise" not in summary.text
    assert "shape check" in run_alone(summary.text, path.parent)[1]


@pytest.mark.slow
def test_the_emitted_test_fails_while_it_crashes_and_passes_once_fixed(program, tmp_path):
    from tests.support import autodd, run_pytest

    src = program("segv.py", SEGFAULT)
    test, report = tmp_path / "test_segv.py", tmp_path / "segv.md"
    done = autodd(src, "--crash", "-o", tmp_path / "segv.min.py", "--emit-test", test, "--report", report, "-q")
    assert done.returncode == 0, done.stderr
    assert "it is killed by SIGSEGV, showing `Fatal Python error: Segmentation fault`." in report.read_text()
    assert "python -X faulthandler segv.min.py" in report.read_text()
    fresh = tmp_path / "maintainer"
    fresh.mkdir()
    (fresh / test.name).write_text(test.read_text())
    failing = run_pytest(fresh / test.name, fresh)
    assert failing.returncode == 1 and "the bug is still there" in failing.stdout and "SIGSEGV" in failing.stdout
    fixed = test.read_text().replace("import ctypes\n", "import ctypes\nctypes.string_at = lambda *args: b''\n", 1)
    assert fixed != test.read_text()
    (fresh / "test_fixed.py").write_text(fixed)
    passing = run_pytest(fresh / "test_fixed.py", fresh)
    assert passing.returncode == 0, passing.stdout


# -- the parts ----------------------------------------------------------------


def test_signal_names():
    assert parse_signal("SIGSEGV") == parse_signal("segv") == parse_signal("11") == signal.SIGSEGV
    assert parse_signal("SIGABRT") == signal.SIGABRT
    with pytest.raises(ValueError, match="unknown signal 'SIGNOPE'"):
        parse_signal("SIGNOPE")


@pytest.mark.parametrize(
    "spec, fragment",
    [
        (FailureSpec.message(""), "must not be empty"),
        (FailureSpec.regex("("), "--err-regex: bad regular expression '('"),
        (FailureSpec.regex("x*"), "matches the empty output"),
        (FailureSpec.crash("SIGNOPE"), "--crash: unknown signal"),
        (FailureSpec.exit_code(0), "0 is success"),
        (FailureSpec.exit_code(256), "from 1 to 255"),
        (FailureSpec("exit-code", "3"), "whole number"),
        (FailureSpec("quiet"), "unknown kind of failure"),
    ],
)
def test_a_bad_failure_is_a_one_line_usage_error(spec, fragment):
    with pytest.raises(UsageError, match=re.escape(fragment)) as caught:
        ReduceOptions(failure=spec).validate()
    assert "\n" not in str(caught.value)


def test_err_msg_still_works_and_cannot_be_given_twice():
    assert ReduceOptions(err_msg="boom").spec == FailureSpec.message("boom")
    with pytest.raises(UsageError, match="not both"):
        ReduceOptions(err_msg="boom", failure=FailureSpec.hang()).validate()


def test_descriptions_name_what_is_kept():
    assert FailureSpec.crash("segv").describe() == "killed by SIGSEGV"
    assert FailureSpec.crash().describe() == "killed by a signal"
    assert FailureSpec.exit_code(3).describe() == "exit status 3"
    assert FailureSpec.hang().describe(2.0) == "hangs past 2 s"
    assert FailureSpec.regex("K_A = \\d+").describe() == "matches /K_A = \\d+/"
    assert FailureSpec.crash("SIGABRT").command_line() == ["--crash", "SIGABRT"]
    assert FailureSpec.hang().command_line() == ["--hang"]


def test_regex_matches_in_echoed_source_do_not_count():
    source = "def f():\n    raise ValueError('E42 bad')\nf()\n"
    output = (
        "Traceback (most recent call last):\n"
        '  File "/t/p.py", line 3, in <module>\n'
        "    f()\n"
        '  File "/t/p.py", line 2, in f\n'
        "    raise ValueError('E42 bad')\n"
        "ValueError: E42 bad\n"
    )
    pattern = compile_regex(r"E\d+ bad")
    (match,) = regex_lines(output, pattern, source)
    assert match.line == "ValueError: E42 bad" and match.kind == "ValueError"
    echo_only = output.replace("ValueError: E42 bad", "TypeError: something else")
    assert regex_lines(echo_only, pattern, source) == []


DUMP_311 = """\
hi

Fatal Python error: Segmentation fault

Thread 0x00007f0000000001 (most recent call first):
  File "/usr/lib/python3.11/threading.py", line 324 in wait
  File "/run/job0/prog.py", line 9 in worker

Current thread 0x00007f5c4d077b80 (most recent call first):
  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at
  File "/run/job0/prog.py", line 4 in f
  File "/run/job0/prog.py", line 5 in <module>
  File "/site/autodd_lsp/execution/runner/server_main.py", line 533 in run_as_main
  File "/site/autodd_lsp/execution/runner/server_main.py", line 689 in <module>

Extension modules: numpy.core._multiarray_umath (total: 1)
"""

DUMP_314 = """\
Fatal Python error: Aborted

Current thread 0x00007fb899f39700 [python] (most recent call first):
  File "/run/job0/prog.py", line 7 in check

Current thread's C stack trace (most recent call first):
  Binary file "/opt/python/bin/python3.14", at _Py_DumpStack+0x42 [0x5b27f7d7147e]
  Binary file "/opt/python/bin/python3.14", at +0x32dcbd [0x5b27f7d85cbd]
  Binary file "/usr/lib/libc.so.6", at +0x3def0 [0x77b73226bef0]
  Binary file "/usr/lib/libc.so.6", at abort+0x1a [0x77b7323acf9c]
  Binary file "/usr/lib/libstdc++.so.6", at _ZSt9terminatev+0x10 [0x77b7315dd000]
  Binary file "/opt/tvm/libtvm.so", at _ZN3tvm7runtime6detail8LogFatalD2Ev+0x3c [0x77b7315dddf6]
  Binary file "/opt/tvm/libtvm.so", at +0x9120 [0x77b7315e0000]
"""


def test_a_faulthandler_dump_gives_the_crash_its_place():
    def is_program(file):
        return file == "/run/job0/prog.py"
    lines = DUMP_311.splitlines()
    (place,) = fault_places(lines, is_program).values()
    # The crashing thread's frames, not another thread's; the runner's own outer frames left out.
    assert place.library_frame == ("/usr/lib/python3.11/ctypes/__init__.py", 519)
    assert place.program_line == 4 and place.native_frame is None
    (native,) = fault_places(DUMP_314.splitlines(), is_program).values()
    assert native.library_frame is None and native.program_line == 7
    # Past the interpreter, libc and libstdc++ (where every abort ends up): the library that aborted.
    assert native.native_frame == ("libtvm.so", "_ZN3tvm7runtime6detail8LogFatalD2Ev+0x3c")
    observer = Observer(None, is_program, lambda: ("/run/job0/prog.py",), find=CrashOracle.find, places=fault_places)
    (seen,) = observer.observations(DUMP_311, "")
    assert seen.line == "Fatal Python error: Segmentation fault" and seen.place == place
