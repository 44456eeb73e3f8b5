"""Call the failing function directly: the route to it goes.

    class Block(nn.Module):                        class Block(nn.Module):
        def forward(self, x, mask):                    def forward(self, x, mask):
            return self.ffn(x)                             return self.ffn(x)
    class Projection(nn.Module):                   class Projection(nn.Module):
        def forward(self, x):                          def forward(self, x):
            return self.down(x)   # fails                  return self.down(x)   # fails
    model = Classifier()                    ->     model = Classifier()
    model(ids, mask)                               Projection()(torch.zeros((16, 24, 32)))

The function that holds the original's failing statement (`PassContext.failing`) is called
with the values its parameters had at their last call in the original's run (the failing
call's, unless the function was entered again before it failed), in place of the last
statement of the module that ran (the one the failure came through, at the top of its
route). A method is called on a new instance of its class, built with the values its
`__init__` had last (a module's `forward` through the instance, as a person calls it); a
failing `__init__` is the class called with them.
Every value must have been recorded in full (a number, a short string, a tensor's shape
and dtype: `values/recorded.py`); a list or a dict was not, and then nothing is offered.
The callers, the loop over the blocks, the model that held it: what no longer runs goes
with the statement pass that follows. The judge decides, as for every edit: a method that
needs state an earlier call built (a heap's array filled by inserts) fails otherwise, and
the edit is refused.
"""

from __future__ import annotations

import ast

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.syntax.patch import Edit, Patch, delete
from autodd_lsp.syntax.source import Source, last_line

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def failing_function(ctx: PassContext) -> tuple[ast.FunctionDef, ast.ClassDef | None] | None:
    """The innermost def around the failing statement, with its class when it is a method;
    None unless it stands at the top level of the module or of a top-level class."""
    if not ctx.failing:
        return None
    for node in ctx.source.tree.body:
        if isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef) and _holds(ctx, inner):
                    return (inner, node) if _only_def_around(ctx, inner) else None
        elif isinstance(node, ast.FunctionDef) and _holds(ctx, node):
            return (node, None) if _only_def_around(ctx, node) else None
    return None


def _holds(ctx: PassContext, node: ast.stmt | ast.expr) -> bool:
    start, end = ctx.source.span(node)
    return start <= ctx.failing[0] < end


def _only_def_around(ctx: PassContext, func: ast.FunctionDef) -> bool:
    """No def or lambda inside `func` holds the failing statement (it would be the one that fails)."""
    return not any(isinstance(node, (*_FUNCTIONS, ast.Lambda)) and _holds(ctx, node)
                   for node in ast.walk(func) if node is not func and isinstance(node, (ast.stmt, ast.expr)))


def _arguments(ctx: PassContext, func: ast.FunctionDef, skip_self: bool) -> str | None:
    """The call's arguments: each parameter's one value in the original's run, written out."""
    args = func.args
    if args.vararg or args.kwarg or func.decorator_list:
        return None
    positional = [*args.posonlyargs, *args.args][1 if skip_self else 0:]
    if skip_self and not [*args.posonlyargs, *args.args]:
        return None
    texts = []
    for param in positional:
        text = _value(ctx, param)
        if text is None:
            return None
        texts.append(text)
    for param in args.kwonlyargs:
        text = _value(ctx, param)
        if text is None:
            return None
        texts.append(f"{param.arg}={text}")
    return ", ".join(texts)


def _value(ctx: PassContext, param: ast.arg) -> str | None:
    found = ctx.values.parameter(ctx.source.span(param)) if ctx.values is not None else None
    if found is None or found.literal is None:
        return None
    return found.literal


def _constructor(ctx: PassContext, cls: ast.ClassDef) -> str | None:
    """`Cls(<its __init__'s values>)`; None where they are not all known or the class is decorated."""
    if cls.decorator_list:
        return None
    init = next((n for n in cls.body if isinstance(n, _FUNCTIONS) and n.name == "__init__"), None)
    if init is None:
        return f"{cls.name}()"
    if not isinstance(init, ast.FunctionDef):
        return None
    arguments = _arguments(ctx, init, skip_self=True)
    return None if arguments is None else f"{cls.name}({arguments})"


