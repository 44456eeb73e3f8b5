"""Frozen code must run, not survive as dead code.

A frozen statement kept inside a function nobody calls any more is still in
the text, so the fingerprint check (`protection.py`) passes; but the user froze
it because the bug needs it to run. To see which frozen regions run, a
*probed* copy of a program puts, just before the statement holding each frozen
region, a statement that writes a marker line to stderr (`P; stmt` for a
simple statement, `P` on a line of its own before a compound one). The engine
runs the probed original once: the markers it printed are the regions that
must run.

A candidate is judged in one run where it can be: its code (the engine compiles
every candidate and the warm runner runs that code, `compiler.py`) is compiled
from a tree with the probes put in as statements *at the frozen statement's own
position* (`probed_code`), while the file on disk stays the candidate's text.
Nothing moves: line numbers, the lines a traceback echoes and their carets are
the unprobed run's; each probe writes its marker once per run (a flag in `sys`),
and `split_run` takes the markers out of stderr before any rule reads it. A run
whose markers show every required region decides at once. One that does not
is rejected when the probed code did run (it writes one more marker first
thing), and otherwise (the backend ran the file instead of our code: a
`subproc` run, another interpreter, a pytest node) falls back to the text probe
in a second run, as before, so a missing marker never rejects a candidate that
the second run would keep.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from types import CodeType

from autodd_lsp.execution import RunResult
from autodd_lsp.syntax.parsing import compile_tree, parse
from autodd_lsp.syntax.source import Source, Span

_MARKER = "<autodd-frozen-ran:{}>"
_MARKER_SEEN = re.compile(r"<autodd-frozen-ran:(\d+)>")
_PROBE = '__import__("os").write(2, b"\\n' + _MARKER + '\\n")'
_MARKER_LINE = re.compile(rb"\n<autodd-frozen-(?:ran:(\d+)|probed)>\n")
_PROBED = b"<autodd-frozen-probed>"  # the probed code runs: no region marker means the region did not run
_SENTINEL = '__import__("os").write(2, b"\\n' + _PROBED.decode() + '\\n")'
# In a probed tree: the marker written once per run (the flag in `sys` stops a loop's repeats).
_CODE_PROBE = ('__import__("sys").__dict__.get("__autodd_frozen_{0}__") or __import__("sys").__dict__'
               '.setdefault("__autodd_frozen_{0}__", ' + _PROBE.replace("{}", "{0}") + ')')
_BODIES = ("body", "orelse", "finalbody")


def region_key(source: Source, span: Span) -> str:
    """A frozen region's identity wherever it moved: its text, layout aside."""
    return " ".join(source.text[span[0]:span[1]].split())


def probed_text(source: Source, frozen: list[Span], ids: dict[str, int]) -> str | None:
    """`source` with a probe before the statement holding each frozen span; None if one cannot be placed.

    `ids` numbers the regions by `region_key`; a region not in it yet gets the next number.
    """
    holders = _holders(source, frozen, ids)
    if holders is None:
        return None
    inserts: list[tuple[int, str]] = []
    for number, begin, node in holders:
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


