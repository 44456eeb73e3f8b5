"""`--hang` / `hang`: the program runs past `--timeout` (the oracle: `oracle/timeout.py`).

The original runs once, with the limit, and candidates get that same limit (a
smaller one could take a slow program for a hang). No failure line, no values
recorded (its runs are killed). The regression test's limit is the reduction's
own: past it, the bug is there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from autodd_lsp.kinds.kind import NOT_GIVEN, Kind
from autodd_lsp.oracle.run import Oracle, Run
from autodd_lsp.oracle.timeout import HangOracle


class Hang(Kind):
    name = "hang"
    flag = "--hang"
    flag_arguments: ClassVar[Mapping[str, Any]] = {
        "action": "store_true",
        "help": "the program runs past --timeout; so must each candidate (each costs --timeout: give a small one)",
    }
    field = "hang"
    records_values = False  # a killed program records nothing
    runs_to_the_limit = True

    def from_flag(self, given: Any) -> Any:
        return None if given else NOT_GIVEN

    def from_request(self, given: Any) -> Any:
        if given is not True:
            raise ValueError(f"{self.field} must be true")
        return None

    def to_request(self, value: Any) -> Any:
        return True

    def describe(self, value: Any, timeout: float | None) -> str:
        return f"hangs past {timeout:g} s" if timeout is not None else "hangs"

    def sentence(self, value: Any, timeout: float | None) -> str:
        return f"runs past {timeout:g} s (a hang)" if timeout is not None else "hangs"

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        return HangOracle(timeout, original)

    def suggest(self, run: Run, offered: bool) -> list[Any]:
        return [None] if run.timed_out else []

    regression_while_there = (
        "While the bug is there it is still\nrunning after TIMEOUT_S seconds (a hang), and the test fails; once it ends in\n"
        "time, the test passes."
    )
    regression_check = '''\
    if missing:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
'''
    regression_timed_out = "the bug is still there: python {REPRODUCER_NAME} still runs after {TIMEOUT_S:g} s"

    def regression_constants(self, value: Any) -> str:
        return "# No constant: the failure is the hang itself (see TIMEOUT_S)."

    def regression_limit(self, timeout: float, minimum: float) -> float:
        return timeout  # judged by the limit the reduction used


KIND = Hang()
