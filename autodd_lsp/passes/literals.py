"""Shrink literals: integers towards 1 (halving on the way), multi-line strings line by line.

Never to 0 and never to "": a zero-sized shape or an empty dtype is a value no
real program has (see oracle/degenerate.py); a number or string that does not
matter goes with the code around it instead.
"""

from __future__ import annotations

import ast

from autodd_lsp.passes.base import (
    MOSTLY_NEEDED,
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    register,
)
from autodd_lsp.passes.expressions import replaceable_expressions
from autodd_lsp.syntax.patch import Edit, delete, replace
from autodd_lsp.syntax.source import last_line


def smaller_ints(value: int) -> list[int]:
    magnitude = abs(value)
    options = [1, magnitude // 2] if magnitude > 1 else []
    return [v for v in dict.fromkeys(options) if 0 < v < magnitude]


def _string_prefix(text: str) -> str | None:
    """The literal's prefix (b, r, u...) if it is one plain string, else None."""
    prefix = text[: len(text) - len(text.lstrip("bBrRuU"))]
    body = text[len(prefix):]
    if len(body) >= 2 and body[0] in "'\"" and body[-1] == body[0] and "fF" not in prefix:
        return prefix
    return None


@register
class ShrinkLiterals(ReductionPass):
    name = "shrink literals"
    group = Group.SLOW
    rewrites_expressions = True

    remembers_needed = Remembers.BY_STATEMENT
    prior = MOSTLY_NEEDED

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        edits: list[Edit] = []
        for node in replaceable_expressions(source.tree):
            if not isinstance(node, ast.Constant) or ctx.is_frozen(node):
                continue
            start, end = source.span(node)
            text = source.text[start:end]
            if isinstance(node.value, int) and not isinstance(node.value, bool) and text.isdigit():
                for value in smaller_ints(node.value):
                    weight = len(text) - len(str(value))
                    edits.append(Edit((replace(start, end, str(value)),), self.name, weight=weight))
            elif isinstance(node.value, (str, bytes)) and node.value:
                if _string_prefix(text) is not None:
                    edits.extend(string_line_edits(source, node, self.name))
        return edits


def string_line_edits(source, node: ast.Constant, name: str) -> list[Edit]:
    """Drop single lines inside a multi-line string: data embedded in a program
    (a config, a script the program interprets) shrinks like code does."""
    edits = []
    for line in range(node.lineno + 1, last_line(node)):
        start, end = source.line_start(line), source.line_end(line)
        edits.append(Edit((delete(start, end),), name, weight=end - start))
    return edits
