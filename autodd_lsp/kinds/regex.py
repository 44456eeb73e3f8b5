"""`--err-regex REGEX` / `errRegex`: a line of the output matches REGEX (the oracle: `oracle/regex_match.py`).

The message rule with a regular expression for the text: searched as
`re.search` does, not in quoted source lines; the expression must compile and
must not match the empty output. Never suggested: a trial run's messages are
offered as plain text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from autodd_lsp.kinds.kind import UNQUOTED_LINES, PrintedKind
from autodd_lsp.oracle.regex_match import RegexOracle, compile_regex
from autodd_lsp.oracle.run import Oracle, Run


class Regex(PrintedKind):
    name = "regex"
    flag = "--err-regex"
    flag_arguments: ClassVar[Mapping[str, Any]] = {
        "metavar": "REGEX",
        "help": "a regular expression the output matches (searched in stdout and stderr as re.search does)",
    }
    field = "errRegex"

    def check(self, value: Any, name: str) -> None:
        if not isinstance(value, str):
            raise ValueError(f"{name}: the regular expression must be a string")
        try:
            compile_regex(value)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None

    def describe(self, value: Any, timeout: float | None) -> str:
        return f"matches /{value}/"

    def sentence(self, value: Any, timeout: float | None) -> str:
        return f"prints a line matching /{value}/"

    def oracle(self, value: Any, original: Run, text: str, timeout: float) -> Oracle:
        return RegexOracle(value, original.output, text, allow_timeout=original.timed_out)

    regression_while_there = (
        "While the bug is there a line of its\noutput matches PATTERN, and the test fails and shows that line; "
        "once no line\nmatches, the test passes."
    )
    regression_helpers = UNQUOTED_LINES + '''

def lines_showing(pattern, output):
    """Where `pattern` matches `output` (as re.search does), leaving out the source lines a traceback quotes."""
    text = "\\n".join(unquoted_lines(output))
    return [match.group(0) for match in pattern.finditer(text)]
'''
    regression_check = '''\
    shown = lines_showing(PATTERN, output)
    if not shown and missing and not PATTERN.search("\\n".join(missing)):
        pytest.fail(f"cannot tell whether the bug is fixed: python {REPRODUCER_NAME} cannot run here: {missing[-1]}")
    assert not shown, (
        f"the bug is still there: the output of python {REPRODUCER_NAME} (exit status {done.returncode}) "
        f"matches {PATTERN.pattern!r}:\\n" + "\\n".join(shown)
        + f"\\n--- the end of its output ---\\n{tail}"
    )
'''

    def regression_constants(self, value: Any) -> str:
        return f"PATTERN = re.compile({value!r})"


KIND = Regex()
