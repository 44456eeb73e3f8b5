"""The editor's Freeze / Unfreeze selection actions, as text edits.

`freeze_edits` freezes whole statements: the statements of the innermost body
that the selected lines touch. One simple statement alone on its line gets a
`# autodd: freeze` comment; anything else gets a freeze-start / end-freeze
block at the statements' indentation. Existing blocks that the new one would
overlap or contain are merged into it, so the result never nests blocks.

`unfreeze_edits` removes comment annotations only: explicit `__freeze__`
forms are code the user wrote, and stay.

Edits never overlap, refer to the original text, and come in document order.
"""

from __future__ import annotations

import ast
import re

from autodd_lsp.freeze.chunked_source import (
    BOM,
    ChunkedSource,
    first_line,
    is_compound,
    load_source,
)
from autodd_lsp.freeze.comments import (
    END_FREEZE,
    FREEZE,
    FREEZE_START,
    Annotation,
    annotation_run_end,
)
from autodd_lsp.freeze.model import FrozenRegion, TextEdit
from autodd_lsp.freeze.parse import Analysis, analyse
from autodd_lsp.freeze.structure import line_target, marker_gap, selection_target

LINE_COMMENT = "  # autodd: freeze"


def freeze_edits(text: str, start_line: int, end_line: int) -> list[TextEdit]:
    analysis = analyse(text)
    source = analysis.source or _parse(text)
    if source is None:
        return []
    source.whole_body()  # merging blocks looks around the selection: no index may shift later
    target = selection_target(source, *sorted((start_line, end_line)))
    if not target:
        return []
    body, first, last = target
    if _all_frozen(source, analysis.info.regions, body[first : last + 1]):
        return []
    if _takes_line_comment(source, analysis, body[first : last + 1]):
        line = source.line(body[first].lineno).rstrip()
        return [TextEdit(body[first].lineno, len(line), body[first].lineno, len(line), LINE_COMMENT)]
    return _block_edits(source, analysis, body, first, last)


def unfreeze_edits(text: str, start_line: int, end_line: int) -> list[TextEdit]:
    analysis = analyse(text)
    if analysis.source is None:
        return []
    lo, hi = sorted((start_line, end_line))
    doomed = [a for a in analysis.annotations if a.directive == FREEZE and lo <= a.line <= hi]
    for block in analysis.blocks:
        if block.start.line <= hi and block.end.line >= lo:
            doomed += [block.start, block.end]
    doomed += [marker for marker in analysis.unmatched if lo <= marker.line <= hi]
    return _removal_edits(analysis.source, doomed)


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """The text after the (non-overlapping) edits, as an editor would apply them.

    Applied from the end backwards; inserts at one position keep their list order.
    """
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    ranges = sorted(
        (starts[e.start_line - 1] + e.start_col, starts[e.end_line - 1] + e.end_col, index, e.new_text)
        for index, e in enumerate(edits)
    )
    limit = len(text) + 1
    for begin, end, _, new_text in reversed(ranges):
        if end > limit:
            raise ValueError("overlapping text edits")
        text, limit = text[:begin] + new_text + text[end:], begin
    return text


def _parse(text: str) -> ChunkedSource | None:
    source = load_source(text)
    return source if isinstance(source, ChunkedSource) else None


def _all_frozen(source: ChunkedSource, regions: list[FrozenRegion], statements: list[ast.stmt]) -> bool:
    return all(any(region.span.contains(source.span(stmt)) for region in regions) for stmt in statements)


def _takes_line_comment(source: ChunkedSource, analysis: Analysis, statements: list[ast.stmt]) -> bool:
    """One simple statement alone on one line, which a trailing comment would freeze exactly."""
    stmt = statements[0]
    line = stmt.lineno
    return (
        len(statements) == 1
        and not is_compound(stmt)
        and first_line(stmt) == stmt.end_lineno
        and not source.line(line).rstrip().endswith("\\")
        and not any(a.line == line for a in analysis.annotations)
        and (target := line_target(source, line, own_line=False)) is not None
        and target.statements == [stmt]
    )


