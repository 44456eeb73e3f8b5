"""The regression test: a standalone pytest file that fails while the bug is there.

    text = regression_test(summary, source_path, output_path, err_msg, options)

returns the text of a test module (it never writes a file; the front ends
write it with `autodd_lsp.files.atomic_write`) that needs only the standard
library and pytest. Its one test

* writes the reproducer (embedded in the file, exactly: every character, line
  break and the encoding its coding cookie names) into pytest's `tmp_path`
  under the reproducer's file name;
* runs it as `python <name>` with the interpreter running pytest
  (`sys.executable`), a fresh process with cwd = tmp_path, stdin from
  /dev/null and a time limit (the reduction's --timeout, at least
  MIN_TIMEOUT_S);
* FAILS while the output shows the message, the assertion message quoting the
  line(s) that show it and the end of the output; PASSES once the message no
  longer shows. Source lines that a traceback quotes are not counted (a
  different error raised from a line that contains the message is not the
  bug). A run past the time limit fails, and so does one that stops at a
  ModuleNotFoundError without the message: the test cannot tell whether the bug
  is fixed where the reproducer cannot run.
"""

from __future__ import annotations

import ast
import os
import re

from autodd_lsp import __version__
from autodd_lsp.engine import ReduceOptions, Summary
from autodd_lsp.files import source_encoding

MIN_TIMEOUT_S = 60.0

_TEMPLATE = '''\
"""Regression test: {output_name} must not fail any more.

Written by AutoDD {version} from the reduction of {source_name}. The test writes
the reproducer below to {output_name} in a temporary folder and runs it with a
fresh interpreter, as `python {output_name}`. While the bug is there its output
shows MESSAGE, and the test fails and shows that line; once the failure no
longer shows, the test passes. It needs only the standard library and pytest.
"""

import re
import subprocess
import sys

import pytest

REPRODUCER_NAME = {output_name_literal}
MESSAGE = {message_literal}
# The line showing MESSAGE when the reduction ran: in the original, in the reproducer.
ORIGINAL_FAILURE = {original_literal}
REPRODUCER_FAILURE = {final_literal}
TIMEOUT_S = {timeout!r}
ENCODING = {encoding_literal}
REPRODUCER = {reproducer_literal}

_FRAME_HEADER = re.compile(r'^\\s*File "[^"]*", line \\d+')


def lines_showing(message, output):
    """Lines of `output` that show `message`, leaving out the source lines a traceback quotes."""
    if "\\n" in message:
        return [output] if message in output else []
    found, after_header = [], False
    for line in output.splitlines():
        quoted = after_header and line.startswith("    ")
        after_header = bool(_FRAME_HEADER.match(line))
        if message in line and not quoted:
            found.append(line)
    return found


def test_{test_name}_no_longer_fails(tmp_path):
    (tmp_path / REPRODUCER_NAME).write_bytes(REPRODUCER.encode(ENCODING))
    try:
        done = subprocess.run(
            [sys.executable, REPRODUCER_NAME],
            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"python {{REPRODUCER_NAME}} did not finish within {{TIMEOUT_S:g}} s")
    output = done.stdout.decode("utf-8", "replace")
    tail = "\\n".join(output.rstrip().splitlines()[-20:])
    shown = lines_showing(MESSAGE, output)
    missing = [line for line in output.splitlines() if line.startswith("ModuleNotFoundError:")]
    if not shown and missing and "ModuleNotFoundError" not in MESSAGE and "No module named" not in MESSAGE:
        pytest.fail(f"cannot tell whether the bug is fixed: python {{REPRODUCER_NAME}} cannot run here: {{missing[-1]}}")
    assert not shown, (
        f"the bug is still there: python {{REPRODUCER_NAME}} (exit status {{done.returncode}}) shows\\n"
        + "\\n".join(shown)
        + f"\\n--- the end of its output ---\\n{{tail}}"
    )
'''


def regression_test(
    summary: Summary,
    source_path: str,
    output_path: str,
    err_msg: str,
    options: ReduceOptions,
) -> str:
    """The text of the pytest module (see the module docstring)."""
    source_name, output_name = os.path.basename(source_path), os.path.basename(output_path)
    text = summary.text
    encoding = source_encoding(text)
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        encoding = "utf-8"  # as autodd_lsp.files.source_bytes writes such a text
    module = _TEMPLATE.format(
        version=__version__,
        source_name=_docstring_safe(source_name),
        output_name=_docstring_safe(output_name),
        output_name_literal=repr(output_name),
        message_literal=repr(err_msg),
        original_literal=repr(summary.original_failure_line),
        final_literal=repr(summary.final_failure_line),
        timeout=float(max(options.timeout, MIN_TIMEOUT_S)),
        encoding_literal=repr(encoding),
        reproducer_literal=_text_literal(text),
        test_name=_identifier(os.path.splitext(source_name)[0]),
    )
    compile(module, "regression test", "exec")  # a bug of ours, not the user's, if this fails
    return module


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
