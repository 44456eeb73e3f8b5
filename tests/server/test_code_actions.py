"""Code actions and the freeze/unfreeze commands, through the real server over stdio."""


import pytest
from lsprotocol import types

from tests.support import server_harness as h
from tests.support.server_harness import EditorClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # one real server per module

PROGRAM = "import os\n\nx = 1\ny = 2\nprint(x + y)\n"
FROZEN = "import os\n\nx = 1  # autodd: freeze\ny = 2\nprint(x + y)\n"



def span(start_line, start_char, end_line, end_char) -> types.Range:
    return types.Range(start=types.Position(line=start_line, character=start_char),
                       end=types.Position(line=end_line, character=end_char))


async def actions(client: EditorClient, uri: str, selection: types.Range, only=None):
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=selection,
        context=types.CodeActionContext(diagnostics=[], only=only),
    )
    return await client.text_document_code_action_async(params) or []


def titled(found, word: str):
    return [a for a in found if word in a.title]


async def test_minimize_is_offered_everywhere_with_its_command(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "a.py", PROGRAM))

    found = await actions(client, uri, span(0, 0, 0, 0))

    (minimize,) = titled(found, "Minimize")
    assert isinstance(minimize, types.CodeAction)
    assert minimize.kind == "refactor.autodd.minimize"  # a kind VS Code's light bulb lists
    assert minimize.command is not None and minimize.command.command == "autodd.minimize"
    assert list(minimize.command.arguments or []) == [{"uri": uri}]
    assert titled(found, "Freeze") == [] and titled(found, "Unfreeze") == []  # a cursor, no annotation


async def test_kinds_filter_the_actions(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "b.py", PROGRAM))
    whole = span(2, 0, 4, 0)

    source_only = await actions(client, uri, whole, only=[types.CodeActionKind.Source])
    refactor_only = await actions(client, uri, whole, only=[types.CodeActionKind.Refactor])
    rewrite_only = await actions(client, uri, whole, only=[types.CodeActionKind.RefactorRewrite])
    everything = await actions(client, uri, whole)

    assert source_only == []
    assert [a.title for a in refactor_only] == ["AutoDD: Minimize this failure", "AutoDD: Freeze selection"]
    assert [a.title for a in rewrite_only] == ["AutoDD: Freeze selection"]
    assert [a.title for a in everything] == [a.title for a in refactor_only]  # each listed once


async def test_freeze_selection_edit_freezes_those_lines(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "c.py", PROGRAM))

    (freeze,) = titled(await actions(client, uri, span(2, 0, 3, 5)), "Freeze selection")

    assert freeze.kind == types.CodeActionKind.RefactorRewrite
    frozen_text = h.apply_text_edits(PROGRAM, freeze.edit.changes[uri])
    assert "x = 1" in frozen_text and "autodd: freeze" in frozen_text
    assert frozen_text.replace(" ", "") != PROGRAM.replace(" ", "")
    h.change_document(client, uri, frozen_text)
    await h.wait_until(lambda: len(client.frozen_regions.get(uri, [])) > 0)
    frozen_lines = {line for r in client.frozen_regions[uri] for line in range(r.start.line, r.end.line + 1)}
    assert "x = 1" in {frozen_text.splitlines()[line] for line in frozen_lines}


async def test_unfreeze_is_offered_on_an_annotated_line_only(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "d.py", FROZEN))

    on_annotation = await actions(client, uri, span(2, 3, 2, 3))
    elsewhere = await actions(client, uri, span(4, 0, 4, 0))

    (unfreeze,) = titled(on_annotation, "Unfreeze")
    assert h.apply_text_edits(FROZEN, unfreeze.edit.changes[uri]) == PROGRAM
    assert titled(elsewhere, "Unfreeze") == []


async def test_freeze_and_unfreeze_commands_apply_their_edits(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "e.py", PROGRAM))

    result = await h.execute(client, "autodd.freeze", {"uri": uri, "range": {
        "start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 5}}})
    assert result.applied is True
    assert client.documents[uri].text == FROZEN

    result = await h.execute(client, "autodd.unfreeze", {"uri": uri, "range": {
        "start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}})
    assert result.applied is True
    assert client.documents[uri].text == PROGRAM


async def test_no_actions_for_other_languages(client: EditorClient, tmp_path):
    path = h.write(tmp_path, "notes.txt", "x = 1\n")
    uri = h.open_document(client, path, language_id="plaintext")

    assert await actions(client, uri, span(0, 0, 0, 3)) == []
