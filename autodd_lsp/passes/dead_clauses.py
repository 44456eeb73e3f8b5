"""Drop the `elif` clauses a reduction left dead (tidy group).

Replacing a clause's test by a constant and its body by `pass` can leave
`elif None: pass` between live clauses. An `elif` is not a statement, so the
statement pass cannot remove it, and an edit that took clauses out of their
chain during the search moved the search's other steps and made a result 12%
larger (`benchmarks/latest/candidates.md`, sixth round). Here it runs once, at
the end: a clause whose test is a falsy constant (`None`, `False`, `0`, `""`) is
never taken and its test does nothing, so the program without it does the same.
The edit is still judged by a run, like any other.
"""

from __future__ import annotations

import ast
import re

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Source


@register
class DropDeadClauses(ReductionPass):
    name = "drop dead elif clauses"
    group = Group.TIDY
    order = -30  # first: the comments and blank lines it leaves are tidied after it

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        edits = []
        for node in ast.walk(source.tree):
            if not isinstance(node, ast.If) or len(node.orelse) != 1 or not isinstance(node.orelse[0], ast.If):
                continue
            clause = node.orelse[0]
            if not _is_elif(source, clause) or not _never_taken(clause.test):
                continue
            span = (source.line_start(clause.lineno), source.line_end(_last_line(source, clause)))
            if not ctx.touches_frozen(span):
                edits.append(Edit((delete(*span),), self.name, weight=span[1] - span[0]))
        return edits


def _is_elif(source: Source, clause: ast.If) -> bool:
    return source.lines[clause.lineno - 1].lstrip().startswith("elif")


def _never_taken(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and not test.value


def _last_line(source: Source, clause: ast.If) -> int:
    """The clause's last line: its body's, or the line before the next `elif` or `else` of the chain."""
    body_end = clause.body[-1].end_lineno or clause.lineno
    if not clause.orelse:
        return body_end
    next_clause = re.compile(re.escape(source.lines[clause.lineno - 1][: clause.col_offset]) + r"(elif|else)\b")
    for number in range(body_end + 1, len(source.lines) + 1):
        if next_clause.match(source.lines[number - 1]):
            return number - 1
    return body_end
