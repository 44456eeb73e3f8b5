"""Incremental parsing: a module as top-level chunks, each parsed once.

`parse_freeze` runs on every keystroke, and `ast.parse` of a 2,000-line file
alone takes ~20 ms. A keystroke changes one top-level statement, so the text
is cut where a line starts with code in column 0 and each chunk is parsed on
its own, from a cache keyed by the chunk's text and first line.

Why the pieces equal the whole: a cut inside a string, a bracket or after a
backslash leaves the chunk above it unable to parse. So when every chunk
parses, every cut sat at the start of a top-level logical line, and the
chunks' statements are exactly the module's. When any chunk fails, the caller
parses the whole text instead (a real syntax error, or a cut in a bad place).

A chunk's statements are only built (with line numbers for where it sits
now) when someone looks at its lines -- see `Source.body_for`; after a line
is inserted, the chunks below keep their cached "parses" verdict.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

# Lines that continue the statement above even in column 0.
_CONTINUATION = re.compile(r"(else|elif|except|finally)\b")

_CACHE_SIZE = 4096  # chunks: several versions of a few large files


@dataclass(frozen=True)
class Chunk:
    first: int  # 1-based line numbers, inclusive
    last: int
    text: str  # its lines joined by "\n"


def split_chunks(lines: list[str]) -> list[Chunk]:
    """Cut before each column-0 code line that can start a statement.

    Lines before the first cut (a header of comments) form a chunk of their own.
    Column-0 lines of triple-quoted strings (docstrings!) are told apart by a
    quick count of the quotes; when the count is fooled, a chunk fails to
    parse and the caller falls back to the whole text.
    """
    starts = [0]
    decorated = False  # the code line above is a decorator: keep it with its def
    open_quote = None  # the triple quote of a string that runs past this line
    for index, line in enumerate(lines):
        inside = open_quote is not None
        if '"""' in line or "'''" in line:
            open_quote = _quote_after(line, open_quote)
        if inside or not line or line[0] in " \t\f#)]}":
            continue
        if index and not decorated and not _CONTINUATION.match(line):
            starts.append(index)
        decorated = line[0] == "@"
    if len(starts) > 1 and starts[1] == 0:
        starts.pop(0)
    bounds = zip(starts, starts[1:] + [len(lines)])
    return [Chunk(lo + 1, hi, "\n".join(lines[lo:hi])) for lo, hi in bounds]


def _quote_after(line: str, open_quote: str | None) -> str | None:
    """Which triple quote is still open at the end of `line`."""
    position = 0
    while True:
        if open_quote is None:
            found = [(line.find(q, position), q) for q in ('"""', "'''")]
            found = [(at, q) for at, q in found if at != -1]
            if not found:
                return None
            position, open_quote = min(found)
            position += 3
        else:
            at = line.find(open_quote, position)
            if at == -1:
                return open_quote
            position, open_quote = at + 3, None


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
        firsts = [min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())]) for stmt in body]
        if not set(chunk.first for chunk in chunks[1:]) <= set(firsts):
            return False  # a cut inside a statement (a string, a bracket)
        for chunk in chunks:
            statements = body[bisect_left(starts, chunk.first) : bisect_right(starts, chunk.last)]
            _remember(self._parses, chunk.text, True, self._size)
            _remember(self._statements, (chunk.text, chunk.first), statements, self._size)
        return True

    def parses(self, chunk: Chunk) -> bool:
        verdict = _recall(self._parses, chunk.text)
        if verdict is None:
            verdict = isinstance(self.parse(chunk), ast.Module)
        return verdict

    def statements(self, chunk: Chunk) -> list[ast.stmt]:
        """The chunk's statements, numbered where it sits (it must parse)."""
        found = _recall(self._statements, (chunk.text, chunk.first))
        if found is None:
            found = self.parse(chunk).body
        return found

    def parse(self, chunk: Chunk):
        """The chunk's module, or why it does not parse, with the line numbers of where it sits."""
        # Blank lines in front give the nodes their real line numbers, nearly for free.
        result = self._parse_text("\n" * (chunk.first - 1) + chunk.text)
        parsed = isinstance(result, ast.Module)
        _remember(self._parses, chunk.text, parsed, self._size)
        if parsed:
            _remember(self._statements, (chunk.text, chunk.first), result.body, self._size)
        return result


def _recall(cache: OrderedDict, key):
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
    return value


def _remember(cache: OrderedDict, key, value, size: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)
