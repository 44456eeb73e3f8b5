"""Replace an expression by one of its parts, or by a plain constant.

`f(a, b)` becomes `a` or `b` (a call by an argument), `x.m()` becomes `x`, `x.y` becomes `x`,
`a + b` becomes `a` or `b`, `c if t else d` becomes `c` or `d`, and so on;
a large expression can also become `0`. Parts get parentheses where their new
place needs them.
"""

from __future__ import annotations

import ast
from typing import Iterator

from autodd_lsp.passes.base import PassContext, ReductionPass, register
from autodd_lsp.syntax.patch import Edit, replace, replace_with_span
from autodd_lsp.syntax.precedence import fits
from autodd_lsp.syntax.source import Source


def replaceable_expressions(tree: ast.AST, *, worth_replacing: bool = False) -> Iterator[ast.expr]:
    """Expressions whose text can be swapped: not assignment targets, not inside f-strings.

    With `worth_replacing`, also skip the callee of a call: `0(...)` and `x(...)`
    for `x.f(...)` never help (the call's own parts cover the receiver).
    """

    def visit(node: ast.AST, skip: bool) -> Iterator[ast.expr]:
        if isinstance(node, ast.JoinedStr):
            return  # positions inside f-strings are unreliable before Python 3.12
        assignable = isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del))
        if assignable and not skip:
            yield node
        for child in ast.iter_child_nodes(node):
            callee = worth_replacing and isinstance(node, ast.Call) and child is node.func
            yield from visit(child, callee)

    yield from visit(tree, False)


def is_statement_value(source: Source, node: ast.expr) -> bool:
    """The whole value of an expression statement such as `f(x)`: only a call can
    usefully stand in for it (`print(run())` -> `run()`); a name or constant
    would just be a statement with no effect, which removal already tried."""
    return isinstance(source.parents.get(node), ast.Expr)


def parts(node: ast.expr) -> list[ast.expr]:
    """The sub-expressions that may stand in for `node`."""
    if isinstance(node, ast.Call):
        receiver = [node.func.value] if isinstance(node.func, ast.Attribute) else []
        return [*node.args, *(k.value for k in node.keywords), *receiver, node.func]
    if isinstance(node, ast.Attribute):
        return [node.value]
    if isinstance(node, ast.Subscript):
        return [node.value, node.slice]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, (ast.Await, ast.Starred, ast.NamedExpr)):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return list(node.elts)
    return []


def _usable(part: ast.AST) -> bool:
    return isinstance(part, ast.expr) and not isinstance(part, (ast.Starred, ast.Slice)) and hasattr(part, "lineno")


def child_edits(source: Source, node: ast.expr, name: str) -> list[Edit]:
    start, end = source.span(node)
    edits = []
    statement_value = is_statement_value(source, node)
    for part in parts(node):
        if not _usable(part) or (statement_value and not isinstance(part, (ast.Call, ast.Await))):
            continue
        kept = source.span(part)
        wrap = "{}" if fits(part, source.text[kept[0]:kept[1]], node) else "({})"
        weight = (end - start) - (kept[1] - kept[0])
        edits.append(Edit((replace_with_span(start, end, kept, wrap),), name, weight=weight))
    return edits


@register
class ReplaceWithPart(ReductionPass):
    name = "replace expressions by a part"
    group = 3

    remembers_needed = True
    prior = 0.4

    def propose(self, ctx: PassContext) -> list[Edit]:
        edits: list[Edit] = []
        for node in replaceable_expressions(ctx.source.tree, worth_replacing=True):
            if not ctx.is_frozen(node):
                edits.extend(child_edits(ctx.source, node, self.name))
        return edits


_SIMPLE = (ast.Constant, ast.Name)


@register
class ReplaceWithConstant(ReductionPass):
    name = "replace expressions by a constant"
    group = 3
    order = 1

    remembers_needed = True
    prior = 0.4

    def propose(self, ctx: PassContext) -> list[Edit]:
        edits: list[Edit] = []
        for node in replaceable_expressions(ctx.source.tree, worth_replacing=True):
            if isinstance(node, (*_SIMPLE, ast.Starred)) or ctx.is_frozen(node) or is_statement_value(ctx.source, node):
                continue
            start, end = ctx.source.span(node)
            if end - start > 1:
                edits.append(Edit((replace(start, end, "0"),), self.name, weight=end - start - 1))
        return edits
