"""`ast.parse` for a program with several threads: one at a time.

CPython 3.11's conversion of a parsed tree to Python objects keeps its recursion
depth in interpreter state that all threads share (see CPython gh-106905, which
its reporter saw in a threaded program): two threads parsing at once can fail
with `SystemError: AST constructor recursion depth mismatch`; one CI run of
tests/test_fidelity.py did. The engine parses in its main thread (passes) and in its job
threads (freeze checks, degenerate values, frozen-code probes, the probe's place) at the
same time, so every parse in AutoDD goes through this lock, and so does every compile of a
tree (`compile_tree`: its conversion back from Python objects keeps the same shared depth;
a CI run failed that way when the frozen-code probe compiled trees in job threads). A parse
takes milliseconds; the lock costs nothing measurable next to running candidates.

The same holds for warnings: `warnings.catch_warnings` saves the process's filters and
restores them on exit, so two threads' blocks interleaved restore each other's, and the
filters are left off for good (or a candidate's `SyntaxWarning` shows: pytest printed
them). `parse` and `compile_tree` are quiet (a candidate's `1[0]`, or an invalid escape sequence in its strings, warns), and so is
any code that silences warnings: through `quietly`, one block at a time, taken before `_LOCK`.
"""

from __future__ import annotations

import ast
import contextlib
import threading
import warnings
from collections.abc import Iterator
from types import CodeType
from typing import Any, Literal, overload

_LOCK = threading.Lock()
_QUIET = threading.RLock()  # one `quietly` block at a time (a block may hold another)


@contextlib.contextmanager
def quietly() -> Iterator[None]:
    """Warnings off while the block runs (a candidate's `SyntaxWarning` is not ours to show)."""
    with _QUIET, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@overload
def parse(source: str | bytes, filename: str = ..., mode: Literal["exec"] = ..., **options: Any) -> ast.Module: ...
@overload
def parse(source: str | bytes, filename: str = ..., *, mode: Literal["eval"], **options: Any) -> ast.Expression: ...
@overload
def parse(source: str | bytes, filename: str, mode: str, **options: Any) -> ast.AST: ...


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **options: Any) -> ast.AST:
    with quietly(), _LOCK:  # `quietly` first, always: one order for the two locks
        return ast.parse(source, filename, mode, **options)


def compile_tree(tree: ast.Module, filename: str) -> CodeType:
    """`compile(tree, filename, "exec", dont_inherit=True)`, one thread at a time (see above)."""
    with quietly(), _LOCK:
        return compile(tree, filename, "exec", dont_inherit=True)
