"""Where each character of a candidate came from in the original text.

Reductions splice the original text; they move text (inlining, unwrapping) and
add a little (`pass`, `0`, parentheses), they never invent it. To know which
original statement a candidate's failing line came from, the engine renders
every candidate a second time over a *shadow* of its base text: the same
patches, applied to a text in which each character that could carry meaning is
replaced by one private code point standing for its offset in the original
(`chr(SHADOW_BASE + offset)`). Whitespace, newlines, `#` and quotes stay as they
are, so the builds of passes (which look at indentation, comment lines and
string starts) take the same decisions on the shadow as on the real text, and
the shadow has the same lines. A rendered shadow character names its origin;
any other character was written by a pass.

The shadow of an accepted candidate becomes the shadow of the next base, so
origins compose over the whole reduction at the cost of one more render per
candidate that needs it. Texts longer than `MAX_TRACKED` characters are not
tracked (their origins are unknown; callers then skip what needs them).
"""

from __future__ import annotations

import io
import tokenize
from bisect import bisect_right
from itertools import accumulate

SHADOW_BASE = 0x10000
MAX_TRACKED = 0x10FFFF - SHADOW_BASE
_KEEP = frozenset(" \t\n\r\f\v#'\"\\")


def identity_shadow(text: str) -> str | None:
    """The shadow of the original itself: every character stands for its own offset."""
    if len(text) > MAX_TRACKED:
        return None
    return "".join(ch if ch in _KEEP else chr(SHADOW_BASE + i) for i, ch in enumerate(text))


def aligned(text: str, shadow: str) -> str:
    """`shadow` with its lines made as long as `text`'s.

    A build that re-indents may treat the inside of a string differently on the
    shadow (it tokenizes to find strings); only leading whitespace can differ
    then. Such lines take the text's own whitespace, keeping their shadow
    characters in order.
    """
    if len(text) == len(shadow):
        return shadow
    real_lines, shadow_lines = text.split("\n"), shadow.split("\n")
    if len(real_lines) != len(shadow_lines):
        return "\n".join(_unknown(line) for line in real_lines)
    fixed = []
    for real, mirrored in zip(real_lines, shadow_lines, strict=False):
        if len(real) == len(mirrored):
            fixed.append(mirrored)
            continue
        body = mirrored.lstrip(" \t")
        indent = real[: len(real) - len(real.lstrip(" \t"))]
        line = indent + body
        fixed.append(line if len(line) == len(real) else _unknown(real))
    return "\n".join(fixed)


def _unknown(line: str) -> str:
    return line  # the text itself: no shadow characters, no origin


class OriginalStatements:
    """For offsets into the original, the innermost statement holding each."""

    def __init__(self, text: str, statement_spans: list[tuple[int, int]]) -> None:
        self.text = text
        owner = [-1] * (len(text) + 1)
        order = sorted(range(len(statement_spans)), key=lambda i: statement_spans[i][0] - statement_spans[i][1])
        for index in order:  # biggest first: inner statements overwrite outer ones
            start, end = statement_spans[index]
            owner[start:end] = [index] * (end - start)
        self._owner = owner
        lines = text.split("\n")
        self._line_starts = [0, *accumulate(len(line) + 1 for line in lines)]
        self._comment_starts: dict[int, int] | None = None  # `_comments`, made when first asked

    def of_offsets(self, offsets) -> frozenset[int]:
        owner = self._owner
        return frozenset(owner[o] for o in offsets if 0 <= o < len(owner) and owner[o] >= 0)

    def of_line(self, lineno: int) -> frozenset[int]:
        """Statements of the original's line `lineno` (1-based), by its non-blank characters out of
        comments: a comment after a statement (`assert ...  # autodd: freeze`) lies in the span of
        the statement around it (the `def`), not in its own, and would make that `def` a
        statement of the line (then the failure's place was anywhere in it)."""
        if not 1 <= lineno < len(self._line_starts):
            return frozenset()
        start, end = self._line_starts[lineno - 1], self._line_starts[lineno] - 1
        comment = self._comments().get(lineno, end)
        return self.of_offsets(i for i in range(start, min(end, comment)) if not self.text[i].isspace())

    def _comments(self) -> dict[int, int]:
        """The offset where each line's comment begins, by line (1-based)."""
        if self._comment_starts is None:
            found: dict[int, int] = {}
            try:
                for token in tokenize.generate_tokens(io.StringIO(self.text).readline):
                    if token.type == tokenize.COMMENT:
                        line, column = token.start
                        found[line] = self._line_starts[line - 1] + column
            except (tokenize.TokenError, SyntaxError):
                pass  # what was read before the error stands
            self._comment_starts = found
        return self._comment_starts

    def line_of(self, offset: int) -> int:
        return bisect_right(self._line_starts, offset)


def line_origins(shadow: str, lineno: int) -> list[int]:
    """Original offsets of the characters of line `lineno` (1-based) of a rendered shadow."""
    start = 0
    for _ in range(lineno - 1):
        start = shadow.find("\n", start) + 1
        if start == 0:
            return []
    end = shadow.find("\n", start)
    line = shadow[start:] if end < 0 else shadow[start:end]
    return [ord(ch) - SHADOW_BASE for ch in line if ord(ch) >= SHADOW_BASE]


def span_origin(shadow: str, start: int, end: int) -> tuple[int, int] | None:
    """The original span a text span [start, end) came from, if both its ends were copied.

    Quotes and `#` have no shadow character of their own: an end that is one
    (a string literal's quote) is placed by the nearest shadowed character
    inside the span, which was copied with it.
    """
    if not 0 <= start < end <= len(shadow):
        return None
    first = next((i for i in range(start, end) if ord(shadow[i]) >= SHADOW_BASE), None)
    if first is None:
        return None
    last = next(i for i in range(end - 1, first - 1, -1) if ord(shadow[i]) >= SHADOW_BASE)
    begin = ord(shadow[first]) - SHADOW_BASE - (first - start)
    finish = ord(shadow[last]) - SHADOW_BASE + (end - last)
    return (begin, finish) if 0 <= begin < finish else None
