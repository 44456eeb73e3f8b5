"""Drop an element of a tuple together with its partner on the other side of an unpacking.

A tuple keeps its elements when alone (`elements.py`): `a, b = pair` needs two,
a shape's rank is what it is. But where both sides of an unpacking are in the
program, one element can go from both at once, and the unpacking still fits:

- a target tuple and its value tuple, the same length: `i, word = 2, 'tsp'`
  becomes `i = 2`;
- a function whose every `return` gives a tuple of the same length, and whose
  every call is either unpacked into a target tuple of that length
  (`qty, unit = parse(line)`) or kept whole where it is made (an expression
  statement, an element of a list, set or comprehension): the element goes from
  every `return` and from every such target together.

No starred element on either side, no generator, a function name defined once
and read only as a call's callee; anything else is left to the tuple's rule. A
wrong guess costs a refused candidate, never a wrong result: every edit is
still judged by a run (issue 24: a pair each side of which was refused alone
kept `return Fraction(...), "cup", " "` and `title, ingredients = title, [...]`
in the size ladder's recipe rung, 9% larger than before the tuple's rule).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise

from autodd_lsp.passes.base import (
    MOSTLY_NEEDED,
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    register,
)
from autodd_lsp.passes.elements import removal_span
from autodd_lsp.passes.parameters import call_sites
from autodd_lsp.syntax.bindings import FUNCTIONS
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Source, own_nodes

_KEPT_WHOLE = (ast.Expr, ast.List, ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp)


@register
class RemovePairedElements(ReductionPass):
    name = "remove paired tuple elements"
    group = Group.SLOW
    order = 2  # after "remove list elements": what it leaves of the two sides
    rewrites_expressions = True

    remembers_needed = Remembers.BY_STATEMENT
    prior = MOSTLY_NEEDED

    def propose(self, ctx: PassContext) -> list[Edit]:
        """One edit per element shared by the two sides of an unpacking the program writes out."""
        source = ctx.source
        edits: list[Edit] = []
        for tuples in [*_assigned_pairs(ctx), *_returned_pairs(ctx)]:
            for index in range(len(tuples[0].elts)):
                spans = sorted(removal_span(source, _element_spans(source, t), index) for t in tuples)
                edits.append(Edit(tuple(delete(*s) for s in spans), self.name,
                                  weight=sum(end - start for start, end in spans)))
        return edits


def _element_spans(source: Source, node: ast.Tuple) -> list[tuple[int, int]]:
    return [source.span(e) for e in node.elts]


def _tuple(source: Source, node: ast.AST | None, length: int | None = None) -> ast.Tuple | None:
    """`node` if it is a tuple display of two or more elements, none starred (of `length` when given),
    whose elements stand between plain commas: an element's own parentheses, `x, (a + b)`, lie outside
    its span, where dropping it would leave one of them behind."""
    if not (isinstance(node, ast.Tuple) and len(node.elts) >= 2 and (length is None or len(node.elts) == length)
            and not any(isinstance(e, ast.Starred) for e in node.elts)):
        return None
    spans = _element_spans(source, node)
    start, end = source.span(node)
    gaps = [source.text[start:spans[0][0]], source.text[spans[-1][1]:end]] + \
        [source.text[a[1]:b[0]] for a, b in pairwise(spans)]
    bare = ["".join(gap.split()) for gap in gaps]
    if bare[0] not in ("", "(") or bare[1] not in ("", ")", ",", ",)") or any(gap != "," for gap in bare[2:]):
        return None
    return node


def _assigned_pairs(ctx: PassContext) -> Iterator[list[ast.Tuple]]:
    """`a, b = x, y`: the target tuple and the value tuple."""
    for node in ast.walk(ctx.source.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and not ctx.is_frozen(node):
            target = _tuple(ctx.source, node.targets[0])
            value = _tuple(ctx.source, node.value, len(target.elts)) if target else None
            if target and value:
                yield [target, value]


def _returned_pairs(ctx: PassContext) -> Iterator[list[ast.Tuple]]:
    """A function's returned tuples with the targets its calls are unpacked into."""
    tree = ctx.source.tree
    functions = [n for n in ast.walk(tree) if isinstance(n, FUNCTIONS)]
    defined = Counter(f.name for f in functions)
    calls = call_sites(tree)
    callees = {id(c.func) for found in calls.values() for c in found}
    read_otherwise = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(tree)
                      if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)
                      and id(n) not in callees}
    parents = ctx.source.parents
    for func in functions:
        if defined[func.name] > 1 or func.name in read_otherwise or func.name not in calls:
            continue
        own = list(own_nodes(func))
        returns = [node for node in own if isinstance(node, ast.Return)]
        if not returns or any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in own):
            continue
        first = _tuple(ctx.source, returns[0].value)
        sides = [side for side in (_tuple(ctx.source, r.value, len(first.elts)) for r in returns) if side] \
            if first else []
        if not sides or len(sides) < len(returns):
            continue
        for call in calls[func.name]:
            parent = parents.get(call)
            target = _tuple(ctx.source, parent.targets[0], len(sides[0].elts)) \
                if isinstance(parent, ast.Assign) and parent.value is call and len(parent.targets) == 1 else None
            if target:
                sides.append(target)
            elif not isinstance(parent, _KEPT_WHOLE):
                break
        else:
            if not any(ctx.is_frozen(side) for side in sides):
                yield sides

