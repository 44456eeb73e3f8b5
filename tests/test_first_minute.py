"""The first minute with AutoDD: messages a new user meets before any reduction starts.

Real runs of the `autodd` command on tiny programs.
"""

from __future__ import annotations

import pytest

from tests.support import assert_one_line_error, autodd

pytestmark = pytest.mark.slow  # every test here starts an interpreter


FAILS = "def f():\n    raise ValueError('boom')\n\n\nf()\n"


def test_a_file_that_does_not_compile_gets_no_suggestion(tmp_path):
    source = tmp_path / "broken.py"
    source.write_text("x = 1\nif x\n    print(x)\n")
    done = autodd(source)
    assert_one_line_error(done, 2, "broken.py does not compile (line 2: expected ':')")
    assert "--err-msg" not in done.stderr


def test_suggestions_keep_every_option_given(tmp_path):
    source = tmp_path / "fails.py"
    source.write_text(FAILS)
    (tmp_path / "out").mkdir()
    done = autodd(source, "-o", tmp_path / "out" / "x.py", "-j", "2", "--report", tmp_path / "bug.md",
                  "--backend", "subproc")
    assert done.returncode == 2
    commands = [line.strip() for line in done.stderr.splitlines() if line.strip().startswith("autodd ")]
    assert commands, done.stderr
    for command in commands:
        assert f"-o {tmp_path / 'out' / 'x.py'} -j 2 --report {tmp_path / 'bug.md'} --backend subproc" in command


def test_options_are_checked_before_the_probe_run(tmp_path):
    source = tmp_path / "fails.py"
    source.write_text(FAILS.replace("f()\n", "open('ran', 'w').write('1')\nf()\n"))
    assert_one_line_error(autodd(source, "-j", "0"), 2, "-j/--jobs must be at least 1")
    assert_one_line_error(autodd(source, "-o", tmp_path / "no" / "such" / "x.py"), 2, "cannot write the output")
    assert not (tmp_path / "ran").exists() and not any(tmp_path.glob("**/ran"))


def test_mistyped_and_miscased_markers_are_refused_like_the_editor_flags_them(tmp_path):
    source = tmp_path / "marked.py"
    source.write_text("x = 1  # autodd: frezee\ny = 2  # AutoDD: Freeze\nraise ValueError('boom')\n")
    done = autodd(source, "--err-msg", "boom")
    assert_one_line_error(done, 2, "unknown AutoDD annotation 'frezee'")
    assert "line 1, column 8" in done.stderr and "line 2, column 8" in done.stderr
    assert "'AutoDD' is not one" in done.stderr


def test_every_misplaced_marker_is_listed(tmp_path):
    source = tmp_path / "marked.py"
    source.write_text("x = 1  # autodd: freeze-start\ny = 2  # autodd: end-freeze\nraise ValueError('boom')\n")
    done = autodd(source, "--err-msg", "boom")
    assert_one_line_error(done, 2, "line 1, column 8: `# autodd: freeze-start` must be a comment on a line of its own")
    assert "line 2, column 8: `# autodd: end-freeze` must be" in done.stderr and "more)" not in done.stderr


def _on_a_terminal(args, answer: bytes, cwd) -> tuple[int, str]:
    """Run `autodd ARGS` with a real pseudo-terminal as its stdin/stdout/stderr; answer its question."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "autodd_lsp", *map(str, args)], stdin=follower, stdout=follower,
                               stderr=follower, cwd=cwd, close_fds=True)
    os.close(follower)
    seen, answered, deadline = b"", False, time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the other end closed: the command ended
                    break
                if not chunk:
                    break
                seen += chunk
            if not answered and b"run which?" in seen:
                os.write(leader, answer)
                answered = True
            if process.poll() is not None and not ready:
                break
        return process.wait(timeout=60), seen.decode("utf-8", "replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)


def test_on_a_terminal_the_pick_starts_the_run(tmp_path):
    source = tmp_path / "fails.py"
    source.write_text(FAILS)
    code, shown = _on_a_terminal([source.name, "--backend", "subproc", "-q"], b"1\n", tmp_path)
    assert "1) autodd fails.py --err-msg" in shown and "--backend subproc -q" in shown, shown
    assert code == 0, shown
    assert "boom" in (tmp_path / "fails.min.py").read_text()
    assert "Done:" in shown


def test_on_a_terminal_q_runs_nothing(tmp_path):
    source = tmp_path / "fails.py"
    source.write_text(FAILS)
    code, shown = _on_a_terminal([source.name], b"q\n", tmp_path)
    assert code == 2 and "run which?" in shown and not (tmp_path / "fails.min.py").exists()


def test_a_message_only_in_a_quoted_source_line_is_explained(tmp_path):
    source = tmp_path / "orders.py"
    source.write_text("DISCOUNTS = {'gold': 0.2}\n\n\ndef discount(tier):\n    return DISCOUNTS[tier]\n\n\n"
                      "discount('silver')\n")
    done = autodd(source, "--err-msg", "DISCOUNTS[tier]")
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("autodd: error:")]
    assert len(errors) == 1 and errors[0].endswith(
        "does not print 'DISCOUNTS[tier]' (exit status 1): it appears only in a source line a traceback quotes, "
        "which does not count; nothing to reduce"), done.stderr
    assert "    return DISCOUNTS[tier]" in done.stderr  # the output shown below the error has it, quoted
