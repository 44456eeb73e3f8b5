"""A parsed program and the character spans of its nodes.

Rewrites never re-print the tree: they splice the original text by node spans,
so every surviving line keeps its comments, quotes and spacing. `ast` gives
positions as (1-based line, UTF-8 byte column); everything here works in
character offsets into `text`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cached_property
from typing import TypeVar

from autodd_lsp.syntax.parsing import parse

Span = tuple[int, int]  # [start, end) character offsets into Source.text
# The nodes that have a position (ast.AST itself has none).
Located = ast.stmt | ast.expr | ast.arg | ast.keyword | ast.alias | ast.excepthandler | ast.pattern
LOCATED = (ast.stmt, ast.expr, ast.arg, ast.keyword, ast.alias, ast.excepthandler, ast.pattern)  # for isinstance
_Node = TypeVar("_Node", bound=ast.AST)


def last_line(node: Located) -> int:
    """The node's last line. A parsed node has it (typeshed allows None, for nodes built by hand)."""
    return node.end_lineno if node.end_lineno is not None else node.lineno


def end_col(node: Located) -> int:
    """The UTF-8 byte column just past the node (see `last_line`)."""
    return node.end_col_offset if node.end_col_offset is not None else node.col_offset


class Source:
    def __init__(self, text: str, tree: ast.Module | None = None) -> None:
        self.text = text
        self.tree = tree if tree is not None else parse(text)
        self.lines = text.splitlines(keepends=True)
        self.line_starts = _line_starts(self.lines)

    # -- positions -----------------------------------------------------------
    def offset(self, lineno: int, byte_col: int) -> int:
        """Character offset of an ast position."""
        if lineno > len(self.lines):
            return len(self.text)
        line = self.lines[lineno - 1]
        if line.isascii():
            col = byte_col
        else:
            col = len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))
        return self.line_starts[lineno - 1] + col

    def span(self, node: Located) -> Span:
        """Exact span of an expression or statement (decorators not included)."""
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(last_line(node), end_col(node)),
        )

    def segment(self, node: Located) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def line_start(self, lineno: int) -> int:
        return self.line_starts[lineno - 1] if lineno <= len(self.lines) else len(self.text)

    def line_end(self, lineno: int) -> int:
        """Offset just past the newline of `lineno` (or the end of the text)."""
        return self.line_starts[lineno] if lineno < len(self.lines) else len(self.text)

    def indent_of_line(self, lineno: int) -> str:
        line = self.lines[lineno - 1]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def first_line(self, stmt: ast.stmt) -> int:
        return first_line(stmt)

    def owns_its_lines(self, stmt: ast.stmt) -> bool:
        """True when nothing but this statement (and a comment) sits on its lines."""
        first = self.first_line(stmt)
        start = self.line_start(first)
        head = self.text[start : self.offset(first, _col_of_first(stmt))]
        if head.strip():
            return False
        end = self.offset(last_line(stmt), end_col(stmt))
        tail = self.text[end : self.line_end(last_line(stmt))]
        tail = tail.strip()
        return not tail or tail.startswith("#")

    def stmt_lines_span(self, stmt: ast.stmt, with_comments: bool = True) -> Span:
        """Whole lines of a statement; with leading comment lines glued to it."""
        first = self.first_line(stmt)
        if with_comments:
            first = self._glued_comment_start(first)
        return self.line_start(first), self.line_end(last_line(stmt))

    def _glued_comment_start(self, first: int) -> int:
        """Comment lines directly above a statement belong to it (not AutoDD annotations, nor a
        `# %%` cell marker: it heads its cell, whatever statement comes first in it)."""
        indent = self.indent_of_line(first)
        line = first - 1
        while line >= 1:
            text = self.lines[line - 1]
            stripped = text.strip()
            if not stripped.startswith("#") or "autodd" in stripped or stripped.startswith("# %%"):
                break
            if self.indent_of_line(line) != indent:
                break
            line -= 1
        return line + 1

    @cached_property
    def statements(self) -> list[ast.stmt]:
        """Every statement, in `ast.walk` order."""
        return [node for node in ast.walk(self.tree) if isinstance(node, ast.stmt)]

    @cached_property
    def statement_spans(self) -> list[Span]:
        """The spans of `statements`, in the same order."""
        return [self.span(node) for node in self.statements]

    @cached_property
    def parents(self) -> dict[ast.AST, ast.AST]:
        parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        return parents

    def header_end(self, node: ast.stmt) -> int:
        """Where `node`'s own code ends: the start of the first statement inside it (a compound
        statement's header: `if x:`, `def f(a):`), or its own end."""
        return min((self.span(body[0])[0] for body in statement_bodies(node)), default=self.span(node)[1])

    def ancestor(self, node: ast.AST, kind: type[_Node]) -> _Node | None:
        """The nearest node around `node` that is a `kind` (None: none is)."""
        around = self.parents.get(node)
        while around is not None and not isinstance(around, kind):
            around = self.parents.get(around)
        return around


def first_line(node: Located) -> int:
    """The node's first line, its decorators included."""
    decorators = getattr(node, "decorator_list", None)
    return min([node.lineno] + [d.lineno for d in decorators]) if decorators else node.lineno


def _col_of_first(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None) or []
    if decorators:
        first = min(decorators, key=lambda d: (d.lineno, d.col_offset))
        return max(first.col_offset - 1, 0)  # the '@'
    return stmt.col_offset


def _line_starts(lines: list[str]) -> list[int]:
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line)
    return starts


def statement_bodies(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly inside a node (body, orelse, handlers' bodies...)."""
    bodies = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            bodies.append(value)
    for handler in getattr(node, "handlers", None) or []:
        bodies.append(handler.body)
    for case in getattr(node, "cases", None) or []:
        bodies.append(case.body)
    return bodies


_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `scope`'s own code (a function's, a class's, the module's), nested blocks
    included: not those inside the functions, lambdas and classes it holds (they are yielded,
    not entered). What `return` and `yield` belong to, and what an assignment binds in."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            todo.extend(ast.iter_child_nodes(node))
