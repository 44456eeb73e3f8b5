"""Frozen code must run, not survive as dead code.

A frozen statement kept inside a function nobody calls any more is still in
the text, so the fingerprint check (`protection.py`) passes; but the user froze
it because the bug needs it to run. To see which frozen regions run, a
*probed* copy of a program puts, just before the statement holding each frozen
region, a statement that writes a marker line to stderr (`P; stmt` for a
simple statement, `P` on a line of its own before a compound one). The engine
runs the probed original once: the markers it printed are the regions that
must run. An otherwise interesting candidate is then run probed too, in the
same job slot, and kept only if it prints all of them.
"""

from __future__ import annotations

import ast
import re

from autodd_lsp.syntax.source import Source, Span

_MARKER = "<autodd-frozen-ran:{}>"
_MARKER_SEEN = re.compile(r"<autodd-frozen-ran:(\d+)>")
_PROBE = '__import__("os").write(2, b"\\n' + _MARKER + '\\n")'


def region_key(source: Source, span: Span) -> str:
    """A frozen region's identity wherever it moved: its text, layout aside."""
    return " ".join(source.text[span[0]:span[1]].split())


def probed_text(source: Source, frozen: list[Span], ids: dict[str, int]) -> str | None:
    """`source` with a probe before the statement holding each frozen span; None if one cannot be placed.

    `ids` numbers the regions by `region_key`; a region not in it yet gets the next number.
    """
    inserts: list[tuple[int, str]] = []
    statements = [
        (source.line_start(source.first_line(node)) if getattr(node, "decorator_list", None) else source.span(node)[0],
         source.span(node)[1], node)
        for node in ast.walk(source.tree)
        if isinstance(node, ast.stmt)
    ]
    for span in sorted(frozen):
        start = span[0]
        number = ids.setdefault(region_key(source, span), len(ids))
        holders = [s for s in statements if s[0] <= start < s[1] or (s[0] == start)]
        if not holders:
            return None
        begin, _, node = min(holders, key=lambda s: s[1] - s[0])
        probe = _PROBE.format(number)
        if _is_compound(node):
            if source.text.startswith("elif", source.span(node)[0]):
                return None
            line = source.first_line(node)
            inserts.append((source.line_start(line), source.indent_of_line(line) + probe + "\n"))
        else:
            inserts.append((begin, probe + "; "))
    text = source.text
    for offset, insert in sorted(inserts, reverse=True):
        text = text[:offset] + insert + text[offset:]
    return text


def markers_seen(output: str) -> frozenset[int]:
    return frozenset(int(m) for m in _MARKER_SEEN.findall(output))


def _is_compound(node: ast.stmt) -> bool:
    return any(isinstance(getattr(node, f, None), list) and getattr(node, f) for f in ("body", "orelse", "handlers", "cases", "finalbody"))


class FrozenCheck:
    """The frozen regions the original ran, and whether a candidate's probed run ran them too."""

    def __init__(self, ids: dict[str, int], required: frozenset[int]) -> None:
        self.ids = ids
        self.required = required

    @classmethod
    def probe_original(cls, source: Source, frozen: list[Span]) -> tuple[dict[str, int], str | None]:
        ids: dict[str, int] = {}
        return ids, probed_text(source, frozen, ids)

    def probe(self, text: str) -> str | None:
        from autodd_lsp.engine.protection import frozen_spans

        try:
            source = Source(text)
        except (SyntaxError, ValueError):
            return None
        return probed_text(source, frozen_spans(source), dict(self.ids))

    def satisfied(self, output: str) -> bool:
        return self.required <= markers_seen(output)
