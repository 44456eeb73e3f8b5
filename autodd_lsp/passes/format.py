"""Format the statements the reduction touched, as a person would write them.

Removals leave shapes nobody writes: `def f(\\n    ):`, `class A():`,
`f(\\n    0, 0,\\n)`, two blank lines inside a body. This pass hands exactly
the statements the reduction touched to ruff's range formatter and keeps the
user's text everywhere else, byte for byte.

Touched lines are the lines of the current text that do not occur unchanged in
the original (difflib over lines), plus the places where lines were deleted:
inside a statement (a removed argument's line) the statement counts as touched,
between statements the blank lines around the gap do. Each touched line is
widened to its logical line (a simple statement, or the header of a compound
one, or the run of blank lines it is in); ranges overlapping frozen code are
left alone. Each range is formatted by one ruff call over the whole text (ruff
needs the context), and only the lines that call changed, if they lie inside
the range, become a patch. All patches form ONE edit, verified like any other.

The engine accepts only candidates strictly shorter than the best: the edit
takes every formatted range if that is shorter in total, else only the ranges
that do not grow (a long line wrapped over several grows), else nothing.

Settings: `--isolated` (no config file of the user's folder: the same result
everywhere); the quotes the original mostly uses (ruff's default, double, would
turn the `'a'` of a single-quoted program into `"a"` on touched lines only,
mixing two styles in one file; a value a pass wrote, `'float16'`, takes the
user's style); the magic trailing comma ignored (a trailing comma left by a
removed argument must not keep a call exploded); the line length of the
original (its longest code line, between 88 and 120) and its indentation (tabs,
or the width of its first indented line). ruff is found in this
interpreter's installation (the `ruff` package's `find_ruff_bin`, or the
executable beside `sys.executable`), never on PATH; missing, failing or timing
out, the pass proposes nothing.
"""

from __future__ import annotations

import ast
import difflib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.syntax.patch import Edit, Patch, replace, rewrite
from autodd_lsp.syntax.source import (
    Source,
    Span,
    first_line,
    last_line,
    statement_bodies,
)
from autodd_lsp.syntax.style import indentation_of, quote_style_of

FORMAT_TIMEOUT = 5.0  # seconds a single formatter call may take; one timeout stops the pass
MAX_CALLS_IN_PARALLEL = 4
MIN_LINE_LENGTH, MAX_LINE_LENGTH = 88, 120

LineRange = tuple[int, int]  # 1-based, inclusive
def find_ruff() -> str | None:
    """The ruff executable of this installation, or None (never one found on PATH)."""
    candidates = []
    try:
        from ruff import find_ruff_bin

        candidates.append(find_ruff_bin())
    except (ImportError, OSError):  # not installed / RuffNotFound is a FileNotFoundError
        pass
    candidates.append(os.path.join(os.path.dirname(sys.executable), "ruff"))
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


# -- which lines the reduction touched -----------------------------------------


def touched_lines(original: str, source: Source) -> set[int]:
    """1-based lines of `source` that the reduction changed, or next to which it deleted lines."""
    old = original.splitlines(keepends=True)
    new = source.lines
    logical = LogicalLines(source)
    touched: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            touched.update(range(j1 + 1, j2 + 1))
            if i2 - i1 > j2 - j1:  # lines were deleted too (difflib may match blank lines elsewhere)
                touched.update(_blank_run(new, j1, j1 + 1))
                touched.update(_blank_run(new, j2, j2 + 1))
        elif tag == "delete":
            above, below = j1, j1 + 1  # the gap lies between these 1-based lines
            if above >= 1 and below <= len(new) and logical.range_of(above) == logical.range_of(below):
                touched.update((above, below))  # inside one statement: a removed argument's line
            else:
                touched.update(_blank_run(new, above, below))
    return touched


def _blank_run(lines: list[str], above: int, below: int) -> list[int]:
    """The blank lines on both sides of the gap between `above` and `below`."""
    run = []
    line = above
    while 1 <= line <= len(lines) and not lines[line - 1].strip():
        run.append(line)
        line -= 1
    line = below
    while 1 <= line <= len(lines) and not lines[line - 1].strip():
        run.append(line)
        line += 1
    return run


