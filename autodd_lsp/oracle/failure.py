"""The failure oracle: the user's message must still appear, and not by accident.

A candidate is interesting when the message occurs in its stdout or stderr.
Two ways to "contain" the message prove nothing, and both are excluded:

* Echoed source. Python quotes source lines in tracebacks, so a candidate
  `raise 'boom'` (a TypeError) "contains" boom. Lines right after a traceback's
  `File "...", line N` header, caret lines, and indented lines equal to a line
  of the candidate's own text are not searched.
* A different failure quoting the text. `boom` alone on a line raises
  `NameError: name 'boom' is not defined`. Each matching line has a kind: the
  `Name:` prefix before the message (an exception type such as `ValueError`,
  or a logger tag), or none. A candidate must show the message under a kind the
  original showed it under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from autodd_lsp.oracle.run import Run

_FRAME_HEADER = re.compile(r'^\s*File "[^"]*", line \d+')
_MARKERS = re.compile(r"^\s*[\^~]+\s*$")
_KIND = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*:\s")


@dataclass(frozen=True)
class Match:
    line: str
    kind: str | None
    index: int = -1  # the line's index in the output's lines


def matching_lines(output: str, message: str, source_text: str = "") -> list[Match]:
    """Lines of `output` that show `message` for real, with their kind."""
    source_lines = source_line_set(source_text)
    matches = []
    after_header = False
    for index, line in enumerate(output.splitlines()):
        echoed = after_header and line.startswith("    ")
        after_header = bool(_FRAME_HEADER.match(line))
        if message not in line or echoed or is_quote(line, source_lines):
            continue
        matches.append(Match(line, kind_at(line, line.find(message)), index))
    return matches


def only_quoted(output: str, message: str, source_text: str = "") -> bool:
    """Whether `message` is in `output` only where a traceback quotes the program's source."""
    return message in output and not matching_lines(output, message, source_text)


QUOTED_ONLY = "it appears only in a source line a traceback quotes, which does not count"


def source_line_set(source_text: str) -> set[str]:
    """The stripped non-blank lines of a program: what an indented quote of it looks like."""
    return {line.strip() for line in source_text.splitlines() if line.strip()}


def is_quote(line: str, source_lines: set[str]) -> bool:
    """A caret line, or an indented line equal to a line of the program (multi-line echoes)."""
    return bool(_MARKERS.match(line)) or (line[:1].isspace() and line.strip() in source_lines)


def echoed_lines(lines: list[str], source_text: str) -> list[bool]:
    """For each line: whether it quotes source rather than shows output (the rules above)."""
    source_lines = source_line_set(source_text)
    flags = []
    after_header = False
    for line in lines:
        echoed = after_header and line.startswith("    ")
        after_header = bool(_FRAME_HEADER.match(line))
        flags.append(echoed or is_quote(line, source_lines))
    return flags


def kind_at(line: str, column: int) -> str | None:
    """The `Name:` prefix of `line` before `column` (where the failure's text starts), or None."""
    prefix = _KIND.match(line)
    if prefix and column >= prefix.end(1):
        return prefix.group(1)
    return None


class FailureOracle:
    """Judges candidates against the failure the original program showed (`--err-msg`)."""

    def __init__(self, message: str, original_output: str, original_text: str, *, allow_timeout: bool = False):
        self.message = message
        self.text = original_text  # the program the original run ran
        self.allow_timeout = allow_timeout
        self.kinds = {m.kind for m in self.find(original_output, original_text)}

    def find(self, output: str, text: str = "") -> list[Match]:
        """The lines of `output` that show the failure for real (see the module docstring)."""
        return matching_lines(output, self.message, text)

    def present(self, output: str) -> bool:
        """A quick test: False if no line of `output` can show the failure."""
        return self.message in output

    @property
    def reproduced_by_original(self) -> bool:
        return bool(self.kinds)

    def describe(self) -> str:
        return f"the message {self.message!r}"

    def why_not(self, run: Run, timeout: float) -> str:
        """What the original did instead of showing the failure (when not `reproduced_by_original`)."""
        if run.timed_out:
            return f"the original program timed out without printing {self.message!r}"
        return f"the original program does not print {self.message!r} (exit status {run.returncode})"

    def is_interesting(self, output: str, candidate_text: str, *, timed_out: bool = False) -> bool:
        if timed_out and not self.allow_timeout:
            return False  # a reproducer that hangs is not what anyone wants
        if not self.present(output):
            return False  # the common case, decided without splitting lines
        return any(m.kind in self.kinds for m in self.find(output, candidate_text))

    def accepts(self, run: Run, text: str) -> bool:
        """The oracle's interface (see `oracle/run.py`): does `run` of `text` show the failure?"""
        return self.is_interesting(run.output, text, timed_out=run.timed_out)
