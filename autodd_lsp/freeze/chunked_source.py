"""A parsed text plus the position helpers every freeze module needs.

`ast` reports columns as UTF-8 byte offsets; everything here converts them to
character columns, the unit of `TextRange`, `Problem` and `TextEdit`.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import cast

from autodd_lsp.freeze.incremental import ChunkParser
from autodd_lsp.freeze.model import Problem, TextRange
from autodd_lsp.syntax.chunks import Chunk, split_chunks
from autodd_lsp.syntax.lines import LINE_BREAK, split_lines
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.source import Located, end_col, first_line, last_line

BOM = "\ufeff"

_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Try,
    ast.Match,
) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


_MANY_NEW_CHUNKS = 8  # more than this: a text opened or pasted, parsed whole


def load_source(text: str) -> ChunkedSource | Problem:
    """The text ready for analysis, or the Problem of why it does not parse.

    Parsed by top-level chunks (see `chunks`), so a keystroke re-parses one.
    At the first chunk that does not parse on its own, the rest of the text is
    parsed as one chunk: the chunks above parsed, so it starts a statement, and
    its verdict is the whole text's.
    """
    lines = split_lines(text)
    chunks = split_chunks(lines)
    if sum(not _CHUNKS.knows(chunk) for chunk in chunks) > _MANY_NEW_CHUNKS:
        whole = parse_python(text)
        if isinstance(whole, Problem):
            return whole
        if _CHUNKS.learn(chunks, whole):
            return ChunkedSource(text, chunks=chunks, lines=lines)
    for index, chunk in enumerate(chunks):
        if not _CHUNKS.parses(chunk):
            rest = Chunk(chunk.first, len(lines), "\n".join(lines[chunk.first - 1 :]))
            parsed = _CHUNKS.parse(rest)
            if isinstance(parsed, Problem):
                return parsed
            chunks = [*chunks[:index], rest]
            break
    return ChunkedSource(text, chunks=chunks, lines=lines)


def parse_python(text: str) -> ast.Module | Problem:
    """The module's AST, or a Problem describing why it does not parse."""
    try:
        # A byte-order mark is fine in a file but not in a str: parse without it. `parse` is quiet
        # (invalid escape sequences etc. would print on every keystroke).
        return parse(text[1:] if text.startswith(BOM) else text)
    except SyntaxError as error:
        return _syntax_problem(text, error)
    except ValueError as error:  # null bytes (Python < 3.12)
        line = text.count("\n", 0, max(text.find("\0"), 0)) + 1
        return Problem(line, 0, 1, str(error))
    except (RecursionError, MemoryError):
        return Problem(1, 0, 1, "the text is too deeply nested to analyse")


def _syntax_problem(text: str, error: SyntaxError) -> Problem:
    # Since 3.10 the parser reports 1-based *character* offsets.
    lines = split_lines(text)
    line = min(max(error.lineno or 1, 1), len(lines))
    width = len(lines[line - 1])
    shift = 1 if line == 1 and text.startswith(BOM) else 0
    start = min(max((error.offset or 1) - 1 + shift, 0), width)
    end = (error.end_offset or 0) - 1 + shift if error.end_lineno == line else width
    end = min(max(end, start + 1), max(width, start + 1))
    return Problem(line, start, end, error.msg or "invalid syntax")


def is_compound(stmt: ast.stmt) -> bool:
    return isinstance(stmt, _COMPOUND)


