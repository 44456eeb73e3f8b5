"""The texts of one reduction: what it reduces, what it has so far, and where that came from.

`original` is the text being reduced: the user's, or the program with its own
modules inlined once that fails the same way (`original.py` rebases onto it;
sizes are still compared with the user's). `best` is the smallest text that
fails the same way so far, `history` every accepted text, oldest first (the
final check bisects it) with the pass that found each (`found_by`), and `shadow` the best's shadow (`syntax/origin.py`):
which of the original's characters each of its characters came from. Only the
best's shadow is kept (4 bytes a character; a history of them would not fit a
big file's run). `statements` names the original's statements that origins
point into; `learned` what rejected removals of them did (`person.py`).

Plain state with no policy: the engine's roles read it, and only `accept` and
`rebase` change it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from autodd_lsp.engine.person.person import Learned
from autodd_lsp.engine.spec.errors import UsageError
from autodd_lsp.freeze import parse_freeze, problems_text
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.syntax.origin import OriginalStatements, identity_shadow, line_origins
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.source import Source


class Texts:
    def __init__(self, text: str, tree: ast.Module) -> None:
        self.rebase(text, tree)

    def rebase(self, text: str, tree: ast.Module) -> None:
        """Reduce `text` from now on, as if it were the original."""
        self.original = self.best = text
        self.tree = tree
        self.history = [text]
        self.found_by = ["the original"]  # the pass that found each text of `history`
        self.shadow: str | None = identity_shadow(text)
        self.statements = OriginalStatements(text, Source(text, tree).statement_spans)
        self.learned = Learned(self.statements)

    def accept(self, text: str, shadow: str | None, found_by: str = "") -> None:
        """`text` (with its shadow, None if unknown; found by the pass `found_by`) is the new best."""
        self.history.append(text)
        self.found_by.append(found_by or "a text offered")
        self.shadow = shadow
        self.best = text

    def statements_of(self, shadow: Callable[[], str | None]) -> StatementsOf:
        """A candidate's line -> the original statements its text came from (its shadow made once, if asked)."""
        made: list[str | None] = []

        def statements_of(lineno: int) -> frozenset[int] | None:
            if not made:
                made.append(shadow())
            if made[0] is None:
                return None  # origins unknown (a text too big to track, an old one)
            return self.statements.of_offsets(line_origins(made[0], lineno))

        return statements_of


def parse_program(text: str, path: str) -> ast.Module:
    """The program parsed, its freeze annotations checked; a one-line UsageError otherwise."""
    try:
        tree = parse(text, filename=path)
    except SyntaxError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.offset}: syntax error: {error.msg}") from None
    except (ValueError, RecursionError) as error:
        raise UsageError(f"{path}: cannot parse: {error}") from None
    problems = parse_freeze(text).blocking
    if problems:
        raise UsageError(f"{path}: {problems_text(problems)}")
    return tree
