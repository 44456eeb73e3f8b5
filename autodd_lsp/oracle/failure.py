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
    source_lines = {line.strip() for line in source_text.splitlines() if line.strip()}
    matches = []
    after_header = False
    for index, line in enumerate(output.splitlines()):
        echoed = after_header and line.startswith("    ")
        after_header = bool(_FRAME_HEADER.match(line))
        if message not in line or echoed or _MARKERS.match(line):
            continue
        if line[:1].isspace() and line.strip() in source_lines:
            continue  # an indented quote of the candidate's own code (multi-line echoes)
        matches.append(Match(line, _kind(line, message), index))
    return matches


def _kind(line: str, message: str) -> str | None:
    prefix = _KIND.match(line)
    if prefix and line.find(message) >= prefix.end(1):
        return prefix.group(1)
    return None


class FailureOracle:
    """Judges candidates against the failure the original program showed."""

    def __init__(self, message: str, original_output: str, original_text: str, *, allow_timeout: bool = False):
        self.message = message
        self.allow_timeout = allow_timeout
        self.kinds = {m.kind for m in matching_lines(original_output, message, original_text)}

    @property
    def reproduced_by_original(self) -> bool:
        return bool(self.kinds)

    def is_interesting(self, output: str, candidate_text: str, *, timed_out: bool = False) -> bool:
        if timed_out and not self.allow_timeout:
            return False  # a reproducer that hangs is not what anyone wants
        if self.message not in output:
            return False  # the common case, decided without splitting lines
        return any(m.kind in self.kinds for m in matching_lines(output, self.message, candidate_text))
