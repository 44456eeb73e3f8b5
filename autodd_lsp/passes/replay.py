"""Replay the calls the failing instance was given: the dispatcher that made them goes.

    class Interpreter:                               class Inventory:
        def execute(self, command):                      ...
            self.handlers[command.kind](*command.args)   def check_invariants(self): ...  # fails
            self.inventory.check_invariants()
    def main():                                ->    inventory = Inventory()
        commands = parse_script(SCRIPT)              inventory.receive("B-200", 12, Money(725))
        inventory = Inventory()                      inventory.reserve("O1", "B-200", 4)
        Interpreter(inventory).run(commands)         ...
    main()                                           inventory.check_invariants()

The program ended inside methods of some instances (an exception, `sys.exit` in argparse's
`error`): the innermost of them whose story can be written is replayed. Its story is the calls
the program gave it from outside its own methods, in order, each with the values it carried
(`execution/record_stories.py`, `values.Story`). They are written out in place of the route's
start (`route.route_edits`: the parsers, the command objects, the interpreter that
dispatched them go with the route); the statement pass then keeps the calls the failure needs.
The instance is built as the program built it (its `__init__`'s arguments), or named as the
module named it when a module-level statement before the route binds it (`inventory = ...`).
Each call is written for its method as it is then (`written`): a parameter the reduction removed
is left out, so a story recorded once serves every later round.

Offered only for a whole story whose every argument could be written (plain data, a tensor's
shape, a class or function by its name, an instance of the program's built by one call:
`Money(725)`); not for an instance whose class the module does not bind by its name. Also where
the program reports the failure itself (its values are withheld from the other passes): a
story keeps every call the instance was given, with the values the program computed for them,
so the mistake in its methods stays; only the route that produced those calls goes (a mistake in
that route, a parser that got a number wrong, is then a value: the judge refuses the replay when
the failure's operands change, as for every edit).

Dunder calls other than `__init__` and `__call__` (`len`, `repr`, a comparison: the program's
operators made them) are left out of the replay.
"""

from __future__ import annotations

import ast

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.passes.constants import in_quotes
from autodd_lsp.passes.route import fresh_name, route_body, route_edits, route_start
from autodd_lsp.syntax.bindings import bound_name
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.values.recorded import Call, Story

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def replay(ctx: PassContext, start: ast.stmt, cls: ast.ClassDef, story: Story) -> str | None:
    """The story's calls as code (one statement a line) in place of `start`; None where it
    cannot be written whole."""
    if not story.complete or story.class_name != cls.name:
        return None
    calls = story.calls[1:] if story.begun else story.calls
    if story.holder is not None and story.holder in _bound_before(ctx, start):
        name, lines = story.holder, []
    else:
        built = _built(ctx, cls, story)
        if built is None:
            return None
        name = fresh_name(ctx, cls.name, _module_names(ctx.source.tree))
        lines = [f"{name} = {built}"]
    made = len(lines)
    for call in calls:
        if call.method.startswith("__") and call.method != "__call__":
            continue  # a query the program's operators made (`len`, `repr`, a comparison)
        arguments = written(call, _method(ctx, cls, call.method))
        if arguments is None:
            return None
        lines.append(f"{name}({arguments})" if call.method == "__call__" else f"{name}.{call.method}({arguments})")
    if len(lines) == made:
        return None  # no call to replay
    return "\n".join(in_quotes(line, ctx.quote) for line in lines)


def written(call: Call, func: ast.FunctionDef | None) -> str | None:
    """`call`'s arguments for the method as it is now (`func`): by position up to the first one
    left out (a default, or a parameter the reduction removed), then by keyword; None where a
    value could not be written or the method now needs one the story lacks."""
    if func is None:
        return None
    arguments = func.args
    values = {name: (text, default) for name, text, default in call.named}
    now_positional = [*arguments.posonlyargs, *arguments.args][1:]
    with_default = {a.arg for a in [*arguments.posonlyargs, *arguments.args][-len(arguments.defaults):]} \
        if arguments.defaults else set()
    with_default |= {a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None}
    texts: list[str] = []
    by_keyword = False
    for param in [*now_positional, *arguments.kwonlyargs]:
        text, default = values.get(param.arg, (None, True))
        if default and param.arg in with_default and not (call.star and param in now_positional):
            by_keyword = True  # left out: what follows names its parameter (`*args` need them all)
            continue
        if text is None:
            return None
        keyword = by_keyword or param in arguments.kwonlyargs
        texts.append(f"{param.arg}={text}" if keyword else text)
    if call.star:
        if arguments.vararg is None or None in call.star:
            return None
        texts[len(now_positional):len(now_positional)] = [t for t in call.star if t is not None]
    if call.double:
        if arguments.kwarg is None or any(t is None or not k.isidentifier() for k, t in call.double):
            return None
        texts += [f"{key}={text}" for key, text in call.double]
    return ", ".join(texts)


def _method(ctx: PassContext, cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    """The def of `name` in `cls` or, through the bases the module defines, the one it inherits."""
    pending, seen = [cls], set()
    while pending:
        current = pending.pop(0)
        if current.name in seen:
            continue
        seen.add(current.name)
        found = next((n for n in current.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
        if found is not None:
            return found
        pending += [c for b in current.bases if isinstance(b, ast.Name) and (c := _top_class(ctx, b.id)) is not None]
    return None


def _built(ctx: PassContext, cls: ast.ClassDef, story: Story) -> str | None:
    """How the replay builds the instance: its `__init__` call as the class is now, or `Cls()`
    for a plain class without one."""
    init = _method(ctx, cls, "__init__")
    if story.begun and init is not None:
        arguments = written(story.calls[0], init)
        return None if arguments is None else f"{cls.name}({arguments})"
    plain = not cls.decorator_list and all(isinstance(b, ast.Name) and _top_class(ctx, b.id) for b in cls.bases)
    return f"{cls.name}()" if plain and init is None and not cls.keywords else None


def _bound_before(ctx: PassContext, start: ast.stmt) -> set[str]:
    """Names a simple assignment at the module's level (its `__main__` block's too) binds before `start`."""
    return {t.id for statement in route_body(ctx.source.tree, start) if isinstance(statement, ast.Assign)
            for t in statement.targets if isinstance(t, ast.Name)}


def _module_names(tree: ast.Module) -> set[str]:
    """The names the module's own level binds or reads (not a function's locals)."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add(bound_name(node))
        pending.extend(ast.iter_child_nodes(node))
    return names


@register
class ReplayTheCalls(ReductionPass):
    name = "replay the calls the failing instance was given"
    group = Group.STATEMENTS
    order = -1  # after the route's direct call (a state written in is shorter than the calls that built it)
    uses_values = True

    def propose(self, ctx: PassContext) -> list[Edit]:
        start = route_start(ctx) if ctx.values is not None else None
        if start is None or ctx.values is None:
            return []
        here = ctx.source.text[slice(*ctx.source.span(start))].strip()
        for story in ctx.values.values.ending:  # innermost first: the first that can be written
            cls = _top_class(ctx, story.class_name)
            code = None if cls is None or ctx.is_frozen(cls) else replay(ctx, start, cls, story)
            if code is None:
                continue
            if here in code.split("\n"):
                return []  # the route is a replay already
            return route_edits(ctx, start, [code], self.name)
        return []


def _top_class(ctx: PassContext, name: str | None) -> ast.ClassDef | None:
    return next((n for n in ctx.source.tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
