"""`--err-regex`: a match of a regular expression, for real.

The expression is searched in the run's output (stdout, a newline, stderr) as
`re.search` does: anywhere, `^` and `$` at the ends of the whole output unless
the expression says `(?m)`. A match counts under the same protection as the
message rule (`failure.py`): a match that touches a quoted source line (the line
after a traceback's `File "...", line N` header, a caret line, an indented line
equal to a line of the candidate) is no match, and the `Name:` prefix before
the match is its kind, which must be one the original showed it under. After a
match in a quote, the search goes on from the next character, so a real match
later in the output is still found.

A match's *line* is the output line it starts on (with the lines it runs over,
for an expression that spans lines): what the same-failure rule (`same.py`)
compares, normalized, with the original's.
"""

from __future__ import annotations

import bisect
import re

from autodd_lsp.oracle.failure import FailureOracle, Match, echoed_lines, kind_at
from autodd_lsp.oracle.run import Run


def compile_regex(pattern: str) -> re.Pattern[str]:
    """The compiled expression; ValueError with a one-line reason when it is not one."""
    if not pattern:
        raise ValueError("the regular expression must not be empty")
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise ValueError(f"bad regular expression {pattern!r}: {error}") from None
    if compiled.search("") is not None:
        raise ValueError(f"the regular expression {pattern!r} matches the empty output: it would keep nothing")
    return compiled


def regex_lines(output: str, pattern: re.Pattern[str], source_text: str = "") -> list[Match]:
    """The matches of `pattern` in `output` that are not quotes of source, one per line at most."""
    first = pattern.search(output)
    if first is None:
        return []
    lines = output.splitlines()
    starts = _line_starts(output)
    echoed = echoed_lines(lines, source_text)
    matches: list[Match] = []
    found: re.Match[str] | None = first
    while found is not None:
        top = bisect.bisect_right(starts, found.start()) - 1
        bottom = max(top, bisect.bisect_right(starts, max(found.start(), found.end() - 1)) - 1)
        top, bottom = min(top, len(lines) - 1), min(bottom, len(lines) - 1)
        if any(echoed[top : bottom + 1]):
            following = found.start() + 1  # a quote: a real match may start inside it
        else:
            line = "\n".join(lines[top : bottom + 1])
            matches.append(Match(line, kind_at(lines[top], found.start() - starts[top]), top))
            following = starts[bottom + 1] if bottom + 1 < len(starts) else len(output) + 1
        found = pattern.search(output, following) if following <= len(output) else None
    return matches


def _line_starts(output: str) -> list[int]:
    """Offset of each line of `output.splitlines()` in `output`."""
    starts, offset = [], 0
    for piece in output.splitlines(keepends=True):
        starts.append(offset)
        offset += len(piece)
    return starts or [0]


class RegexOracle(FailureOracle):
    """The message rule with a regular expression in place of the text."""

    def __init__(self, pattern: str | re.Pattern[str], original_output: str, original_text: str,
                 *, allow_timeout: bool = False):
        self.pattern = compile_regex(pattern) if isinstance(pattern, str) else pattern
        super().__init__(self.pattern.pattern, original_output, original_text, allow_timeout=allow_timeout)

    def find(self, output: str, text: str = "") -> list[Match]:
        return regex_lines(output, self.pattern, text)

    def present(self, output: str) -> bool:
        return self.pattern.search(output) is not None

    def describe(self) -> str:
        return f"matches /{self.pattern.pattern}/"

    def why_not(self, run: Run, timeout: float) -> str:
        if run.timed_out:
            return f"the original program timed out without output matching /{self.pattern.pattern}/"
        if self.present(run.output):
            return (f"the original program's output matches /{self.pattern.pattern}/ only in quoted source "
                    f"(exit status {run.returncode})")
        return f"the original program's output does not match /{self.pattern.pattern}/ (exit status {run.returncode})"


__all__ = ["RegexOracle", "compile_regex", "regex_lines"]
