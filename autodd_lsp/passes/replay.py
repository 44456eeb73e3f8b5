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

Offered only for a whole story whose every argument could be written (plain data, a tensor's
shape, a class or function by its name, an instance of the program's built by one call:
`Money(725)`); not for an instance whose class the module does not bind by its name. Also where
the program reports the failure itself (its values are withheld from the other passes): a
story keeps every call and every value the instance was given, so the mistake in its methods,
and in what it was given, stays; only the route that produced those calls goes. The judge
decides, as for every edit.

Dunder calls other than `__init__` and `__call__` (`len`, `repr`, a comparison: the program's
operators made them) are left out of the replay.
"""

from __future__ import annotations

import ast

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.passes.constants import in_quotes
from autodd_lsp.passes.route import fresh_name, route_edits, route_start
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.values.recorded import Story

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
        built = _built(cls, story)
        if built is None:
            return None
        name = fresh_name(ctx, cls.name, _module_names(ctx.source.tree))
        lines = [f"{name} = {built}"]
    made = len(lines)
    for method, arguments in calls:
        if arguments is None:
            return None
        if method == "__call__":
            lines.append(f"{name}({arguments})")
        elif not method.startswith("__"):
            lines.append(f"{name}.{method}({arguments})")
    if len(lines) == made:
        return None  # no call to replay
    return "\n".join(in_quotes(line, ctx.quote) for line in lines)


def _built(cls: ast.ClassDef, story: Story) -> str | None:
    """How the replay builds the instance: its `__init__` call, or `Cls()` for a plain class without one."""
    if story.begun:
        arguments = story.calls[0][1]
        return None if arguments is None else f"{cls.name}({arguments})"
    plain = not cls.bases and not cls.keywords and not cls.decorator_list
    has_init = any(isinstance(n, _FUNCTIONS) and n.name == "__init__" for n in cls.body)
    return f"{cls.name}()" if plain and not has_init else None


def _bound_before(ctx: PassContext, start: ast.stmt) -> set[str]:
    """Names a simple assignment at the module's level binds before `start`."""
    names: set[str] = set()
    for statement in ctx.source.tree.body:
        if statement is start or statement.lineno >= start.lineno:
            break
        if isinstance(statement, ast.Assign):
            names |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
    return names


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
            names.add((node.asname or node.name).split(".")[0])
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
