"""`--err-msg MSG` / `errMsg`: the program prints MSG (the oracle: `oracle/failure.py`).

The kind people ask for most: a text of the failure, found for real in stdout or
stderr (not in a quoted source line, not under another exception's name). A
trial run suggests the last exception line and its stable parts (`signature.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from autodd_lsp.kinds.kind import UNQUOTED_LINES, PrintedKind
from autodd_lsp.kinds.signature import suggest_err_msgs
from autodd_lsp.oracle.failure import FailureOracle
from autodd_lsp.oracle.run import Oracle, Run
from autodd_lsp.oracle.same import Observation


class Message(PrintedKind):
    name = "message"
    flag = "--err-msg"
    flag_arguments: ClassVar[Mapping[str, Any]] = {"metavar": "MSG", "help": "text the failure prints (case-sensitive substring of stdout or stderr)"}
    field = "errMsg"

    def check(self, value: Any, name: str) -> None:
        if not isinstance(value, str) or not value:
            raise ValueError("the error message must not be empty")

    def describe(self, value: Any, timeout: float | None) -> str:
        return f"the message {value!r}"

    def sentence(self, value: Any, timeout: float | None) -> str:
        return f"prints {value!r}"

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        return FailureOracle(value, original.output, text, allow_timeout=original.timed_out)

    def not_reproduced(self, value: Any, oracle: Oracle, run: Run, runs: int, timeout: float, hint: bool) -> str:
        last = "timed out" if run.timed_out else f"exit status {run.returncode}"
        if runs > 1:
            return f"the original program did not print {value!r} in any of its {runs} runs (the last: {last})"
        if run.timed_out:
            reason = f"the original program timed out without printing {value!r}"
        else:
            reason = f"the original program does not print {value!r} ({last})"
        return reason + ("; if it fails only sometimes, --repeat N runs it N times" if hint else "")

    def loose_rule(self, oracle: Oracle) -> str:
        return "message substring"

    def rule(self, oracle: Oracle, match: str, first: Observation | None) -> str:
        return "message substring" if match == "substring" else "same failure line, same place"

    def rule_prefix(self, oracle: Oracle) -> str:
        return ""

    def suggest(self, run: Run, offered: bool) -> list[Any]:
        return suggest_err_msgs(run.output, run.returncode)

    def title(self, value: Any, timeout: float | None) -> str:
        return value  # the message itself

    def report_failure(self, value: Any, timeout: float, has_line: bool, code: Callable[[str], str]) -> tuple[str, bool]:
        return f"The line showing {code(value)}:", True

    def report_shows(self, value: Any, timeout: float, line: str, code: Callable[[str], str]) -> str:
        return f"it shows {code(line)}." if line else f"it prints {code(str(value))}."

    regression_while_there = (
        "While the bug is there its output\nshows MESSAGE, and the test fails and shows that line; once the failure no\n"
        "longer shows, the test passes."
    )
    regression_helpers = UNQUOTED_LINES + '''

def lines_showing(message, output):
    """Lines of `output` that show `message`, leaving out the source lines a traceback quotes."""
    if "\\n" in message:
        return [output] if message in output else []
    return [line for line in unquoted_lines(output) if message in line]
'''
    regression_check = '''\
    shown = lines_showing(MESSAGE, output)
    if not shown and missing and "ModuleNotFoundError" not in MESSAGE and "No module named" not in MESSAGE:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert not shown, (
        f"the bug is still there: python {REPRODUCER_NAME} (exit status {done.returncode}) shows\\n"
        + "\\n".join(shown)
        + f"\\n--- the end of its output ---\\n{tail}"
    )
'''

    def regression_constants(self, value: Any) -> str:
        return f"MESSAGE = {value!r}"


KIND = Message()
