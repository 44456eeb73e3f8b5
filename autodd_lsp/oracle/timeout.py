"""`--hang`: the program runs past the time limit, and so must every candidate.

The original is run once with the limit (`--timeout`) and must still be
running when it ends; it is killed there. A candidate "hangs" when it runs past
the same limit: the original showed no more than that, so a smaller limit could
take a program that only runs slowly for a hang, and a larger one would only
cost more. Every hanging candidate costs the whole limit (the ones that end
cost what they run), so choose a small `--timeout` with `--hang`: a few times
what the program needs to reach its hang.

There is no failure line and no place to compare: a hang prints nothing of its
own, and a killed run shows no traceback.
"""

from __future__ import annotations

from autodd_lsp.oracle.run import Run
from autodd_lsp.oracle.signals import what_it_did


class HangOracle:
    def __init__(self, limit: float, original: Run):
        self.limit = limit
        self.reproduced_by_original = self.accepts(original, "")

    def accepts(self, run: Run, text: str) -> bool:
        return run.timed_out

    def why_not(self, run: Run, timeout: float) -> str:
        return f"the original {what_it_did(run, timeout)} instead of running past the {self.limit:g} s limit"

    def describe(self) -> str:
        return f"hangs past {self.limit:g} s"


__all__ = ["HangOracle"]