class LogicalLines:
    """The logical line around each physical line: a simple statement's lines, a compound
    statement's header, a run of blank lines between statements, or the line itself (a
    comment between statements, `else:`)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._innermost: dict[int, ast.stmt] = {}
        for stmt in ast.walk(source.tree):
            if isinstance(stmt, ast.stmt):  # ast.walk is breadth first: inner statements come later
                for line in range(first_line(stmt), last_line(stmt) + 1):
                    self._innermost[line] = stmt

    def range_of(self, line: int) -> LineRange:
        lines = self.source.lines
        stmt = self._innermost.get(line)
        bodies = statement_bodies(stmt) if stmt is not None else []
        if stmt is not None and not bodies:
            return first_line(stmt), last_line(stmt)  # any line of a simple statement, strings included
        if not lines[line - 1].strip():
            first = last = line
            while first > 1 and not lines[first - 2].strip():
                first -= 1
            while last < len(lines) and not lines[last].strip():
                last += 1
            return first, last
        if stmt is None or lines[line - 1].lstrip().startswith("#"):
            return line, line
        body_start = first_line(bodies[0][0])
        if line < body_start:  # the header: up to the body, less comments and blank lines above it
            last = body_start - 1
            while last > line and (not lines[last - 1].strip() or lines[last - 1].lstrip().startswith("#")):
                last -= 1
            return first_line(stmt), max(last, first_line(stmt))
        return line, line  # `else:`, `except E:`, `finally:` between the bodies


def touched_ranges(ctx: PassContext) -> list[LineRange]:
    """The logical lines the reduction touched, sorted, without those overlapping frozen code."""
    source = ctx.source
    logical = LogicalLines(source)
    ranges = sorted({logical.range_of(line) for line in touched_lines(ctx.original, source)})
    merged: list[LineRange] = []
    for first, last in ranges:
        if merged and first <= merged[-1][1]:  # overlapping (never merely adjacent: see crosses_guard)
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return [r for r in merged if not ctx.touches_frozen(_char_span(source, r))]


def _char_span(source: Source, line_range: LineRange) -> Span:
    return source.line_start(line_range[0]), source.line_end(line_range[1])


def line_length_of(original: str) -> int:
    """The original's longest code line, kept between 88 (ruff's default) and 120."""
    longest = max(
        (len(line) for line in original.splitlines() if line.strip() and not line.lstrip().startswith("#")),
        default=0,
    )
    return max(MIN_LINE_LENGTH, min(MAX_LINE_LENGTH, longest))


# -- running the formatter ---------------------------------------------------------


def ruff_command(
    ruff: str, line_range: LineRange, line_length: int, quote_style: str = "preserve", indent: str = "4"
) -> list[str]:
    first, last = line_range
    indent_setting = "format.indent-style='tab'" if indent == "tab" else f"indent-width={indent}"
    return [
        ruff, "format", "--isolated", "--quiet",
        f"--range={first}:1-{last + 1}:1",  # the end is exclusive
        f"--line-length={line_length}",
        "--config", indent_setting,
        "--config", f"format.quote-style='{quote_style}'",
        "--config", "format.skip-magic-trailing-comma=true",
        "--stdin-filename", "reduced.py", "-",
    ]


def format_range(
    command: list[str], text: str, timeout: float | None = None, on_timeout: Callable[[], None] | None = None
) -> str | None:
    """The whole text with one range formatted; None if the formatter fails or times out."""
    timeout = FORMAT_TIMEOUT if timeout is None else timeout
    try:
        done = subprocess.run(
            command, input=text.encode("utf-8"), capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        if on_timeout is not None:
            on_timeout()
        return None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def changed_region(before: list[str], after: list[str]) -> tuple[int, int, str] | None:
    """(first, end, text): 0-based lines [first, end) of `before` became `text`; None if equal."""
    if before == after:
        return None
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    return prefix, len(before) - suffix, "".join(after[prefix : len(after) - suffix])


def crosses_guard(patch: Patch, guards: list[Patch]) -> bool:
    """A patch that crosses a block guard would block the whole edit (see EditSelector)."""
    for guard in guards:
        nested = (guard.start <= patch.start and patch.end <= guard.end) or (
            patch.start <= guard.start and guard.end <= patch.end
        )
        disjoint = guard.end <= patch.start or patch.end <= guard.start
        if not (nested or disjoint):
            return True
    return False


def formatted_pieces(ctx: PassContext, ruff: str, timeout: float | None = None) -> list[tuple[tuple[Patch, ...], int]]:
    """One patch per touched range that ruff changed (disjoint, clear of frozen code and
    block guards), each with the characters it saves (negative: it grows the text)."""
    source = ctx.source
    ranges = touched_ranges(ctx)
    if not ranges:
        return []
    style = line_length_of(ctx.original), quote_style_of(ctx.original), indentation_of(ctx.original)
    commands = [ruff_command(ruff, r, *style) for r in ranges]
    broken = threading.Event()  # a call that timed out: the formatter is not usable here

    def run(command: list[str]) -> str | None:
        if broken.is_set():
            return None
        output = format_range(command, source.text, timeout, on_timeout=broken.set)
        return None if broken.is_set() else output

    with ThreadPoolExecutor(max_workers=min(MAX_CALLS_IN_PARALLEL, len(commands))) as pool:
        outputs = list(pool.map(run, commands))
    if broken.is_set():
        return []
    touched_blank = {line for first, last in ranges for line in range(first, last + 1) if not source.lines[line - 1].strip()}
    found: list[tuple[int, int, str]] = []
    for line_range, output in zip(ranges, outputs, strict=False):
        region = None if output is None else changed_region(source.lines, output.splitlines(keepends=True))
        if region is None:
            continue
        first, last = _with_touched_blank_lines(line_range, touched_blank)
        if region[0] < first - 1 or region[1] > last:
            continue  # the formatter went outside the range: leave it all
        found.append(_over_blank_neighbours(source.lines, *region))
    pieces: list[tuple[tuple[Patch, ...], int]] = []
    taken_end = -1
    for first, end, text in sorted(found, key=lambda r: (r[0], -r[1])):
        # Ranges do not overlap, but a statement's formatting may also fix the blank lines
        # of the (touched) blank run next to it: the first, widest region wins.
        if first < taken_end:
            continue
        region_pieces = _region_patches(source, first, end, text, ctx.guards)
        if region_pieces is None or any(
            ctx.touches_frozen((p.start, p.end)) for patches, _ in region_pieces for p in patches
        ):
            continue
        pieces.extend(region_pieces)
        taken_end = end
    return pieces


def _region_patches(
    source: Source, first: int, end: int, text: str, guards: list[Patch]
) -> list[tuple[tuple[Patch, ...], int]] | None:
    """Pieces (patches, with the characters each piece saves) that turn lines [first, end) into `text`;
    None if they would cross a block guard.

    A statement that ends a block is often formatted with the blank lines after it,
    which lie outside the block: then the region is split into its leading blank
    lines, its code and its trailing blank lines, each on its own side of the guard.
    """
    start, stop = source.line_start(first + 1), source.line_start(end + 1)
    if not crosses_guard(replace(start, stop, text), guards):
        return _minimal(source, start, stop, text)
    before, after = _blank_split(source.lines[first:end]), _blank_split(text.splitlines(keepends=True))
    pieces = []
    line = first
    for old, new in zip(before, after, strict=False):
        if old != new:
            if not old:
                return None  # a pure insertion at a block's edge: leave the region alone
            start, stop, text = source.line_start(line + 1), source.line_start(line + len(old) + 1), "".join(new)
            if crosses_guard(replace(start, stop, text), guards):
                return None
            pieces.extend(_minimal(source, start, stop, text))
        line += len(old)
    return pieces


def _minimal(source: Source, start: int, stop: int, text: str) -> list[tuple[tuple[Patch, ...], int]]:
    """The region as one piece: patches over the characters that differ (see
    syntax.patch.rewrite), and the characters it saves."""
    patches = tuple(rewrite(source.text, start, stop, text))
    return [(patches, (stop - start) - len(text))] if patches else []


def _blank_split(lines: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Leading blank lines, the rest up to the trailing blank lines, the trailing blank lines."""
    head = 0
    while head < len(lines) and not lines[head].strip():
        head += 1
    tail = len(lines)
    while tail > head and not lines[tail - 1].strip():
        tail -= 1
    return lines[:head], lines[head:tail], lines[tail:]


