"""The same wrong answer: the same numeric comparison fails with the same operands.

A failing `assert_close` is a failure line like any other, and the same line from
the same place is easy to keep with the bug gone: `assert_close(torch.zeros(64, 64), a)`
fails exactly as a kernel that drops its last K tile does. What only the bug
produces is the pair of values compared. A probed run (`engine/rules/operand_probe.py`)
reports, for each comparison that failed, a *record*: the function, the program's
line, and per operand its type, dtype, shape, NaN and infinity masks (hashes),
moments (sum of absolute values, of squares) and an evenly spaced sample of 32
values; and the difference of the two (elements differing, greatest absolute and
relative difference and where).

`OperandRule` keeps the original's record of the comparison that is the failure
(`which`: "last", the one whose AssertionError is the failure line; "first", the
first that fails, for `--wrong-answer`) and accepts a candidate's run when its
record in the same position is of the same function, on a line that came from the
original's comparison statement, with operands of the same type, dtype and shape,
NaN/inf at the same positions, and moments and samples equal within `RTOL`/`ATOL`.
What differs between two runs of the original (an unseeded `torch.randn`) is not
compared: `varying` names it, and the summary says so.

Limits: a digest, not the arrays: two operands that agree in shape, masks, both
moments and 32 samples but differ elsewhere pass (a bug that moves values around
without changing them is not told apart). Comparisons made by other functions
(`Tensor.allclose`, `np.isclose(...).all()`, a hand-written loop) are not seen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from autodd_lsp.oracle.run import Run

ComparisonRecord = dict[str, Any]
RTOL = 1e-5
ATOL = 1e-8
VALUE_FIELDS = ("abs_sum", "sq_sum", "sample")
STRUCTURE_FIELDS = ("type", "dtype", "shape")
MASK_FIELDS = ("nan_mask", "inf_mask")
# The functions the probe wraps, by the name a person writes (for messages and suggestions).
COMPARISONS = (
    "torch.testing.assert_close", "torch.allclose", "torch.equal", "numpy.testing.assert_allclose",
    "numpy.testing.assert_array_equal", "numpy.testing.assert_array_almost_equal", "numpy.allclose",
    "numpy.array_equal", "math.isclose",
)


@cache
def probe_source() -> str:
    """The source of the probe that makes the records (`execution/operands_hook.py`, standalone: it is
    run inside probed programs and embedded in regression tests, never imported)."""
    return (Path(__file__).resolve().parent.parent / "execution" / "operands_hook.py").read_text(encoding="utf-8")


def chosen(records: Sequence[ComparisonRecord], which: str) -> ComparisonRecord | None:
    """The record that stands for the failure: the first or the last that fails."""
    usable = [r for r in records if isinstance(r.get("operands"), list)]
    if not usable:
        return None
    return usable[0] if which == "first" else usable[-1]


def close(a: object, b: object) -> bool:
    """Two digest numbers (or lists of them) equal within the tight tolerance; 'nan'/'inf' exactly."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)
    return a == b


def varying_fields(first: ComparisonRecord, second: ComparisonRecord | None) -> frozenset[str]:
    """The fields (as 'operand.field') that differ between two runs of the original."""
    if second is None:
        return frozenset()
    varying = set()
    for index, (a, b) in enumerate(zip(first.get("operands", []), second.get("operands", []), strict=False)):
        for field in (*STRUCTURE_FIELDS, *MASK_FIELDS, *VALUE_FIELDS):
            if not close(a.get(field), b.get(field)):
                varying.add(f"{index}.{field}")
    return frozenset(varying)


def same_operands(original: ComparisonRecord, candidate: ComparisonRecord, varying: frozenset[str] = frozenset()) -> bool:
    """Whether `candidate`'s operands are the original's (fields in `varying` aside)."""
    ours, theirs = original.get("operands", []), candidate.get("operands", [])
    if candidate.get("function") != original.get("function") or len(ours) != len(theirs):
        return False
    for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        for field in (*STRUCTURE_FIELDS, *MASK_FIELDS, *VALUE_FIELDS):
            if f"{index}.{field}" not in varying and not close(a.get(field), b.get(field)):
                return False
    return True


