"""Inline a variable assigned once: its value replaces its uses, the assignment goes.

    a_tile = (block_M, block_K)          ...
    A = T.alloc_shared(a_tile, dtype) -> A = T.alloc_shared((block_M, block_K), dtype)

Only for a plain `name = value` whose name is bound nowhere else in the file
(no other assignment, loop target, parameter, import, global...), and only when
the text gets shorter. A value that calls something (`pd.read_csv("train.csv")`,
`model(x)`) is inlined only into a single use that runs once where the
assignment ran: never copied into two uses (the file would be read twice, the
model run twice) nor into a loop, a function or a comprehension (run again on
every pass, or later). A multi-line value used at another indentation moves with
its lines (a module-level dict's closing brace does not land at column 0 inside
a function).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.syntax.indent import reindent
from autodd_lsp.syntax.patch import Edit, Patch, Render, delete, replace_with_span
from autodd_lsp.syntax.precedence import fits_in
from autodd_lsp.syntax.source import Located, Source


def _bindings_and_uses(tree: ast.AST):
    bound: dict[str, int] = defaultdict(int)
    uses: dict[str, list[ast.Name]] = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                uses[node.id].append(node)
            else:
                bound[node.id] += 1
        elif isinstance(node, ast.arg):
            bound[node.arg] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] += 1
        elif isinstance(node, ast.alias):
            bound[(node.asname or node.name).split(".")[0]] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bound[name] += 2  # never inline across scopes
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound[node.name] += 1
    return bound, uses


def inline_variable(source: Source, assign: ast.Assign, uses: list[ast.Name], name: str) -> Edit | None:
    value = assign.value
    kept = source.span(value)
    text = source.text[kept[0]:kept[1]]
    statement = source.stmt_lines_span(assign, with_comments=False)
    growth = (kept[1] - kept[0] + 2 - len(name)) * len(uses)
    if growth >= statement[1] - statement[0] or not source.owns_its_lines(assign):
        return None
    patches = [delete(*statement)]
    at = source.indent_of_line(assign.lineno)
    for use in uses:
        start, end = source.span(use)
        wrap = "{}" if fits_in(value, text, use, source.parents.get(use)) else "({})"
        there = source.indent_of_line(use.lineno)
        if there == at or "\n" not in text:
            patches.append(replace_with_span(start, end, kept, wrap))
        else:  # a multi-line value moves with its lines: `}` at column 0 would sit inside a block
            patches.append(Patch(start, end, _moved(kept, wrap, at, there), keeps=(kept,)))
    return Edit(tuple(patches), "inline variables", weight=statement[1] - statement[0] - growth)


def _moved(kept: tuple[int, int], wrap: str, old: str, new: str) -> Callable[[Render], str]:
    """The value's text with its continuation lines re-indented from the assignment's
    indentation `old` to the use's `new` (a string's own lines stay as they are)."""
    def build(render: Render) -> str:
        return reindent(old + wrap.format(render(*kept)), old, new)[len(new):]

    return build


@register
class InlineVariables(ReductionPass):
    name = "inline variables"
    group = Group.SIMPLIFY
    order = 1
    rewrites_expressions = True

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        bound, uses = _bindings_and_uses(source.tree)
        edits = []
        for node in ast.walk(source.tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            name = node.targets[0].id
            if bound[name] != 1 or not uses[name] or ctx.is_frozen(node):
                continue
            if any(_inside(source, use, node) for use in uses[name]):
                continue
            if _calls(node.value) and (len(uses[name]) > 1 or _runs_again(source, uses[name][0], node)):
                continue  # the call would run more than once, or elsewhere
            edit = inline_variable(source, node, uses[name], name)
            if edit is not None:
                edits.append(edit)
        return edits


def _inside(source: Source, use: Located, assign: ast.Assign) -> bool:
    start, end = source.span(assign)
    use_start, _ = source.span(use)
    return start <= use_start < end


def _calls(value: ast.expr) -> bool:
    return any(isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)) for n in ast.walk(value))


_AGAIN = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _runs_again(source: Source, use: ast.AST, assign: ast.Assign) -> bool:
    """Whether `use` lies in a loop, function or comprehension that `assign` is not in."""
    child: ast.AST = use
    node: ast.AST | None = source.parents.get(use)
    while node is not None:
        once = (isinstance(node, (ast.For, ast.AsyncFor)) and child is node.iter) or (
            isinstance(child, ast.comprehension) and child is getattr(node, "generators", [None])[0]
            and _within(source, use, child.iter))  # a loop's iterable, a comprehension's first: evaluated once
        if isinstance(node, _AGAIN) and not once:
            start, end = source.span(node)
            return not start <= source.span(assign)[0] < end
        child, node = node, source.parents.get(node)
    return False


def _within(source: Source, inner: ast.AST, outer: ast.expr) -> bool:
    start, end = source.span(outer)
    return start <= source.span(inner)[0] < end  # type: ignore[arg-type]
