"""The regression test: a standalone pytest file that fails while the bug is there.

    text = regression_test(summary, source_path, output_path, err_msg, options)

returns the text of a test module (it never writes a file; the front ends
write it with `autodd_lsp.files.atomic_write`) that needs only the standard
library and pytest. Its one test

* writes the reproducer (embedded in the file, exactly: every character, line
  break and the encoding its coding cookie names) into pytest's `tmp_path`
  under the reproducer's file name;
* runs it as `python <name>` (a pytest test: `python -m pytest <name>::test`,
  the engine's final check, `PytestTest.command`) with the interpreter running pytest
  (`sys.executable`), with the program's own arguments, a fresh process with
  cwd = tmp_path, stdin empty (or the bytes of the reduction's --stdin file,
  embedded) and a time limit (the reduction's --timeout, at least
  MIN_TIMEOUT_S);
* FAILS while the output shows the message, the assertion message quoting the
  line(s) that show it and the end of the output; PASSES once the message no
  longer shows. Source lines that a traceback quotes are not counted (a
  different error raised from a line that contains the message is not the
  bug). A run past the time limit fails, and so does one that stops at a
  ModuleNotFoundError without the message: the test cannot tell whether the bug
  is fixed where the reproducer cannot run.

For a failure without a message (`FailureSpec`), the check is the kind's: a
line matching the regular expression (`--err-regex`), death by the signal the
reduction kept (`--crash`), the exit status (`--exit-code`), or, for `--hang`,
a run still going at the reduction's own `--timeout` (the time limit is that
one, not MIN_TIMEOUT_S: past it, the bug is there).
"""

from __future__ import annotations

import ast
import os
import re

from autodd_lsp import __version__
from autodd_lsp.engine import ReduceOptions, Summary
from autodd_lsp.engine.failure_spec import FailureSpec
from autodd_lsp.engine.pytest_target import PytestTest
from autodd_lsp.files import source_encoding
from autodd_lsp.oracle.signals import signal_name

MIN_TIMEOUT_S = 60.0

_HEADER = '''\
"""Regression test: {output_name} must not fail any more.

Written by AutoDD {version} from the reduction of {source_name}. The test writes
the reproducer below to {output_name} in a temporary folder and runs it with a
fresh interpreter, as `python {output_name}`. {while_there}
It needs only the standard library and pytest.
"""

import re
import signal
import subprocess
import sys

import pytest

REPRODUCER_NAME = {output_name_literal}
COMMAND = {command_literal}  # what runs it, after the interpreter
STDIN = {stdin_literal}  # what it reads on its standard input (None: nothing)
{constants}
# The line showing the failure when the reduction ran: in the original, in the reproducer.
ORIGINAL_FAILURE = {original_literal}
REPRODUCER_FAILURE = {final_literal}
TIMEOUT_S = {timeout!r}
ENCODING = {encoding_literal}
REPRODUCER = {reproducer_literal}

_FRAME_HEADER = re.compile(r'^\\s*File "[^"]*", line \\d+')
'''

# Per kind: what the docstring says, the constants, the helpers, the test's check of `done`.
_WHILE_THERE = {
    "message": "While the bug is there its output\nshows MESSAGE, and the test fails and shows that line; once the failure no\nlonger shows, the test passes.",
    "regex": "While the bug is there a line of its\noutput matches PATTERN, and the test fails and shows that line; once no line\nmatches, the test passes.",
    "crash": "While the bug is there it is killed\nby SIGNAL, and the test fails; once it is not, the test passes.",
    "exit-code": "While the bug is there it exits with\nstatus EXIT_STATUS, and the test fails; once it does not, the test passes.",
    "hang": "While the bug is there it is still\nrunning after TIMEOUT_S seconds (a hang), and the test fails; once it ends in\ntime, the test passes.",
}

_QUOTES = '''

def unquoted_lines(output):
    """The lines of `output`, less the source lines a traceback quotes."""
    found, after_header = [], False
    for line in output.splitlines():
        quoted = after_header and line.startswith("    ")
        after_header = bool(_FRAME_HEADER.match(line))
        if not quoted:
            found.append(line)
    return found
'''

_HELPERS = {
    "message": _QUOTES + '''

def lines_showing(message, output):
    """Lines of `output` that show `message`, leaving out the source lines a traceback quotes."""
    if "\\n" in message:
        return [output] if message in output else []
    return [line for line in unquoted_lines(output) if message in line]
''',
    "regex": _QUOTES + '''

def lines_showing(pattern, output):
    """Where `pattern` matches `output` (as re.search does), leaving out the source lines a traceback quotes."""
    text = "\\n".join(unquoted_lines(output))
    return [match.group(0) for match in pattern.finditer(text)]
''',
}

_RUN = '''

def test_{test_name}_no_longer_fails(tmp_path):
    (tmp_path / REPRODUCER_NAME).write_bytes(REPRODUCER.encode(ENCODING))
    try:
        done = subprocess.run(
            [sys.executable, *COMMAND],
            cwd=tmp_path, input=STDIN or b"", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{timed_out}")
    output = done.stdout.decode("utf-8", "replace")
    tail = "\\n".join(output.rstrip().splitlines()[-20:])
    missing = [line for line in output.splitlines() if line.startswith("ModuleNotFoundError:")]
'''

