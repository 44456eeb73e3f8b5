"""Operator precedence, to know when a sub-expression needs parentheses in a new place."""

from __future__ import annotations

import ast

_BINOP = {
    ast.BitOr: 6, ast.BitXor: 7, ast.BitAnd: 8, ast.LShift: 9, ast.RShift: 9,
    ast.Add: 10, ast.Sub: 10, ast.Mult: 11, ast.MatMult: 11, ast.Div: 11,
    ast.FloorDiv: 11, ast.Mod: 11, ast.Pow: 13,
}  # fmt: skip

ATOM = 16


def precedence(node: ast.AST) -> int:
    """Higher binds tighter; an expression at precedence p fits where p is expected."""
    if isinstance(node, (ast.Tuple,)):
        return 0  # a bare tuple only fits where commas are allowed
    if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Starred)):
        return 1
    if isinstance(node, ast.IfExp):
        return 2
    if isinstance(node, ast.BoolOp):
        return 3 if isinstance(node.op, ast.Or) else 4
    if isinstance(node, ast.UnaryOp):
        return 5 if isinstance(node.op, ast.Not) else 12
    if isinstance(node, ast.Compare):
        return 5
    if isinstance(node, ast.BinOp):
        return _BINOP.get(type(node.op), 10)
    if isinstance(node, ast.Await):
        return 14
    return ATOM  # names, constants, calls, attributes, subscripts, displays


def text_precedence(node: ast.AST, text: str) -> int:
    """Precedence of `node` written as `text`: a tuple in parentheses is an atom."""
    if isinstance(node, ast.Tuple) and text.startswith("(") and text.endswith(")"):
        return ATOM
    return precedence(node)


def fits(child: ast.AST, child_text: str, replaced: ast.AST) -> bool:
    """Can `child`'s text stand where `replaced` stood without parentheses?"""
    return text_precedence(child, child_text) >= precedence(replaced)


def fits_in(child: ast.AST, child_text: str, replaced: ast.AST, parent: ast.AST | None) -> bool:
    """Can `child`'s text stand where `replaced` stood, as a part of `parent`, without parentheses?
    Knowing the parent spares parentheses that `fits` must keep: `a * b` as an operand of `+` or
    as a call's argument (`(a * b) + c` -> `a * b + c`)."""
    p = text_precedence(child, child_text)
    if p >= ATOM:
        return True
    if isinstance(parent, ast.BinOp):
        if replaced is parent.left and not isinstance(parent.op, ast.Pow):
            return p >= precedence(parent)  # left-associative: `a - b` may stand left of `- c`
        return p > precedence(parent)
    if isinstance(parent, (ast.BoolOp, ast.Compare)):
        return p > precedence(parent)
    if isinstance(parent, ast.UnaryOp):
        return p >= precedence(parent)
    if (isinstance(parent, ast.Call) and replaced in parent.args) or isinstance(parent, ast.keyword):
        return p >= 2  # not a bare tuple, a walrus or a yield
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return)) and replaced is parent.value:
        return p >= 2
    return fits(child, child_text, replaced)
