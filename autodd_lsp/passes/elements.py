"""Drop one element of a comma-separated list: call arguments and keywords,
list/set/dict entries, a lambda's parameters, base classes, imported names,
`with` items, decorators; and the `as x` of a `with`, the `x =` of `x = f()`.

A tuple keeps its elements: its length is part of what it is, a shape's rank
(`T.alloc_shared((64, 32), dtype)`), what an unpacking expects (`a, b = pair`,
`return sku, qty, cost`), a key's arity. Such removals were refused 101 times in
102 on four corpus programs.

A tensor's recorded value (`torch.zeros((16, 24), dtype=torch.int64)`, see
autodd_lsp.values) is one value: its shape and dtype are not lists to drop from
(`torch.zeros(dtype=...)`, a rank less): the literal pass shrinks its sizes.

An argument without which a call to the program's own function no longer binds
(`def f(a, b)` called `f(x, y)`: `f(y)` is a TypeError) is not dropped either
(`syntax/bindings.py`); the parameter pass drops it with its parameter.

A function's parameters are not here: "remove parameters with their arguments"
(`parameters.py`) drops each one with what its calls pass for it. A parameter
dropped alone, while a call still passes it or the method is `self`'s, is a
TypeError in every run that calls it; where no call passes it, both passes
proposed the same edit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from autodd_lsp.passes.base import (
    MOSTLY_NEEDED,
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    register,
)
from autodd_lsp.syntax.bindings import OwnFunctions, binds
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Located, Source, Span, last_line
from autodd_lsp.values.recorded import TENSOR_PREFIX, is_tensor_value


def element_lists(source: Source, node: ast.AST) -> Iterator[list[Span]]:
    """The comma-separated lists inside `node`, each as the spans of its elements in order."""
    if isinstance(node, ast.Call):
        yield _spans(source, [*node.args, *node.keywords])
    elif isinstance(node, (ast.List, ast.Set)):  # a tuple's length is part of what it is
        yield _spans(source, node.elts)
    elif isinstance(node, ast.Dict):
        entries = [(k, v) for k, v in zip(node.keys, node.values, strict=False) if k is not None]
        if len(entries) == len(node.keys):
            yield sorted((source.span(k)[0], source.span(v)[1]) for k, v in entries)
    elif isinstance(node, ast.ClassDef):
        yield _spans(source, [*node.bases, *node.keywords])
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield _spans(source, node.names)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        yield sorted(
            (source.span(i.context_expr)[0], source.span(i.optional_vars or i.context_expr)[1])
            for i in node.items
        )
    elif isinstance(node, ast.Lambda):
        yield parameter_spans(source, node.args)


def _spans(source: Source, nodes: Sequence[Located]) -> list[Span]:
    return sorted(source.span(n) for n in nodes if hasattr(n, "lineno"))


def parameter_spans(source: Source, args: ast.arguments) -> list[Span]:
    """Each named parameter with its default and annotation (not `*`, `/`, *args, **kwargs)."""
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults, strict=False)) + list(zip(args.kwonlyargs, args.kw_defaults, strict=False))
    spans = []
    for arg, default in pairs:
        start, end = source.span(arg)
        if default is not None:
            end = source.span(default)[1]
        spans.append((start, end))
    return sorted(spans)


def removal_span(source: Source, spans: list[Span], index: int) -> Span:
    """The element with the comma that joins it to its neighbour."""
    start, end = spans[index]
    if index + 1 < len(spans):
        return start, spans[index + 1][0]
    if index > 0:
        return spans[index - 1][1], end
    rest = source.text[end:]
    stripped = rest.lstrip()
    if stripped.startswith(","):  # a lone element with a trailing comma: `f(\n    x,\n)`
        end += len(rest) - len(stripped) + 1
    return _whole_lines_if_alone(source.text, start, end)


def _whole_lines_if_alone(text: str, start: int, end: int) -> Span:
    """Widen a removal to whole lines when nothing else is on them (no blank line left)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end < 0 or text[line_start:start].strip() or text[end:line_end].strip():
        return start, end
    return line_start, line_end + 1


@register
class RemoveElements(ReductionPass):
    name = "remove list elements"
    group = Group.SLOW
    order = 1
    rewrites_expressions = True

    remembers_needed = Remembers.BY_STATEMENT
    prior = MOSTLY_NEEDED

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        edits: list[Edit] = []
        in_annotations = ctx.in_annotations
        values = tensor_values(source)
        own = OwnFunctions(source)
        for node in ast.walk(source.tree):
            if isinstance(node, (ast.expr, ast.stmt)) and ctx.is_frozen(node):
                continue
            if id(node) in in_annotations:
                continue  # an annotation is kept whole or dropped
            if id(node) in values:
                continue
            unbound = unbindable(own, node) if isinstance(node, ast.Call) else set()
            for spans in element_lists(source, node):
                for index in range(len(spans)):
                    if index in unbound:
                        continue
                    start, end = removal_span(source, spans, index)
                    edits.append(Edit((delete(start, end),), self.name, weight=end - start))
            edits.extend(decorator_edits(source, node, self.name))
            edits.extend(with_as_edits(source, node, self.name))
            edits.extend(assignment_target_edits(source, node, self.name))
        return edits


def unbindable(own: OwnFunctions, call: ast.Call) -> set[int]:
    """The arguments of `call` (by their place in `element_lists`' order) without which a
    call to the program's own function no longer binds: a TypeError wherever it runs."""
    reached = own.callee(call)
    if reached is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return set()
    func, bound_first = reached
    ordered: list[ast.expr | ast.keyword] = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    keywords = {k.arg for k in call.keywords if k.arg is not None}
    unbound = set()
    for index, element in enumerate(ordered):
        if isinstance(element, ast.keyword):
            fits = binds(func, bound_first, len(call.args), keywords - {element.arg})
        else:
            fits = binds(func, bound_first, len(call.args) - 1, keywords)
        if not fits:
            unbound.add(index)
    return unbound


def tensor_values(source: Source) -> set[int]:
    """ids of the nodes inside the recorded tensor values written in the text."""
    inside: set[int] = set()
    if TENSOR_PREFIX not in source.text:
        return inside
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Call) and is_tensor_value(source.segment(node)):
            inside.update(id(n) for n in ast.walk(node))
    return inside


def decorator_edits(source: Source, node: ast.AST, name: str) -> list[Edit]:
    edits = []
    for decorator in getattr(node, "decorator_list", None) or []:
        if not isinstance(node, ast.stmt):
            continue
        line = decorator.lineno
        if source.lines[line - 1].lstrip().startswith("@") and decorator.end_lineno < node.lineno:
            start, end = source.line_start(line), source.line_end(last_line(decorator))
            edits.append(Edit((delete(start, end),), name, weight=end - start))
    return edits


def assignment_target_edits(source: Source, node: ast.AST, name: str) -> list[Edit]:
    """`x = f(...)` becomes `f(...)`: the call stays, the unused name goes."""
    if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
        return []
    start = source.span(node)[0]
    end = source.span(node.value)[0]
    return [Edit((delete(start, end),), name, weight=end - start)]


def with_as_edits(source: Source, node: ast.AST, name: str) -> list[Edit]:
    """`with e as x:` becomes `with e:`."""
    edits = []
    for item in getattr(node, "items", None) or []:
        if isinstance(node, (ast.With, ast.AsyncWith)) and item.optional_vars is not None:
            start = source.span(item.context_expr)[1]
            end = source.span(item.optional_vars)[1]
            edits.append(Edit((delete(start, end),), name, weight=end - start))
    return edits
