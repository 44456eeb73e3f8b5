"""Find `# autodd: ...` annotations in real comments, never inside strings.

A `#` outside a string always starts a comment, so the first `#` of a line
that no string literal covers is where the comment starts. String literals
come from the AST; only a literal that spans several lines can hide a real
comment inside its span (`("a"  # note` / `"b")`, implicit concatenation), so
just those few literals are re-tokenized to find the comments between parts.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import TypeGuard

from autodd_lsp.freeze.chunked_source import BOM, ChunkedSource
from autodd_lsp.freeze.model import TextRange
from autodd_lsp.syntax.source import last_line

FREEZE = "freeze"
FREEZE_START = "freeze-start"
END_FREEZE = "end-freeze"
DIRECTIVES = (FREEZE, FREEZE_START, END_FREEZE)

# `#autodd:freeze`, `#  autodd :  freeze-start`, `# autodd: freeze_start` ...
ANNOTATION = re.compile(r"#[ \t]*autodd[ \t]*:[ \t]*([A-Za-z]+(?:[ \t]*[-_][ \t]*[A-Za-z]+)*)?")

# f-strings, and t-strings from Python 3.14 on.
_FORMATTED = (ast.JoinedStr,) + ((ast.TemplateStr,) if hasattr(ast, "TemplateStr") else ())


@dataclass(frozen=True)
class Annotation:
    line: int
    start_col: int  # the annotation's own `#`
    end_col: int  # end of its text: up to the next `#` or the end of the line, blanks trimmed
    directive: str  # normalised: "freeze", "freeze-start", "end-freeze" or unknown text
    own_line: bool  # nothing but blanks before the comment


def find_annotations(source: ChunkedSource) -> list[Annotation]:
    candidates = source.lines_matching(ANNOTATION)
    if not candidates:
        return []
    strings = _strings_on_lines(source, candidates)
    inner_comments: dict = {}  # one tokenizer run per multi-line literal
    found = []
    for number in candidates:
        comment_col = _comment_start(source, number, strings.get(number, []), inner_comments)
        annotation = None if comment_col is None else _annotation_in_comment(source, number, comment_col)
        if annotation is not None:
            found.append(annotation)
    return found


def _strings_on_lines(source: ChunkedSource, lines: list[int]) -> dict[int, list[ast.expr]]:
    wanted = set(lines)
    by_line: dict[int, list[ast.expr]] = {}
    # Parts inside an f-string carry unreliable positions before 3.12: stay outside.
    for node in source.walk_lines(lines, descend=lambda n: not isinstance(n, _FORMATTED)):
        if _is_string(node):
            for number in wanted.intersection(range(node.lineno, last_line(node) + 1)):
                by_line.setdefault(number, []).append(node)
    return by_line


def _is_string(node: ast.AST) -> TypeGuard[ast.expr]:
    return isinstance(node, _FORMATTED) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def _comment_start(source: ChunkedSource, number: int, strings: list[ast.expr], cache: dict) -> int | None:
    line = source.line(number)
    covered = [_covered_part(source, number, node, cache) for node in strings]
    position = line.find("#")
    while position != -1:
        if not any(start <= position < end for start, end in covered):
            return position
        position = line.find("#", position + 1)
    return None


def _covered_part(source: ChunkedSource, number: int, node: ast.expr, cache: dict) -> tuple[int, int]:
    """The columns of line `number` that the string literal `node` covers."""
    span = source.span(node)
    start = span.start_col if number == span.start_line else 0
    end = span.end_col if number == span.end_line else len(source.line(number))
    if span.start_line != span.end_line:
        if span not in cache:
            cache[span] = _comments_inside(source, span)
        inner_comment = cache[span].get(number)
        if inner_comment is not None:
            end = min(end, inner_comment)
    return start, end


def _comments_inside(source: ChunkedSource, span: TextRange) -> dict[int, int]:
    """First comment column per line inside a multi-line string literal's span."""
    text = "(" + source.segment(span) + ")"
    found: dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                row, col = token.start
                line = span.start_line + row - 1
                col = col - 1 + span.start_col if row == 1 else col
                found.setdefault(line, col)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _annotation_in_comment(source: ChunkedSource, number: int, comment_col: int) -> Annotation | None:
    line = source.line(number)
    match = ANNOTATION.search(line, comment_col)
    if match is None:
        return None
    next_hash = line.find("#", match.end())
    end = len(line[: next_hash if next_hash != -1 else len(line)].rstrip())
    directive = re.sub(r"[ \t]", "", match.group(1) or "").replace("_", "-").lower()
    own_line = not line[:comment_col].lstrip(BOM).strip()
    return Annotation(number, match.start(), end, directive, own_line)


def annotation_run_end(line: str, end_col: int) -> int:
    """Where a run of annotations ends: `# autodd: freeze  # autodd: xyz` is one run.

    Only a comment's first annotation counts, so removing it must take the ones
    right after it too, or the next would come to life.
    """
    while True:
        rest = line[end_col:]
        match = ANNOTATION.match(rest.lstrip())
        if match is None:
            return end_col
        start = end_col + len(rest) - len(rest.lstrip())
        next_hash = line.find("#", start + match.end())
        end_col = len(line[: next_hash if next_hash != -1 else len(line)].rstrip())
