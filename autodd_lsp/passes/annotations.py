"""Remove the annotations that name what the result no longer has (tidy group).

Under `from __future__ import annotations` (or in a string) an annotation is never
evaluated, so a reduction that takes `from typing import Any` away still fails the
same way and leaves `def pop(self) -> Any:` naming nothing: a maintainer reading the
reproducer sees an undefined name. An annotation of a parameter or a return, or of an
assignment that has a value, which reads a name that the text does not bind (no def,
class, import, assignment or parameter of that name, not a builtin) is proposed for
removal: `-> Any`, `: Any`, `x: Any = 1` -> `x = 1`. A bare declaration (`x: Any` in a
class body) is left alone: without it the name is gone, and a dataclass loses a field.
Each removal is a candidate like any other.
"""

from __future__ import annotations

import ast
import builtins

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.syntax import bindings
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Source

_BUILTINS = frozenset(dir(builtins))


def bound_names(tree: ast.AST) -> set[str]:
    """Every name the text binds anywhere (`syntax.bindings.bound_names`, and an `except`'s
    `as` name), and the builtins."""
    bound = set(bindings.bound_names(tree)) | _BUILTINS
    bound.update(node.name for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler) and node.name)
    return bound


def _names_in(annotation: ast.expr) -> set[str]:
    """The names an annotation reads, also inside a string annotation (`"Node | None"`)."""
    names = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    for node in ast.walk(annotation):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                names |= {n.id for n in ast.walk(ast.parse(node.value, mode="eval")) if isinstance(n, ast.Name)}
            except SyntaxError:
                continue
    return names


def _removal(source: Source, owner: ast.AST, annotation: ast.expr) -> tuple[int, int] | None:
    """The span of `: X` or `-> X` (the separator and the annotation)."""
    start, end = source.span(annotation)
    separator = "->" if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)) else ":"
    at = source.text.rfind(separator, 0, start)
    if at < 0 or source.text[at + len(separator):start].strip():
        return None
    while at > 0 and source.text[at - 1] in " \t":
        at -= 1
    return at, end


def _annotation(node: ast.AST) -> ast.expr | None:
    """A return's, a parameter's, or a valued assignment's annotation (not a bare declaration)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.returns
    if isinstance(node, ast.arg):
        return node.annotation
    if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
        return node.annotation
    return None


@register
class RemoveStaleAnnotations(ReductionPass):
    name = "remove annotations naming what is gone"
    group = Group.TIDY
    order = -25  # before the imports: an import only an annotation read may go next

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        bound = bound_names(source.tree)
        edits: list[Edit] = []
        for node in ast.walk(source.tree):
            annotation = _annotation(node)
            if annotation is not None:
                if ctx.is_frozen(annotation) or _names_in(annotation) <= bound:
                    continue
                span = _removal(source, node, annotation)
                if span is not None and not ctx.touches_frozen(span):
                    edits.append(Edit((delete(*span),), self.name, weight=span[1] - span[0]))
        return edits
