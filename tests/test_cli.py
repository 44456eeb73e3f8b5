"""The `autodd` command as a user runs it: contract, bad input, interruption."""

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.support import (
    SLOW_SENTINEL,
    assert_one_line_error,
    autodd,
    leftover_processes,
    read_until,
    run_standalone,
    slow_program,
)

MESSAGE = "inventory invariant violated"




@pytest.mark.slow
def test_minimizes_and_writes_output(program, tmp_path):
    source = program("inventory.py")
    original = source.read_text()
    output = tmp_path / "out" / "min.py"
    output.parent.mkdir()
    done = autodd(source, "--err-msg", MESSAGE, "-o", output, "-j", "2")
    assert done.returncode == 0, done.stderr
    assert "candidates run" in done.stderr and "AST nodes" in done.stderr
    assert source.read_text() == original
    assert MESSAGE in run_standalone(output)
    assert len(output.read_text().splitlines()) < len(original.splitlines()) / 2
    assert "if self.total() > limit:" in output.read_text()  # its own check stays whole
    assert [p.name for p in output.parent.iterdir()] == ["min.py"]  # no temp files beside it


@pytest.mark.slow
def test_quiet_prints_only_the_summary(program, tmp_path):
    done = autodd(program("inventory.py"), "--err-msg", MESSAGE, "-o", tmp_path / "m.py", "-q", "--backend", "subproc")
    assert done.returncode == 0
    assert next(line for line in done.stderr.splitlines() if line.strip()).startswith("Done:")


@pytest.mark.slow
def test_a_runner_that_cannot_start_is_noted_once(program, tmp_path, python_without_runner):
    source = program("inventory.py")
    done = autodd(source, "--err-msg", MESSAGE, "-o", tmp_path / "m.py", "--python", python_without_runner)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("autodd: note:")]
    assert len(notes) == 1 and "runner backend is unavailable (the fork server could not start" in notes[0]
    assert MESSAGE in run_standalone(tmp_path / "m.py")


@pytest.mark.slow
def test_module_and_script_entry_points_agree():
    assert autodd("--help").returncode == 0
    script = os.path.join(os.path.dirname(sys.executable), "autodd")
    if os.path.exists(script):
        done = subprocess.run([script, "--help"], capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "--err-msg" in done.stdout


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["missing.py"], "no such file"),
        (["{dir}"], "is a directory"),
        (["{src}", "-j", "0"], "at least 1"),
        (["{src}", "--timeout", "0"], "positive"),
        (["{src}", "--timeout", "-3"], "positive"),
        (["{src}", "-o", "{src}"], "must differ"),
        (["{src}", "-o", "{dir}/no/such/folder/out.py"], "does not exist"),
        (["{src}", "--python", "/no/such/python"], "not an executable"),
    ],
)
@pytest.mark.slow
def test_bad_input_gives_one_clear_line(tmp_path, program, args, fragment):
    src = program("inventory.py")
    subs = {"src": src, "dir": tmp_path}
    args = [a.format(**subs) for a in args]
    if "-o" not in args:
        args += ["-o", str(tmp_path / "out.py")]
    done = autodd(*args, "--err-msg", MESSAGE)
    assert_one_line_error(done, 2, fragment)
    assert not (tmp_path / "out.py").exists()


@pytest.mark.slow
def test_syntax_error_points_at_file_line_and_column(program, tmp_path):
    src = program("broken.py", "x = 1\ny = (2,\n")
    done = autodd(src, "--err-msg", "x", "-o", tmp_path / "out.py")
    assert_one_line_error(done, 2, "broken.py:2:")
    assert "syntax error" in done.stderr


@pytest.mark.slow
def test_unwritable_output_folder(program, tmp_path):
    if os.geteuid() == 0:
        locked = "/proc"  # even root cannot create files there
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
    done = autodd(program("inventory.py"), "--err-msg", MESSAGE, "-o", f"{locked}/out.py")
    assert_one_line_error(done, 2, "not writable")