def _block_edits(source: ChunkedSource, analysis: Analysis, body: list[ast.stmt], first: int, last: int) -> list[TextEdit]:
    first, last, old_markers = _merge_blocks(source, analysis, body, first, last)
    start, end = first_line(body[first]), source.extended_end(body[last])
    indent = source.indent(start)
    edits, emptied = _removal_plan(source, old_markers)
    # An old marker line right where a new one goes is rewritten rather than deleted: a deletion
    # and an insertion there could overlap (at the end of a text without a final line break).
    for line, directive in ((start - 1, FREEZE_START), (end + 1, END_FREEZE)):
        marker = f"{indent}# autodd: {directive}"
        if line in emptied:
            emptied.remove(line)
            edits.append(TextEdit(line, _bom_col(source, line), line, len(source.line(line)), marker))
        elif directive == FREEZE_START:
            edits.append(_insert_line_before(source, start, marker))
        else:
            edits.append(_insert_line_after(source, end, marker))
    edits += _line_deletions(source, sorted(emptied))
    return sorted(edits, key=lambda e: (e.start_line, e.start_col))


def _insert_line_before(source: ChunkedSource, line: int, text: str) -> TextEdit:
    col = _bom_col(source, line)  # a byte-order mark stays first
    return TextEdit(line, col, line, col, text + _newline(source.text))


def _insert_line_after(source: ChunkedSource, line: int, text: str) -> TextEdit:
    if line < len(source.lines):
        return TextEdit(line + 1, 0, line + 1, 0, text + _newline(source.text))
    width = len(source.line(line))  # the last line, without a line break
    return TextEdit(line, width, line, width, _newline(source.text) + text)


def _bom_col(source: ChunkedSource, line: int) -> int:
    return 1 if line == 1 and source.text.startswith(BOM) else 0


def _merge_blocks(source: ChunkedSource, analysis: Analysis, body: list[ast.stmt], first: int, last: int):
    """Grow first..last over the blocks of `body` it overlaps; their markers, and those of blocks inside, go."""
    merged: list[Annotation] = []
    changed = True
    while changed:
        changed = False
        lo, hi = first_line(body[first]), source.extended_end(body[last])
        for block in analysis.blocks:
            if block.start in merged or block.start.line > hi or block.end.line < lo:
                continue
            start_gap, end_gap = marker_gap(source, block.start.line), marker_gap(source, block.end.line)
            if start_gap and end_gap and start_gap.body is body and end_gap.body is body:
                first, last = min(first, start_gap.index), max(last, end_gap.index - 1)
                merged += [block.start, block.end]
                changed = True
            elif lo <= block.start.line and block.end.line <= hi:
                merged += [block.start, block.end]
    return first, last, merged


def _removal_edits(source: ChunkedSource, annotations: list[Annotation]) -> list[TextEdit]:
    edits, emptied = _removal_plan(source, annotations)
    return sorted(edits + _line_deletions(source, sorted(emptied)), key=lambda e: (e.start_line, e.start_col))


def _removal_plan(source: ChunkedSource, annotations: list[Annotation]) -> tuple[list[TextEdit], set[int]]:
    """Remove each annotation and the blanks before it: (edits within lines, lines left empty to delete)."""
    edits, emptied = [], set()
    for annotation in set(annotations):
        line = source.line(annotation.line)
        begin = len(line[: annotation.start_col].rstrip())
        end = annotation_run_end(line, annotation.end_col)
        if not line[:begin].lstrip(BOM).strip() and not line[end:].strip():
            emptied.add(annotation.line)
        else:
            edits.append(TextEdit(annotation.line, begin, annotation.line, end, ""))
    return edits, emptied


def _line_deletions(source: ChunkedSource, numbers: list[int]) -> list[TextEdit]:
    """Delete whole lines; runs of adjacent lines become one edit so no two edits overlap."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][1] == number - 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    edits = []
    for first, last in runs:
        bom = _bom_col(source, first)
        if last < len(source.lines):
            edits.append(TextEdit(first, bom, last + 1, 0, ""))
        elif first > 1:  # the last line has no line break: take the one before it
            edits.append(TextEdit(first - 1, len(source.line(first - 1)), last, len(source.line(last)), ""))
        else:
            edits.append(TextEdit(first, bom, last, len(source.line(last)), ""))
    return edits


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\r" if "\r" in text else "\n"
