"""Failure signatures: which text of a failing run should a reduction keep?

`suggest_err_msgs(output)` reads what a program printed and proposes strings
that identify its failure, best first:

    ValueError: shapes (3, 4) and (5,) not aligned      the last exception line
    ValueError: shapes                                  that line cut before its variable parts
    shapes (3, 4) and (5,) not aligned                  the message without the type
    ...

It is pure: it reads outputs and never runs anything (`engine/asking/trial.py` runs the
program once when a person asks for suggestions; `engine/asking/question.py` asks
every kind, the message kind (`message.py`) asks this). `output_tail` is the end
of an output, for a person to read.
"""

from __future__ import annotations

import re

MAX_SUGGESTIONS = 4
# A stable prefix shorter than this says too little to be worth offering.
MIN_PREFIX_CHARS = 12

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TRACEBACK_HEADER = "Traceback (most recent call last):"
# `pkg.mod.SomeError: message` or a bare `SomeError` at the start of a line.
_EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
_EXCEPTION_NAME = re.compile(
    r"(Error|Exception|Warning|Exit|Interrupt|Failure|Fault|Iteration)$|^(error|Error)"
)
_FATAL_LINE = re.compile(r"^Fatal Python error: .+")
# Parts of a message that change from run to run or from candidate to candidate:
# numbers (not digits inside names such as float16), hex addresses, paths,
# object reprs, shapes and lists.
_VARIABLE_PART = re.compile(
    r"(?<![\w.])[-+]?\d"
    r"|0x[0-9a-fA-F]+"
    r"|(?<![\w.])(?:[A-Za-z]:)?[\\/][\w.-]+[\\/]"
    r"|<[\w.]+ (?:object )?at "
    r"|[(\[{]\s*[-+]?\d"
)


def suggest_err_msgs(output: str, returncode: int | None = None) -> list[str]:
    """Strings that identify the failure shown in `output`, best first; [] if none.

    Every suggestion is a substring of one line of `output`, so searching the
    output of a candidate for it works.
    """
    lines = [_ANSI.sub("", line).rstrip() for line in output.splitlines()]
    exception = _last_exception_line(lines)
    if exception is not None:
        return _variants_of_exception(exception)
    fatal = [line for line in lines if _FATAL_LINE.match(line)]
    if fatal:
        return _unique([fatal[-1], _stable_prefix(fatal[-1])])
    if returncode not in (None, 0):
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        return _unique([last, _stable_prefix(last)])
    return []


def _last_exception_line(lines: list[str]) -> str | None:
    """The last line at column 0 that reads like `SomeError: message`.

    Lines inside a traceback are indented, so source lines echoed by the
    traceback (`raise ValueError("...")`) are never taken.
    """
    candidates = [i for i, line in enumerate(lines) if _looks_like_exception(line)]
    candidates += _lines_ending_tracebacks(lines)
    for index in sorted(set(candidates), reverse=True):
        line = lines[index]
        match = _EXCEPTION_LINE.match(line)
        message = (match.group("message") or "") if match else ""
        if message.strip() != _TRACEBACK_HEADER:
            return line
    return None


def _looks_like_exception(line: str) -> bool:
    match = _EXCEPTION_LINE.match(line)
    if not match or match.group("message") is None:
        return False
    name = match.group("type").rsplit(".", 1)[-1]
    return bool(_EXCEPTION_NAME.search(name))


def _lines_ending_tracebacks(lines: list[str]) -> list[int]:
    """Index of the first unindented line after each traceback header (bare `AssertionError` too)."""
    found = []
    for header, line in enumerate(lines):
        if line != _TRACEBACK_HEADER:
            continue
        for index in range(header + 1, len(lines)):
            if lines[index] and not lines[index][0].isspace():
                if _EXCEPTION_LINE.match(lines[index]):
                    found.append(index)
                break
    return found


def _variants_of_exception(line: str) -> list[str]:
    match = _EXCEPTION_LINE.match(line)
    message = (match.group("message") or "").strip() if match else ""
    variants = [line.strip(), _stable_prefix(line)]
    if message:
        variants += [message, _stable_prefix(message)]
    return _unique(variants)


def _stable_prefix(text: str) -> str:
    """`text` cut before its first variable part, or "" when what is left says too little."""
    match = _VARIABLE_PART.search(text)
    if not match:
        return ""
    prefix = text[: match.start()].rstrip(" \t:=,;([{'\"<-")
    return prefix if len(prefix) >= MIN_PREFIX_CHARS else ""


def _unique(items: list[str]) -> list[str]:
    seen: list[str] = []
    for item in items:
        if item and item not in seen:
            seen.append(item)
    return seen[:MAX_SUGGESTIONS]


def output_tail(output: str, max_lines: int = 30, max_chars: int = 4000) -> str:
    """The end of `output`, for a person to read in a message."""
    tail = "\n".join(output.rstrip().splitlines()[-max_lines:])
    return tail[-max_chars:]
