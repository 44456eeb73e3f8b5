"""Only what the program uses of an inlined module: its unused top-level definitions left out.

A module written into the program (`inline.py`) brings all of its code, most
of which a reduced program never reaches: a `models.py` of ten classes for a
script that builds one. Reducing that code costs candidates in proportion to
its size (issue 22: 1,425 nodes became 6,876 once two modules were inlined),
so the engine inlines after reducing with the imports kept (`engine/lifecycle/inlined.py`)
and takes only the part of each module the program still needs.

`prune_unused` drops, from the inlined spans only, top-level statements that
bind names nothing else reads (functions, classes, assignments, imports;
again until none is left: a helper only an unused class called goes too) and
module docstrings. A statement that binds nothing (a call, `torch.manual_seed(0)`,
an `if`) stays, and so does anything the program's own code reads. A program
that may read names by string (`globals()`, `eval`, `exec`, `vars()`,
`vars()`, `__import__`) is left whole: its reads are not in
the tree. This is a guess about names only; the engine runs the result and
uses it only if it fails as the original does.
"""

from __future__ import annotations

import ast

from autodd_lsp.inlining.names import bindings, is_docstring
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.source import Source, first_line, last_line

# Calls that read names by string: with one of them anywhere (`vars` without an argument), nothing is dropped.
_DYNAMIC = frozenset({"globals", "locals", "vars", "eval", "exec", "__import__"})
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign, ast.Import,
                ast.ImportFrom)


def prune_unused(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """`text` without the top-level statements inside `spans` that nothing reads (see the docstring)."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return text
    if any(_dynamic(node) for node in ast.walk(tree)):
        return text
    source = Source(text, tree)
    line_start = source.line_start

    def inside(statement: ast.stmt) -> bool:
        start = line_start(first_line(statement))
        return any(low <= start < high for low, high in spans)

    kept = list(tree.body)
    reads = [_reads(statement) for statement in kept]
    dropped: set[int] = set()
    changed = True
    while changed:
        changed = False
        for index, statement in enumerate(kept):
            if index in dropped or not inside(statement):
                continue
            if is_docstring(statement):
                dropped.add(index)
                changed = True
                continue
            if not isinstance(statement, _DEFINITIONS) or _future(statement) or _shares_a_line(kept, index):
                continue
            names = set(bindings(statement))
            if not names:
                continue
            others = set().union(*(reads[i] for i in range(len(kept)) if i != index and i not in dropped))
            if not names & others:
                dropped.add(index)
                changed = True
    if not dropped:
        return text
    lines = text.splitlines(keepends=True)
    gone: set[int] = set()  # 0-based line numbers
    for index in dropped:
        statement = kept[index]
        start, end = first_line(statement) - 1, last_line(statement)
        while start > 0 and lines[start - 1].lstrip().startswith("#"):  # the comment glued above it
            start -= 1
        gone.update(range(start, end))
    return "".join(line for number, line in enumerate(lines) if number not in gone)


def _reads(statement: ast.stmt) -> set[str]:
    """The names a statement reads (a function's own recursive calls included: they do not keep it)."""
    return {node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)} | {
        name for node in ast.walk(statement) if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names
    }


def _dynamic(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _DYNAMIC):
        return False
    return node.func.id != "vars" or not (node.args or node.keywords)


def _shares_a_line(body: list[ast.stmt], index: int) -> bool:
    """Whether another statement starts or ends on one of its lines (`a = 1; b = 2`): lines are what goes."""
    first, last = first_line(body[index]), last_line(body[index])
    before = body[index - 1] if index else None
    after = body[index + 1] if index + 1 < len(body) else None
    return (before is not None and last_line(before) >= first) or (after is not None and first_line(after) <= last)


def _future(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"
