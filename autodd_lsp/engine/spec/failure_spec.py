"""The failure to keep: a kind's name and its value, resolved through the registry of kinds.

    FailureSpec.message("T.gemm K shape check failed")   --err-msg MSG
    FailureSpec.regex(r"K_A = \\d+, K_B = \\d+")           --err-regex REGEX
    FailureSpec.crash("SIGSEGV") / FailureSpec.crash()  --crash [SIGNAL] (any signal)
    FailureSpec.exit_code(3)                            --exit-code N
    FailureSpec.hang()                                  --hang
    FailureSpec.wrong_answer()                          --wrong-answer
    FailureSpec("exit-code", 3)                         any registered kind by its name

`ReduceOptions(failure=...)` takes one; `ReduceOptions(err_msg=...)` is the
message kind. Everything a kind means (its checks, words, oracle, report) is its
module's in `autodd_lsp/kinds/`; this is the thin value the engine passes around.
`validate()` raises UsageError with one line for the person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autodd_lsp.engine.spec.errors import UsageError
from autodd_lsp.kinds import Kind, kind_named


@dataclass(frozen=True)
class FailureSpec:
    kind: str  # a registered kind's name (autodd_lsp.kinds.KINDS)
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
    def wrong_answer(cls, comparison: str | None = None) -> FailureSpec:
        """The first numeric comparison that fails, with its operands (`comparison`: the one kept, FUNCTION@LINE)."""
        return cls("wrong-answer", comparison)

    @property
    def rules(self) -> Kind:
        """The kind's module (its `Kind`); UsageError for an unknown kind."""
        try:
            return kind_named(self.kind)
        except ValueError as error:
            raise UsageError(str(error)) from None

    def validate(self, name: str | None = None) -> None:
        """Raise UsageError (one line) if this cannot be a failure to keep; `name`: how it was given
        (its flag by default, a server argument such as `exitCode`)."""
        rules = self.rules
        try:
            rules.check(self.value, name or rules.flag)
        except ValueError as error:
            raise UsageError(str(error)) from None

    def describe(self, timeout: float | None = None) -> str:
        """What is kept, in words: "the message 'boom'", "killed by SIGSEGV", "hangs past 2 s"."""
        return self.rules.describe(self.value, timeout)

    def sentence(self, timeout: float | None = None) -> str:
        """What a program with this failure does, after "it": "is killed by SIGSEGV", "exits with status 3"."""
        return self.rules.sentence(self.value, timeout)

    def command_line(self) -> list[str]:
        """The flag (and its value) that asks for this on the command line."""
        return self.rules.command_line(self.value)

    def arguments(self) -> dict[str, Any]:
        """The autodd.minimize arguments that ask for this (`{"crash": "SIGSEGV"}`)."""
        return {self.rules.field: self.rules.to_request(self.value)}

    def kept(self, signal: int | None) -> FailureSpec:
        """This failure as a finished reduction kept it (any signal: the one the original died by)."""
        return FailureSpec(self.kind, self.rules.kept(self.value, signal))


__all__ = ["FailureSpec"]
