"""Replace an expression by a plain constant: the value it had when the original ran, else `0`
where the run never needed its value.

Also home to writing a recorded value into the program (`literal_patch`, in the
user's quotes; `usable_here`: a tensor's value needs `torch`), which the parameter
and compound passes use too. Which expressions are worth replacing comes from
expressions.py.
"""

from __future__ import annotations

import ast
import io
import tokenize

from autodd_lsp.oracle.degenerate import SHAPE_TAKERS
from autodd_lsp.passes.base import (
    MOSTLY_NEEDED,
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    register,
)
from autodd_lsp.passes.expressions import is_statement_value, replaceable_expressions
from autodd_lsp.syntax.bindings import parameters
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.patch import Edit, replace
from autodd_lsp.syntax.precedence import fits
from autodd_lsp.syntax.source import Source, own_nodes
from autodd_lsp.values.recorded import TENSOR_PREFIX, is_tensor_value

_SIMPLE = (ast.Constant, ast.Name)


def in_shape_position(source: Source, node: ast.expr) -> bool:
    """An element of a tuple or list display, or an argument of a shape taker: 0 there is a zero-sized shape."""
    parent = source.parents.get(node)
    if isinstance(parent, (ast.Tuple, ast.List)):
        return True
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return callee in SHAPE_TAKERS
    return False


def usable_here(ctx: PassContext, recorded) -> bool:
    """A tensor's `torch.zeros(...)` needs the name `torch` bound to the module."""
    return not recorded.literal.startswith(TENSOR_PREFIX) or ctx.static_kinds.get("torch") == "module"


def in_quotes(literal: str, quote: str) -> str:
    """`literal` (a `repr`) with its plain strings in the user's quotes, where that changes nothing else."""
    want, other = ('"', "'") if quote == "double" else ("'", '"') if quote == "single" else (None, None)
    if want is None or other is None or other not in literal:
        return literal
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(literal).readline))
    except (tokenize.TokenError, SyntaxError):
        return literal
    out, last = [], 0
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        body = token.string
        start = token.start[1]
        if body[:1] == other and body[:3] != other * 3 and want not in body and "\\" not in body:
            out.append(literal[last:start] + want + body[1:-1] + want)
            last = start + len(body)
    return "".join(out) + literal[last:]


def literal_patch(source: Source, node: ast.expr, literal: str, quote: str = "preserve"):
    """Replace `node` by the Python text `literal` (strings in `quote`s), parenthesized where its place needs it."""
    literal = in_quotes(literal, quote)
    start, end = source.span(node)
    try:
        value = parse(literal, mode="eval").body
    except SyntaxError:
        return None
    text = literal if fits(value, literal, node) else f"({literal})"
    return replace(start, end, text), (end - start) - len(text)


def _no_zero_here(ctx: PassContext, node: ast.expr) -> bool:
    """`0` would not stand for a value the run never needed. Where the run map says
    `node`'s statement never ran and the statement is still here, what keeps it is
    something that reads its text (a kernel TileLang traces, a registering decorator),
    not a value; where the values are withheld (the program reports the failure
    itself) and the statement ran, `0` is a result written in place of the program's
    own computation, as a recorded value would be."""
    if ctx.values is None:
        return False
    statement = ctx.source.ancestor(node, ast.stmt)
    if statement is None:
        return False
    ran = ctx.values.ran(ctx.source.span(statement)[0])
    return ran is False or (ran is True and ctx.values.values.withheld)


def _in_the_failing_function(ctx: PassContext, node: ast.expr) -> bool:
    """`node` lies in the def that holds the failing statement. A None computed there is not
    written in as `None`: it carries no data, only the outcome of what produced it (a pointer
    past the end, a lookup that missed), and that is where such a mistake lies. A deque's
    `pop` that set `self._back = self._back.prev_node` (None for its only node) and then wrote
    through it became `self._back = None`: the failure restated, the mistake gone."""
    if not ctx.failing:
        return False
    function = ctx.source.ancestor(node, (ast.FunctionDef, ast.AsyncFunctionDef))  # type: ignore[arg-type]
    if function is None:
        return False
    start, end = ctx.source.span(function)
    return start <= ctx.failing[0] < end


