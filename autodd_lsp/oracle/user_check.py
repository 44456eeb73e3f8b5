"""`--check CMD`: the user's own interestingness test decides (shrinkray's and C-Vise's convention).

A candidate is interesting when CMD, run through the shell with the candidate's path
for `{}` (and in `AUTODD_CANDIDATE`), exits with status 0: any other status, a
signal or a run past the limit is "not interesting". The same-failure rules
(failure line, place, values) do not apply: the user's check is the whole rule,
and nothing in CMD's output is read. The original must pass the check too, or
there is nothing to reduce.

Pure, like every oracle: it reads runs (here: runs of CMD) and runs nothing.
How CMD is started is the execution layer's (`execution.backend.Launch.shell`).
"""

from __future__ import annotations

from autodd_lsp.oracle.run import Run
from autodd_lsp.oracle.signals import what_it_did

INTERESTING = 0  # the exit status that means "this candidate still shows the bug"


class UserCheckOracle:
    def __init__(self, command: str, original: Run):
        self.command = command
        self.reproduced_by_original = self.accepts(original, "")

    def accepts(self, run: Run, text: str) -> bool:
        return not run.timed_out and run.returncode == INTERESTING

    def why_not(self, run: Run, timeout: float) -> str:
        return f"your check `{self.command}` {what_it_did(run, timeout)} on the original; it must exit with 0 where the bug shows"

    def describe(self) -> str:
        return f"your check `{self.command}` exits with 0 (your check is the rule: the same-failure rules do not apply)"


__all__ = ["INTERESTING", "UserCheckOracle"]
