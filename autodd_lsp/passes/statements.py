"""Remove whole statements, outermost first (one nesting level per search round)."""

from __future__ import annotations

import ast

from autodd_lsp.passes.base import (
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    register,
    walk_statements,
)
from autodd_lsp.syntax.patch import Edit, delete, replace


def remove_statement(ctx: PassContext, stmt: ast.stmt, pass_name: str) -> Edit:
    source = ctx.source
    if source.owns_its_lines(stmt):
        start, end = source.stmt_lines_span(stmt)
        return Edit((delete(start, end),), pass_name, weight=end - start)
    start, end = source.span(stmt)  # shares its line (`a; b`, `if x: y`): leave `pass`
    return Edit((replace(start, end, "pass"),), pass_name, weight=end - start - 4)


@register
class RemoveStatements(ReductionPass):
    name = "remove statements"
    group = Group.STATEMENTS
    has_levels = True
    uses_map = True
    remembers_needed = Remembers.BY_NAMES

    def propose_at(self, ctx: PassContext, level: int) -> list[Edit] | None:
        at_level = [s for s, depth in walk_statements(ctx.source.tree) if depth == level]
        if not at_level:
            return None
        edits = [remove_statement(ctx, s, self.name) for s in at_level if not ctx.is_frozen(s)]
        return edits
