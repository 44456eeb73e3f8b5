"""Compiling candidates one top-level chunk at a time.

Every candidate is compiled before it runs: to reject one that does not
compile without running it, and to hand the code to the runner (a fork that
compiled it again would pay a copy-on-write fault for every page the compiler
writes). A candidate differs from the last in a statement or two, so each
top-level chunk (`syntax.chunks`) is compiled once, by text; where a chunk has
moved, its code objects are given their new line numbers instead (line tables
are relative to `co_firstlineno`, so this is exact) and the candidate's path.

The chunks' code objects then run one after another in the module's
namespace, as the module's own code would. Where that could differ, more is
compiled as one piece: from a chunk that does not compile alone to the end
(the chunks before it compiled, so it starts a statement), or the whole text
for a `__future__` import after the first chunk or a later chunk that alone
would compile to a docstring.
"""

from __future__ import annotations
import __future__

from collections import OrderedDict
from types import CodeType

from autodd_lsp.syntax.chunks import Chunk, recall, remember, split_chunks
from autodd_lsp.syntax.lines import split_lines
from autodd_lsp.syntax.parsing import quietly

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

_CACHE_SIZE = 8192  # chunks (and placed copies): a run's recent candidates
_COMPILE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


def compile_whole(text: str, path: str, flags: int = 0) -> CodeType | None:
    """`text` compiled as `python path` would compile it; None if it does not compile."""
    try:
        with quietly():  # SyntaxWarnings of candidates are not ours to show
            return compile(text, path, "exec", flags=flags, dont_inherit=True)
    except _COMPILE_ERRORS:
        return None


class CandidateCompiler:
    """Compiles candidate texts into code objects to run in order; caches per chunk. Thread-safe."""

    def __init__(self, size: int = _CACHE_SIZE) -> None:
        self._size = size
        self._compiled: OrderedDict[tuple[str, int], CodeType | bool] = OrderedDict()
        self._placed: OrderedDict[tuple[str, int, int, str], CodeType] = OrderedDict()

    def compile(self, text: str, path: str) -> tuple[CodeType, ...] | None:
        """The code of `text` as if at `path`; None if `text` does not compile."""
        lines = split_lines(text)
        chunks = split_chunks(lines)
        codes: list[CodeType] = []
        flags = 0
        for index, chunk in enumerate(chunks):
            if index and "__future__" in chunk.text:
                return _whole(text, path)
            code = self._chunk_code(chunk.text, flags)
            if code is None and index:
                return _with_rest(codes, lines, chunk.first, flags, text, path)
            if code is None or (index and "__doc__" in code.co_names):
                return _whole(text, path)
            if index == 0:
                flags = code.co_flags & _FUTURE_FLAGS
            codes.append(self._place(chunk, flags, code, path))
        return tuple(codes)

    def _chunk_code(self, text: str, flags: int) -> CodeType | None:
        found = recall(self._compiled, (text, flags))
        if found is None:
            found = compile_whole(text, "<chunk>", flags) or False  # False: known not to compile
            remember(self._compiled, (text, flags), found, self._size)
        return found or None

    def _place(self, chunk: Chunk, flags: int, code: CodeType, path: str) -> CodeType:
        key = (chunk.text, flags, chunk.first, path)
        placed = recall(self._placed, key)
        if placed is None:
            placed = _relocated(code, chunk.first - 1, path)
            remember(self._placed, key, placed, self._size)
        return placed


def _with_rest(
    codes: list[CodeType], lines: list[str], first: int, flags: int, text: str, path: str
) -> tuple[CodeType, ...] | None:
    """The chunks before line `first` compiled alone, so the cut there is a statement
    start: the rest compiles as one piece (blank lines in front keep its line
    numbers) exactly when the whole text compiles. Usually it does not: the
    candidate is rejected without compiling the whole file again."""
    rest = compile_whole("\n" * (first - 1) + "\n".join(lines[first - 1 :]), path, flags)
    if rest is None:
        return None
    if "__doc__" in rest.co_names:
        return _whole(text, path)  # alone, its first string would be a docstring
    return (*codes, rest)


def _whole(text: str, path: str) -> tuple[CodeType, ...] | None:
    code = compile_whole(text, path)
    return None if code is None else (code,)


def _relocated(code: CodeType, shift: int, path: str) -> CodeType:
    """`code` and the code nested in it, moved down `shift` lines and into file `path`."""
    consts = tuple(_relocated(c, shift, path) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + shift, co_filename=path, co_consts=consts)
