"""Tidy the layout that removals leave behind: runs of blank lines, blank block starts.

Only blank lines between statements go; lines inside strings and frozen regions
are never touched.
"""

from __future__ import annotations

from autodd_lsp.passes.base import Group, PassContext, ReductionPass, register
from autodd_lsp.syntax.indent import string_interior_lines
from autodd_lsp.syntax.patch import Edit, delete
from autodd_lsp.syntax.source import Source


def surplus_blank_lines(source: Source) -> list[int]:
    """1-based numbers of blank lines that add nothing: past the second in a run (the first
    inside an indented body), at the start of the file or of a block, at the end of the file."""
    protected = string_interior_lines(source.text)
    surplus: list[int] = []
    run: list[int] = []
    previous_code = ""
    for number, line in enumerate(source.lines, start=1):
        if number in protected or line.strip():
            kept = 1 if line[:1] in (" ", "\t") else 2  # PEP 8: one blank line inside a body, two at the top level
            surplus.extend(run if not previous_code or previous_code.endswith(":") else run[kept:])
            run = []
            previous_code = line.split("#")[0].rstrip() if line.strip() else previous_code
            continue
        run.append(number)
    surplus.extend(run)  # trailing blank lines
    return surplus


@register
class TidyLayout(ReductionPass):
    name = "tidy blank lines"
    group = Group.TIDY

    def propose(self, ctx: PassContext) -> list[Edit]:
        source = ctx.source
        patches = []
        for line in surplus_blank_lines(source):
            span = (source.line_start(line), source.line_end(line))
            if not ctx.touches_frozen(span):
                patches.append(delete(*span))
        if not patches:
            return []
        return [Edit(tuple(patches), self.name, weight=sum(p.end - p.start for p in patches))]
