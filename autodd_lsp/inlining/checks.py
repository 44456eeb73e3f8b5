"""Keep an inlined module's own check whole: the guard that raises the failure is frozen.

When the failure is raised by a `raise` or `assert` of one of the user's modules,
inlining moves that statement into the program. Left as it is, the reduction
could unwrap the `if` around the `raise` and end with the bare statement, which
raises the same line from the same place without the bug that made the check
fire. The original's rule was: the program must reach that check and make it
fire. Freezing the check keeps that rule in one file. The `assert`, or the
innermost `if` whose body holds the `raise` (or the `raise` itself when no `if`
guards it in its function), gets a `# autodd: freeze` comment that says where it
came from. The freeze grammar (notes/freeze.md) then keeps that statement whole.
The frozen-code rule makes it run, and the same-place rule makes it the one that
raises.

`raising_check` is the one home of "the check that raises the failure": the
engine protects the same statement's test in the program's own code
(`engine/rules/protection.guard_spans`), without a comment, and the tests of the
other `if`s around it in its function (`guarding_ifs`): in
`if packed & mask != packed: if strict: raise ValueError(...)`, `strict` alone
would let the reduction drop the host-bits test and keep a `raise` that fires
for every address.
"""

from __future__ import annotations

import ast

from autodd_lsp.syntax.parsing import parse

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Module)


def freeze_check(text: str, line: int, origin: str) -> str | None:
    """`text` with the check that raises at `line` frozen, its origin (`file:line`) named;
    None when no `raise`/`assert` is at `line` or its line cannot carry a comment."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return None
    guard = raising_check(tree, line)
    if guard is None:
        return None
    lines = text.splitlines(keepends=True)
    index = guard.lineno - 1
    body = lines[index].rstrip("\r\n")
    if body.rstrip().endswith("\\") or _inside_string(tree, guard.lineno):
        return None  # a comment cannot end this line
    ending = lines[index][len(body):]
    lines[index] = f"{body}  # autodd: freeze (the check from {origin} that raises the failure){ending or chr(10)}"
    return "".join(lines)


def raising_check(tree: ast.Module, line: int) -> ast.stmt | None:
    """The check that raises at `line`: the `assert` there, or the innermost `if` (in the same
    function) whose body holds the `raise` there, or that `raise` when no `if` guards it; None when
    no `raise`/`assert` spans `line`."""
    chain = _chain(tree, line)
    if not chain or not isinstance(chain[-1], (ast.Raise, ast.Assert)):
        return None
    check = chain[-1]
    if isinstance(check, ast.Assert):
        return check
    ifs = guarding_ifs(tree, line)
    return ifs[0] if ifs else check


def guarding_ifs(tree: ast.Module, line: int) -> list[ast.If]:
    """The `if`s around the `raise` or `assert` at `line` in its function, innermost first
    (empty when no `raise`/`assert` spans `line`)."""
    chain = _chain(tree, line)
    if not chain or not isinstance(chain[-1], (ast.Raise, ast.Assert)):
        return []
    found = []
    for node in reversed(chain[:-1]):
        if isinstance(node, _SCOPES):
            break
        if isinstance(node, ast.If):
            found.append(node)
    return found


def _chain(node: ast.AST, line: int) -> list[ast.AST]:
    """The statements (and scopes) that span `line`, outermost first."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.stmt, ast.Lambda)) and child.lineno <= line <= (child.end_lineno or child.lineno):
            return [child, *_chain(child, line)]
    return []


def _inside_string(tree: ast.Module, line: int) -> bool:
    """Whether `line` ends inside a multi-line string literal (a comment there would be text)."""
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and node.lineno <= line < (node.end_lineno or 0)
        for node in ast.walk(tree)
    )
