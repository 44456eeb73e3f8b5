"""Positions: the freeze module's (1-based lines, code-point columns) and LSP's.

LSP lines are 0-based; LSP columns count code units of the negotiated
position encoding (UTF-16 unless the client asked for another). Lines end at
\\n, \\r\\n or \\r, as in LSP and in Python's own tokenizer.
"""

from __future__ import annotations

import difflib

from lsprotocol import types

from autodd_lsp.syntax.lines import split_lines_keepends

UTF16 = types.PositionEncodingKind.Utf16.value


def code_units(text: str, encoding: str = UTF16) -> int:
    """How many code units of `encoding` `text` takes."""
    if encoding == types.PositionEncodingKind.Utf8.value:
        return len(text.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32.value:
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def column_to_client(line_text: str, column: int, encoding: str = UTF16) -> int:
    """A code-point column of `line_text` as a client column."""
    return code_units(line_text[:column], encoding)


def column_from_client(line_text: str, units: int, encoding: str = UTF16) -> int:
    """A client column of `line_text` as a code-point column (clamped to the line)."""
    count = 0
    for index, char in enumerate(line_text):
        if count >= units:
            return index
        count += code_units(char, encoding)
    return len(line_text)


def to_position(lines: list[str], line: int, column: int, encoding: str = UTF16) -> types.Position:
    """LSP position of 1-based `line`, code-point `column` in a text split by `split_lines`."""
    index = min(max(line - 1, 0), len(lines) - 1)
    return types.Position(line=index, character=column_to_client(lines[index], column, encoding))


def to_range(lines: list[str], start_line: int, start_col: int, end_line: int, end_col: int,
             encoding: str = UTF16) -> types.Range:
    return types.Range(
        start=to_position(lines, start_line, start_col, encoding),
        end=to_position(lines, end_line, end_col, encoding),
    )


def from_position(lines: list[str], position: types.Position, encoding: str = UTF16) -> tuple[int, int]:
    """(1-based line, code-point column) of an LSP position, clamped to the text."""
    index = min(max(position.line, 0), len(lines) - 1)
    return index + 1, column_from_client(lines[index], position.character, encoding)


def diff_edits(old: str, new: str, encoding: str = UTF16) -> list[types.TextEdit]:
    """The few line-level edits that turn `old` into `new` (empty when they are equal).

    Ranges refer to `old` and do not overlap, as one WorkspaceEdit needs.
    """
    old_lines = split_lines_keepends(old)
    new_lines = split_lines_keepends(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    edits = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(
            types.TextEdit(
                range=types.Range(
                    start=_line_start(old_lines, i1, encoding),
                    end=_line_start(old_lines, i2, encoding),
                ),
                new_text="".join(new_lines[j1:j2]),
            )
        )
    return edits


def _line_start(lines_keepends: list[str], index: int, encoding: str) -> types.Position:
    """Where line `index` starts; past the last line: the end of the text, never beyond it."""
    if index < len(lines_keepends):
        return types.Position(line=index, character=0)
    if not lines_keepends:
        return types.Position(line=0, character=0)
    last = lines_keepends[-1]
    if last.endswith(("\n", "\r")):
        return types.Position(line=index, character=0)
    return types.Position(line=index - 1, character=code_units(last, encoding))


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = UTF16) -> str:
    """`text` with LSP `edits` (non-overlapping, all relative to `text`) applied; for tests and checks."""
    lines = split_lines_keepends(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        bare = lines[position.line].rstrip("\r\n")
        return offsets[position.line] + column_from_client(bare, position.character, encoding)

    result = text
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        result = result[:start] + edit.new_text + result[end:]
    return result
