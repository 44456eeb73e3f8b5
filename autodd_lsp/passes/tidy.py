"""Tidy the layout that removals leave behind: runs of blank lines, blank block starts.

Only whitespace between statements changes; lines inside strings are never touched.
"""

from __future__ import annotations

from autodd_lsp.passes.base import PassContext, ReductionPass, register
from autodd_lsp.syntax.indent import string_interior_lines
from autodd_lsp.syntax.patch import Edit, Patch


def tidy_blank_lines(text: str) -> str:
    protected = string_interior_lines(text)
    out: list[str] = []
    blank_run = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.strip() or number in protected:
            blank_run = 0
            out.append(line)
            continue
        blank_run += 1
        after_header = out and out[-1].rstrip().endswith(":") and number - 1 not in protected
        if blank_run <= 2 and out and not after_header:
            out.append(line)
    while out and not out[-1].strip() and len(out) not in protected:
        out.pop()
    return "".join(out)


@register
class TidyLayout(ReductionPass):
    name = "tidy blank lines"
    group = 5

    def edits(self, ctx: PassContext, level: int = 0) -> list[Edit] | None:
        if level > 0:
            return None
        text = ctx.source.text
        tidy = tidy_blank_lines(text)
        if tidy == text:
            return []
        return [Edit((Patch(0, len(text), lambda render: tidy),), self.name, weight=len(text) - len(tidy))]
