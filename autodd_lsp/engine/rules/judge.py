"""Is a run of a candidate still the user's failure? The oracle's rules, composed.

1. the kind's own rule (`failure_oracle`: its module in `autodd_lsp/kinds/` makes it from
   its judge in `autodd_lsp/oracle/`):
   the message for real under a kind the original showed it under (`failure.py`),
   a match of the regular expression (`regex_match.py`), the original's signal
   (`signals.py`), its exit status (`exit_status.py`), a run past the limit
   (`timeout.py`); the only rule with `--match substring`;
2. the same failure line from the same place (`oracle/same.py`), by default,
   where the kind has failure lines (`failure_observer`): the message's or the
   match's line and its traceback; a crash's `Fatal Python error` line and its
   faulthandler dump; the exception line an exit status came with;
3. no degenerate value the original lacked (`oracle/degenerate.py`): a
   zero-sized shape or an empty string that only the reduction put there;
4. the same wrong answer (`oracle/operands.py`), when the failure is a numeric
   comparison: the same comparison fails with the same operands (the runs are
   of the probed program, `operand_probe.py`, which reports them);
5. the failing statement sees what it saw (`oracle/failing_statement.py`), when
   the failure is an uncaught exception with a place in the program: its
   operands and the names it reads are described as in the original's run;
6. no file read that an earlier run wrote (`earlier_files.py`), when the original
   rewrites files the user had: the runs are probed, and report such reads.

Frozen code must also run (`frozen_probe.py`); that takes a run of its own,
which the candidate tester makes in the same job slot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from autodd_lsp.engine.spec.failure_spec import FailureSpec
from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.degenerate import DegenerateCounter, more_degenerate
from autodd_lsp.oracle.failing_statement import StatementRule
from autodd_lsp.oracle.operands import OperandRule
from autodd_lsp.oracle.pytest_outcome import TestFailed
from autodd_lsp.oracle.run import Oracle
from autodd_lsp.oracle.same import Observer, SameFailure, StatementsOf


def failure_oracle(spec: FailureSpec, original: RunResult, text: str, timeout: float, test: bool = False) -> Oracle:
    """The kind's rule, set from the original's run (see `oracle/run.py` for what it answers).

    `test`: the runs are of a pytest test, which must also fail as a test (`oracle/pytest_outcome.py`)
    for a kind that says so (a message, a regular expression) to count.
    """
    rules = spec.rules
    oracle = rules.oracle(spec.value, original, text, timeout)
    return TestFailed(oracle, original) if test and rules.test_must_fail else oracle


def failure_observer(
    spec: FailureSpec, oracle: Any, is_program: Callable[[str], bool], program_paths: Callable[[], tuple[str, ...]]
) -> Observer | None:
    """What reads a kind's failure lines and their places, or None (a hang has none)."""
    return spec.rules.observer(oracle, is_program, program_paths)


class Judge:
    def __init__(self, failure: Oracle, same: SameFailure | None = None,
                 degenerate_baseline: Counter[str] | None = None, operands: OperandRule | None = None,
                 statement: StatementRule | None = None, refuse_earlier: bool = False) -> None:
        self.failure = failure  # the kind's rule: anything with `accepts(run, text)`
        self.same = same
        self.operands = operands
        self.statement = statement
        self.refuse_earlier = refuse_earlier  # rule 6: a run that read an earlier run's file is not
        self.degenerate_baseline = degenerate_baseline
        self._degenerate = DegenerateCounter()

    def is_interesting(self, result: RunResult, text: str, statements_of: StatementsOf | None = None) -> bool:
        if self.refuse_earlier and result.read_earlier:
            return False
        if not self.failure.accepts(result, text):
            return False
        if self.same is not None and not self.same.is_same(result.output, text, statements_of):
            return False
        if self.operands is not None and not self.operands.accepts(result.comparisons, statements_of):
            return False
        if self.statement is not None and not self.statement.accepts(result.statement, statements_of):
            return False
        if self.degenerate_baseline is not None:
            found = self._degenerate.count(text)
            if found is None or more_degenerate(found, self.degenerate_baseline):
                return False
        return True


def replace_judge(judge: Judge, operands: OperandRule | None, statement: StatementRule | None) -> Judge:
    """`judge` that also requires the same wrong answer and the failing statement's operands (each if given)."""
    return Judge(judge.failure, judge.same, judge.degenerate_baseline, operands, statement, judge.refuse_earlier)
