"""Incremental parsing for the freeze grammar: each top-level chunk parsed once.

`parse_freeze` runs on every keystroke, and `ast.parse` of a 2,000-line file
alone takes ~20 ms. A keystroke changes one top-level statement, so each chunk
(see `syntax.chunks`) is parsed on its own, from a cache keyed by the chunk's
text (does it parse?) and by its text and first line (its statements).

A chunk's statements are only built (with line numbers for where it sits
now) when someone looks at its lines -- see `ChunkedSource.body_for`; after a line
is inserted, the chunks below keep their cached "parses" verdict.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable

from autodd_lsp.syntax.chunks import Chunk, recall, remember
from autodd_lsp.syntax.source import first_line

_CACHE_SIZE = 4096  # chunks: several versions of a few large files


class ChunkParser:
    """Parses chunks, remembering verdicts by text and statements by (text, first line).

    `parse` turns a text into an `ast.Module`, or into whatever it returns for
    a text that does not parse.
    """

    def __init__(self, parse: Callable[[str], object], size: int = _CACHE_SIZE):
        self._parse_text = parse
        self._size = size
        self._parses: OrderedDict[str, bool] = OrderedDict()
        self._statements: OrderedDict[tuple[str, int], list[ast.stmt]] = OrderedDict()

    def knows(self, chunk: Chunk) -> bool:
        return chunk.text in self._parses

    def learn(self, chunks: list[Chunk], module: ast.Module) -> bool:
        """Take the chunks' statements from a parse of the whole text; False if a cut was wrong.

        A text first seen is parsed whole (one parse beats hundreds of small ones).
        """
        body = module.body
        starts = [stmt.lineno for stmt in body]
        firsts = [first_line(stmt) for stmt in body]
        if not {chunk.first for chunk in chunks[1:]} <= set(firsts):
            return False  # a cut inside a statement (a string, a bracket)
        for chunk in chunks:
            statements = body[bisect_left(starts, chunk.first) : bisect_right(starts, chunk.last)]
            remember(self._parses, chunk.text, True, self._size)
            remember(self._statements, (chunk.text, chunk.first), statements, self._size)
        return True

    def parses(self, chunk: Chunk) -> bool:
        verdict = recall(self._parses, chunk.text)
        if verdict is None:
            verdict = isinstance(self.parse(chunk), ast.Module)
        return verdict

    def statements(self, chunk: Chunk) -> list[ast.stmt]:
        """The chunk's statements, numbered where it sits (it must parse)."""
        found = recall(self._statements, (chunk.text, chunk.first))
        if found is None:
            found = self.parse(chunk).body
        return found

    def parse(self, chunk: Chunk):
        """The chunk's module, or why it does not parse, with the line numbers of where it sits."""
        # Blank lines in front give the nodes their real line numbers, nearly for free.
        result = self._parse_text("\n" * (chunk.first - 1) + chunk.text)
        parsed = isinstance(result, ast.Module)
        remember(self._parses, chunk.text, parsed, self._size)
        if isinstance(result, ast.Module):
            remember(self._statements, (chunk.text, chunk.first), result.body, self._size)
        return result