@pytest.mark.slow
def test_non_reproducing_original_stops_at_once_with_its_output(program, tmp_path):
    src = program("fine.py", "print('everything is fine')\n")
    out = tmp_path / "out.py"
    started = time.monotonic()
    done = autodd(src, "--err-msg", "boom", "-o", out)
    assert time.monotonic() - started < 30
    assert_one_line_error(done, 1, "does not print 'boom'")
    assert "everything is fine" in done.stderr
    assert not out.exists()


@pytest.mark.slow
def test_freeze_annotation_errors_are_bad_input(program, tmp_path):
    src = program("frozen.py", "x = 1\n# autodd: freeze-start\ny = 2\n")
    done = autodd(src, "--err-msg", "x", "-o", tmp_path / "out.py")
    assert_one_line_error(done, 2, "frozen.py: line 2, column 1: `# autodd: freeze-start` has no matching")


SLOW = slow_program(4, 0.1, junk=40)  # junk goes early, x0..x3 keep it running


def start_slow(src, out, tmp_path):
    """`autodd SRC --err-msg SLOW_SENTINEL -o OUT` started, its stderr piped, with a private TMPDIR
    (returned with the environment it gave)."""
    private = tmp_path / "private-tmp"
    private.mkdir()
    env = dict(os.environ, TMPDIR=str(private))
    proc = subprocess.Popen(
        [sys.executable, "-m", "autodd_lsp", str(src), "--err-msg", SLOW_SENTINEL, "-o", str(out)],
        stderr=subprocess.PIPE, text=True, env=env,
    )
    return proc, private, env


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_best_result_and_leaves_nothing(program, tmp_path, signum):
    src = program("slow.py", SLOW)
    out = tmp_path / "out.py"
    proc, private, _ = start_slow(src, out, tmp_path)
    before = read_until(proc.stderr, "autodd: smaller:")  # an improvement was accepted (and OUTPUT written)
    proc.send_signal(signum)
    sent = time.monotonic()
    _, err = proc.communicate(timeout=10)
    err = before + err
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == 130, err
    assert "Stopped early" in err
    assert SLOW_SENTINEL in run_standalone(out)
    assert leftover_processes(str(private)) == []
    assert list(private.iterdir()) == []


@pytest.mark.slow
def test_a_second_reduction_in_the_same_folder_is_refused_and_nothing_is_lost(program, tmp_path):
    """Each reduction removes what a run creates in its folders (engine/candidate/clean_runs.py): a second one
    there would remove the first's result, and the first the second's. The second is refused with one
    line and writes nothing; the first goes on, and its result stays."""
    src, other = program("slow.py", SLOW), program("other.py", SLOW)
    out = tmp_path / "out.py"
    proc, private, env = start_slow(src, out, tmp_path)
    try:
        before = read_until(proc.stderr, "autodd: smaller:")  # the first has written its result
        done = autodd(other, "--err-msg", SLOW_SENTINEL, "-o", tmp_path / "other.min.py", env=env)
        assert_one_line_error(done, 2, f"another AutoDD reduction is running in {tmp_path}")
        assert out.exists() and not (tmp_path / "other.min.py").exists()
        assert other.read_text() == SLOW
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 130, before + err
    assert SLOW_SENTINEL in run_standalone(out)
    assert leftover_processes(str(private)) == []
    assert list(private.iterdir()) == []


@pytest.mark.slow
def test_without_err_msg_it_suggests_the_failure(program):
    src = program("inventory.py")
    done = autodd(src)
    assert done.returncode == 2
    assert '--err-msg "ValueError: inventory invariant violated: total above limit"' in done.stderr
    assert not (src.parent / "inventory.min.py").exists()


def test_printed_commands_are_quoted_as_a_person_types_them():
    import shlex

    from autodd_lsp.shell import shell_word

    for word, shown in [("KeyError: 'west'", "\"KeyError: 'west'\""), ("plain", "plain"),
                        ("costs $5", "'costs $5'"), ('say "hi"', "'say \"hi\"'")]:
        assert shell_word(word) == shown
        assert shlex.split(shell_word(word)) == [word]  # the shell reads back the same word


