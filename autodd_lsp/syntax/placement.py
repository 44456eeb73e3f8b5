"""Where statements may stand: what a statement's place allows, and what a body needs.

`return`, `yield` and `nonlocal` stand only in a function, `await` only in an
async one, `break` and `continue` only in a loop of the same function. A pass
that moves a body to another place (`passes/compound.py` hoists a loop's or a
function's body to where the loop or the `def` was) asks here whether the body
can stand there, instead of proposing a text the compiler refuses: such a
candidate is not run, but it spoils every group of the search it is in.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from autodd_lsp.syntax.source import statement_bodies

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass(frozen=True)
class Nesting:
    """What a statement's nesting allows: in a function (`function`), an async one (`is_async`), in a loop of it (`loop`)."""

    function: bool = False
    is_async: bool = False
    loop: bool = False

    def inside(self, stmt: ast.stmt, body: list[ast.stmt]) -> Nesting:
        """The place of `body`, a statement list of `stmt`, which stands here."""
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return Nesting(function=True, is_async=isinstance(stmt, ast.AsyncFunctionDef))
        if isinstance(stmt, ast.ClassDef):
            return Nesting()
        if isinstance(stmt, LOOPS) and body is stmt.body:
            return Nesting(self.function, self.is_async, loop=True)
        return self

    def allows(self, body: list[ast.stmt]) -> bool:
        """Can `body` stand here (as far as the compiler's placement rules go)?"""
        needs = needed_by(body)
        return (self.function or "function" not in needs) and (self.is_async or "async" not in needs) \
            and (self.loop or "loop" not in needs)


def placed_statements(tree: ast.AST) -> Iterator[tuple[ast.stmt, Nesting]]:
    """Every statement with the place it stands in."""

    def visit(body: list[ast.stmt], place: Nesting) -> Iterator[tuple[ast.stmt, Nesting]]:
        for stmt in body:
            yield stmt, place
            for inner in statement_bodies(stmt):
                yield from visit(inner, place.inside(stmt, inner))

    for body in statement_bodies(tree):
        yield from visit(body, Nesting())


def needed_by(body: list[ast.stmt]) -> set[str]:
    """What `body`'s own statements need of their place: "function" (`return`, `yield`,
    `nonlocal`), "async" (`await`, `async for`, `async with`), "loop" (`break`, `continue`
    outside a loop of the body's own)."""
    needs: set[str] = set()

    def visit(node: ast.AST, in_own_loop: bool) -> None:
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Nonlocal)):
            needs.add("function")
        elif isinstance(node, (ast.Await, ast.AsyncFor, ast.AsyncWith)):
            needs.add("async")
        elif isinstance(node, (ast.Break, ast.Continue)) and not in_own_loop:
            needs.add("loop")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _SCOPES):
                continue  # a scope of its own (its decorators and defaults aside: rare enough)
            looped = in_own_loop or (isinstance(node, LOOPS) and any(child is s for s in node.body))
            visit(child, looped)

    for stmt in body:
        if not isinstance(stmt, _SCOPES):
            visit(stmt, False)
    return needs
