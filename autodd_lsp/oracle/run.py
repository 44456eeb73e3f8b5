"""What the oracle reads of one run, and what every kind of failure answers.

The oracle is pure: it never runs anything. A run is anything with these
attributes (the execution layer's `RunResult` is one). Each kind of failure to
keep has its own module, one class each, with the same few members:

    message     failure.py      FailureOracle   --err-msg: the text, for real
    regex       regex_match.py  RegexOracle     --err-regex: a line matching, for real
    crash       signals.py      CrashOracle     --crash: killed by the original's signal
    exit-code   exit_status.py  ExitStatusOracle --exit-code: that exit status
    hang        timeout.py      HangOracle      --hang: runs past the limit

    reproduced_by_original   the original's run shows the failure
    why_not(run, timeout)    what the original did instead, in one line
    accepts(run, text)       a candidate's run (of `text`) shows it
    describe()               what is kept, for the summary ("killed by SIGSEGV")

The same-failure rule (`same.py`) reads failure lines and their places on top
of that, through an `Observer`; the engine composes both (`engine/rules/judge.py`).
"""

from __future__ import annotations

from typing import Protocol


class Run(Protocol):
    @property
    def output(self) -> str: ...  # stdout, a newline, stderr

    @property
    def returncode(self) -> int | None: ...  # negative: killed by that signal; None: never finished

    @property
    def timed_out(self) -> bool: ...


class Oracle(Protocol):
    """The members every kind of failure has (the table above)."""

    @property
    def reproduced_by_original(self) -> bool: ...

    def why_not(self, run: Run, timeout: float) -> str: ...

    def accepts(self, run: Run, text: str) -> bool: ...

    def describe(self) -> str: ...