@pytest.mark.slow
def test_default_output_goes_beside_the_source(program):
    src = program("inventory.py")
    done = autodd(src, "--err-msg", MESSAGE, "-q")
    assert done.returncode == 0, done.stderr
    assert MESSAGE in (src.parent / "inventory.min.py").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["runner", "subproc"])
def test_a_file_in_a_declared_encoding_stays_in_it(tmp_path, backend):
    """Candidates and the output are written in the encoding the coding cookie names."""
    text = (
        "# autodd: freeze-start\n"
        "# -*- coding: latin-1 -*-\n"
        "word = 'café'\n"
        "# autodd: end-freeze\n"
        "unused = 'déjà vu'\n"
        "if len(word) != 4:\n"
        "    raise SystemExit('read as the wrong encoding')\n"
        "raise ValueError('%s: %d characters' % (word, len(word)))\n"
    )
    source = tmp_path / "latin.py"
    source.write_bytes(text.encode("latin-1"))
    output = tmp_path / "latin.min.py"
    done = autodd(source, "--err-msg", "café: 4 characters", "-o", output, "--backend", backend)
    assert done.returncode == 0, done.stderr
    reduced = output.read_bytes().decode("latin-1")
    assert "# -*- coding: latin-1 -*-\nword = 'café'\n" in reduced and "déjà" not in reduced
    assert "café: 4 characters" in run_standalone(output)


# -- failures without a message ---------------------------------------------------

SEGFAULT = "import ctypes\nprint('noise')\nunused = [1, 2]\nctypes.string_at(0)\n"


@pytest.mark.parametrize(
    "flags, fragment",
    [
        (["--err-msg", MESSAGE, "--crash"], "give one failure to keep (--err-msg, --err-regex, --crash, --exit-code, "
                                            "--hang, --wrong-answer or --check), not --err-msg and --crash"),
        (["--wrong-answer", "--hang"], "not --hang and --wrong-answer"),
        (["--err-msg", MESSAGE, "--passes-with-env", "NOEQUALS"], "--passes-with-env takes NAME=VALUE"),
        (["--err-msg", MESSAGE, "--passes-with", "/nonexistent/python"], "--passes-with: no Python interpreter"),
        (["--hang", "--exit-code", "3"], "not --exit-code and --hang"),
        (["--err-regex", "(unclosed"], "--err-regex: bad regular expression '(unclosed'"),
        (["--err-regex", ".*"], "matches the empty output"),
        (["--crash", "SIGNOPE"], "--crash: unknown signal 'SIGNOPE'"),
        (["--exit-code", "0"], "0 is success"),
    ],
)
@pytest.mark.slow
def test_exactly_one_failure_to_keep_and_a_valid_one(tmp_path, program, flags, fragment):
    src = program("inventory.py")
    done = autodd(src, *flags, "-o", tmp_path / "out.py")
    assert_one_line_error(done, 2, fragment)
    assert not (tmp_path / "out.py").exists()


@pytest.mark.slow
def test_crash_from_the_command_line(program, tmp_path):
    src = program("segv.py", SEGFAULT)
    done = autodd("--crash", src, "-o", tmp_path / "min.py", "-q")  # the file is SOURCE, not a signal
    assert done.returncode == 0, done.stderr
    assert "(rule: killed by SIGSEGV; same failure line, same place)" in done.stderr
    assert "print" not in (tmp_path / "min.py").read_text()
    alone = subprocess.run([sys.executable, str(tmp_path / "min.py")], capture_output=True, timeout=30, check=False)
    assert alone.returncode == -signal.SIGSEGV


@pytest.mark.slow
def test_a_crash_that_does_not_happen_is_not_reproducible(program, tmp_path):
    done = autodd(program("fine.py", "print('all good')\n"), "--crash", "SIGSEGV", "-o", tmp_path / "min.py")
    assert done.returncode == 1
    assert "autodd: error: the original exited with status 0, not by SIGSEGV; nothing to reduce" in done.stderr
    assert "all good" in done.stderr


@pytest.mark.slow
def test_without_a_failure_a_crash_is_suggested(program):
    done = autodd(program("segv.py", SEGFAULT))
    assert done.returncode == 2
    assert "segv.py --crash SIGSEGV" in done.stderr
