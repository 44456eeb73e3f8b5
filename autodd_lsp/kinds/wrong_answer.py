"""`--wrong-answer` / `wrongAnswer`: the first numeric comparison that fails, with the same operands.

The oracle is `oracle/operands.py` (`WrongAnswerOracle`: a comparison fails; the
operands themselves are the engine's `OperandRule`, `engine/wrong_answer.py`). Its
runs are of the probed program (`engine/rules/operand_probe.py`), which reports each
failing comparison. No failure line of its own (a caught comparison prints none),
so no observer. A trial run suggests it when a comparison failed, titled with what
differed (the suggested value is that line; `--wrong-answer` itself takes none). A
finished reduction's value is the comparison it kept, `FUNCTION@LINE`; the
regression test embeds the probe (its `COMMAND` runs the reproducer under it) and
fails while that function fails on that line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from autodd_lsp.kinds.kind import SwitchKind
from autodd_lsp.oracle.operands import (
    WrongAnswerOracle,
    chosen,
    difference_summary,
    probe_source,
)
from autodd_lsp.oracle.run import Oracle, Run


class WrongAnswer(SwitchKind):
    name = "wrong-answer"
    flag = "--wrong-answer"
    flag_arguments: ClassVar[Mapping[str, Any]] = {
        "action": "store_true",
        "help": "the first numeric comparison that fails (assert_close, np.testing.assert_allclose, "
                "assert torch.allclose(...), ...); each candidate must fail it with the same operands",
    }
    field = "wrongAnswer"
    records_values = False  # the original's values are the operands' own business here
    probes_operands = True  # every run, the original's too, is of the probed program
    regression_command_expression = "['-c', RUN_PROBED, REPRODUCER_NAME]"

    def check(self, value: Any, name: str) -> None:
        if value is not None and not isinstance(value, str):  # a suggestion's value: what differed, in words
            raise ValueError(f"{name} takes no value")

    def command_line(self, value: Any) -> list[str]:
        return [self.flag]

    def describe(self, value: Any, timeout: float | None) -> str:
        return "a numeric comparison that fails, with the same operands"

    def sentence(self, value: Any, timeout: float | None) -> str:
        return "fails a numeric comparison with the same operands"

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        return WrongAnswerOracle(original)

    def suggest(self, run: Run, offered: bool) -> list[Any]:
        record = chosen(getattr(run, "comparisons", ()), "first")
        return [difference_summary(record)] if record is not None else []

    def title(self, value: Any, timeout: float | None) -> str:
        return f"keep this wrong answer: {value}" if isinstance(value, str) else self.describe(value, timeout)

    regression_while_there = (
        "It runs under AutoDD's probe of\nnumeric comparisons (RUN_PROBED). While the bug is there COMPARISON fails at line\n"
        "LINE, and the test fails and shows what differed; once it no longer fails there,\nthe test passes."
    )
    regression_helpers = '''

def failing_comparisons(output):
    """The probe's records of the comparisons that failed."""
    import json

    return [json.loads(found) for found in re.findall(r"<autodd-operands:(\\{.*\\})>", output)]
'''
    regression_check = '''\
    failed = [r for r in failing_comparisons(output) if r.get("function") == COMPARISON and r.get("line") == LINE]
    if not failed and missing:
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert not failed, (
        f"the bug is still there: {COMPARISON} fails at line {LINE} of {REPRODUCER_NAME}: "
        f"{failed[0].get('difference')}\\n--- the end of its output ---\\n{tail}"
    )
'''

    def regression_constants(self, value: Any) -> str:
        function, _, line = str(value or "?@0").rpartition("@")
        run_probed = (
            "import runpy, sys\n"
            f"exec(compile({probe_source()!r}, '<autodd operands probe>', 'exec'), "
            "{'__name__': '_autodd_operands'})\n"
            "sys.argv = sys.argv[1:]\nsys.path.insert(0, '.')\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
        )
        return f"COMPARISON = {function!r}\nLINE = {int(line) if line.isdigit() else 0}\nRUN_PROBED = {run_probed!r}"


def kept_comparison(record: Any) -> str:
    """The value of a kept wrong answer: the comparison's function and line, `FUNCTION@LINE`."""
    return f"{record.get('function')}@{record.get('line')}"


KIND = WrongAnswer()
