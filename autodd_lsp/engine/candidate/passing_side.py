"""Works with A, fails with B: the environment where the program must pass.

`--passes-with PYTHON` (another interpreter: a virtual environment with an older
tilelang, torch or numpy) and `--passes-with-env NAME=VALUE` (repeatable: the
interpreter that runs candidates, with these variables set) name side A; side B
is where candidates run as always (`--python`). A regression report says "fine
on A, wrong on B"; without A, a reduction slips to code that fails on both (an
API that one version lacks, a plain error). So a candidate counts only when it
fails the same way on B (every rule of the judge) and, on A, exits with status 0
without showing the failure.

Side A is a `CandidateTester` of its own: its own backend (warm: a fork server of
A's interpreter, with A's environment, started with the same preload as B's) and
its own job slots beside the source. A candidate pays for A only once B found it
interesting, so it costs at most two runs, never an interpreter start. The
original is checked on A first (`why_not_passing`: a one-line reason), after it
was found to fail on B.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.candidates import CandidateTester
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.spec.errors import UsageError
from autodd_lsp.execution import Backend, RunResult
from autodd_lsp.kinds.signature import output_tail
from autodd_lsp.oracle.run import Oracle

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def parse_env(entries: Sequence[str]) -> dict[str, str]:
    """`NAME=VALUE` entries as a mapping; UsageError (one line) for a malformed one."""
    env: dict[str, str] = {}
    for entry in entries:
        name, equals, value = str(entry).partition("=")
        if not equals or not _NAME.match(name):
            raise UsageError(f"--passes-with-env takes NAME=VALUE (a variable's name, '=', its value), got {entry!r}")
        env[name] = value
    return env


def check_python(python: str) -> str:
    """The interpreter of `--passes-with` as a path that can be run; UsageError if there is none."""
    found = python if os.sep in python else shutil.which(python)
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise UsageError(f"--passes-with: no Python interpreter at {python!r}")
    return found


def describe_side(python: str, env: dict[str, str]) -> str:
    """Side A in words: `/venvs/old/bin/python`, `python with TL_DISABLE=1`."""
    assignments = " ".join(f"{name}={value}" for name, value in env.items())
    return f"{python} with {assignments}" if assignments else python


class PassingSide:
    """Side A: runs a text there and says whether it passes."""

    def __init__(self, tester: CandidateTester, slots: JobSlots, python: str, env: dict[str, str],
                 timeout: float) -> None:
        self.tester = tester
        self.slots = slots
        self.python = python
        self.env = env
        self.timeout = timeout
        self.oracle: Oracle | None = None  # the failure's rule on B, set once the original failed there

    @property
    def backend(self) -> Backend:
        return self.tester.backend

    def describe(self) -> str:
        return describe_side(self.python, self.env)

    def run(self, text: str, cancel: Cancel) -> RunResult:
        return self.tester.run(text, self.timeout, cancel)

    def shows_no_failure(self, result: RunResult, text: str) -> bool:
        """Passing on A: status 0, in time, without the failure."""
        if result.cancelled or result.timed_out or result.returncode != 0:
            return False
        return self.oracle is None or not self.oracle.accepts(result, text)

    def passes(self, text: str, cancel: Cancel) -> bool | None:
        """Whether `text` passes on A; None if cancelled."""
        result = self.run(text, cancel)
        return None if result.cancelled else self.shows_no_failure(result, text)

    def why_not_passing(self, text: str, cancel: Cancel) -> str | None:
        """None when the original passes on A; else one line saying what it did there."""
        result = self.run(text, cancel)
        if result.cancelled or self.shows_no_failure(result, text):
            return None
        if result.timed_out:
            did = f"ran past the {self.timeout:g} s limit"
        elif result.returncode != 0:
            did = f"exited with status {result.returncode}"
        else:
            did = "exited with status 0 but showed the failure"
        tail = output_tail(result.output, max_lines=1).strip()
        return f"the original does not pass with {self.describe()}: it {did}" + (f" ({tail})" if tail else "")

    def close(self) -> None:
        self.tester.cancel_all()
        self.backend.close()
        self.slots.remove()


__all__ = ["PassingSide", "check_python", "describe_side", "parse_env"]
