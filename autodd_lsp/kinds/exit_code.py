"""`--exit-code N` / `exitCode`: the program exits with status N (the oracle: `oracle/exit_status.py`).

N is 1 to 255. When the original printed an exception, its line is the failure
line. A trial run suggests its status unless it is the 1 of an uncaught
exception whose message is offered already. Not for a pytest test: pytest exits
with 1 for any failed test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from autodd_lsp.kinds.kind import Kind
from autodd_lsp.oracle.exit_status import ExitStatusOracle, exception_lines
from autodd_lsp.oracle.run import Oracle, Run
from autodd_lsp.oracle.same import Observer


class ExitCode(Kind):
    name = "exit-code"
    flag = "--exit-code"
    flag_arguments: ClassVar[Mapping[str, Any]] = {"type": int, "metavar": "N", "help": "the program exits with status N (1 to 255)"}
    field = "exitCode"
    test_problem = ("--exit-code cannot be kept for a pytest test (pytest exits with 1 for any failed "
                    "test): give its message with --err-msg or --err-regex")

    def from_request(self, given: Any) -> Any:
        if isinstance(given, bool) or not isinstance(given, (int, float)) or given != int(given):
            raise ValueError(f"{self.field} must be a whole number, got {given!r}")
        return int(given)

    def check(self, value: Any, name: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be a whole number from 1 to 255, got {value!r}")
        if not 1 <= value <= 255:
            why = " (0 is success, not a failure)" if value == 0 else ""
            raise ValueError(f"{name} must be from 1 to 255, got {value}{why}")

    def describe(self, value: Any, timeout: float | None) -> str:
        return f"exit status {value}"

    def sentence(self, value: Any, timeout: float | None) -> str:
        return f"exits with status {value}"

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        return ExitStatusOracle(value, original)

    def observer(self, oracle: Any, is_program: Callable[[str], bool],
                 program_paths: Callable[[], tuple[str, ...]]) -> Observer | None:
        return Observer(None, is_program, program_paths, find=exception_lines)

    def suggest(self, run: Run, offered: bool) -> list[Any]:
        code = run.returncode
        if run.timed_out or code is None or code <= 0 or (code == 1 and offered):
            return []
        return [code]

    regression_while_there = (
        "While the bug is there it exits with\nstatus EXIT_STATUS, and the test fails; once it does not, the test passes."
    )
    regression_check = '''\
    if done.returncode != EXIT_STATUS and missing:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert done.returncode != EXIT_STATUS, (
        f"the bug is still there: python {REPRODUCER_NAME} exits with status {EXIT_STATUS}"
        f"\\n--- the end of its output ---\\n{tail}"
    )
'''

    def regression_constants(self, value: Any) -> str:
        return f"EXIT_STATUS = {value!r}"


KIND = ExitCode()
