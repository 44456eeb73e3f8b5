"""Code actions: "Minimize this failure", "Minimize this failing test", "Freeze selection",
"Unfreeze selection".

Listing them only reads the document's text (parsing it, for the test under the
cursor); no user code runs.
"""

from __future__ import annotations

import ast
import os

from lsprotocol import types
from pygls.uris import to_fs_path

from autodd_lsp.freeze import TextEdit, freeze_edits, unfreeze_edits
from autodd_lsp.server.positions import from_position, to_range
from autodd_lsp.syntax.lines import split_lines
from autodd_lsp.syntax.parsing import parse

# A refactor.* kind: VS Code's light bulb (Ctrl+.) lists quickfix and refactor actions, not source ones.
# One kind per action, so clients that list every kind show it once.
MINIMIZE_KIND = "refactor.autodd.minimize"
MINIMIZE_COMMAND = "autodd.minimize"
MINIMIZE_TITLE = "AutoDD: Minimize this failure"
MINIMIZE_TEST_TITLE = "AutoDD: Minimize this failing test ({test})"
CANCEL_COMMAND = "autodd.cancel"
STOP_TITLE = "AutoDD: Stop minimizing this file"
FREEZE_TITLE = "AutoDD: Freeze selection"
UNFREEZE_TITLE = "AutoDD: Unfreeze selection"
PROVIDED_KINDS = [MINIMIZE_KIND, types.CodeActionKind.RefactorRewrite]


def selected_lines(lines: list[str], selection: types.Range, encoding: str) -> tuple[int, int]:
    """1-based first and last line of a selection; one that ends at column 0 ends on the line before."""
    start_line, _ = from_position(lines, selection.start, encoding)
    end_line, end_col = from_position(lines, selection.end, encoding)
    if end_line > start_line and end_col == 0:
        end_line -= 1
    return start_line, end_line


def workspace_edit(uri: str, text: str, edits: list[TextEdit], encoding: str) -> types.WorkspaceEdit:
    """A WorkspaceEdit from the freeze module's edits (1-based lines, code-point columns)."""
    lines = split_lines(text)
    return types.WorkspaceEdit(
        changes={
            uri: [
                types.TextEdit(
                    range=to_range(lines, e.start_line, e.start_col, e.end_line, e.end_col, encoding),
                    new_text=e.new_text,
                )
                for e in edits
            ]
        }
    )


def freeze_or_unfreeze(action: str, text: str, start_line: int, end_line: int) -> list[TextEdit]:
    """Edits that freeze (action "freeze") or unfreeze the lines; [] when there is nothing to do."""
    compute = freeze_edits if action == "freeze" else unfreeze_edits
    try:
        return list(compute(text, start_line, end_line))
    except Exception:  # noqa: BLE001 - e.g. the text does not parse: offer nothing
        return []


def wanted(kind: str, only: list[str] | None) -> bool:
    """Whether a client that asked for `only` kinds wants an action of `kind` (kinds are hierarchical)."""
    if not only:
        return True
    return any(kind == prefix or kind.startswith(prefix + ".") for prefix in only)


def minimize_action(uri: str) -> types.CodeAction:
    return types.CodeAction(
        title=MINIMIZE_TITLE,
        kind=MINIMIZE_KIND,
        command=types.Command(title=MINIMIZE_TITLE, command=MINIMIZE_COMMAND, arguments=[{"uri": uri}]),
    )


def test_at(path: str, text: str, line: int) -> str | None:
    """The pytest node id inside the file (`test_x`, `TestK::test_x`) of the test function that holds
    the 1-based `line`, when the file is a test file as pytest names them; None otherwise."""
    name = os.path.basename(path)
    if not (name.startswith("test_") or name.endswith("_test.py")):
        return None
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        inside = node.lineno <= line <= (node.end_lineno or node.lineno)
        if not inside:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            return node.name
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for method in node.body:
                if (isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name.startswith("test")
                        and method.lineno <= line <= (method.end_lineno or method.lineno)):
                    return f"{node.name}::{method.name}"
    return None


def minimize_test_action(uri: str, test: str) -> types.CodeAction:
    title = MINIMIZE_TEST_TITLE.format(test=test)
    return types.CodeAction(
        title=title,
        kind=MINIMIZE_KIND,
        command=types.Command(title=title, command=MINIMIZE_COMMAND, arguments=[{"uri": uri, "test": test}]),
    )


def stop_action(uri: str) -> types.CodeAction:
    return types.CodeAction(
        title=STOP_TITLE,
        kind=MINIMIZE_KIND,
        command=types.Command(title=STOP_TITLE, command=CANCEL_COMMAND, arguments=[{"uri": uri}]),
    )


def freeze_actions(uri: str, text: str, selection: types.Range, encoding: str) -> list[types.CodeAction]:
    """Freeze when something is selected; unfreeze when the selection or the cursor's line is annotated."""
    lines = split_lines(text)
    start_line, end_line = selected_lines(lines, selection, encoding)
    has_selection = selection.start != selection.end
    actions = []
    for action, title in (("freeze", FREEZE_TITLE), ("unfreeze", UNFREEZE_TITLE)):
        if action == "freeze" and not has_selection:
            continue
        edits = freeze_or_unfreeze(action, text, start_line, end_line)
        if edits:
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.RefactorRewrite,
                    edit=workspace_edit(uri, text, edits, encoding),
                )
            )
    return actions


def code_actions(uri: str, text: str, params: types.CodeActionParams, encoding: str,
                 running: bool = False) -> list[types.CodeAction]:
    """The actions for a selection; `running`: a minimization of this document is under way."""
    only = [str(getattr(kind, "value", kind)) for kind in (params.context.only or [])]
    actions = []
    if wanted(MINIMIZE_KIND, only):
        actions.append(minimize_action(uri))
        line, _ = from_position(split_lines(text), params.range.start, encoding)
        test = test_at(to_fs_path(uri) or uri, text, line)
        if test is not None:
            actions.append(minimize_test_action(uri, test))
        if running:
            actions.append(stop_action(uri))
    if wanted(types.CodeActionKind.RefactorRewrite.value, only):
        actions.extend(freeze_actions(uri, text, params.range, encoding))
    return actions
