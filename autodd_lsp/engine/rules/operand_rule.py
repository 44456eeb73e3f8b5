"""The rules that keep the failure's operands, from the original's probed runs.

The failing statement's operands (`oracle/failing_statement.py`): by default
(`--match same`, a pytest test too) with a message, a regex or an exit status,
every run is of the probed program from the start (`operand_probe.py`: it adds
no run, the original's first runs are probed). When the original's failure is an
uncaught exception whose record is on a line from the same statement as the
failure's place, `statement_rule` keeps that record; fields that differ between
the original's two runs are left out, and a note says so. When the failure has
no such record (printed by the program, no place), the probe is dropped again.

When the failure is a numeric comparison, two ways in (`oracle/operands.py` has
the rule itself):

- `--wrong-answer`: every run, the original's included, is of the probed program
  (`operand_probe.py`); the failure is the first comparison that fails
  (`which="first"`).
- The default rule (`--match same`) with a failure line: when the original's
  failure line is an AssertionError raised at a statement that made a failing
  comparison (`assert_close(...)`, `assert torch.allclose(...)`), candidates
  must repeat that comparison's operands (`which="last"`: the comparison whose
  AssertionError is the failure).

`from_runs` builds the rule from two probed runs of the original; what differs
between them (an unseeded random input) is left out of the comparison, and a
note says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.failing_statement import (
    StatementRule,
    varying_note,
    varying_paths,
)
from autodd_lsp.oracle.operands import (
    ComparisonRecord,
    OperandRule,
    chosen,
    varying_fields,
)
from autodd_lsp.oracle.same import Observation


def may_be_comparison(original: RunResult, first: Observation | None) -> bool:
    """Whether the original's failure may be a failing comparison's (worth two probed runs to know)."""
    return first is not None and first.place is not None and first.place.program_line is not None \
        and "AssertionError" in original.output


def from_runs(
    runs: Sequence[RunResult], which: str, statements_of_line: Callable[[int], frozenset[int]],
    place_line: int | None = None,
) -> tuple[OperandRule | None, str]:
    """The rule from probed runs of the original (the first failing one and the next), and a note or "".

    With `place_line` (the default rule), the chosen comparison must have been made on a line
    from the same statement as the failure's place; else there is no rule (the failure is not
    the comparison's).
    """
    records = [chosen(run.comparisons, which) for run in runs if not run.cancelled]
    found = [r for r in records if r is not None]
    statements = _statements_at(found[0], statements_of_line, place_line) if found else None
    if statements is None:
        return None, ""
    first = found[0]
    varying = varying_fields(first, found[1] if len(found) > 1 else None)
    rule = OperandRule(first, which, statements, varying)
    note = ""
    if varying:
        fields = sorted({field.split(".")[1] for field in varying})
        note = (f"the operands of {first.get('function')} differ between two runs of the original "
                f"({', '.join(fields)}); those are not compared (seed the program's random inputs to keep them)")
    return rule, note


def statement_rule(
    runs: Sequence[RunResult], statements_of_line: Callable[[int], frozenset[int]], place_line: int,
) -> tuple[StatementRule | None, str]:
    """The failing-statement rule from the original's probed runs that failed the same way (the first
    two), and a note or ""; None when the first has no record on a line of the failure's place, or
    the two records are of different lines."""
    records = [run.statement for run in runs if not run.cancelled and run.statement is not None][:2]
    statements = _statements_at(records[0], statements_of_line, place_line) if records else None
    if statements is None:
        return None, ""
    first = records[0]
    line = first.get("line")
    second = records[1] if len(records) > 1 else None
    if second is not None and second.get("line") != line:
        return None, ""
    varying = varying_paths(first, second)
    module = first.get("module")
    return StatementRule(first, statements, varying), varying_note(varying, module.get("file") if isinstance(module, dict) else None)


def _statements_at(record: ComparisonRecord, statements_of_line: Callable[[int], frozenset[int]],
                   place_line: int | None) -> frozenset[int] | None:
    """The original statements of a record's line; None without a line, or (with `place_line`)
    when none of them is the failure's place's."""
    line = record.get("line")
    if not isinstance(line, int):
        return None
    statements = statements_of_line(line)
    if place_line is not None and statements.isdisjoint(statements_of_line(place_line)):
        return None
    return statements


def record_of(run: RunResult | None, which: str) -> ComparisonRecord | None:
    return None if run is None else chosen(run.comparisons, which)


__all__ = ["from_runs", "may_be_comparison", "record_of", "statement_rule"]
