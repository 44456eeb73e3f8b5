"""The failure to keep: one of five kinds, given once and checked here.

    FailureSpec.message("T.gemm K shape check failed")   --err-msg MSG
    FailureSpec.regex(r"K_A = \\d+, K_B = \\d+")           --err-regex REGEX
    FailureSpec.crash("SIGSEGV") / FailureSpec.crash()  --crash [SIGNAL] (any signal)
    FailureSpec.exit_code(3)                            --exit-code N
    FailureSpec.hang()                                  --hang
    FailureSpec.wrong_answer()                          --wrong-answer

`ReduceOptions(failure=...)` takes one; `ReduceOptions(err_msg=...)` is the
message kind. `validate()` raises UsageError with one line for the person; the
oracle module of each kind is in `autodd_lsp/oracle/` (see `oracle/run.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from autodd_lsp.engine.errors import UsageError
from autodd_lsp.oracle.regex import compile_regex
from autodd_lsp.oracle.signals import parse_signal, signal_name

KINDS = ("message", "regex", "crash", "exit-code", "hang", "wrong-answer")
# How each kind is asked for on the command line.
FLAGS = {"message": "--err-msg", "regex": "--err-regex", "crash": "--crash", "exit-code": "--exit-code", "hang": "--hang",
         "wrong-answer": "--wrong-answer"}


@dataclass(frozen=True)
class FailureSpec:
    kind: str  # one of KINDS
    # message, regex: the text; crash: the signal's name or number as given, None for any
    # signal; exit-code: the status; hang: None.
    value: str | int | None = None

    @classmethod
    def message(cls, text: str) -> FailureSpec:
        return cls("message", text)

    @classmethod
    def regex(cls, pattern: str) -> FailureSpec:
        return cls("regex", pattern)

    @classmethod
    def crash(cls, signal: str | int | None = None) -> FailureSpec:
        return cls("crash", signal)

    @classmethod
    def exit_code(cls, status: int) -> FailureSpec:
        return cls("exit-code", status)

    @classmethod
    def hang(cls) -> FailureSpec:
        return cls("hang", None)

    @classmethod
    def wrong_answer(cls) -> FailureSpec:
        """The first numeric comparison that fails, with its operands (oracle/operands.py)."""
        return cls("wrong-answer", None)

    def validate(self) -> None:
        """Raise UsageError (one line) if this cannot be a failure to keep."""
        if self.kind not in KINDS:
            raise UsageError(f"unknown kind of failure {self.kind!r} (choose from {', '.join(KINDS)})")
        flag = FLAGS[self.kind]
        if self.kind == "message":
            if not isinstance(self.value, str) or not self.value:
                raise UsageError("the error message must not be empty")
        elif self.kind == "regex":
            if not isinstance(self.value, str):
                raise UsageError(f"{flag}: the regular expression must be a string")
            try:
                compile_regex(self.value)
            except ValueError as error:
                raise UsageError(f"{flag}: {error}") from None
        elif self.kind == "crash":
            if self.value is not None:
                self.signal_number  # noqa: B018 -- raises for a bad name
        elif self.kind == "exit-code":
            status = self.value
            if isinstance(status, bool) or not isinstance(status, int):
                raise UsageError(f"{flag} must be a whole number from 1 to 255, got {status!r}")
            if not 1 <= status <= 255:
                why = " (0 is success, not a failure)" if status == 0 else ""
                raise UsageError(f"{flag} must be from 1 to 255, got {status}{why}")
        elif self.value is not None:
            raise UsageError(f"{flag} takes no value")

    @property
    def signal_number(self) -> int | None:
        """The signal a crash must be (None: any); raises UsageError for a bad name."""
        if self.kind != "crash" or self.value is None:
            return None
        if isinstance(self.value, int) and not isinstance(self.value, bool):
            text = str(self.value)
        elif isinstance(self.value, str):
            text = self.value
        else:
            raise UsageError(f"--crash: a signal is a name such as SIGSEGV, got {self.value!r}")
        try:
            return parse_signal(text)
        except ValueError as error:
            raise UsageError(f"--crash: {error}") from None

    def describe(self, timeout: float | None = None) -> str:
        """What is kept, in words: "the message 'boom'", "killed by SIGSEGV", "hangs past 2 s"."""
        if self.kind == "message":
            return f"the message {self.value!r}"
        if self.kind == "regex":
            return f"matches /{self.value}/"
        if self.kind == "crash":
            number = self.signal_number
            return "killed by a signal" if number is None else f"killed by {signal_name(number)}"
        if self.kind == "exit-code":
            return f"exit status {self.value}"
        if self.kind == "wrong-answer":
            return "a numeric comparison that fails, with the same operands"
        return f"hangs past {timeout:g} s" if timeout is not None else "hangs"

    def sentence(self, timeout: float | None = None) -> str:
        """What a program with this failure does, after "it": "is killed by SIGSEGV", "exits with status 3"."""
        if self.kind == "message":
            return f"prints {self.value!r}"
        if self.kind == "regex":
            return f"prints a line matching /{self.value}/"
        if self.kind == "crash":
            return "is " + self.describe()
        if self.kind == "exit-code":
            return f"exits with status {self.value}"
        if self.kind == "wrong-answer":
            return "fails a numeric comparison with the same operands"
        return f"runs past {timeout:g} s (a hang)" if timeout is not None else "hangs"

    def command_line(self) -> list[str]:
        """The flag (and its value) that asks for this on the command line."""
        flag = FLAGS[self.kind]
        if self.kind in ("hang", "wrong-answer") or (self.kind == "crash" and self.value is None):
            return [flag]
        return [flag, str(self.value)]


__all__ = ["FLAGS", "KINDS", "FailureSpec"]
