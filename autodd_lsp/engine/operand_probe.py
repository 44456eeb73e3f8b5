"""A program probed for the operands of its failing numeric comparisons, on the same lines.

The wrong-answer rule (`oracle/operands.py`) needs, from the original and from every
candidate it judges, the operands of the comparison that failed. A *probed* copy
of a program runs `execution/operands_hook.py` before anything else the program
does: one statement, `exec(HOOK, {...})` in a namespace of its own, put on the line of
the first simple statement that runs at module level (`P; import torch`), so that
no line moves: tracebacks, the same-place rule and the failure line read the
probed run as they would read the program's own. The hook writes one marker line
per failing comparison to stderr; `split_markers` takes them out of the run again,
so the other rules judge exactly what the program printed.

A program with no simple statement at module level (nothing but definitions and
compound statements with none inside) cannot be probed: None.
"""

from __future__ import annotations

import ast
import json
import re
import threading
from dataclasses import replace
from typing import Any

from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.operands import probe_source

_PROBE = "exec(compile(" + repr(probe_source()) + ', "<autodd operands probe>", "exec"), {"__name__": "_autodd_operands"}); '
_PARSING = threading.Lock()
_MARKER = re.compile(rb"\n?<autodd-operands:(\{[^\n]*\})>\n")


def probed_text(text: str) -> str | None:
    """`text` with the hook run first, on the line of its first module-level simple statement."""
    tree = _parse(text)
    if tree is None:
        return None
    statement = _first_simple(tree.body, top=True)
    if statement is None:
        return None
    lines = text.splitlines(keepends=True)
    offset = sum(len(line) for line in lines[:statement.lineno - 1])
    # col_offset counts UTF-8 bytes
    line = lines[statement.lineno - 1]
    column = len(line.encode("utf-8")[:statement.col_offset].decode("utf-8", errors="replace"))
    at = offset + column
    return text[:at] + _PROBE + text[at:]


def _parse(text: str) -> ast.Module | None:
    """`text`'s tree, None if it does not parse. CPython 3.11's `ast.parse` can fail at random in
    concurrent threads ("AST constructor recursion depth mismatch", a SystemError): tried again."""
    for attempt in range(3):
        try:
            with _PARSING:
                return ast.parse(text)
        except SyntaxError:
            return None
        except SystemError:
            if attempt == 2:
                raise
    return None


def _first_simple(body: list[ast.stmt], top: bool = False) -> ast.stmt | None:
    for index, node in enumerate(body):
        if top and index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            continue  # the docstring stays the docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue  # must stay first
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # defined, not run
        if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)):
            inner = _first_simple(node.body)
            if inner is not None:
                return inner
            continue
        if hasattr(ast, "Match") and isinstance(node, ast.Match):
            continue
        return node
    return None


def split_markers(result: RunResult) -> RunResult:
    """The run without the hook's marker lines; the records they held (in order) in `comparisons`."""
    if b"<autodd-operands:" not in result.stderr:
        return result
    records: list[dict[str, Any]] = []
    for match in _MARKER.finditer(result.stderr):
        try:
            record = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return replace(result, stderr=_MARKER.sub(b"", result.stderr), comparisons=tuple(records))
