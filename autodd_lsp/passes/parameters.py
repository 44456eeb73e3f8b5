"""Remove a function parameter together with the matching argument at every call site.

Dropping a parameter alone would break every caller; dropping it with its
arguments keeps the program well-formed and leaves nothing behind (the
reference tool instead adds `*args, **kwargs` to every function, which stays in
its output).

A parameter the failing statement reads stays (`PassContext.failing_parameters`): the
line the user saw keeps reading it, never a value written in its place or a name left
unbound.

Where the original's run saw the parameter take one simple value (see
autodd_lsp.values), a second edit also writes that value where the function
reads the parameter: `def kernel(..., dtype)` called with `"float16"` loses
`dtype`, and its uses (nested kernel bodies included) read `"float16"`.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from typing import Literal

from autodd_lsp.passes.base import (
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    register,
)
from autodd_lsp.passes.constants import literal_patch, usable_here
from autodd_lsp.passes.elements import parameter_spans, removal_span
from autodd_lsp.syntax.bindings import FUNCTIONS
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Source, Span


def call_sites(tree: ast.AST) -> dict[str, list[ast.Call]]:
    """Calls by the name they use: `f(...)` and `obj.f(...)` both count for `f`."""
    calls: dict[str, list[ast.Call]] = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                calls[node.func.id].append(node)
            elif isinstance(node.func, ast.Attribute):
                calls[node.func.attr].append(node)
    return calls


def callee_name(source: Source, func) -> str:
    """The name calls use for `func`: a class's name for its `__init__`."""
    parent = source.parents.get(func)
    if func.name == "__init__" and isinstance(parent, ast.ClassDef):
        return parent.name
    return func.name


def _is_method(source: Source, func: ast.AST) -> bool:
    return isinstance(source.parents.get(func), ast.ClassDef)


def argument_removal(source: Source, call: ast.Call, name: str, index: int | None) -> Span | Literal[False] | None:
    """The span to delete at a call site; None if nothing is passed; False if unknowable."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    elements: list[ast.expr | ast.keyword] = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    spans = [source.span(n) for n in elements]
    target: ast.expr | ast.keyword | None = None
    if index is not None and index < len(call.args):
        target = call.args[index]
    else:
        target = next((k for k in call.keywords if k.arg == name), None)
    if target is None:
        return None
    return removal_span(source, spans, elements.index(target))


def parameter_edit(source: Source, func, param_index: int, calls: list[ast.Call], pass_name: str) -> Edit | None:
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    named = positional + list(args.kwonlyargs)
    param = named[param_index]
    method = _is_method(source, func)
    if method and param_index == 0 and positional:
        return None  # self / cls
    call_index = param_index - (1 if method else 0) if param_index < len(positional) else None
    patches = [delete(*removal_span(source, parameter_spans(source, args), param_index))]
    for call in calls:
        span = argument_removal(source, call, param.arg, call_index)
        if span is False:  # `f(*args)`: what it passes is unknowable; the parameter alone may go
            del patches[1:]
            break
        if span is not None:
            patches.append(delete(*span))
    weight = sum(p.end - p.start for p in patches)
    return Edit(tuple(patches), pass_name, weight=weight)


def specialized(ctx: PassContext, func, param_index: int, removal: Edit) -> Edit | None:
    """`removal` plus the parameter's one recorded value written at each of its uses."""
    args = func.args
    param = [*args.posonlyargs, *args.args, *args.kwonlyargs][param_index]
    recorded = ctx.values.parameter(ctx.source.span(param)) if ctx.values is not None else None
    if recorded is None or recorded.literal is None or not recorded.unique or not usable_here(ctx, recorded):
        return None
    removed = [(p.start, p.end) for p in removal.patches]
    patches = list(removal.patches)
    weight = removal.weight
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id == param.arg and isinstance(node.ctx, ast.Load):
            start, end = ctx.source.span(node)
            if any(s <= start and end <= e for s, e in removed):
                continue
            if ctx.parameter_of(node) is not param:
                continue  # an inner function's own parameter of that name
            made = literal_patch(ctx.source, node, recorded.literal, ctx.quote)
            if made is None:
                return None
            patches.append(made[0])
            weight += made[1]
        elif isinstance(node, ast.Name) and node.id == param.arg:
            return None  # assigned in the body: not one value
    return Edit(tuple(sorted(patches, key=lambda p: p.start)), removal.pass_name, weight=weight)


@register
class RemoveParameters(ReductionPass):
    name = "remove parameters with their arguments"
    group = Group.CANONICALIZE
    uses_values = True
    uses_map = True
    remembers_needed = Remembers.BY_NAMES

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        calls = call_sites(source.tree)
        edits: list[Edit] = []
        for func in ast.walk(source.tree):
            if not isinstance(func, FUNCTIONS) or ctx.is_frozen(func):
                continue
            params = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
            for index, param in enumerate(params):
                if id(param) in ctx.failing_parameters:
                    continue  # the failing statement reads it: it stays, by its name
                edit = parameter_edit(source, func, index, calls.get(callee_name(source, func), []), self.name)
                if edit is not None:
                    edits.append(edit)
                    with_value = specialized(ctx, func, index, edit)
                    if with_value is not None:
                        edits.append(with_value)
        return edits