def clause_bodies(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement bodies of a compound statement, in source order, empty ones left out."""
    if isinstance(stmt, ast.Match):
        bodies = [case.body for case in stmt.cases]
    else:
        handlers = [h.body for h in getattr(stmt, "handlers", [])]
        # Every compound statement but Match has a body; ast.stmt itself declares none.
        first_body: list[ast.stmt] = stmt.body  # type: ignore[attr-defined]
        bodies = [first_body, *handlers, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
    return [body for body in bodies if body]


def touching(body: list[ast.stmt], lo: int, hi: int) -> list[ast.stmt]:
    """The statements of `body` that have a line in [lo, hi]."""
    after = bisect_right(body, hi, key=first_line)
    found = []
    for stmt in reversed(body[:after]):
        if last_line(stmt) < lo:
            break
        found.append(stmt)
    return found[::-1]


_CHUNKS = ChunkParser(parse_python)


class ChunkedSource:
    """The text, its lines and its AST -- built chunk by chunk, as far as it is looked at.

    `tree.body` holds only the top-level statements of the chunks asked for so
    far (`body_for`, `walk_lines`): every question here is about a few lines,
    and the statements on those lines are all it needs.
    """

    def __init__(self, text: str, chunks: list[Chunk], lines: list[str]):
        self.text = text
        self.lines = lines
        self.tree = ast.Module(body=[], type_ignores=[])
        self._chunks = chunks
        self._chunk_starts = [chunk.first for chunk in chunks]
        self._built: set[int] = set()  # indices of the chunks whose statements are in tree.body

    def body_for(self, lo: int, hi: int) -> list[ast.stmt]:
        """The module body, with every top-level statement on lines lo..hi in it.

        Adding statements shifts indices into the body: take all the lines a
        question needs in one call before holding on to positions.
        """
        self._build(range(self._chunk_at(lo), self._chunk_at(hi) + 1))
        return self.tree.body

    def whole_body(self) -> list[ast.stmt]:
        return self.body_for(1, len(self.lines))

    def _chunk_at(self, line: int) -> int:
        return max(bisect_right(self._chunk_starts, line) - 1, 0)

    def _build(self, indices: Iterable[int]) -> None:
        missing = set(indices) - self._built
        if missing:
            self._built |= missing
            statements = (_CHUNKS.statements(self._chunks[index]) for index in sorted(self._built))
            self.tree.body[:] = [stmt for chunk in statements for stmt in chunk]

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else ""

    def char_col(self, number: int, byte_col: int) -> int:
        line = self.line(number)
        if line.isascii():
            return byte_col
        if number == 1 and line.startswith(BOM):  # the AST never saw it
            return 1 + len(line[1:].encode("utf-8")[:byte_col].decode("utf-8", "ignore"))
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))

    def span(self, node: Located) -> TextRange:
        return TextRange(
            node.lineno,
            self.char_col(node.lineno, node.col_offset),
            last_line(node),
            self.char_col(last_line(node), end_col(node)),
        )

    def segment(self, span: TextRange) -> str:
        if span.start_line == span.end_line:
            return self.line(span.start_line)[span.start_col : span.end_col]
        middle = self.lines[span.start_line : span.end_line - 1]
        first = self.line(span.start_line)[span.start_col :]
        last = self.line(span.end_line)[: span.end_col]
        return "\n".join([first, *middle, last])

    def indent(self, number: int) -> str:
        line = self.line(number).lstrip(BOM)
        return line[: len(line) - len(line.lstrip())]

    def indent_width(self, number: int) -> int:
        return len(self.indent(number).expandtabs(8))

    def is_code(self, number: int) -> bool:
        """Whether the line holds more than blanks and a comment (judged on its text alone)."""
        stripped = self.line(number).lstrip(BOM).strip()
        return bool(stripped) and not stripped.startswith("#")

    def opens_clause_inline(self, body: list[ast.stmt]) -> bool:
        """`if x: y = 1` -- the body's first statement shares its line with the clause header."""
        first = body[0]
        prefix = self.line(first.lineno)[: self.char_col(first.lineno, first.col_offset)]
        return first_line(first) == first.lineno and bool(prefix.strip())

    def extended_end(self, stmt: ast.stmt) -> int:
        """The statement's last line, plus trailing comment lines indented deeper than it.

        Python gives comments after a body's last statement to nobody; by their
        indentation they belong to that body, which matters for block markers.
        """
        end = last_line(stmt)
        if not is_compound(stmt):
            return end
        width = self.indent_width(stmt.lineno)
        number = end + 1
        while number <= len(self.lines):
            stripped = self.line(number).strip()
            if stripped.startswith("#") and self.indent_width(number) > width:
                end = number
            elif stripped:
                break
            number += 1
        return end

    def lines_matching(self, pattern: re.Pattern) -> list[int]:
        """The numbers of the lines where `pattern` matches."""
        return self._numbered(match.start() for match in pattern.finditer(self.text))

    def lines_containing(self, needle: str) -> list[int]:
        """The numbers of the lines that contain `needle` (a plain search beats a regex here)."""
        return self._numbered(_find_all(self.text, needle))

    def _numbered(self, offsets: Iterable[int]) -> list[int]:
        """Line numbers of text offsets (ascending), each line once."""
        if "\r" in self.text:  # lone CR line breaks: count per line
            starts = [0] + [m.end() for m in LINE_BREAK.finditer(self.text)]
            found: Iterator[int] = (bisect_right(starts, offset) for offset in offsets)
        else:
            found = _count_lines(self.text, offsets)
        numbers: list[int] = []
        for number in found:
            if not numbers or numbers[-1] != number:
                numbers.append(number)
        return numbers

    def walk_lines(
        self, lines: list[int], descend: Callable[[ast.AST], bool] = lambda node: True
    ) -> Iterator[ast.AST]:
        """The nodes that have one of the (sorted) `lines`, skipping every other subtree."""
        self._build(self._chunk_at(line) for line in lines)
        stack: list[ast.AST] = [self.tree]
        while stack:
            node = stack.pop()
            for child in _children_on_lines(node, lines):
                yield child
                if descend(child):
                    stack.append(child)


def _children_on_lines(node: ast.AST, lines: list[int]) -> Iterator[ast.AST]:
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            value = [value]
        elif not isinstance(value, list) or not value:
            continue
        if isinstance(value[0], ast.stmt):
            # Bodies can be long: find the statements on `lines` by bisection.
            yield from _statements_on_lines(value, lines)
            continue
        for child in value:  # `Dict.keys` holds None for `**mapping`
            if not isinstance(child, ast.AST):
                continue
            if not hasattr(child, "lineno"):
                yield child
                continue
            # It has a position: a Located node (or a 3.12+ type parameter, which 3.10's stubs lack).
            located = cast(Located, child)
            if _has_line_in(lines, first_line(located), last_line(located)):
                yield child


def _statements_on_lines(body: list[ast.stmt], lines: list[int]) -> Iterator[ast.stmt]:
    lo, hi = first_line(body[0]), last_line(body[-1])
    last = -1
    for line in lines[bisect_left(lines, lo) : bisect_right(lines, hi)]:
        index = bisect_right(body, line, key=first_line) - 1
        if index > last and last_line(body[index]) >= line:
            last = index
            yield body[index]


def _find_all(text: str, needle: str) -> Iterator[int]:
    position = text.find(needle)
    while position != -1:
        yield position
        position = text.find(needle, position + len(needle))


def _count_lines(text: str, offsets: Iterable[int]) -> Iterator[int]:
    line, scanned = 1, 0
    for offset in offsets:
        line += text.count("\n", scanned, offset)
        scanned = offset
        yield line


def _has_line_in(lines: list[int], lo: int, hi: int | None) -> bool:
    index = bisect_left(lines, lo)
    return index < len(lines) and lines[index] <= (hi if hi is not None else lo)