def _over_blank_neighbours(lines: list[str], first: int, end: int, text: str) -> tuple[int, int, str]:
    """A region that adds or drops blank lines, grown over the (unchanged) blank lines around it.

    Blank lines are all alike: two calls that each drop one line of the same blank
    run would, spliced together, drop both. Grown, their regions overlap and only
    the first is taken. A region of code only is left as it is, so that two touched
    statements a blank line apart both keep their formatting.
    """
    new = text.splitlines(keepends=True)
    old = lines[first:end]
    if not old or not old[0].strip() or not new or not new[0].strip():
        while first > 0 and not lines[first - 1].strip():
            first -= 1
            text = lines[first] + text
    if not old or not old[-1].strip() or not new or not new[-1].strip():
        while end < len(lines) and not lines[end].strip():
            text += lines[end]
            end += 1
    return first, end, text


def _with_touched_blank_lines(line_range: LineRange, touched_blank: set[int]) -> LineRange:
    """The range with the touched blank lines right above and below it: ruff formats a
    statement's leading blank lines with it."""
    first, last = line_range
    while first - 1 in touched_blank:
        first -= 1
    while last + 1 in touched_blank:
        last += 1
    return first, last


@register
class FormatTouched(ReductionPass):
    name = "format touched statements"
    group = Group.TIDY
    order = 20  # last: it sees the final layout (after comment removal and blank-line tidying)

    def propose(self, ctx: PassContext) -> list[Edit]:
        if not ctx.original:
            return []
        ruff = find_ruff()
        if ruff is None:
            return []
        pieces = formatted_pieces(ctx, ruff)
        for chosen in (pieces, [p for p in pieces if p[1] >= 0]):
            saved = sum(s for _, s in chosen)
            if chosen and saved > 0:
                return [Edit(tuple(p for patches, _ in chosen for p in patches), self.name, weight=saved)]
        return []