_CHECKS = {
    "message": '''\
    shown = lines_showing(MESSAGE, output)
    if not shown and missing and "ModuleNotFoundError" not in MESSAGE and "No module named" not in MESSAGE:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert not shown, (
        f"the bug is still there: python {REPRODUCER_NAME} (exit status {done.returncode}) shows\\n"
        + "\\n".join(shown)
        + f"\\n--- the end of its output ---\\n{tail}"
    )
''',
    "regex": '''\
    shown = lines_showing(PATTERN, output)
    if not shown and missing and not PATTERN.search("\\n".join(missing)):
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert not shown, (
        f"the bug is still there: the output of python {REPRODUCER_NAME} (exit status {done.returncode}) "
        f"matches {PATTERN.pattern!r}:\\n" + "\\n".join(shown)
        + f"\\n--- the end of its output ---\\n{tail}"
    )
''',
    "crash": '''\
    if done.returncode != -SIGNAL and missing:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert done.returncode != -SIGNAL, (
        f"the bug is still there: python {REPRODUCER_NAME} is killed by {signal.Signals(SIGNAL).name}"
        f"\\n--- the end of its output ---\\n{tail}"
    )
''',
    "exit-code": '''\
    if done.returncode != EXIT_STATUS and missing:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert done.returncode != EXIT_STATUS, (
        f"the bug is still there: python {REPRODUCER_NAME} exits with status {EXIT_STATUS}"
        f"\\n--- the end of its output ---\\n{tail}"
    )
''',
    "hang": '''\
    if missing:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
''',
}


def _constants(spec: FailureSpec, signal_number: int | None) -> str:
    if spec.kind == "message":
        return f"MESSAGE = {spec.value!r}"
    if spec.kind == "regex":
        return f"PATTERN = re.compile({spec.value!r})"
    if spec.kind == "crash":
        if signal_number is None:
            raise ValueError("a regression test of a crash needs its signal")
        return f"SIGNAL = signal.{signal_name(signal_number)}.value"
    if spec.kind == "exit-code":
        return f"EXIT_STATUS = {spec.value!r}"
    return "# No constant: the failure is the hang itself (see TIMEOUT_S)."


def regression_test(
    summary: Summary,
    source_path: str,
    output_path: str,
    err_msg: str,
    options: ReduceOptions,
) -> str:
    """The text of the pytest module (see the module docstring).

    `err_msg` is the message kept, or "" when `options` keeps another kind of failure.
    """
    spec = FailureSpec.message(err_msg) if err_msg else options.spec
    signal_number = spec.signal_number if spec.kind == "crash" else None
    if spec.kind == "crash" and signal_number is None:
        signal_number = summary.signal  # any signal was asked for: the one the reduction kept
    source_name, output_name = os.path.basename(source_path), os.path.basename(output_path)
    text = summary.text
    encoding = source_encoding(text)
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        encoding = "utf-8"  # as autodd_lsp.files.source_bytes writes such a text
    # A hang is judged by the limit the reduction used; anything else gets room to finish.
    timeout = float(options.timeout if spec.kind == "hang" else max(options.timeout, MIN_TIMEOUT_S))
    timed_out = (
        "the bug is still there: python {REPRODUCER_NAME} still runs after {TIMEOUT_S:g} s"
        if spec.kind == "hang" else "python {REPRODUCER_NAME} did not finish within {TIMEOUT_S:g} s"
    )
    module = _HEADER.format(
        version=__version__,
        source_name=_docstring_safe(source_name),
        output_name=_docstring_safe(output_name),
        while_there=_WHILE_THERE[spec.kind],
        output_name_literal=repr(output_name),
        command_literal=repr(PytestTest(options.test).command(output_name) if options.test
                             else [output_name, *options.args]),
        stdin_literal=_stdin_literal(options),
        constants=_constants(spec, signal_number),
        original_literal=repr(summary.original_failure_line),
        final_literal=repr(summary.final_failure_line),
        timeout=timeout,
        encoding_literal=repr(encoding),
        reproducer_literal=_text_literal(text),
    )
    module += _HELPERS.get(spec.kind, "")
    module += _RUN.format(test_name=_identifier(os.path.splitext(source_name)[0]), timed_out=timed_out)
    module += _CHECKS[spec.kind]
    compile(module, "regression test", "exec")  # a bug of ours, not the user's, if this fails
    return module


def _stdin_literal(options: ReduceOptions) -> str:
    """The input file's bytes, embedded (the test stands alone), or None."""
    if not options.stdin:
        return "None"
    with open(options.stdin_path(), "rb") as handle:
        return repr(handle.read())


def _text_literal(text: str) -> str:
    """A string literal equal to `text`: a readable triple-quoted block when that is exact."""
    body = text.replace("\\", "\\\\")
    if "'''" in body or body.endswith("'"):
        body = body.replace("'", "\\'")
    body = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", lambda m: "\\r" if m.group() == "\r" else f"\\x{ord(m.group()):02x}", body)
    literal = f"'''\\\n{body}'''"
    try:
        if ast.literal_eval(literal) == text:
            return literal
    except (SyntaxError, ValueError):
        pass
    lines = text.splitlines(keepends=True) or [""]
    return "(\n" + "".join(f"    {line!r}\n" for line in lines) + ")"


def _docstring_safe(text: str) -> str:
    return re.sub(r"[\\\"\x00-\x1f\x7f]", "_", text)


def _identifier(stem: str) -> str:
    name = re.sub(r"\W", "_", stem).strip("_").lower() or "reproducer"
    return name if not name[0].isdigit() else f"_{name}"
