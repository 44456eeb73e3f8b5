"""The user in the loop, the server's side: a person's edit of the reproducer during a run,
the hover that says why a line of a finished reproducer is still there, and "Try without this line".

The engine judges (engine/person/person.py: `Reduction.offer`, `why_kept`, `try_text`, `without_line`);
this module only turns its answers into LSP: the `autodd` diagnostics a run adds to a
document (`RunNotes`, merged into the freeze diagnostics by `DiagnosticsPublisher`), the
hover's markdown, and the code action. Listing hovers, diagnostics and code actions never
runs user code: `why_kept` reads what the run learned, `without_line` only parses.
"""

from __future__ import annotations

import difflib

from lsprotocol import types

from autodd_lsp.engine import FAILURE_GONE, Kept, without_line
from autodd_lsp.server.positions import code_units
from autodd_lsp.syntax.lines import split_lines

SOURCE = "autodd"
TRY_KIND = "refactor.autodd.tryWithout"
TRY_COMMAND = "autodd.tryWithout"
TRY_TITLE = "AutoDD: Try without this line"


class RunNotes:
    """Diagnostics that runs add to documents (uri -> diagnostics), beside the freeze problems."""

    def __init__(self) -> None:
        self._notes: dict[str, list[types.Diagnostic]] = {}

    def get(self, uri: str) -> list[types.Diagnostic]:
        return list(self._notes.get(uri, []))

    def set(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        if diagnostics:
            self._notes[uri] = diagnostics
        else:
            self._notes.pop(uri, None)


def edited_line(before: str, after: str) -> int:
    """The first line (0-based, of `before`) that a person's edit changed."""
    matcher = difflib.SequenceMatcher(None, split_lines(before), split_lines(after), autojunk=False)
    for tag, i1, _i2, _j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return i1
    return 0


def line_diagnostic(text: str, line: int, message: str, severity: types.DiagnosticSeverity,
                    encoding: str) -> types.Diagnostic:
    """A diagnostic over the whole of line `line` (0-based, clamped) of `text`."""
    lines = split_lines(text) or [""]
    line = min(max(line, 0), len(lines) - 1)
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line, character=0),
            end=types.Position(line=line, character=code_units(lines[line], encoding)),
        ),
        message=message,
        severity=severity,
        source=SOURCE,
    )


def lost_message(outcome: str) -> str:
    return f"AutoDD: this edit lost the failure ({outcome}); the run's best text is restored"


def without_message(outcome: str, interesting: bool) -> str:
    if interesting:
        return "AutoDD: without this line it still fails the same way: the line can go"
    return f"AutoDD: without this line: {outcome}"


def hover_text(kept: Kept) -> str:
    """The hover's markdown for a kept line."""
    what = kept.outcome if kept.outcome.startswith(FAILURE_GONE) else f"`{kept.outcome}`"
    together = "" if not kept.together_with else (
        f" (the reduction removed it together with {kept.together_with} other "
        f"statement{'s' if kept.together_with > 1 else ''})"
    )
    return f"**AutoDD** kept this line: without it, {what}{together}."


def try_action(uri: str, text: str, line: int) -> types.CodeAction | None:
    """"Try without this line" for line `line` (0-based) when a statement starts there."""
    if without_line(text, line + 1) is None:
        return None
    return types.CodeAction(
        title=TRY_TITLE,
        kind=TRY_KIND,
        command=types.Command(title=TRY_TITLE, command=TRY_COMMAND, arguments=[{"uri": uri, "line": line}]),
    )
