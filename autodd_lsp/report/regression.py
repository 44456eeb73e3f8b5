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

For a failure without a message (`FailureSpec`), the check is the kind's (its
module in `autodd_lsp/kinds/` holds the test's constants, helpers and check): a
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
from autodd_lsp.engine import FailureSpec, PytestTest, ReduceOptions, Summary
from autodd_lsp.files import source_encoding
from autodd_lsp.kinds.wrong_answer import kept_comparison

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
{constants}
COMMAND = {command_literal}  # what runs it, after the interpreter
STDIN = {stdin_literal}  # what it reads on its standard input (None: nothing)
# The line showing the failure when the reduction ran: in the original, in the reproducer.
ORIGINAL_FAILURE = {original_literal}
REPRODUCER_FAILURE = {final_literal}
TIMEOUT_S = {timeout!r}
ENCODING = {encoding_literal}
REPRODUCER = {reproducer_literal}

_FRAME_HEADER = re.compile(r'^\\s*File "[^"]*", line \\d+')
'''

# What runs the reproducer; the kind's check of `done` follows (its module in autodd_lsp/kinds).
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
    spec = (FailureSpec.message(err_msg) if err_msg else options.spec).kept(summary.signal)
    comparison = summary.final_comparison or summary.original_comparison
    if comparison is not None:  # the same wrong answer was kept: the test checks that comparison, whatever the kind
        spec = FailureSpec.wrong_answer(kept_comparison(comparison))
    kind = spec.rules
    source_name, output_name = os.path.basename(source_path), os.path.basename(output_path)
    text = summary.text
    encoding = source_encoding(text)
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        encoding = "utf-8"  # as autodd_lsp.files.source_bytes writes such a text
    # A hang is judged by the limit the reduction used; anything else gets room to finish.
    timeout = float(kind.regression_limit(options.timeout, MIN_TIMEOUT_S))
    module = _HEADER.format(
        version=__version__,
        source_name=_docstring_safe(source_name),
        output_name=_docstring_safe(output_name),
        while_there=kind.regression_while_there,
        output_name_literal=repr(output_name),
        command_literal=kind.regression_command_expression or repr(kind.regression_command(
            spec.value, PytestTest(options.test).command(output_name) if options.test else [output_name, *options.args],
            output_name, options.cwd or os.getcwd())),
        stdin_literal=_stdin_literal(options),
        constants=kind.regression_constants(spec.value),
        original_literal=repr(summary.original_failure_line),
        final_literal=repr(summary.final_failure_line),
        timeout=timeout,
        encoding_literal=repr(encoding),
        reproducer_literal=_text_literal(text),
    )
    module += kind.regression_helpers
    module += _RUN.format(test_name=_identifier(os.path.splitext(source_name)[0]), timed_out=kind.regression_timed_out)
    module += kind.regression_check
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