def _a_parameter_as_given(source: Source, node: ast.expr) -> bool:
    """`node` reads a parameter of the function around it, one the function never binds again.
    Its value there is what the callers pass: written in its place, the callers still pass it
    (the parameter stays) and the function no longer reads it. nanoGPT's `forward(self, idx)`,
    called as `model(X, Y)`, became `b, t = torch.zeros((1, 128)).size()` while its caller
    passed `torch.zeros((8, 128))`: larger, and a batch no run had. The parameter pass drops
    a parameter with its arguments, writing its value where it is read, where it finds them."""
    if not isinstance(node, ast.Name):
        return False
    function = source.ancestor(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))  # type: ignore[arg-type]
    if function is None or node.id not in parameters(function):
        return False
    return not any(isinstance(inner, ast.Name) and inner.id == node.id and isinstance(inner.ctx, (ast.Store, ast.Del))
                   for inner in own_nodes(function))


def _dimension_read(node: ast.expr) -> str | None:
    """The number a shape query on a tensor literal reads: `torch.zeros((4, 1)).size(0)`,
    `torch.zeros((4, 1)).shape[-1]`, `len(torch.zeros((4, 1)))`. A recorded tensor written
    where the program read one of its dimensions (`nn.Linear(W.size(0), 1)`, once `W`'s
    value was inlined there) leaves such a query; its number is the same value, plainer."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and len(node.args) == 1 and not node.keywords:
        receiver, at = node.func.value, _number(node.args[0])
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        receiver, at = node.value.value, _number(node.slice)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords:
        receiver, at = node.args[0], 0
    else:
        return None
    shape = _literal_shape(receiver)
    if shape is None or type(at) is not int or not -len(shape) <= at < len(shape):
        return None
    return str(shape[at])


def _literal_shape(node: ast.expr) -> tuple | None:
    """The shape of `torch.zeros((4, 1), ...)` as the values pass writes a tensor."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "zeros"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch" and node.args):
        return None
    shape = _number(node.args[0])
    return shape if isinstance(shape, tuple) and all(type(d) is int for d in shape) else None


def _number(node: ast.expr) -> object:
    """The value `node` writes as a literal (`-1`, `(4, 1)`); None if it is not one."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


@register
class ReplaceWithConstant(ReductionPass):
    """An expression becomes the value it had when the original ran (`cfg.block_K` -> `32`,
    `HIDDEN * 2` -> `128`, `args.dim` -> `64`); an expression the run never evaluated
    becomes `0`, except where 0 would be a zero-sized shape, or where the run map says
    no (`_no_zero_here`). One that held a module, class, function or instance is never
    replaced by a constant."""

    name = "replace expressions by a constant"
    group = Group.SIMPLIFY
    order = 2
    rewrites_expressions = True

    remembers_needed = Remembers.BY_STATEMENT
    prior = MOSTLY_NEEDED
    uses_values = True

    def propose(self, ctx: PassContext) -> list[Edit]:
        edits: list[Edit] = []
        source = ctx.source
        for node in replaceable_expressions(source.tree, worth_replacing=True, source=source):
            if isinstance(node, ast.Starred) or ctx.is_frozen(node) or is_statement_value(source, node):
                continue
            start, end = source.span(node)
            recorded = ctx.recorded(node)
            if recorded is not None and _a_parameter_as_given(source, node):
                continue
            dimension = _dimension_read(node)
            if dimension is not None:
                edits.append(Edit((replace(start, end, dimension),), self.name, weight=end - start - len(dimension)))
                continue
            if recorded is not None:
                if recorded.literal == "None" and _in_the_failing_function(ctx, node):
                    continue
                if recorded.literal is not None and recorded.literal != source.text[start:end] and usable_here(ctx, recorded):
                    made = literal_patch(source, node, recorded.literal, ctx.quote)
                    if made is not None:
                        edits.append(Edit((made[0],), self.name, weight=made[1]))
                continue
            if isinstance(node, _SIMPLE) or in_shape_position(source, node) or end - start <= 1:
                continue
            if _no_zero_here(ctx, node):
                continue
            if is_tensor_value(source.text[start:end]):
                continue  # a value already
            edits.append(Edit((replace(start, end, "0"),), self.name, weight=end - start - 1))
        return edits
