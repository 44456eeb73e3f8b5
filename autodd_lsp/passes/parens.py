"""Drop the parentheses a reduction left around a single atom (tidy group).

Replacing `(params["w1"] + bias) @ w2` by a part leaves `(params["w1"]) @ w2`;
removing an element of `size=(32, 32)` leaves `size=(32)`. Parentheses around
a name, a constant, an attribute, a subscript, a call or a display add nothing
there, nor around any expression that is a whole item (a dict's value, a list's
item, a call's argument, a one-line assignment's value: `{"smem": (48 * 1024)}`
once a variable was inlined); nor around a signed number (`int((-1.0))`, where a constant replaced
`(weight - 1.9) // 0.5`), except as the base of `**` (`(-1) ** 2` is 1) or the
object of an attribute, a call or a subscript. Only on the lines the reduction touched (`format.touched_lines`): the
user's own parentheses are the user's text. Not dropped where they are syntax
or meaning: a call's, a def's or a class's parentheses, a number's attribute
(`(1).real`), a string spread over lines, a tuple, a generator.
"""

from __future__ import annotations

import ast
import keyword

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.passes.format import touched_lines
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Source

_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.Dict, ast.Set)


@register
class DropRedundantParentheses(ReductionPass):
    name = "drop redundant parentheses"
    group = Group.TIDY
    order = 5  # after blank lines, before formatting

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        text = source.text
        touched = touched_lines(ctx.original, source) if ctx.original else set()
        edits = []
        for node in ast.walk(source.tree):
            if not isinstance(node, ast.expr) or node.lineno not in touched or ctx.is_frozen(node):
                continue
            if not isinstance(node, (*_ATOMS, ast.UnaryOp)) and not _whole_slot(source, node):
                continue
            if isinstance(node, ast.UnaryOp) and not _signed_number(source, node) and not _whole_slot(source, node):
                continue
            if isinstance(node, ast.Constant) and (isinstance(node.value, (str, bytes)) and node.lineno != node.end_lineno):
                continue
            parent = source.parents.get(node)
            if isinstance(parent, ast.Attribute) and isinstance(node, ast.Constant) and type(node.value) in (int, float):
                continue  # `(1).real`
            start, end = source.span(node)
            opening = _before(text, start)
            closing = _after(text, end)
            if opening is None or closing is None or not _grouping(text, opening):
                continue
            edits.append(Edit((delete(opening, opening + 1), delete(closing, closing + 1)), self.name, weight=2))
        return edits


def _whole_slot(source: Source, node: ast.expr) -> bool:
    """`node` is a whole item where nothing can bind closer: a dict's value, a list's or set's item, a
    call's argument (`{"smem": (48 * 1024)}`, once `SMEM_BYTES = 48 * 1024` was inlined), or on one
    line an assignment's or a return's value; never a tuple, generator, yield, walrus or starred."""
    if isinstance(node, (ast.Tuple, ast.GeneratorExp, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Starred)):
        return False
    parent = source.parents.get(node)
    if isinstance(parent, ast.Dict):
        return any(value is node for value in parent.values)
    if isinstance(parent, (ast.List, ast.Set, ast.keyword)):
        return True
    if isinstance(parent, ast.Call):
        return any(arg is node for arg in parent.args)
    if isinstance(parent, (ast.Assign, ast.Return)):
        return parent.value is node and node.lineno == node.end_lineno
    return False


def _signed_number(source: Source, node: ast.UnaryOp) -> bool:
    """`-1.0`, `+2` where its parentheses do not bind it closer than its place would."""
    if not (isinstance(node.op, (ast.USub, ast.UAdd))
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float, complex)):
        return False
    parent = source.parents.get(node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow) and parent.left is node:
        return False
    return not ((isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node)
                or (isinstance(parent, ast.Call) and parent.func is node))


def _before(text: str, start: int) -> int | None:
    """The offset of a `(` right before `start` (spaces between), or None."""
    at = start - 1
    while at >= 0 and text[at] in " \t":
        at -= 1
    return at if at >= 0 and text[at] == "(" else None


def _after(text: str, end: int) -> int | None:
    at = end
    while at < len(text) and text[at] in " \t":
        at += 1
    return at if at < len(text) and text[at] == ")" else None


def _grouping(text: str, opening: int) -> bool:
    """Whether the `(` at `opening` groups (is not a call's, a def's, a class's, a subscript's)."""
    at = opening - 1
    while at >= 0 and text[at] in " \t":
        at -= 1
    if at < 0 or text[at] in "\n([{,:=+-*/%@<>!&|^~;":
        return True
    if text[at] in ")]}'\"":
        return False  # `f(x)(y)`, `x[0](y)`, a string's call
    word_end = at + 1
    while at >= 0 and (text[at].isalnum() or text[at] == "_"):
        at -= 1
    word = text[at + 1 : word_end]
    return keyword.iskeyword(word) and word not in ("def", "class")
