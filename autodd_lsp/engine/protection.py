"""Keeping frozen code: which edits a frozen region forbids.

A frozen span is never rewritten, and nothing around it may be rewritten in a
way that drops or changes it: an edit is allowed only if every frozen span it
touches lies inside a span the edit keeps (and re-renders unchanged).
"""

from __future__ import annotations

from autodd_lsp.freeze import parse_freeze
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span


def frozen_spans(source: Source) -> list[Span]:
    spans = []
    for region in parse_freeze(source.text).regions:
        s = region.span
        start = source.line_start(s.start_line) + s.start_col
        end = source.line_start(s.end_line) + s.end_col
        spans.append((start, end))
    return spans


def respects_frozen(edit: Edit, frozen: list[Span]) -> bool:
    if not frozen:
        return True
    kept = [k for patch in edit.patches for k in patch.keeps]
    for patch in edit.patches:
        for start, end in frozen:
            if end <= patch.start or patch.end <= start:
                continue  # untouched
            if not any(ks <= start and end <= ke for ks, ke in kept):
                return False
    return True
