"""The original's run as a map: which statements never ran, proposed for removal first.

The recording run (`execution/record_main.py`) marks every statement the
original ran (`RecordedValues.statements`). Code that never ran is the likeliest
to go, so before a pass that removes statements searches its edits as usual,
the edits that remove only code that never ran are tried together as one
candidate, then by halves (`search.Halves`); the usual search then goes on with
the rest. The map is only a proposal: each of those candidates is judged by a
run like any other, so nothing about what counts as the same failure changes.
A program without a recording (it failed, an older Python, a pytest test) is
reduced as before.

What "never ran" means for an edit: every statement it removes never ran; a
function whose body never ran (defined, never called) counts as never run, a
class when everything in its body does (its methods never called, and nothing
else there: a class attribute runs when the class is made). A statement whose
origin in the original is unknown counts as run. A definition whose mere
presence matters (a decorator that registers it, a metaclass or
`__init_subclass__` that reads it) misleads the map: its group is refused and
split, which costs a few candidates, never the result.

The failing path (`FailingPath`): where the rule checks the failure's place,
a candidate's innermost frame in the program must be on a line whose text came
from the original's failing statement (oracle/same.py, rule 2). A statement
removal that takes the copy of that statement away together with other code
(its loop, its `with`, its `def`, the class around that) can never keep the
failure: it is not proposed at all, in any cycle. The failing statement alone
is still tried (what its removal shows is what a person hovering it asks).
The outer frames (`main()`, the call in `main`) are not left out: once the
kernel's definition fails by itself, the calls after it are dead code, and
a reproducer must lose them (tried, they left `run()` and `main()` behind).

`AUTODD_RUN_MAP=off` in the environment turns the map off (both parts): for
the benchmark and the tests that compare the candidates it saves; not a user
setting.
"""

from __future__ import annotations

import ast
import bisect
import os
from dataclasses import dataclass

from autodd_lsp.syntax.origin import SHADOW_BASE, OriginalStatements
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source
from autodd_lsp.values import ValueLookup

SWITCH = "AUTODD_RUN_MAP"


def map_wanted() -> bool:
    return os.environ.get(SWITCH, "") != "off"


def never_ran(source: Source, edits: list[Edit], lookup: ValueLookup) -> list[int]:
    """Indices of the edits that remove only statements the original never ran."""
    statements = [(source.span(node), node) for node in ast.walk(source.tree) if isinstance(node, ast.stmt)]
    found = []
    for index, edit in enumerate(edits):
        removed = [node for patch in edit.patches for (start, end), node in statements
                   if patch.start <= start and end <= patch.end]
        inner = {id(child) for node in removed for child in ast.walk(node) if child is not node}
        outermost = [node for node in removed if id(node) not in inner]
        if outermost and all(_never_ran(source, node, lookup) for node in outermost):
            found.append(index)
    return found


def _never_ran(source: Source, node: ast.stmt, lookup: ValueLookup) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        seen = [lookup.ran(source.span(inner)[0]) for inner in node.body]
        return any(ran is False for ran in seen) and not any(seen)  # its body never began
    if isinstance(node, ast.ClassDef):
        body = node.body[1:] if _is_docstring(node.body[0]) else node.body  # a docstring is not marked
        return bool(body) and all(_never_ran(source, inner, lookup) for inner in body)
    return lookup.ran(source.span(node)[0]) is False


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


@dataclass(frozen=True)
class FailingPath:
    """The original's statements the failure came through (`statements`: indices into `original`)."""

    statements: frozenset[int]
    original: OriginalStatements

    def crossed_by(self, text: str, shadow: str | None, edits: list[Edit]) -> set[int]:
        """Indices of the edits (statement removals) of `text` that take away a copy of a
        failing-path statement together with other code: the statements around it. The
        failing statement alone is still tried (what its removal shows is what a person asks
        about it). `shadow`: the origins of `text`'s characters (syntax/origin.py); None:
        unknown, nothing is left out."""
        if shadow is None or not self.statements:
            return set()
        held = [offset for offset, char in enumerate(shadow) if ord(char) >= SHADOW_BASE
                and not self.statements.isdisjoint(self.original.of_offsets((ord(char) - SHADOW_BASE,)))]
        if not held:
            return set()
        return {index for index, edit in enumerate(edits)
                if any(_holds(held, patch.start, patch.end) and _other_code(text, held, patch.start, patch.end)
                       for patch in edit.patches)}


def _holds(offsets: list[int], start: int, end: int) -> bool:
    """Some offset (sorted) lies in [start, end)."""
    at = bisect.bisect_left(offsets, start)
    return at < len(offsets) and offsets[at] < end


def _other_code(text: str, held: list[int], start: int, end: int) -> bool:
    """[start, end) of `text` has a line of code (not blank, not a comment) with no `held` offset."""
    line_start = start
    for line in text[start:end].split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not _holds(held, line_start, line_start + len(line)):
            return True
        line_start += len(line) + 1
    return False
