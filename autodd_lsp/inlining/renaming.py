"""Rewrite a module's text by patches: its global names renamed, the importer's uses redirected.

The text-level half of inlining (`inline.py` decides what goes where; this module
only edits text): every change is a (start, end, replacement) patch on the
original text, so everything else (comments, layout, quotes) stays as it was.

* `rename_module`: a module's top-level names renamed where they are defined and
  used (`scopes.py` finds exactly the uses that resolve to its globals), its
  imports aliased to the new names, `__name__` and `__file__` written out as
  strings;
* `rename_patches`: in an importer, `b` (`from m import a as b`) and `x.name`
  (`import m as x`, nested for `import a.b`) replaced by the inlined names;
* `apply_patches`: the patches applied; overlapping ones are refused.

A rewrite that cannot be made raises `CannotInline`, and the caller keeps the
import instead of writing a wrong program. Shared by `inline.py` and
`conftest.py`; depends on neither.
"""

from __future__ import annotations

import ast
import re

from autodd_lsp.inlining.scopes import global_name_nodes
from autodd_lsp.syntax.source import Source, end_col, last_line


class CannotInline(Exception):
    """A rewrite that cannot be made as the rules say: the import it belongs to stays (the message says why)."""


def rename_module(text: str, tree: ast.Module, new_names: dict[str, str], name: str, path: str) -> str:
    """The module's text with its global names renamed, imports aliased, __name__/__file__ written out
    (as `name` and `path`)."""
    changed = {old: new for old, new in new_names.items() if old != new}
    specials = {"__name__": repr(name), "__file__": repr(path)}
    offset = Source(text, tree).offset

    patches: list[tuple[int, int, str]] = []
    for node in global_name_nodes(tree, set(changed) | set(specials)):
        if isinstance(node, ast.Name):
            start, end = offset(node.lineno, node.col_offset), offset(last_line(node), end_col(node))
            if node.id in specials:
                if isinstance(node.ctx, ast.Load):
                    patches.append((start, end, specials[node.id]))
            elif node.id in changed:
                patches.append((start, end, changed[node.id]))
        elif isinstance(node, ast.Global):
            start, end = offset(node.lineno, node.col_offset), offset(last_line(node), end_col(node))
            patches.append((start, end, "global " + ", ".join(changed.get(n, n) for n in node.names)))
        elif node.name in changed:  # def / class
            start = offset(node.lineno, node.col_offset)
            match = re.compile(rf"(?:async\s+)?(?:def|class)\s+({re.escape(node.name)})\b").match(text, start)
            if match is None:
                raise CannotInline(f"cannot find the name of {node.name}")
            patches.append((match.start(1), match.end(1), changed[node.name]))
    for statement in tree.body:  # imports bind names too: alias them
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                bound = (alias.asname or alias.name).split(".")[0]
                if bound in changed and (alias.asname or "." not in alias.name):
                    start = offset(statement.lineno, statement.col_offset)
                    end = offset(last_line(statement), end_col(statement))
                    new_statement = _aliased(text[start:end], alias, changed[bound])
                    if new_statement is None:
                        raise CannotInline(f"cannot rename the import of {alias.name}")
                    patches.append((start, end, new_statement))
    return apply_patches(text, patches)


def _aliased(statement: str, alias: ast.alias, new: str) -> str | None:
    pattern = rf"\b{re.escape(alias.name)}(\s+as\s+{re.escape(alias.asname)})?\b" if alias.asname else rf"\b{re.escape(alias.name)}\b"
    match = re.search(pattern, statement.split("import", 1)[-1] if "import" in statement else statement)
    if match is None:
        return None
    head, _, tail = statement.partition("import")
    return head + "import" + tail[: match.start()] + f"{alias.name} as {new}" + tail[match.end():]


def rename_patches(tree: ast.Module, renames: dict[str, str], attribute_modules, offset) -> list[tuple[int, int, str]]:
    """In an importer: `b` (from m import a as b) and `x.name` (import m as x) renamed."""
    patches = []
    wanted = set(renames) | set(attribute_modules)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in global_name_nodes(tree, wanted):
        if not isinstance(node, ast.Name):
            continue
        if node.id in attribute_modules:
            expr: ast.expr
            names, expr, dotted = attribute_modules[node.id], node, node.id
            while True:  # `a.b.x` after `import a.b`: follow the nested modules
                parent = parents.get(expr)
                if not (isinstance(parent, ast.Attribute) and parent.value is expr):
                    raise CannotInline(f"{dotted} is used as a value")
                if parent.attr not in names:
                    raise CannotInline(f"{dotted}.{parent.attr} is not one of its top-level names")
                value, dotted = names[parent.attr], f"{dotted}.{parent.attr}"
                if not isinstance(value, dict):
                    break
                names, expr = value, parent
            start = offset(parent.lineno, parent.col_offset)
            end = offset(last_line(parent), end_col(parent))
            patches.append((start, end, value))
        elif node.id in renames and renames[node.id] != node.id:
            start = offset(node.lineno, node.col_offset)
            end = offset(last_line(node), end_col(node))
            patches.append((start, end, renames[node.id]))
    return patches


def apply_patches(text: str, patches: list[tuple[int, int, str]]) -> str:
    out, position = [], 0
    for start, end, replacement in sorted(patches):
        if start < position:
            raise CannotInline("overlapping rewrites")
        out.append(text[position:start])
        out.append(replacement)
        position = end
    out.append(text[position:])
    return "".join(out)
