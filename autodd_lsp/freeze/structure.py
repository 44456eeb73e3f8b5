"""Which statements a line, a block marker or an editor selection refers to.

Comments are not in the AST, so these rules place a comment line among the
statements by its line number, and -- after the last statement of a body,
where Python gives comments to nobody -- by its indentation.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from dataclasses import dataclass

from autodd_lsp.freeze.chunked_source import (
    ChunkedSource,
    clause_bodies,
    first_line,
    is_compound,
    touching,
)
from autodd_lsp.syntax.source import last_line


@dataclass
class LineTarget:
    statements: list[ast.stmt]
    whole_compound: bool  # the line is a compound statement's header


@dataclass
class Gap:
    """A place between statements: just before `body[index]` (or at its end)."""

    body: list[ast.stmt]
    index: int


def line_target(source: ChunkedSource, line: int, own_line: bool) -> LineTarget | None:
    """The innermost statement(s) on `line`; None when no statement is there."""
    body = source.body_for(line, line)
    while True:
        found = touching(body, line, line)
        if not found:
            return None
        if len(found) > 1 or not is_compound(found[0]):
            return LineTarget(found, whole_compound=False)
        stmt = found[0]
        if _is_header_line(source, stmt, line):
            return LineTarget([stmt], whole_compound=True)
        inner = _clause_touching(stmt, line, line)
        if inner is None:  # a comment line inside the statement
            return None if own_line else LineTarget([stmt], whole_compound=True)
        body = inner


def marker_gap(source: ChunkedSource, line: int) -> Gap | None:
    """Where a block marker on its own `line` sits; None when it is inside a statement."""
    body = source.body_for(line, line)
    while True:
        index = bisect_left(body, line, key=first_line)
        if index == 0:
            return Gap(body, 0)
        stmt = body[index - 1]
        if line <= last_line(stmt):
            if not is_compound(stmt):
                return None
            clause = _clause_at(source, stmt, line)
            if clause is None:
                return None
            body = clause
        elif line <= source.extended_end(stmt):
            body = clause_bodies(stmt)[-1]
        else:
            return Gap(body, index)


def selection_target(source: ChunkedSource, lo: int, hi: int) -> tuple[list[ast.stmt], int, int] | None:
    """The whole statements of the innermost body that lines lo..hi touch: (body, first, last)."""
    body = source.body_for(lo, hi)
    outer: list[tuple[list[ast.stmt], ast.stmt]] = []  # (body, compound statement in it) descended through
    while True:
        found = touching(body, lo, hi)
        if not found:
            return None
        stmt = found[0]
        if len(found) == 1 and is_compound(stmt) and not _selects_header(source, stmt, lo, hi):
            inner = _clause_touching(stmt, lo, hi)
            if inner is None:  # only blank or comment lines inside the statement
                return None
            outer.append((body, stmt))
            body = inner
            continue
        # An `elif` is no statement of its own to put markers around: take its whole `if`.
        while outer and _is_elif_branch(source, body):
            body, stmt = outer.pop()
            found = [stmt]
        first, last = _index(body, found[0]), _index(body, found[-1])
        return (body, *_widen_to_whole_lines(body, first, last))


def _is_elif_branch(source: ChunkedSource, body: list[ast.stmt]) -> bool:
    """`body` is the `orelse` of an `if` that holds an `elif`."""
    stmt = body[0]
    if len(body) != 1 or not isinstance(stmt, ast.If):
        return False
    return source.line(stmt.lineno)[source.char_col(stmt.lineno, stmt.col_offset) :].startswith("elif")


def _index(body: list[ast.stmt], stmt: ast.stmt) -> int:
    return next(i for i, candidate in enumerate(body) if candidate is stmt)


def _widen_to_whole_lines(body: list[ast.stmt], first: int, last: int) -> tuple[int, int]:
    """`x = (1,` / `2); y = 3` -- statements sharing a line are frozen together."""
    while first > 0 and last_line(body[first - 1]) >= first_line(body[first]):
        first -= 1
    while last + 1 < len(body) and first_line(body[last + 1]) <= last_line(body[last]):
        last += 1
    return first, last


def _clause_touching(stmt: ast.stmt, lo: int, hi: int) -> list[ast.stmt] | None:
    return next((body for body in clause_bodies(stmt) if touching(body, lo, hi)), None)


def _is_header_line(source: ChunkedSource, stmt: ast.stmt, line: int) -> bool:
    """`for ...:` / `else:` / `@decorator` lines, and one-line `if x: y = 1`."""
    bodies = clause_bodies(stmt)
    if any(first_line(body[0]) == line and source.opens_clause_inline(body) for body in bodies):
        return True
    return source.is_code(line) and not any(touching(body, line, line) for body in bodies)


def _selects_header(source: ChunkedSource, stmt: ast.stmt, lo: int, hi: int) -> bool:
    lines = range(max(lo, first_line(stmt)), min(hi, last_line(stmt)) + 1)
    return any(_is_header_line(source, stmt, line) for line in lines)


def _clause_at(source: ChunkedSource, stmt: ast.stmt, line: int) -> list[ast.stmt] | None:
    """The clause body whose header ends above `line`; None when `line` is in the first header."""
    chosen = None
    previous_end = stmt.lineno - 1
    for body in clause_bodies(stmt):
        if _header_end(source, previous_end, body) >= line:
            break
        chosen = body
        previous_end = last_line(body[-1])
    return chosen


def _header_end(source: ChunkedSource, previous_end: int, body: list[ast.stmt]) -> int:
    """The last line of the clause header (`else:`, `except E:` ...) that opens `body`.

    Between the previous clause and this body there are only blank lines,
    comments and the header itself, so the last code line is the header. No such
    line: the header shares the body's first line (`else: x`, or an `elif`).
    """
    start = first_line(body[0])
    for number in range(start - 1, previous_end, -1):
        if source.is_code(number):
            return number
    return start
