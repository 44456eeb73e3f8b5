"""Reading Python tracebacks out of a run's output: which frames led to a line.

A traceback is a `Traceback (most recent call last):` header, indented frames
(`  File "path", line N, in name`, each with its quoted source and carets), then
the exception's text: its first line at column 0 and any continuation lines up
to a blank line or the next traceback -- except the output's last traceback, the
uncaught exception the interpreter printed as it ended, whose text runs on across
blank lines to the end (NumPy's `assert_allclose` report has paragraphs: `Mismatched
elements: ...`, ` [2, 2]: 0.0 (ACTUAL), 16.0 (DESIRED)` are its exception's text, with
its place). `frames_of_lines` tells, for each line of
the output that is part of an exception's text, the frames of its traceback
(outermost first). Lines that are not (a message the program printed, a log
line, a C++ check) have no frames: their failure has no place to compare.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<name>.*))?\s*$')
_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")


@dataclass(frozen=True)
class Frame:
    file: str
    line: int
    name: str = ""


def frames_of_lines(lines: list[str]) -> dict[int, tuple[Frame, ...]]:
    """Index of each exception-text line -> its traceback's frames, outermost first."""
    found: dict[int, tuple[Frame, ...]] = {}
    frames: list[Frame] | None = None  # inside a traceback's frame list
    text_of: tuple[Frame, ...] | None = None  # inside an exception's text
    last = max((i for i, line in enumerate(lines) if line.lstrip().startswith(_HEADER)), default=-1)
    for index, line in enumerate(lines):
        if line.startswith(_HEADER) or line.lstrip().startswith(_HEADER):
            frames, text_of = [], None
            continue
        if frames is not None:
            match = _FRAME.match(line)
            if match:
                frames.append(Frame(match["file"], int(match["line"]), match["name"] or ""))
                continue
            if line[:1].isspace() or not line.strip():
                continue  # quoted source, carets, "[Previous line repeated N more times]"
            text_of, frames = tuple(frames), None
        if text_of is not None:
            if line.startswith(_CHAIN) or (not line.strip() and index < last):
                text_of = None
                continue
            found[index] = text_of  # a blank line too, in the last one: its paragraphs are one text
    return found
