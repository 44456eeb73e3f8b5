"""The user in the loop over stdio: the person edits the reproducer during a run (the edit is
offered to the engine), hovers a line of a finished reproducer (why it is still there), and
tries a line's removal ("Try without this line"). Real server, real engine, real programs."""

import pytest
from lsprotocol import types

from tests.support import SLOW_SENTINEL, program_text, run_standalone, slow_program
from tests.support import server_harness as h

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # one real server per module

# Every candidate sleeps 0.3 s (frozen); `junk0` goes early, so the reproducer is being streamed.
SLOW = slow_program(8, junk=1)

PROGRAM = program_text("loop_kept.py")  # also the VS Code test's fixture


async def start_streaming(client: h.EditorClient, tmp_path, name: str):
    """Start a run of SLOW beside the source; return (run id, reproducer uri) once an accepted
    text has been streamed into the open reproducer."""
    uri = h.open_document(client, h.write(tmp_path, name, SLOW))
    started = await h.start_minimize(client, {"uri": uri, "errMsg": SLOW_SENTINEL})
    assert started.status == "started", started
    out = started.outputUri
    await h.wait_until(lambda: out in client.documents and client.documents[out].edits_applied >= 1, 60)
    assert "junk" not in client.documents[out].text
    return started.runId, out


def autodd_diagnostics(client: h.EditorClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in client.diagnostics.get(uri, []) if d.source == "autodd"]


async def test_an_edit_that_loses_the_failure_is_undone_with_a_diagnostic_saying_why(client, tmp_path):
    run_id, out = await start_streaming(client, tmp_path, "lose.py")
    before = client.documents[out].text
    assert "x3 = 3\n" in before
    h.change_document(client, out, before.replace("x3 = 3\n", ""))

    def lost():
        return [d for d in autodd_diagnostics(client, out) if "lost the failure" in d.message]

    await h.wait_until(lambda: lost() and "x3 = 3\n" in client.documents[out].text, 30)
    (diagnostic,) = lost()
    assert "NameError: name 'x3' is not defined" in diagnostic.message
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    restored = client.documents[out].text.splitlines()
    assert restored[diagnostic.range.start.line] == "x3 = 3"  # where the edit was
    assert any("lost the failure" in n["message"] and n["runId"] == run_id for n in client.notices)

    await h.execute(client, "autodd.cancel", {"runId": run_id})
    result = await h.run_finished(client, run_id)
    assert result.status == "cancelled"
    final = (tmp_path / "lose.min.py").read_text()
    assert client.documents[out].text == final and "x3 = 3\n" in final
    # the warning was the run's: it ends with it (published before autodd/finished), Problems count 0
    assert lost() == [] and autodd_diagnostics(client, out) == []


async def test_an_edit_that_keeps_the_failure_becomes_the_best_even_removing_frozen_code(client, tmp_path):
    run_id, out = await start_streaming(client, tmp_path, "keep.py")
    mine = client.documents[out].text.replace("import time\ntime.sleep(0.3)  # autodd: freeze\n", "")
    assert "sleep" not in mine
    h.change_document(client, out, mine)

    result = await h.run_finished(client, run_id, 120)

    assert result.status == "done", result.message
    final = (tmp_path / "keep.min.py").read_text()
    assert "sleep" not in final and SLOW_SENTINEL in final
    assert client.documents[out].text == final
    assert any("fails the same way" in n["message"] for n in client.notices if n["runId"] == run_id)
    assert not [d for d in autodd_diagnostics(client, out) if "lost the failure" in d.message]
    assert f"RuntimeError: {SLOW_SENTINEL}" in run_standalone(tmp_path / "keep.min.py")


async def hover(client: h.EditorClient, uri: str, line: int):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=2),
    ))


async def actions_at(client: h.EditorClient, uri: str, line: int) -> list[types.Command | types.CodeAction]:
    position = types.Position(line=line, character=0)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=position, end=position),
        context=types.CodeActionContext(diagnostics=[]),
    ))
    assert actions is not None, "the server answered the code-action request with null"
    return list(actions)


def line_index(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


async def test_hover_says_why_a_line_is_kept_and_try_without_it_runs_that_candidate(client, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "kept.py", PROGRAM))
    result = await h.minimize(client, {"uri": uri, "errMsg": "loop-sentinel: too many values"})
    assert result.status == "done", result.message
    out = result.outputUri
    text = client.documents[out].text
    data, frozen = line_index(text, "data = "), line_index(text, "check(data)")

    shown = await hover(client, out, data)
    assert shown is not None and "NameError: name 'data' is not defined" in shown.contents.value
    shown = await hover(client, out, line_index(text, "raise ValueError"))
    assert shown is not None and "the failure goes away" in shown.contents.value
    assert await hover(client, out, frozen) is None  # frozen: never tried
    assert await hover(client, uri, 0) is None  # the source is not a result

    titles = [a.title for a in await actions_at(client, out, data)]
    assert "AutoDD: Try without this line" in titles
    assert "AutoDD: Try without this line" not in [a.title for a in await actions_at(client, out, data + 100)]
    (action,) = [a for a in await actions_at(client, out, data) if a.title == "AutoDD: Try without this line"]
    assert isinstance(action, types.CodeAction) and action.command is not None and action.command.arguments, action
    client.messages.clear()
    verdict = await h.execute(client, action.command.command, action.command.arguments[0], timeout=60)

    assert verdict.ok and not verdict.interesting
    assert verdict.outcome == "NameError: name 'data' is not defined"
    assert any("without this line: NameError" in m.message for m in client.messages)
    (note,) = [d for d in autodd_diagnostics(client, out) if "without this line" in d.message]
    assert note.range.start.line == data
    assert client.documents[out].text == text  # nothing was changed

    # Once the person changes the result, what the run learned no longer describes it.
    h.change_document(client, out, text + "print('mine')\n")  # handled before the hover (in order)
    assert await hover(client, out, data) is None