def _the_call(ctx: PassContext, func: ast.FunctionDef, cls: ast.ClassDef | None) -> str | None:
    if ctx.is_frozen(func):
        return None
    if func.name == "__init__" and cls is not None:
        return _constructor(ctx, cls)  # the failure is in building the instance: build it
    if func.name.startswith("__"):
        return None
    arguments = _arguments(ctx, func, skip_self=cls is not None)
    if arguments is None:
        return None
    if cls is None:
        return f"{func.name}({arguments})"
    instance = _constructor(ctx, cls)
    if instance is None:
        return None
    # a module's forward is called through the instance, as its users call it
    return f"{instance}({arguments})" if func.name == "forward" else f"{instance}.{func.name}({arguments})"


def route_start(ctx: PassContext) -> ast.stmt | None:
    """The last statement at the module's level that ran (inside `if __name__ == "__main__":`
    too): where the failure's route begins. A statement the map does not know (its text begins
    with what came from elsewhere: `Transformer.from_model_args(1)(...)`, once `model` was
    inlined into `model(tokens)`) counts; one it says never ran does not. None where it holds
    the failure."""
    values = ctx.values
    if values is None or not ctx.failing:
        return None
    body: list[ast.stmt] = ctx.source.tree.body
    last = None
    while True:
        ran_here = [s for s in body if not isinstance(s, (*_FUNCTIONS, ast.ClassDef, ast.Import, ast.ImportFrom))
                    and values.ran(ctx.source.span(s)[0]) is not False]
        if not ran_here:
            break
        last = ran_here[-1]
        if not isinstance(last, ast.If) or not _is_main_guard(last):
            break
        body = last.body
    if last is None or _holds(ctx, last) or _is_main_guard(last) or not ctx.source.owns_its_lines(last):
        return None
    return last


def _is_main_guard(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test)


@register
class CallTheFailingFunction(ReductionPass):
    name = "call the failing function directly"
    group = Group.SIMPLIFY
    order = -2  # before inlining: the route it replaces need not be inlined first
    uses_values = True

    def propose(self, ctx: PassContext) -> list[Edit]:
        found = failing_function(ctx)
        start = route_start(ctx)
        if found is None or start is None:
            return []
        call = _the_call(ctx, *found)
        if call is None:
            return []
        source: Source = ctx.source
        first, end = source.line_start(start.lineno), source.line_end(last_line(start))
        text = source.indent_of_line(start.lineno) + call + "\n"
        if source.text[first:end] == text:
            return []
        call_patch = Patch(first, end, lambda render: text)
        plain = Edit((call_patch,), self.name, weight=max(1, end - first - len(text)))
        dead = [source.stmt_lines_span(d) for d in dead_after(ctx, start, call)]
        if not dead:
            return [plain]
        # with the definitions only the route used: the call alone is often longer than the
        # statement it replaces (`Classifier()()`), and a candidate must be smaller
        patches = sorted([call_patch, *(delete(*span) for span in dead)], key=lambda p: p.start)
        weight = plain.weight + sum(e - s for s, e in dead)
        return [Edit(tuple(patches), self.name, weight=weight), plain]


def dead_after(ctx: PassContext, start: ast.stmt, call: str) -> list[ast.stmt]:
    """The top-level defs and classes nothing reads once `start` is `call`: from the module's
    other statements and the call, by the names they read, through the definitions they reach."""
    tree = ctx.source.tree
    defined: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            defined[node.name] = node if node.name not in defined else start  # twice: never dead
    inside_start = {id(n) for n in ast.walk(start)}
    wanted = _reads(ast.parse(call))
    for node in tree.body:
        if not isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            wanted |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in inside_start}
    live: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name in defined and name not in live:
            live.add(name)
            wanted |= _reads(defined[name])
    return [node for name, node in defined.items() if name not in live and node is not start
            and not ctx.is_frozen(node) and ctx.source.owns_its_lines(node)]


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
