"""A script that rebinds its module's name: `import model` ... `model = model.RNNModel(...)`.

pytorch/examples' word language model imports its `model.py` and then binds `model` to the
network built from it. The module's name is then read as a module (in the value that rebinds
it, and before that) and as the network (after). `inline.py` keeps an import whose name is read
as a value, so the reproducer needed `model.py` beside it. Here the module is given a name of
its own first, where it is read as a module: `import model as model_module`, `model =
model_module.RNNModel(...)`; `inline.py` then writes it in like any other module.

Only at the top level (not inside a function or class), and only when every read of the name
before its first rebinding is `name.attr` (a read as a value, `print(model)`, keeps the
import). A read inside a function is left alone: it sees whatever the name holds when the
function runs. The engine runs the inlined program and keeps it only if it fails as the
original does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from autodd_lsp.inlining.names import names_used
from autodd_lsp.inlining.renaming import apply_patches
from autodd_lsp.syntax.source import Source, end_col, last_line

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def name_the_rebound_modules(text: str, tree: ast.Module, local: Callable[[str], bool]) -> str:
    """`text` with each top-level `import m` of a local module (`local(m)`) whose name the
    script rebinds at its top level renamed where it is read as the module (see above);
    `text` itself when there is none."""
    offset = Source(text, tree).offset
    taken = names_used(tree)
    patches: list[tuple[int, int, str]] = []
    for statement in tree.body:
        if not (isinstance(statement, ast.Import) and len(statement.names) == 1):
            continue
        alias = statement.names[0]
        name = alias.name
        if alias.asname or "." in name or not local(name):
            continue
        reads = _module_reads(tree, statement, name)
        if not reads:
            continue
        fresh = _fresh(f"{name}_module", taken)
        taken.add(fresh)
        patches.append((offset(statement.lineno, statement.col_offset),
                        offset(last_line(statement), end_col(statement)), f"import {name} as {fresh}"))
        patches.extend((offset(read.lineno, read.col_offset), offset(read.lineno, read.col_offset) + len(name), fresh)
                       for read in reads)
    return apply_patches(text, patches) if patches else text


def _module_reads(tree: ast.Module, imported: ast.Import, name: str) -> list[ast.Name]:
    """The `name` nodes read as the module (`name.attr`) when the top level rebinds `name` after
    `imported`; [] when it does not, or when one read before the rebinding is not `name.attr`."""
    parents: dict[ast.AST, ast.AST] = {}
    top: list[ast.AST] = []  # the top level's nodes, outside functions and classes

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            parents[child] = node
            if not isinstance(child, _SCOPES):
                top.append(child)
                walk(child)

    walk(tree)
    stores = [node for node in top if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)]
    rebinds = [parent for store in stores if isinstance(parent := parents[store], ast.Assign)]
    if not stores or len(rebinds) != len(stores) or any(node.lineno <= imported.lineno for node in rebinds):
        return []  # not rebound after the import, or bound some other way (a loop, `with ... as`)
    first = min(node.lineno for node in rebinds)
    in_values = {id(node) for rebind in rebinds for node in ast.walk(rebind.value)}
    reads = []
    for node in top:
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        before = node.lineno < first or id(node) in in_values
        if not before:
            continue  # the rebound value
        parent = parents[node]
        if not (isinstance(parent, ast.Attribute) and parent.value is node):
            return []  # read as a value while it is the module
        reads.append(node)
    return reads


def _fresh(wanted: str, taken: set[str]) -> str:
    name, number = wanted, 2
    while name in taken:
        name, number = f"{wanted}{number}", number + 1
    return name
