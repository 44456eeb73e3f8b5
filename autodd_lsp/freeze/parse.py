"""`parse_freeze`: every freeze annotation of a text, as regions and problems.

Runs on every keystroke in the editor, so: a text that mentions neither
`autodd` nor `__freeze__` returns at once (without even a syntax check), only
the top-level chunks an edit changed are parsed again (`chunks`), and only the
subtrees on annotated lines are visited.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from autodd_lsp.freeze.chunked_source import ChunkedSource, load_source
from autodd_lsp.freeze.comments import (
    DIRECTIVES,
    END_FREEZE,
    FREEZE,
    FREEZE_START,
    Annotation,
    find_annotations,
)
from autodd_lsp.freeze.explicit import FREEZE_NAME, explicit_freezes
from autodd_lsp.freeze.model import FreezeInfo, FrozenRegion, Problem
from autodd_lsp.freeze.structure import line_target, marker_gap

START, END = "`# autodd: freeze-start`", "`# autodd: end-freeze`"


@dataclass
class Block:
    start: Annotation
    end: Annotation


@dataclass
class Analysis:
    """What `parse_freeze` found, with the annotations the edit actions need."""

    info: FreezeInfo
    source: ChunkedSource | None = None
    annotations: list[Annotation] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)  # matched marker pairs, valid or not
    unmatched: list[Annotation] = field(default_factory=list)  # markers without a partner


def parse_freeze(text: str) -> FreezeInfo:
    """Regions to protect and problems to show; never raises, never runs user code.

    `syntax_error` is checked only when the text could hold an annotation
    (mentions `autodd` or `__freeze__`); without one there is nothing to check.
    """
    info = analyse(text).info
    return FreezeInfo(list(info.regions), list(info.problems), info.syntax_error)


_last: tuple[str, Analysis] | None = None


def analyse(text: str) -> Analysis:
    # Diagnostics and code actions ask about the same text back to back.
    global _last
    if _last is not None and _last[0] == text:
        return _last[1]
    analysis = _analyse(text)
    _last = (text, analysis)
    return analysis


def _analyse(text: str) -> Analysis:
    if "autodd" not in text and FREEZE_NAME not in text:
        return Analysis(FreezeInfo())
    source = load_source(text)
    if isinstance(source, Problem):
        return Analysis(FreezeInfo(syntax_error=source))
    annotations = find_annotations(source)
    found = _Findings(source)
    for annotation in annotations:
        found.annotation(annotation)
    blocks, unmatched = found.blocks(annotations)
    found.explicit_forms()
    return Analysis(found.info(), source, annotations, blocks, unmatched)


class _Findings:
    def __init__(self, source: ChunkedSource):
        self.source = source
        self.regions: list[FrozenRegion] = []
        self.problems: list[Problem] = []
        self.nested_starts: set[int] = set()  # lines of freeze-starts opened inside another block

    def report(self, annotation: Annotation, message: str, severity: str = "error") -> None:
        self.problems.append(Problem(annotation.line, annotation.start_col, annotation.end_col, message, severity))

    def annotation(self, annotation: Annotation) -> None:
        if annotation.directive == FREEZE:
            self.line_freeze(annotation)
        elif annotation.directive in DIRECTIVES and not annotation.own_line:
            marker = START if annotation.directive == FREEZE_START else END
            self.report(annotation, f"{marker} must be a comment on a line of its own")
        elif annotation.directive not in DIRECTIVES:
            self.report(
                annotation,
                f"unknown AutoDD annotation '{annotation.directive}' "
                "(expected freeze, freeze-start or end-freeze)",
                "warning",
            )

    def line_freeze(self, annotation: Annotation) -> None:
        target = line_target(self.source, annotation.line, annotation.own_line)
        if target is None:
            self.report(
                annotation,
                "no statement on this line to freeze (to freeze the statements below, "
                f"put them between {START} and {END})",
                "warning",
            )
            return
        self.regions += [FrozenRegion(self.source.span(stmt), "line") for stmt in target.statements]
        if target.whole_compound:
            stmt = target.statements[0]
            where = "here" if annotation.line == stmt.lineno else _describe_line(self.source, annotation.line)
            self.report(
                annotation,
                f"`# autodd: freeze` {where} freezes the whole `{_keyword(self.source, stmt)}` statement, "
                "including its body",
                "information",
            )

    def info(self) -> FreezeInfo:
        return FreezeInfo(
            sorted(set(self.regions), key=lambda r: (r.span, r.form)),
            sorted(self.problems, key=lambda p: (p.line, p.start_col)),
        )

    def explicit_forms(self) -> None:
        regions, problems = explicit_freezes(self.source)
        self.regions += regions
        self.problems += problems

    def blocks(self, annotations: list[Annotation]) -> tuple[list[Block], list[Annotation]]:
        """Pair the markers and check each block: (pairs, markers without a partner)."""
        markers = [a for a in annotations if a.directive in (FREEZE_START, END_FREEZE)]
        # A marker after code is reported once (`annotation`) and kept out of the pairing.
        blocks, unmatched = self.pair_markers([m for m in markers if m.own_line])
        for block in blocks:
            self.block(block)
        return blocks, unmatched + [m for m in markers if not m.own_line]

    def pair_markers(self, markers: list[Annotation]) -> tuple[list[Block], list[Annotation]]:
        blocks: list[Block] = []
        open_starts: list[Annotation] = []
        unmatched: list[Annotation] = []
        for marker in markers:
            if marker.directive == FREEZE_START:
                if open_starts:
                    outer = open_starts[-1].line
                    self.report(marker, f"freeze blocks cannot be nested: the {START} on line {outer} is still open")
                    self.nested_starts.add(marker.line)
                open_starts.append(marker)
            elif open_starts:
                blocks.append(Block(open_starts.pop(), marker))
            else:
                self.report(marker, f"{END} has no matching {START} above it")
                unmatched.append(marker)
        for marker in open_starts:
            self.report(marker, f"{START} has no matching {END} below it")
            unmatched.append(marker)
        return blocks, unmatched

    def block(self, block: Block) -> None:
        if block.start.line in self.nested_starts:  # the outer block already covers it
            return
        self.source.body_for(block.start.line, block.end.line)  # before holding gaps into it
        start_gap, end_gap = marker_gap(self.source, block.start.line), marker_gap(self.source, block.end.line)
        for marker, gap, name in ((block.start, start_gap, START), (block.end, end_gap, END)):
            if gap is None:
                self.report(marker, f"{name} is inside a statement: put it on a line between statements")
        if start_gap is None or end_gap is None:
            return
        if start_gap.body is not end_gap.body:
            message = (
                f"{START} (line {block.start.line}) and {END} (line {block.end.line}) are not in the same "
                "statement body: a freeze block cannot cross a def, class, if or other block boundary"
            )
            self.report(block.start, message)
            self.report(block.end, message)
        elif self.source.indent(block.start.line) != self.source.indent(block.end.line):
            self.report(block.end, f"{END} is indented differently from its {START} (line {block.start.line})")
        else:
            statements = start_gap.body[start_gap.index : end_gap.index]
            if not statements:
                self.report(block.start, "this freeze block contains no statement", "warning")
            self.regions += [FrozenRegion(self.source.span(stmt), "block") for stmt in statements]


def _describe_line(source: ChunkedSource, line: int) -> str:
    """`on this `else` line`, `on this decorator line` ..."""
    found = re.match(r"\s*(@|\w*)", source.line(line))  # always matches (maybe empty)
    word = found.group(1) if found else ""
    return "on this decorator line" if word == "@" else f"on this `{word}` line" if word else "here"


def _keyword(source: ChunkedSource, stmt: ast.stmt) -> str:
    """`for`, `async def`, `elif` ... as written at the statement's start."""
    line = source.line(stmt.lineno)[source.char_col(stmt.lineno, stmt.col_offset) :]
    match = re.match(r"(async\s+)?\w+", line)
    return re.sub(r"\s+", " ", match.group(0)) if match else type(stmt).__name__.lower()
