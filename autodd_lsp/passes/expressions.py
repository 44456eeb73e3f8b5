"""Replace an expression by one of its parts.

`f(a, b)` becomes `a` or `b` (a call by an argument), `x.m()` becomes `x`, `x.y` becomes `x`,
`a + b` becomes `a` or `b`, `c if t else d` becomes `c` or `d`, and so on. Parts get
parentheses where their new place needs them. A tuple, list or set display does not
become one of its elements (a number where a shape was: `(64, 32)` -> `64`); the element
pass drops elements and keeps the container. A call becomes its callee only as a
decorator (`@dataclass(frozen=True)` -> `@dataclass`): elsewhere a function or class
where its result was is a value no real program has (`math.sqrt(d)` -> `math.sqrt`), and
such candidates were refused 213 times in 220 on five corpus programs; the 7 accepted
were steps on code that later went whole. Which expressions are worth replacing
(`replaceable_expressions`) is shared with the constant and literal passes
(constants.py, literals.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from autodd_lsp.passes.base import (
    MOSTLY_NEEDED,
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    annotations_of,
    register,
)
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.patch import Edit, replace_with_span
from autodd_lsp.syntax.precedence import fits
from autodd_lsp.syntax.source import Source
from autodd_lsp.values.recorded import is_tensor_value


def replaceable_expressions(tree: ast.AST, *, worth_replacing: bool = False, source: Source | None = None) -> Iterator[ast.expr]:
    """Expressions whose text can be swapped: not assignment targets.

    With `worth_replacing`, also skip the callee of a call: `0(...)` and `x(...)`
    for `x.f(...)` never help (the call's own parts cover the receiver).
    Annotations are never entered: one is kept whole or dropped, not rewritten.
    An f-string is an expression like any other; the expressions inside it only
    with `source`, and only where their position is right (before Python 3.12
    positions inside f-strings can be off): their text must parse to them.
    """

    def visit(node: ast.AST, skip: bool) -> Iterator[ast.expr]:
        if isinstance(node, ast.JoinedStr):
            if not skip:
                yield node
            if source is not None:
                for part in node.values:
                    if isinstance(part, ast.FormattedValue) and _placed_right(source, part.value):
                        yield from visit(part.value, False)
            return
        assignable = isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del))
        if isinstance(node, ast.expr) and assignable and not skip:
            yield node
        annotations = annotations_of(node)
        for child in ast.iter_child_nodes(node):
            if any(child is a for a in annotations):
                continue
            callee = worth_replacing and isinstance(node, ast.Call) and child is node.func
            yield from visit(child, callee)

    yield from visit(tree, False)


def _placed_right(source: Source, node: ast.expr) -> bool:
    try:
        parsed = parse(source.segment(node).strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return False
    return ast.dump(parsed) == ast.dump(node)


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
    return []  # a display's elements: "remove list elements" drops them, the container stays


def _usable(part: ast.AST) -> bool:
    return isinstance(part, ast.expr) and not isinstance(part, (ast.Starred, ast.Slice)) and hasattr(part, "lineno")


_NAMESPACES = ("module", "class")


def stands_in(ctx: PassContext | None, part: ast.expr, whole: ast.expr) -> bool:
    """May `part` stand where `whole` was? Not a module or class where a value or an
    instance was (`torch.zeros(3)` -> `torch`, `Config()` -> `Config`), nor a function
    where a recorded value was, nor anything but a tensor where the run saw a tensor
    (`torch.zeros(64, 32)` -> `64`, `model(x)` -> `model`: a program with a number where
    its tensor was is not the user's, whatever it raises)."""
    if ctx is None:
        return True
    if _tensor(ctx, whole) and not _tensor(ctx, part):
        return False
    part_kind = ctx.kind_of(part)
    if part_kind in _NAMESPACES:
        return ctx.kind_of(whole) in _NAMESPACES
    if part_kind == "function":
        return ctx.kind_of(whole) not in ("value", "instance")
    return True


def _taken_from(whole: ast.expr, part: ast.expr) -> bool:
    """`part` names the object `whole` asked something of: a method call's receiver
    (`parser.parse_args()` -> `parser`), a keyword's value (`Box(size=n)` -> `n`); or it is a
    subscript's index, named or not (`table[key]` -> `key`, `tokens[0]` -> `0`). Such a part
    stands in where the run saw the same kind of thing (`x.float()` -> `x`, both tensors);
    without that record, these kinds of part were kept 3 times in 187 single-edit candidates
    on four corpus programs (two of them receivers that are not names, and still offered:
    `' '.join(...)` -> `' '`, `raw.split("#", 1)[0].strip()` -> `raw.split("#", 1)[0]`). An attribute's object is
    offered (`self._subparsers` -> `self` went on argparse_large: the same object by then,
    once `add_argument_group` returned `self`)."""
    if isinstance(whole, ast.Subscript):
        return part is whole.slice  # a key, named or not, where its entry was: `tokens[0]` -> `0`
    if not _names_an_object(part):
        return False
    return isinstance(whole, ast.Call) and ((isinstance(whole.func, ast.Attribute) and part is whole.func.value)
                                            or any(part is keyword.value for keyword in whole.keywords))


def _names_an_object(node: ast.expr) -> bool:
    """A name or an attribute chain on one (`cfg`, `self.section.items`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _same_kind(ctx: PassContext | None, part: ast.expr, whole: ast.expr) -> bool:
    """The run recorded `part` and `whole` as the same kind of thing."""
    return ctx is not None and ctx.recorded(part) is not None and ctx.recorded(whole) is not None and not unlike(ctx, part, whole)


def _tensor(ctx: PassContext, node: ast.expr) -> bool:
    """Whether the run recorded `node` as a tensor."""
    found = ctx.recorded(node)
    return found is not None and is_tensor_value(found.literal or "")


def child_edits(source: Source, node: ast.expr, name: str, ctx: PassContext | None = None) -> list[Edit]:
    start, end = source.span(node)
    edits = []
    statement_value = is_statement_value(source, node)
    callee = node.func if isinstance(node, ast.Call) and not _decorator(source, node) else None
    for part in parts(node):
        if not _usable(part) or (statement_value and not isinstance(part, (ast.Call, ast.Await))):
            continue
        if part is callee:
            continue
        if not stands_in(ctx, part, node) or (_taken_from(node, part) and not _same_kind(ctx, part, node)):
            continue
        kept = source.span(part)
        wrap = "{}" if fits(part, source.text[kept[0]:kept[1]], node) else "({})"
        weight = (end - start) - (kept[1] - kept[0])
        edits.append(Edit((replace_with_span(start, end, kept, wrap),), name, weight=weight,
                          likely_refused=ctx is not None and not statement_value and unlike(ctx, part, node)))
    return edits


def _decorator(source: Source, node: ast.expr) -> bool:
    parent = source.parents.get(node)
    return any(node is d for d in getattr(parent, "decorator_list", ()))


def unlike(ctx: PassContext, part: ast.expr, whole: ast.expr) -> bool:
    """The run recorded `part` and `whole` as different kinds of thing (an instance where a
    value was: `cfg.d_model` -> `cfg`), or as values written differently (a string where a
    number was: `len(name)` -> `name`): such a part rarely stands in while the code around
    it stays (unless nothing reads the whole: a statement's value, which the caller
    leaves out)."""
    mine, theirs = ctx.recorded(part), ctx.recorded(whole)
    if mine is None or theirs is None:
        return False
    if mine.kind != theirs.kind:
        return True
    return mine.kind == "value" and _written_as(mine.literal) != _written_as(theirs.literal)


def _written_as(literal: str | None) -> str | None:
    """What a recorded value's text starts as: a number, or its first character (a quote, a
    bracket, a letter); None: no text recorded."""
    if not literal:
        return None
    return "number" if literal[0].isdigit() or literal[0] == "-" else literal[0]


@register
class ReplaceWithPart(ReductionPass):
    name = "replace expressions by a part"
    group = Group.SIMPLIFY
    order = 0
    rewrites_expressions = True

    remembers_needed = Remembers.BY_STATEMENT
    prior = MOSTLY_NEEDED

    uses_values = True

    def propose(self, ctx: PassContext) -> list[Edit]:
        edits: list[Edit] = []
        for node in replaceable_expressions(ctx.source.tree, worth_replacing=True, source=ctx.source):
            if not ctx.is_frozen(node) and not is_tensor_value(ctx.source.segment(node)):
                edits.extend(child_edits(ctx.source, node, self.name, ctx))
        return edits
