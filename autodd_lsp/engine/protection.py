"""Keeping frozen code: which edits a frozen region forbids.

A frozen span is never rewritten, and nothing around it may be rewritten in a
way that drops or changes it: an edit is allowed only if every frozen span it
touches lies inside a span the edit keeps (and re-renders unchanged).

Besides the user's frozen regions, two implicit protections are kept the same
way, recomputed from each text: the seeding calls (`seeds.py`) and the test of
the program's own check that raises the failure (an `assert`'s with its message),
with the `if`s around it in its function (`own_check_tests`, `guard_spans`). Without the latter, a program that raises its failure itself
(`if f != expected: raise AssertionError(...)`) reduces to the bare `raise`: the
same line from the same place, and nothing of what made it fire.
"""

from __future__ import annotations

import ast

from autodd_lsp.freeze import parse_freeze
from autodd_lsp.inlining.checks import guarding_ifs, raising_check
from autodd_lsp.syntax.origin import SHADOW_BASE
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span


def frozen_spans(source: Source) -> list[Span]:
    regions = parse_freeze(source.text).regions
    if not regions:
        return []  # the common case: no walk over the tree for decorators
    decorated = _decorator_starts(source)
    spans = []
    for region in regions:
        s = region.span
        start = source.line_start(s.start_line) + s.start_col
        end = source.line_start(s.end_line) + s.end_col
        spans.append((decorated.get(start, start), end))  # a frozen def keeps its decorators
    return spans


def _decorator_starts(source: Source) -> dict[int, int]:
    """Start of a decorated def/class -> start of its first decorator's line."""
    starts = {}
    for node in ast.walk(source.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.decorator_list:
            keyword = source.offset(node.lineno, node.col_offset)
            starts[keyword] = source.line_start(source.first_line(node))
    return starts


def respects_frozen(edit: Edit, frozen: list[Span]) -> bool:
    if not frozen:
        return True
    kept = [k for patch in edit.patches for k in patch.keeps]
    for patch in edit.patches:
        for start, end in frozen:
            if end <= patch.start or patch.end <= start:
                continue  # untouched
            if not any(ks <= start and end <= ke for ks, ke in kept):
                return False
    return True


def frozen_fingerprint(text: str) -> tuple | None:
    """The frozen code of a program, layout aside; None if its annotations are broken.

    Every candidate must have the original's fingerprint: this catches what no
    single edit can see, e.g. inlining a function that moves one freeze marker
    away from its partner.
    """
    info = parse_freeze(text)
    if info.errors or info.syntax_error:
        return None
    lines = text.splitlines()
    pieces = []
    for region in info.regions:
        s = region.span
        chunk = lines[s.start_line - 1 : s.end_line]
        chunk[-1] = chunk[-1][: s.end_col] if s.start_line != s.end_line else chunk[-1][s.start_col : s.end_col]
        if s.start_line != s.end_line:
            chunk[0] = chunk[0][s.start_col :]
        pieces.append((region.form, "\n".join(line.strip() for line in chunk)))
    return tuple(sorted(pieces))


def own_check_tests(source: Source, line: int) -> list[Span]:
    """The spans of the tests of the check that raises at `line` (`inlining/checks.raising_check`:
    an `assert`'s test with its message, or the guarding `if`'s) and of the other `if`s around it in its function
    (`guarding_ifs`); empty when the failure is not the program's own `raise` or `assert`."""
    check = raising_check(source.tree, line)
    if check is None:
        return []
    spans = [_checked(source, check)] if isinstance(check, ast.Assert) else []
    return spans + [source.span(node.test) for node in guarding_ifs(source.tree, line)]


def _checked(source: Source, check: ast.If | ast.Assert) -> Span:
    """An `if`'s test; an `assert`'s test with its message: the message is what the user saw
    (`AssertionError: [26, 35, 39]`), computed from the program's values as the test is. Left
    free, a reduction computed the same text another way: TheAlgorithms'
    `longest_increasing_subsequence.py` (parent of 4c92de5e0) with `assert longest_subsequence([28,
    26, 12, 23, 35, 39]) == [12, 23, 35, 39], longest_subsequence([28, 26, 12, 23, 35, 39])` kept
    the test and lost the algorithm: `longest_subsequence([1, 26, 35, 39])` in the message, the
    function's body `return [element for element in array[1:] if element]`."""
    start, end = source.span(check.test)
    if isinstance(check, ast.Assert) and check.msg is not None:
        end = source.span(check.msg)[1]
    return start, end


def guard_spans(source: Source, shadow: str | None, original_test: Span) -> list[Span]:
    """The spans of the tests in `source` (an `if`'s or an `assert`'s) whose text came from the
    original's `original_test` (by the characters' origins in `shadow`, `syntax/origin.py`)."""
    if shadow is None or len(shadow) != len(source.text):
        return []
    start, end = original_test
    spans = []
    for node in ast.walk(source.tree):
        if not isinstance(node, (ast.If, ast.Assert)):
            continue
        at, until = source.span(node.test)
        if any(start <= ord(ch) - SHADOW_BASE < end for ch in shadow[at:until]):
            spans.append(_checked(source, node))
    return spans
