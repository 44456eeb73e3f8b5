"""Remove the imports nothing uses any more (tidy group).

The fine-grained passes remember the edits they found needed while the text of
their statement stays the same (`engine/searching/memory.edit_key`): `from dataclasses
import dataclass, field` was needed while `field(...)` was used, and its text
did not change when that use went, so `field` was never tried again and stayed
in the result. This pass looks at the final text instead: an imported name that
no other code of the text reads (a name, the root of an attribute, a string of
`__all__`) is proposed for removal -- the whole statement when none of its names
is used. Each removal is verified like any candidate: an import kept for its
side effects (registering a backend, patching a library) fails otherwise and
stays.
"""

from __future__ import annotations

import ast

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.passes.elements import removal_span
from autodd_lsp.passes.statements import remove_statement
from autodd_lsp.syntax.patch import Edit, delete


def _bound_name(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


def used_names(tree: ast.AST) -> set[str]:
    """Every name the code reads: names, and the strings of `__all__`."""
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            used.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return used


@register
class RemoveUnusedImports(ReductionPass):
    name = "remove unused imports"
    group = Group.TIDY
    order = -20  # first: the stale comments above a removed import go next

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        used = used_names(source.tree)
        edits: list[Edit] = []
        for node in ast.walk(source.tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or ctx.is_frozen(node):
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            if any(alias.name == "*" for alias in node.names):
                continue
            unused = [i for i, alias in enumerate(node.names) if _bound_name(alias) not in used]
            if len(unused) == len(node.names):
                edits.append(remove_statement(ctx, node, self.name))
                continue
            spans = sorted(source.span(alias) for alias in node.names)
            for index in unused:
                start, end = removal_span(source, spans, index)
                edits.append(Edit((delete(start, end),), self.name, weight=end - start))
        return edits
