"""The explicit form: `with __freeze__:` and `__freeze__(expr)`.

The name counts only when an import binds it:

    from autodd_lsp import __freeze__              # or `... as fz`
    from tilelang.autodd import __freeze__         # files written for the reference tool

Names are matched module-wide, without scopes: a binding import anywhere
(also inside a function or a `try`) makes every use of the name a freeze.
"""

from __future__ import annotations

import ast
import re
from typing import TypeGuard

from autodd_lsp.freeze.chunked_source import ChunkedSource
from autodd_lsp.freeze.model import FrozenRegion, Problem

FREEZE_NAME = "__freeze__"
FREEZE_MODULES = ("autodd_lsp", "tilelang.autodd")

# A line of a binding import names `__freeze__`, or the module (`from autodd_lsp import *`).
_IMPORT_LINE = re.compile(r"autodd[\w.]*[ \t]+import\b")

NOT_IMPORTED = "`__freeze__` is used but not imported (add `from autodd_lsp import __freeze__`)"


def explicit_freezes(source: ChunkedSource) -> tuple[list[FrozenRegion], list[Problem]]:
    if FREEZE_NAME not in source.text:
        return [], []
    imports = _binding_imports(source)
    names = set(imports) | {FREEZE_NAME}
    regions: list[FrozenRegion] = []
    problems: list[Problem] = []
    used: set[str] = set()
    for node in _nodes_on_lines_naming(source, names):
        if _is_unbound_use(node, imports):
            span = source.span(node)
            problems.append(Problem(span.start_line, span.start_col, span.end_col, NOT_IMPORTED))
            continue
        name = _frozen_name(node, names)
        if name in imports:
            used.add(name)
            form = "with" if isinstance(node, (ast.With, ast.AsyncWith)) else "call"
            regions.append(FrozenRegion(source.span(node), form))
    for name in sorted(used):
        regions.extend(FrozenRegion(source.span(stmt), "import") for stmt in imports[name])
    return regions, problems


def _binding_imports(source: ChunkedSource) -> dict[str, list[ast.ImportFrom]]:
    """Bound name -> the import statements binding it to AutoDD's `__freeze__`."""
    module_lines = [n for n in source.lines_containing("autodd") if _IMPORT_LINE.search(source.line(n))]
    lines = sorted(set(module_lines).union(source.lines_containing(FREEZE_NAME)))
    bound: dict[str, list[ast.ImportFrom]] = {}
    for node in source.walk_lines(lines, descend=lambda n: not isinstance(n, ast.expr)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in FREEZE_MODULES:
            for alias in node.names:
                if alias.name in (FREEZE_NAME, "*"):
                    bound.setdefault(alias.asname or FREEZE_NAME, []).append(node)
    return bound


def _nodes_on_lines_naming(source: ChunkedSource, names: set[str]):
    lines = sorted(set().union(*(source.lines_containing(name) for name in names)))
    return source.walk_lines(lines)


def _frozen_name(node: ast.AST, names: set[str]) -> str | None:
    """The freeze name that a `with NAME:` statement or a `NAME(...)` call uses, if any."""
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return next((item.context_expr.id for item in node.items if _is_name(item.context_expr, names)), None)
    if isinstance(node, ast.Call):
        return node.func.id if _is_name(node.func, names) else None
    return None


def _is_name(node: ast.AST, names: set[str]) -> TypeGuard[ast.Name]:
    return isinstance(node, ast.Name) and node.id in names


def _is_unbound_use(node: ast.AST, imports: dict) -> bool:
    return (
        isinstance(node, ast.Name)
        and node.id == FREEZE_NAME
        and isinstance(node.ctx, ast.Load)
        and FREEZE_NAME not in imports
    )
