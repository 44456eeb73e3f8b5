"""Keeping frozen code: which edits a frozen region forbids.

A frozen span is never rewritten, and nothing around it may be rewritten in a
way that drops or changes it: an edit is allowed only if every frozen span it
touches lies inside a span the edit keeps (and re-renders unchanged).

Besides the user's frozen regions, two implicit protections are kept the same
way, recomputed from each text: the seeding calls (`seeds.py`) and the test of
the program's own check that raises the failure (an `assert`'s with its message),
with the `if`s around it in its function and the calls of the program's own
functions that computed what it reads (`own_check_tests`, `guard_spans`). Without the latter, a program that raises its failure itself
(`if f != expected: raise AssertionError(...)`) reduces to the bare `raise`: the
same line from the same place, and nothing of what made it fire.
"""

from __future__ import annotations

import ast

from autodd_lsp.freeze import parse_freeze
from autodd_lsp.inlining.checks import guarding_ifs, raising_check
from autodd_lsp.syntax.bindings import FUNCTIONS, OwnFunctions
from autodd_lsp.syntax.origin import SHADOW_BASE
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span, own_nodes


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
    return spans + [source.span(node.test) for node in guarding_ifs(source.tree, line)] + _producers(source, check)


def _producers(source: Source, check: ast.stmt) -> list[Span]:
    """The values of the assignments that last bound, before `check` in its scope, a name its test
    (or an `assert`'s message) reads, where the value calls a function of the program's own
    (`result = longest_subsequence([28, 26, 12, 23, 35, 39])` for `assert result == [12, 23, 35,
    39], result`): the call that computed the wrong value, with the user's arguments; and the
    literal values (`data = [28, 26, 12, 23, 35, 39]`) last bound to the names such a call reads.
    Left free, the same message came from another computation: TheAlgorithms' `longest_increasing_
    subsequence.py` (parent of 4c92de5e0) so driven reduced to `array = [1, 26, 35, 39]` and
    `result = [element for element in array[1:] if element]`, the function and its bug gone; with
    its data in a name, to `data = [1, 26, 35, 39]` and that comprehension in the function."""
    parts = [getattr(check, "test", None), getattr(check, "msg", None)]
    statements = sorted((node for node in own_nodes(_scope_of(source, check)) if isinstance(node, ast.stmt)),
                        key=lambda n: (n.lineno, n.col_offset))
    own = OwnFunctions(source)
    calls = [assign for assign in _latest_bindings(statements, _names_read(parts), check)
             if any(isinstance(call, ast.Call) and own.callee(call) for call in ast.walk(assign.value))]
    data = [assign for call in calls for assign in _latest_bindings(statements, _names_read([call.value]), call)
            if _literal(assign.value)]
    return [source.span(assign.value) for assign in calls + data]


def _names_read(parts: list[ast.AST | None]) -> set[str]:
    return {node.id for part in parts if part is not None for node in ast.walk(part)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def _latest_bindings(statements: list[ast.stmt], names: set[str], before: ast.stmt) -> list[ast.Assign]:
    """The last plain assignment (`name = value`) of each of `names` among `statements` (in source
    order) that ends before `before` starts."""
    until = (before.lineno, before.col_offset)
    latest: dict[str, ast.Assign] = {}
    for node in statements:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in names and (node.end_lineno or node.lineno, node.end_col_offset or 0) <= until:
            latest[node.targets[0].id] = node
    return list(latest.values())


def _literal(node: ast.expr) -> bool:
    """Numbers, strings and displays of them: data the user wrote."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _scope_of(source: Source, node: ast.AST) -> ast.AST:
    around = source.parents.get(node)
    while around is not None and not isinstance(around, (*FUNCTIONS, ast.ClassDef, ast.Module)):
        around = source.parents.get(around)
    return around if around is not None else source.tree


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
    """The spans of the tests in `source` (an `if`'s or an `assert`'s), and of the assigned values,
    whose text came from the original's `original_test` (by the characters' origins in `shadow`,
    `syntax/origin.py`): a test, or a value that computed what it reads (`_producers`), wherever
    the reduction moved it (a value inlined into the `assert` is its test's now)."""
    if shadow is None or len(shadow) != len(source.text):
        return []
    start, end = original_test
    spans = []
    for node in ast.walk(source.tree):
        if isinstance(node, (ast.If, ast.Assert)):
            part, kept = node.test, _checked(source, node)
        elif isinstance(node, ast.Assign):
            part = node.value
            kept = source.span(part)
        else:
            continue
        at, until = source.span(part)
        if any(start <= ord(ch) - SHADOW_BASE < end for ch in shadow[at:until]):
            spans.append(kept)
    return spans
