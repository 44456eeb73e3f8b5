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
Not where the program reports the failure itself (its values are withheld: the mistake may lie
in any input of its own check, `check_gemm(32, k_extent(32))` with a `k_extent` that doubles).
Every value must have been recorded in full (a number, a short string, a tensor's shape
and dtype: `values/recorded.py`); a list or a dict was not, and then nothing is offered.
A method that needs state earlier calls built (a heap's array filled by inserts) is also
offered with that state written in, where the run recorded it as plain data:

    priority_queue = PriorityQueue()
    priority_queue.array = [(3, 3), (4, 1), (9, 4)]
    priority_queue.cur_size = 3
    priority_queue.min_heapify(0)

The callers, the loop over the blocks, the model that held it: what no longer runs goes
with the statement pass that follows (attributes the failure does not read too). The judge
decides, as for every edit: a candidate whose failure differs is refused.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.passes.constants import in_quotes
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
    return in_quotes(found.literal, ctx.quote)  # a recorded repr, its strings in the user's quotes


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


def _the_calls(ctx: PassContext, func: ast.FunctionDef, cls: ast.ClassDef | None) -> list[str]:
    """The code that calls `func` as the failing call did: the call alone, and for a method
    whose instance had plain data in its state (a heap's array, a counter) also the instance
    built, that state written into it, and then called (the statement pass keeps what the
    failure needs of it)."""
    if ctx.is_frozen(func):
        return []
    if func.name == "__init__" and cls is not None:
        built = _constructor(ctx, cls)  # the failure is in building the instance: build it
        return [] if built is None else [built]
    if func.name.startswith("__"):
        return []
    arguments = _arguments(ctx, func, skip_self=cls is not None)
    if arguments is None:
        return []
    if cls is None:
        return [f"{func.name}({arguments})"]
    instance = _constructor(ctx, cls)
    if instance is None:
        return []
    # a module's forward is called through the instance, as its users call it
    calls = [f"{instance}({arguments})" if func.name == "forward" else f"{instance}.{func.name}({arguments})"]
    state = _state(ctx, func)
    if state:
        name = fresh_name(ctx, cls.name)
        lines = [f"{name} = {instance}",
                 *(f"{name}.{attribute} = {in_quotes(text, ctx.quote)}" for attribute, text in state)]
        lines.append(f"{name}({arguments})" if func.name == "forward" else f"{name}.{func.name}({arguments})")
        calls.append("\n".join(lines))
    return calls


def _state(ctx: PassContext, func: ast.FunctionDef) -> tuple[tuple[str, str], ...]:
    positional = [*func.args.posonlyargs, *func.args.args]
    if ctx.values is None or not positional:
        return ()
    return ctx.values.state(ctx.source.span(positional[0])) or ()


def fresh_name(ctx: PassContext, class_name: str, used: set[str] | None = None) -> str:
    """`PriorityQueue` -> `priority_queue`, with `_` added while the module uses the name
    (or while `used` holds it)."""
    name = "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(class_name))
    if used is None:
        used = {n.id for n in ast.walk(ctx.source.tree) if isinstance(n, ast.Name)}
        used |= {n.name for n in ast.walk(ctx.source.tree) if isinstance(n, (*_FUNCTIONS, ast.ClassDef))}
    while name in used or not name.isidentifier():
        name += "_"
    return name


def route_start(ctx: PassContext) -> ast.stmt | None:
    """The last statement at the module's level that ran (inside `if __name__ == "__main__":`
    too): where the failure's route begins. A statement the map does not know (its text begins
    with what came from elsewhere: `Transformer.from_model_args(1)(...)`, once `model` was
    inlined into `model(tokens)`) counts; one it says never ran does not. None where it holds
    the failing statement (where one is known: a printed failure has none)."""
    values = ctx.values
    if values is None:
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
    if last is None or (ctx.failing and _holds(ctx, last)) or _is_main_guard(last) or not ctx.source.owns_its_lines(last):
        return None
    return last


def _is_main_guard(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test)


@register
class CallTheFailingFunction(ReductionPass):
    name = "call the failing function directly"
    group = Group.STATEMENTS
    order = -2  # first of all: the route goes in one candidate, before passes that change the
    # failing function's parameters (one that reads a global of the route's loop loses it) or
    # remove the route's statements one at a time
    uses_values = True

    def propose(self, ctx: PassContext) -> list[Edit]:
        found = failing_function(ctx)
        start = route_start(ctx)
        if found is None or start is None:
            return []
        return route_edits(ctx, start, _the_calls(ctx, *found), self.name)


def route_edits(ctx: PassContext, start: ast.stmt, calls: list[str], name: str) -> list[Edit]:
    """Edits that put each of `calls` (code, one or more lines) in place of the route's start,
    each also with what goes with the route (`dead_after`); none once one of them is there."""
    source: Source = ctx.source
    first, end = source.line_start(start.lineno), source.line_end(last_line(start))
    indent = source.indent_of_line(start.lineno)
    with_dead, plain = [], []
    for call in calls:
        text = "".join(indent + line + "\n" for line in call.split("\n"))
        if source.text[first:end] == text:
            return []  # the route is gone already
        call_patch = Patch(first, end, _constant(text))
        alone = Edit((call_patch,), name, weight=max(1, end - first - len(text)))
        plain.append(alone)
        dead = [source.stmt_lines_span(d) for d in dead_after(ctx, start, call)]
        if dead:
            # with the definitions only the route used: the call alone is often longer than
            # the statement it replaces (`Classifier()()`), and a candidate must be smaller
            patches = sorted([call_patch, *(delete(*span) for span in dead)], key=lambda p: p.start)
            with_dead.append(Edit(tuple(patches), name, weight=alone.weight + sum(e - s for s, e in dead)))
    return [*with_dead, *plain]


def _constant(text: str) -> Callable[[Callable[[int, int], str]], str]:
    return lambda render: text


def dead_after(ctx: PassContext, start: ast.stmt, call: str) -> list[ast.stmt]:
    """What goes with the route once `start` is `call`: the statements before it at its level
    that only build the route (they bind names nothing kept reads, or act on what those bind:
    `depot = Graph()`, `for stop in stops: depot.add_edge(stop)`), then the top-level defs and
    classes nothing kept reads, through the definitions they reach. A statement that binds
    nothing and touches none of the route's names (`torch.manual_seed(0)`) stays."""
    tree = ctx.source.tree
    defined: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            defined[node.name] = node if node.name not in defined else start  # twice: never dead
    others = [s for s in _module_statements(tree) if s is not start]
    before = {id(s) for s in route_body(tree, start)}
    route = [s for s in others if id(s) in before and ctx.source.owns_its_lines(s) and not ctx.is_frozen(s)]
    call_reads = _reads(ast.parse(call))
    while True:
        kept = [s for s in others if s not in route]
        wanted = call_reads.union(*(_reads(s) for s in kept))
        live: set[str] = set()
        while wanted:
            name = wanted.pop()
            if name in defined and name not in live:
                live.add(name)
                wanted |= _reads(defined[name])
        needed = call_reads.union(*(_reads(s) for s in kept), *(_reads(defined[n]) for n in live))
        route_names = set().union(*(_binds(s) for s in route))
        still = [s for s in route if not (_binds(s) & needed) and (_binds(s) or _reads(s) & route_names)]
        if len(still) == len(route):
            break
        route = still
    dead_defs = [node for name, node in defined.items() if name not in live and node is not start
                 and not ctx.is_frozen(node) and ctx.source.owns_its_lines(node)]
    return sorted([*route, *dead_defs], key=lambda node: node.lineno)


def _module_statements(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements but definitions and imports, and those of its `__main__` guard
    (in place of the guard)."""
    found = []
    for node in tree.body:
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.If) and _is_main_guard(node):
            found.extend(_module_statements(ast.Module(body=[*node.body, *node.orelse], type_ignores=[])))
        else:
            found.append(node)
    return found


def route_body(tree: ast.Module, start: ast.stmt) -> list[ast.stmt]:
    """The module's statements (`_module_statements`) before `start`."""
    statements = _module_statements(tree)
    return statements[:next((i for i, s in enumerate(statements) if s is start), 0)]


def _binds(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