class OperandRule:
    """The original's failing comparison, and whether a candidate's run repeats it."""

    def __init__(self, original: ComparisonRecord, which: str, failing_statements: frozenset[int],
                 varying: frozenset[str] = frozenset()) -> None:
        self.original = original
        self.which = which
        self.failing_statements = failing_statements  # the original statements the comparison's line holds
        self.varying = varying

    def accepts(self, records: Sequence[ComparisonRecord], statements_of: Callable[[int], frozenset[int] | None] | None) -> bool:
        record = chosen(records, self.which)
        if record is None or not same_operands(self.original, record, self.varying):
            return False
        return from_statements(record, self.failing_statements, statements_of)

    def describe(self) -> str:
        values = "" if not any(f.split(".")[1] in VALUE_FIELDS for f in self.varying) else \
            " (values differ between runs of the original: shapes, dtypes and NaN positions only)"
        return f"the same operands at {short_name(self.original)}{values}"


def from_statements(record: ComparisonRecord, failing_statements: frozenset[int],
                    statements_of: Callable[[int], frozenset[int] | None] | None) -> bool:
    """Whether a candidate's record was made on a line that came from one of the original's
    `failing_statements` (rule 3's origins; true when that cannot be told)."""
    line = record.get("line")
    if statements_of is None or not failing_statements or not isinstance(line, int):
        return True
    came_from = statements_of(line)
    return came_from is None or not failing_statements.isdisjoint(came_from)


def short_name(record: ComparisonRecord) -> str:
    name = str(record.get("function", "?"))
    return name.replace("numpy.", "np.")


class WrongAnswerOracle:
    """`--wrong-answer`: a numeric comparison fails (which one, and with what, is `OperandRule`'s)."""

    def __init__(self, original: Run) -> None:
        self.reproduced_by_original = self.accepts(original, "")

    def accepts(self, run: Run, text: str) -> bool:
        return chosen(getattr(run, "comparisons", ()), "first") is not None

    def why_not(self, run: Run, timeout: float) -> str:
        if getattr(run, "timed_out", False):
            return f"the original ran past the {timeout:g} s limit before any numeric comparison failed"
        status = run.returncode
        return (f"no numeric comparison failed in the original (it exited with status {status}); "
                f"the comparisons seen are {', '.join(COMPARISONS[:4])}, ...")

    def describe(self) -> str:
        return "a numeric comparison fails"


def difference_summary(record: ComparisonRecord) -> str:
    """One line: what differed (for the suggestion, the summary and the report)."""
    difference = record.get("difference") or {}
    where = f"{short_name(record)} at line {record.get('line', '?')}"
    if not difference:
        return f"{where}: the operands are not arrays"
    if difference.get("broadcast") is False:
        shapes = " vs ".join(str(tuple(o.get("shape", ()))) for o in record.get("operands", []))
        return f"{where}: shapes do not broadcast ({shapes})"
    nans = sum(int(o.get("nan", 0)) for o in record.get("operands", []))
    parts = [f"{difference.get('differ', 0)} of {difference.get('size', 0)} elements differ"]
    if "max_abs" in difference:
        parts.append(f"greatest absolute difference {_num(difference['max_abs'])} at {_at(difference.get('max_abs_at'))}")
        parts.append(f"greatest relative difference {_num(difference['max_rel'])} at {_at(difference.get('max_rel_at'))}")
    if nans:
        parts.append(f"{nans} NaN")
    return f"{where}: " + ", ".join(parts)


def _num(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _at(index: object) -> str:
    return "(" + ", ".join(str(i) for i in index) + ")" if isinstance(index, list) else "?"


__all__ = ["COMPARISONS", "OperandRule", "WrongAnswerOracle", "chosen", "difference_summary", "from_statements",
           "probe_source",
           "same_operands", "varying_fields"]