def probed_code(source: Source, frozen: list[Span], ids: dict[str, int], path: str) -> CodeType | None:
    """`source` compiled as the file `path`, with a probe statement before the statement holding
    each frozen span, at that statement's own position (no line moves); None if one cannot be
    placed there (a docstring, a `__future__` import) or the tree does not compile."""
    holders = _holders(source, frozen, ids)
    if holders is None:
        return None
    tree = parse(source.text)  # a tree of our own: `source.tree` is shared
    places = _statement_places(tree)
    inserts: dict[int, tuple[list[ast.stmt], list[tuple[int, ast.stmt]]]] = {}
    for number, _, node in holders:
        found = places.get((type(node), node.lineno, node.col_offset))
        if found is None:
            return None
        body, index = found
        target = body[index]
        if _stays_first(target, index):
            return None  # a probe before it would change what it is
        probe = parse(_CODE_PROBE.format(number)).body[0]
        for part in ast.walk(probe):
            if isinstance(part, (ast.stmt, ast.expr)):
                ast.copy_location(part, target)
        inserts.setdefault(id(body), (body, []))[1].append((index, probe))
    first = next((index for index, node in enumerate(tree.body) if not _stays_first(node, index)), None)
    if first is None:
        return None
    sentinel = parse(_SENTINEL).body[0]
    for part in ast.walk(sentinel):
        if isinstance(part, (ast.stmt, ast.expr)):
            ast.copy_location(part, tree.body[first])
    inserts.setdefault(id(tree.body), (tree.body, []))[1].append((first, sentinel))
    for body, probes in inserts.values():
        for index, probe in sorted(probes, key=lambda item: item[0], reverse=True):  # stable: the sentinel first
            body.insert(index, probe)
    try:
        return compile_tree(tree, path)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _stays_first(node: ast.stmt, index: int) -> bool:
    """A `__future__` import, or a docstring: nothing may go before it."""
    return (isinstance(node, ast.ImportFrom) and node.module == "__future__") or (
        index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str))


def _holders(source: Source, frozen: list[Span], ids: dict[str, int]) -> list[tuple[int, int, ast.stmt]] | None:
    """Per frozen span: its region's number, and where the smallest statement holding it begins, and it."""
    statements = [
        (source.line_start(source.first_line(node)) if getattr(node, "decorator_list", None) else source.span(node)[0],
         source.span(node)[1], node)
        for node in ast.walk(source.tree)
        if isinstance(node, ast.stmt)
    ]
    found = []
    for span in sorted(frozen):
        start = span[0]
        number = ids.setdefault(region_key(source, span), len(ids))
        holders = [s for s in statements if s[0] <= start < s[1] or (s[0] == start)]
        if not holders:
            return None
        begin, _, node = min(holders, key=lambda s: s[1] - s[0])
        found.append((number, begin, node))
    return found


def _statement_places(tree: ast.Module) -> dict[tuple[type, int, int], tuple[list[ast.stmt], int]]:
    """Each statement of `tree` (by its kind and position) -> the list it is in, and its index there."""
    places = {}
    for node in ast.walk(tree):
        bodies = [getattr(node, field, None) for field in _BODIES]
        bodies += [handler.body for handler in getattr(node, "handlers", ())]
        bodies += [case.body for case in getattr(node, "cases", ())]
        for body in bodies:
            if isinstance(body, list):
                for index, statement in enumerate(body):
                    if isinstance(statement, ast.stmt):
                        places[(type(statement), statement.lineno, statement.col_offset)] = (body, index)
    return places


def split_run(result: RunResult) -> tuple[RunResult, frozenset[int] | None]:
    """A code-probed run without its marker lines, and the regions they showed ran (None: the
    probed code did not run, the file did: the markers say nothing)."""
    if _PROBED not in result.stderr:
        return result, None
    seen = frozenset(int(m) for m in _MARKER_LINE.findall(result.stderr) if m)
    return replace(result, stderr=_MARKER_LINE.sub(b"", result.stderr)), seen


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
        from autodd_lsp.engine.rules.protection import frozen_spans

        try:
            source = Source(text)
        except (SyntaxError, ValueError):
            return None
        return probed_text(source, frozen_spans(source), dict(self.ids))

    def probe_code(self, text: str, path: str) -> CodeType | None:
        """`text` compiled with its frozen regions probed in place (`probed_code`); None if it cannot be."""
        from autodd_lsp.engine.rules.protection import frozen_spans

        try:
            source = Source(text)
        except (SyntaxError, ValueError):
            return None
        return probed_code(source, frozen_spans(source), dict(self.ids), path)

    def satisfied(self, output: str) -> bool:
        return self.required <= markers_seen(output)

    def satisfied_by(self, seen: frozenset[int]) -> bool:
        return self.required <= seen
