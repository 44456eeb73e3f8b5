"""Is a run of a candidate still the user's failure? The oracle's rules, composed.

1. the message rule (`oracle/failure.py`): the message for real, under a kind
   the original showed it under; the only rule with `--match substring`;
2. the same failure line from the same place (`oracle/same.py`), by default;
3. no degenerate value the original lacked (`oracle/degenerate.py`): a
   zero-sized shape or an empty string that only the reduction put there.

Frozen code must also run (`frozen_probe.py`); that takes a run of its own,
which the candidate tester makes in the same job slot.
"""

from __future__ import annotations

from collections import Counter

from autodd_lsp.execution import RunResult
from autodd_lsp.oracle import FailureOracle
from autodd_lsp.oracle.degenerate import DegenerateCounter, more_degenerate
from autodd_lsp.oracle.same import SameFailure, StatementsOf


class Judge:
    def __init__(self, message: FailureOracle, same: SameFailure | None = None,
                 degenerate_baseline: Counter[str] | None = None) -> None:
        self.message = message
        self.same = same
        self.degenerate_baseline = degenerate_baseline
        self._degenerate = DegenerateCounter()

    def is_interesting(self, result: RunResult, text: str, statements_of: StatementsOf | None = None) -> bool:
        output = result.output
        if not self.message.is_interesting(output, text, timed_out=result.timed_out):
            return False
        if self.same is not None and not self.same.is_same(output, text, statements_of):
            return False
        if self.degenerate_baseline is not None:
            found = self._degenerate.count(text)
            if found is None or more_degenerate(found, self.degenerate_baseline):
                return False
        return True
