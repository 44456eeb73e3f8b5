"""What a module's syntax tree binds and reads: the name facts inlining decides by.

Read-only questions about an `ast` tree (no text, no file, no rewriting): the
names a module binds at its top level (`top_level_names`, `bindings`), every
name it binds or reads (`names_used`; `names_in` and `bound_name`, the name an
import binds, live in `syntax/bindings.py`: collisions are judged against these), whether a module is only read
as `m.name` (`only_attribute_uses`: else it is used as a value and its import
stays) and whether a statement is a docstring. `inline.py` and `conftest.py`
decide with them; this module depends on nothing of the package but `syntax`.
"""

from __future__ import annotations

import ast

from autodd_lsp.syntax.bindings import bound_name, names_in


def is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)


def names_used(tree: ast.AST) -> set[str]:
    """Every name a module reads or binds (attribute names are not names)."""
    return names_in(tree)


def top_level_names(tree: ast.Module, skip: ast.stmt | None = None) -> set[str]:
    names: set[str] = set()
    for statement in tree.body:
        if statement is skip:
            continue
        for node in bindings(statement):
            names.add(node)
    return names


def bindings(statement: ast.stmt):
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield statement.name
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            if alias.name != "*":
                yield bound_name(alias)
    else:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                yield node.id
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield node.name


def only_attribute_uses(tree: ast.Module, alias: str) -> bool:
    """`alias` (a module) is read only as `alias.name`, and set only at the top level."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == alias:
            parent = parents.get(node)
            if not (isinstance(parent, ast.Attribute) and parent.value is node):
                if isinstance(parent, ast.alias) or isinstance(node.ctx, ast.Store):
                    return False
                return False
            if isinstance(parent.ctx, ast.Store) and _inside_function(parent, parents):
                return False
    return True


def _inside_function(node: ast.AST, parents) -> bool:
    node = parents.get(node)
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return True
        node = parents.get(node)
    return False
