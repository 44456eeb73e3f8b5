"""`--crash [SIGNAL]` / `crash`: the program dies by a signal (the oracle: `oracle/signals.py`).

The signal named, or any when none is (`--crash` alone, `--crash any`, `crash:
true`); the one the original died by is then required of every candidate and
named in the report and the regression test. Its runs get `PYTHONFAULTHANDLER=1`
so Python prints where it died. A killed run records no values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from autodd_lsp.kinds.kind import NOT_GIVEN, Kind
from autodd_lsp.oracle.run import Oracle, Run
from autodd_lsp.oracle.same import Observer
from autodd_lsp.oracle.signals import (
    CrashOracle,
    fault_places,
    parse_signal,
    signal_name,
)

ANY_SIGNAL = "any"  # `--crash any`, `crash: "any"`: whichever signal the original dies by


def signal_number(value: Any, name: str = "--crash") -> int | None:
    """The signal a crash must be (None: any); ValueError (naming `name`) for a bad one."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
    elif isinstance(value, str):
        text = value
    else:
        raise ValueError(f"{name}: a signal is a name such as SIGSEGV, got {value!r}")
    try:
        return parse_signal(text)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


class Crash(Kind):
    name = "crash"
    flag = "--crash"
    flag_arguments: ClassVar[Mapping[str, Any]] = {
        "nargs": "?", "const": ANY_SIGNAL, "metavar": "SIGNAL",
        "help": "the program dies by a signal: SIGSEGV, SIGABRT (a C++ check, os.abort()), SIGFPE, ...; "
                "any signal when none is named (then the one the original dies by)",
    }
    field = "crash"
    env: ClassVar[Mapping[str, str]] = {"PYTHONFAULTHANDLER": "1"}  # a faulthandler dump shows the crash's place
    records_values = False  # a killed program records nothing (record_main.py writes its records at exit)

    def from_flag(self, given: Any) -> Any:
        if given is None:
            return NOT_GIVEN
        return None if given.lower() == ANY_SIGNAL else given

    def from_request(self, given: Any) -> Any:
        if given is True:
            return None
        if isinstance(given, str):
            return None if given.lower() == ANY_SIGNAL else given
        raise ValueError(f"{self.field} must be true (any signal) or a signal's name such as \"SIGSEGV\"")

    def to_request(self, value: Any) -> Any:
        return True if value is None else str(value)

    def check(self, value: Any, name: str) -> None:
        signal_number(value, name)

    def describe(self, value: Any, timeout: float | None) -> str:
        number = signal_number(value)
        return "killed by a signal" if number is None else f"killed by {signal_name(number)}"

    def sentence(self, value: Any, timeout: float | None) -> str:
        return "is " + self.describe(value, timeout)

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        return CrashOracle(signal_number(value), original)

    def observer(self, oracle: Any, is_program: Callable[[str], bool],
                 program_paths: Callable[[], tuple[str, ...]]) -> Observer | None:
        return Observer(None, is_program, program_paths, find=CrashOracle.find, places=fault_places)

    def suggest(self, run: Run, offered: bool) -> list[Any]:
        code = run.returncode
        return [signal_name(-code)] if not run.timed_out and code is not None and code < 0 else []

    def kept(self, value: Any, signal: int | None) -> Any:
        return signal_name(signal) if value is None and signal is not None else value  # name the one kept

    run_flags = "-X faulthandler "  # Python's faulthandler shows where it happened

    regression_while_there = (
        "While the bug is there it is killed\nby SIGNAL, and the test fails; once it is not, the test passes."
    )
    regression_check = '''\
    if done.returncode != -SIGNAL and missing:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert done.returncode != -SIGNAL, (
        f"the bug is still there: python {REPRODUCER_NAME} is killed by {signal.Signals(SIGNAL).name}"
        f"\\n--- the end of its output ---\\n{tail}"
    )
'''

    def regression_constants(self, value: Any) -> str:
        number = signal_number(value)
        if number is None:
            raise ValueError("a regression test of a crash needs its signal")
        return f"SIGNAL = signal.{signal_name(number)}.value"


KIND = Crash()
