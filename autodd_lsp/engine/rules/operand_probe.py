"""A program probed for the operands of its failure, on the same lines.

The wrong-answer rule (`oracle/operands.py`) needs, from the original and from every
candidate it judges, the operands of the comparison that failed; the failing-statement
rule (`oracle/failing_statement.py`) what the failing statement read. A *probed* copy
of a program runs both hooks (`execution/operands_hook.py`, `execution/statement_hook.py`)
before anything else the program does: one statement, `exec(HOOK, {...})` for each in a
namespace of its own, put on the line of the first simple statement that runs at module
level (`P; import torch`), so that no line moves: tracebacks, the same-place rule and the
failure line read the probed run as they would read the program's own. The hooks write
marker lines to stderr (one per failing comparison, one for the uncaught exception);
`split_markers` takes them out of the run again, so the other rules judge exactly what
the program printed.

A program with no simple statement at module level (nothing but definitions and
compound statements with none inside) cannot be probed: None.
"""

from __future__ import annotations

import ast
import base64
import json
import marshal
import re
import sys
import zlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from autodd_lsp.execution import RunResult
from autodd_lsp.oracle.failing_statement import statement_source
from autodd_lsp.oracle.operands import probe_source
from autodd_lsp.syntax.parsing import parse


def hook_statement(source: str, name: str, namespace: str, installed: str, given: str = "") -> str:
    """One statement that runs a hook's source in a namespace of its own, once (`installed`: an expression
    true once it ran; the first simple statement may sit in a loop): its code object, marshalled by this
    interpreter, when the program's has the same cache tag (compiling ~10 KB of source costs more than a
    fast program's whole run), else the source compiled there. Both compressed: the candidate's own
    compile pays for every character of the string literals. `given`: more entries of the hook's
    namespace, as the text of a dict display's items (`"PATHS": [...], `)."""
    small = _without_docstrings(source)
    code = base64.b64encode(zlib.compress(marshal.dumps(compile(small, name, "exec", optimize=2)), 9)).decode("ascii")
    text = base64.b64encode(zlib.compress(small.encode("utf-8"), 9)).decode("ascii")
    unpack = '__import__("zlib").decompress(__import__("binascii").a2b_base64({!r}))'
    return (
        f'{installed} or exec(__import__("marshal").loads({unpack.format(code)}) '
        f'if __import__("sys").implementation.cache_tag == {sys.implementation.cache_tag!r} '
        f'else compile({unpack.format(text)}, {name!r}, "exec"), {{{given}"__name__": {namespace!r}}}); '
    )


def _without_docstrings(source: str) -> str:
    """A hook's source without its docstrings and comments (what runs is the same)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
                and isinstance(node.body[0].value.value, str):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(tree)


_COMPARISONS = hook_statement(probe_source(), "<autodd operands probe>", "_autodd_operands",
                              'any(getattr(f, "_autodd_probe", 0) for f in __import__("sys").meta_path)')
_STATEMENT = hook_statement(statement_source(), "<autodd statement probe>", "_autodd_statement",
                            'getattr(__import__("sys").excepthook, "_autodd_probe", 0)')
# What the hooks import (stdlib): preloaded by the warm runner, so that a probed run does not import them.
PROBE_IMPORTS = ("ast", "json", "hashlib", "math", "zlib", "binascii")
_MARKER = re.compile(rb"\n?<autodd-(operands|statement|earlier):(\{[^\n]*\})>\n")


def probe(comparisons: bool = True, statement: bool = True) -> Callable[[str], str | None]:
    """What makes a text's probed copy, with the hooks asked for: the comparisons' and the failing
    statement's (each costs a little per run: a rule that is not kept runs without its hook)."""
    hooks = (_COMPARISONS if comparisons else "") + (_STATEMENT if statement else "")
    return lambda text: insert_hooks(text, hooks)


def probed_text(text: str) -> str | None:
    """`text` with both hooks run first, on the line of its first module-level simple statement."""
    return insert_hooks(text, _COMPARISONS + _STATEMENT)


def insert_hooks(text: str, hooks: str) -> str | None:
    """`text` with the statements `hooks` run first, on the line of its first module-level simple
    statement; None if it has none (or does not parse)."""
    at = _probe_offset(text)
    return None if at is None else text[:at] + hooks + text[at:]


_LAST: list[tuple[str, int]] = []  # (the text up to a probe's place and the rest of its line, that place)


def _probe_offset(text: str) -> int | None:
    """Where the hooks go in `text`: the offset of its first module-level simple statement.

    Candidates share their beginning with the text they come from, and the tokens before an
    offset decide whether a statement starts there, and its first line whether it is simple:
    a text that begins as the last one did up to the end of that statement's first line has
    its first simple statement at the same place, without a parse (one per candidate
    otherwise, as costly as its compile)."""
    for key, at in list(_LAST):
        if text.startswith(key):
            return at
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
    if line.endswith("\n"):
        _LAST[:] = [(text[:offset + len(line)], offset + column)]
    return offset + column


def _parse(text: str) -> ast.Module | None:
    """`text`'s tree, None if it does not parse (through the one parse lock: syntax/parsing.py)."""
    try:
        return parse(text)
    except (SyntaxError, ValueError):
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
    """The run without the hooks' marker lines; the comparisons' records (in order) in `comparisons`,
    the failing statement's (the last) in `statement`, the files read that an earlier run wrote
    (`earlier_files.py`) in `read_earlier`."""
    if b"<autodd-" not in result.stderr:
        return result
    records: list[dict[str, Any]] = []
    statement = None
    earlier: list[str] = []
    for match in _MARKER.finditer(result.stderr):
        try:
            record = json.loads(match.group(2))
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if match.group(1) == b"statement":
            statement = record
        elif match.group(1) == b"earlier":
            earlier.append(str(record.get("path")))
        else:
            records.append(record)
    return replace(result, stderr=_MARKER.sub(b"", result.stderr), comparisons=tuple(records), statement=statement,
                   read_earlier=tuple(earlier))
