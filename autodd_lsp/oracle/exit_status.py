"""`--exit-code N`: the program exits with status N.

The original must exit with N (not be killed, not run past the limit), and so
must every candidate. That alone is the rule with `--match substring`.

By default, when the original printed an exception (a traceback's exception
line: an uncaught error that `sys.exit` turned into N, or one the program
printed with `traceback.print_exc()` before exiting), a candidate must also show
that exception line, from the same place: the same-failure rule of `same.py`,
with `exception_lines` as its failure lines. A program that exits with N
without printing an exception keeps only its status.
"""

from __future__ import annotations

from autodd_lsp.oracle.failure import Match
from autodd_lsp.oracle.run import Run
from autodd_lsp.oracle.signals import what_it_did
from autodd_lsp.oracle.tracebacks import frames_of_lines


def exception_lines(output: str, text: str = "") -> list[Match]:
    """The first line of each exception's text in `output` (`ValueError: ...`), in output order."""
    if "Traceback (most recent call last):" not in output:
        return []
    lines = output.splitlines()
    texts = frames_of_lines(lines)
    return [Match(lines[index], None, index) for index in sorted(texts) if index - 1 not in texts]


class ExitStatusOracle:
    def __init__(self, status: int, original: Run):
        self.status = status
        self.reproduced_by_original = self.accepts(original, "")

    def accepts(self, run: Run, text: str) -> bool:
        return not run.timed_out and run.returncode == self.status

    def why_not(self, run: Run, timeout: float) -> str:
        return f"the original {what_it_did(run, timeout)}, not with status {self.status}"

    def describe(self) -> str:
        return f"exit status {self.status}"

    find = staticmethod(exception_lines)


__all__ = ["ExitStatusOracle", "exception_lines"]
