"""Bad requests get a clear message and a failed status; the server keeps serving."""


import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from tests.support import server_harness as h
from tests.support.server_harness import EditorClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # one real server per module


SERVER_SETTINGS = {"backend": "subproc"}


def error_messages(client: EditorClient) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Error]


async def assert_failed(client: EditorClient, argument, *words: str):
    result = await h.minimize(client, argument)
    assert result.status == "failed"
    for word in words:
        assert word in result.message
    await h.wait_until(lambda: error_messages(client))
    assert "autodd_lsp" not in error_messages(client)[0]  # no traceback of the server's own
    return result


async def test_unknown_uri(client: EditorClient):
    await assert_failed(client, {"uri": "untitled:Untitled-1", "errMsg": "x"}, "not a file on disk")


async def test_missing_file(client: EditorClient, tmp_path):
    await assert_failed(client, {"uri": from_fs_path(str(tmp_path / "gone.py")), "errMsg": "x"}, "file not found")


async def test_no_argument(client: EditorClient):
    await assert_failed(client, None, "expected one argument")


async def test_bad_options(client: EditorClient, tmp_path):
    uri = from_fs_path(str(h.write(tmp_path, "p.py", h.FAILING_PROGRAM)))
    await assert_failed(client, {"uri": uri, "errMsg": "x", "backend": "warp"}, "warp")
    h.reset(client)
    await assert_failed(client, {"uri": uri, "errMsg": "x", "jobs": 0}, "jobs")
    h.reset(client)
    await assert_failed(client, {"uri": uri, "errMsg": "x", "output": "sideways"}, "output")
    h.reset(client)
    await assert_failed(client, {"uri": uri, "errMsg": "x", "interpreter": "/no/such/python"}, "interpreter")


async def test_message_that_does_not_reproduce(client: EditorClient, tmp_path):
    uri = from_fs_path(str(h.write(tmp_path, "p.py", h.FAILING_PROGRAM)))

    result = await assert_failed(client, {"uri": uri, "errMsg": "no such message anywhere"})

    assert "noise" in result.message  # the program's output tail is shown
    assert not (tmp_path / "p.min.py").exists()


async def test_a_program_that_does_not_fail_has_no_suggestions(client: EditorClient, tmp_path):
    uri = from_fs_path(str(h.write(tmp_path, "ok.py", "print('fine')\n")))

    suggested = await h.execute(client, "autodd.suggestErrMsg", {"uri": uri})
    assert suggested.suggestions == [] and suggested.returncode == 0

    await assert_failed(client, {"uri": uri}, "did not fail")


async def test_settings_come_from_the_client(client: EditorClient, tmp_path):
    uri = from_fs_path(str(h.write(tmp_path, "p.py", h.FAILING_PROGRAM)))
    client.set_configuration({"backend": "subproc", "timeout": "soon"}, section="autodd")
    try:
        await assert_failed(client, {"uri": uri, "errMsg": "x"}, "timeout")
        h.reset(client)
        # Arguments override settings.
        result = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL, "timeout": 30, "backend": "runner"})
        assert result.status == "done"
    finally:
        client.set_configuration({"backend": "subproc"}, section="autodd")


async def test_the_server_still_answers(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "alive.py", "x = 1\n"))
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[]),
    )
    assert await client.text_document_code_action_async(params)
    assert (await h.execute(client, "autodd.cancel", {})).cancelled == []


async def test_a_file_that_does_not_parse(client: EditorClient, tmp_path):
    uri = from_fs_path(str(h.write(tmp_path, "broken.py", "x = (1,\nprint(x)\n")))
    result = await assert_failed(client, {"uri": uri, "errMsg": "x"})
    assert "broken.py" in result.message or "line" in result.message


async def test_suggest_err_msg_on_a_missing_file(client: EditorClient, tmp_path):
    result = await h.execute(client, "autodd.suggestErrMsg", {"uri": from_fs_path(str(tmp_path / "gone.py"))})
    assert result.suggestions == [] and "file not found" in result.error
