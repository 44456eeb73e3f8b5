"""autodd.minimize end to end: the real server over stdio, the real engine, real candidate runs."""

import asyncio
import subprocess
import sys

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from tests.support import SLOW_SENTINEL, slow_program
from tests.support import server_harness as h
from tests.support.server_harness import EditorClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # one real server per module



def whole_document_replacement(edit: types.TextEdit, old_line_count: int) -> bool:
    return edit.range.start.line == 0 and edit.range.start.character == 0 and edit.range.end.line >= old_line_count - 1


async def wait_for_report(client: EditorClient, timeout: float = 20.0) -> str:
    """The token of the first progress that has a report (the run is under way)."""

    def reported():
        return [t for t, values in client.progress_reports.items()
                if any(isinstance(v, types.WorkDoneProgressReport) for v in values)]

    await h.wait_until(lambda: reported(), timeout)
    return reported()[0]


async def test_minimize_streams_edits_that_rebuild_the_file_on_disk(client: EditorClient, tmp_path):
    source = h.write(tmp_path, "prog.py", h.FAILING_PROGRAM)
    uri = h.open_document(client, source)

    result = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL})

    assert result.status == "done", result.message
    output = tmp_path / "prog.min.py"
    assert result.outputUri == from_fs_path(str(output))
    final = output.read_text()
    assert h.SENTINEL in final and len(final) < len(h.FAILING_PROGRAM)
    # The editor's copy, built only from the streamed edits, is the file on disk.
    assert client.documents[result.outputUri].text == final
    assert source.read_text() == h.FAILING_PROGRAM
    assert client.documents[uri].edits_applied == 0
    batches = [edits for target, edits in client.applied_edits if target == result.outputUri]
    assert batches and all(edits for edits in batches)
    assert not all(
        len(edits) == 1 and whole_document_replacement(edits[0], h.FAILING_PROGRAM.count("\n")) for edits in batches
    )
    assert result.original.nodes > result.final.nodes
    assert [d.uri for d in client.shown_documents] == [result.outputUri]
    # Work-done progress: created by the server, begin, reports, end.
    (_token, values), = client.progress_reports.items()
    assert isinstance(values[0], types.WorkDoneProgressBegin) and values[0].cancellable
    assert isinstance(values[-1], types.WorkDoneProgressEnd)
    assert any(isinstance(v, types.WorkDoneProgressReport) and "nodes" in (v.message or "") for v in values)


async def test_a_client_that_does_not_report_the_edits_back_gets_unversioned_edits(client: EditorClient, tmp_path):
    """Emacs 28's eglot sends no didChange for the server's edits while Emacs is idle, and refuses a
    TextDocumentEdit whose version is not its own: edits go unversioned, and the buffer still ends as the file."""
    client.report_edits = False
    uri = h.open_document(client, h.write(tmp_path, "quiet.py", h.FAILING_PROGRAM))

    result = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL})

    assert result.status == "done", result.message
    output = client.documents[result.outputUri]
    assert output.edits_applied > 1  # streamed, not once at the end
    assert output.text == (tmp_path / "quiet.min.py").read_text()
    assert "did not show every step" not in result.message


async def test_a_runner_that_cannot_start_is_shown_as_a_warning(client: EditorClient, tmp_path):
    from tests.support import write_python_without_runner

    source = h.write(tmp_path, "slow.py", h.FAILING_PROGRAM)
    uri = h.open_document(client, source)
    interpreter = str(write_python_without_runner(tmp_path))

    result = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL, "interpreter": interpreter})

    assert result.status == "done", result.message
    (notice,) = client.notices
    assert notice["level"] == "warning" and notice["uri"] == uri
    assert "runner backend is unavailable" in notice["message"] and "no fork server here" in notice["message"]
    assert [m for m in client.log_messages if "runner backend is unavailable" in m.message]


async def test_minimize_in_place_with_the_clients_progress_token(client: EditorClient, tmp_path):
    source = h.write(tmp_path, "inplace.py", h.FAILING_PROGRAM)
    uri = h.open_document(client, source)
    client.progress_reports["mine"] = []

    result = await h.minimize(
        client, {"uri": uri, "errMsg": h.SENTINEL, "output": "inPlace", "progressToken": "mine"},
    )

    assert result.status == "done", result.message
    assert result.outputUri == uri
    assert source.read_text() == client.documents[uri].text
    assert h.SENTINEL in source.read_text() and len(source.read_text()) < len(h.FAILING_PROGRAM)
    assert not (tmp_path / "inplace.min.py").exists()
    kinds = [type(v).__name__ for v in client.progress_reports["mine"]]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"


async def test_repeat_measures_the_failure_rate(client: EditorClient, tmp_path):
    source = h.write(tmp_path, "rate.py", h.FAILING_PROGRAM)
    uri = h.open_document(client, source)

    result = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL, "repeat": 3})

    assert result.status == "done", result.message
    # a deterministic failure: the result runs at least 5 times (engine/spec/flaky.py FINAL_RUNS), however many the original did
    assert "re-run 5 times: still fails the same way, fails 5 of 5 runs (100%); the original fails 3 of 3 runs" in result.message
    assert "the original fails 3 of 3 runs (100%)" in result.message
    bad = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL, "repeat": 1})
    assert bad.status == "failed" and "repeat must be 0 (automatic)" in bad.message


async def test_a_check_command_that_imports_the_file_by_name(client: EditorClient, tmp_path):
    # "Use my own check command...": the check runs where the candidate is prices.py (engine/candidate/mirror.py)
    source = h.write(tmp_path, "prices.py", "import os\n\n\ndef unused():\n    return os.sep\n\n\n"
                                         "def total(a, b):\n    return a - b\n")
    h.write(tmp_path, "driver.py", "import prices\n\nraise SystemExit(0 if prices.total(2, 3) < 0 else 1)\n")
    uri = h.open_document(client, source)

    result = await h.minimize(client, {"uri": uri, "check": "python driver.py"})

    assert result.status == "done", result.message
    reduced = (tmp_path / "prices.min.py").read_text()
    assert "def total" in reduced and "unused" not in reduced  # not empty: the check saw each candidate
    blind = await h.minimize(client, {"uri": uri, "check": "exit 0"})
    assert blind.status == "failed" and "it does not read the candidate" in blind.message


async def test_cancel_with_the_progress_bar(client: EditorClient, tmp_path):
    source = h.write(tmp_path, "slow.py", slow_program())
    uri = h.open_document(client, source)
    run = asyncio.ensure_future(h.minimize(client, {"uri": uri, "errMsg": SLOW_SENTINEL}))

    token = await wait_for_report(client)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(run, 10)

    assert result.status == "cancelled"
    assert SLOW_SENTINEL in (tmp_path / "slow.min.py").read_text()  # the best text so far
    assert source.read_text() == slow_program()
    await h.wait_until(lambda: h.descendants(h.server_pid(client)) == [], timeout=5)


async def test_the_command_answers_before_the_run_and_its_run_id_cancels_it(client: EditorClient, tmp_path):
    source = h.write(tmp_path, "slow.py", slow_program())
    uri = h.open_document(client, source)

    started = await h.start_minimize(client, {"uri": uri, "errMsg": SLOW_SENTINEL})

    assert started.status == "started" and started.uri == uri
    assert started.outputUri == from_fs_path(str(tmp_path / "slow.min.py"))
    assert started.runId not in client.finished  # answered while the run goes on
    await wait_for_report(client)
    await h.wait_until(lambda: client.run_progress, timeout=20)
    progress = client.run_progress[-1]
    assert progress["runId"] == started.runId and progress["uri"] == uri and progress["outputUri"] == started.outputUri
    assert progress["original"]["nodes"] >= progress["size"]["nodes"] > 0 and progress["original"]["lines"] > 0
    assert isinstance(progress["pass"], str) and progress["candidates"] >= 0 and progress["rate"] >= 0
    assert 0 <= progress["percentage"] <= 100

    other = await h.execute(client, "autodd.cancel", {"runId": "no-such-run"})
    assert other.cancelled == []
    cancelled = await h.execute(client, "autodd.cancel", {"runId": started.runId})
    assert cancelled.cancelled == [uri]
    finished = await h.run_finished(client, started.runId, timeout=10)
    assert finished.status == "cancelled" and finished.uri == uri
    assert SLOW_SENTINEL in (tmp_path / "slow.min.py").read_text()
    assert [m.type for m in client.messages if m.message.startswith("AutoDD: Stopped")] == [types.MessageType.Warning]
    await h.wait_until(lambda: h.descendants(h.server_pid(client)) == [], timeout=5)


async def test_freeze_annotation_errors_stop_a_run_before_anything_runs(client: EditorClient, tmp_path):
    # the program leaves a file `ran` when it runs: neither command may run it
    text = (
        "import os\nx = 1\n# autodd: end-freeze\n"
        "open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ran'), 'w').close()\n"
        "raise ValueError('never run')\n"
    )
    uri = h.open_document(client, h.write(tmp_path, "annotated.py", text))

    suggested = await h.execute(client, "autodd.suggestErrMsg", {"uri": uri})
    assert suggested.suggestions == [] and suggested.failures == []
    assert suggested.error.startswith("annotated.py: line 3, column 1: ")
    refused = await h.start_minimize(client, {"uri": uri})

    assert refused.status == "failed"
    assert refused.message.startswith("annotated.py: line 3, column 1: ")
    assert client.message_requests == [] and client.progress_reports == {}
    assert not (tmp_path / "annotated.min.py").exists() and not (tmp_path / "ran").exists()


async def test_cancel_command_and_one_run_per_document(client: EditorClient, tmp_path):
    slow = h.open_document(client, h.write(tmp_path, "slow.py", slow_program()))
    fast = h.open_document(client, h.write(tmp_path, "fast.py", h.FAILING_PROGRAM))
    long_run = asyncio.ensure_future(h.minimize(client, {"uri": slow, "errMsg": SLOW_SENTINEL}))
    await wait_for_report(client)

    second = await h.minimize(client, {"uri": slow, "errMsg": SLOW_SENTINEL})
    assert second.status == "failed" and second.message == "already minimizing this file"
    assert any("already minimizing this file" in m.message for m in client.messages)

    other = await h.minimize(client, {"uri": fast, "errMsg": h.SENTINEL})
    assert other.status == "done"
    assert not long_run.done()

    cancelled = await h.execute(client, "autodd.cancel", {"uri": slow})
    assert cancelled.cancelled == [slow]
    assert (await asyncio.wait_for(long_run, 10)).status == "cancelled"
    await h.wait_until(lambda: h.descendants(h.server_pid(client)) == [], timeout=5)


async def test_editing_the_document_stops_an_in_place_run(client: EditorClient, tmp_path):
    source = h.write(tmp_path, "edited.py", slow_program())
    uri = h.open_document(client, source)
    run = asyncio.ensure_future(
        h.minimize(client, {"uri": uri, "errMsg": SLOW_SENTINEL, "output": "inPlace"})
    )
    await wait_for_report(client)

    mine = client.documents[uri].text + "print('my edit')\n"
    h.change_document(client, uri, mine)
    result = await asyncio.wait_for(run, 10)

    assert result.status == "cancelled"
    assert result.message == "stopped: the document was edited"
    assert client.documents[uri].text == mine
    assert source.read_text() == slow_program()


async def test_without_err_msg_the_failure_is_chosen_from_suggestions(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "ask.py", h.FAILING_PROGRAM))

    result = await h.minimize(client, {"uri": uri})

    assert result.status == "done", result.message
    (request,) = client.message_requests
    assert request.actions and request.actions[0].title == f"ValueError: {h.SENTINEL}"
    assert h.SENTINEL in (tmp_path / "ask.min.py").read_text()


async def test_dismissing_the_question_cancels(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "ask.py", h.FAILING_PROGRAM))
    client.message_request_answer = lambda params: None

    result = await h.minimize(client, {"uri": uri})

    assert result.status == "cancelled"
    assert not (tmp_path / "ask.min.py").exists()


async def test_suggest_err_msg(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "fails.py", h.FAILING_PROGRAM))

    result = await h.execute(client, "autodd.suggestErrMsg", {"uri": uri})

    assert result.suggestions[0] == f"ValueError: {h.SENTINEL}"
    assert h.SENTINEL in result.suggestions
    assert result.returncode == 1
    assert "Traceback" in result.outputTail


async def test_a_second_run_streams_into_the_result_already_open(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "again.py", h.FAILING_PROGRAM))
    first = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL})
    assert first.status == "done"
    h.reset(client)

    second = await h.minimize(client, {"uri": uri, "errMsg": f"ValueError: {h.SENTINEL}"})

    assert second.status == "done", second.message
    final = (tmp_path / "again.min.py").read_text()
    assert client.documents[second.outputUri].text == final
    assert client.documents[uri].text == h.FAILING_PROGRAM


async def test_cancel_while_the_question_is_open_and_the_stop_action(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "undecided.py", h.FAILING_PROGRAM))
    never = asyncio.Event()

    async def think_forever(params):
        await never.wait()

    client.message_request_answer = think_forever
    run = asyncio.ensure_future(h.minimize(client, {"uri": uri}))
    await h.wait_until(lambda: client.message_requests, timeout=20)

    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[]),
    ))
    (stop,) = [a for a in found or [] if isinstance(a, types.CodeAction) and "Stop" in a.title]
    assert stop.command is not None and stop.command.command == "autodd.cancel"
    await h.execute(client, stop.command.command, (stop.command.arguments or [None])[0])

    result = await asyncio.wait_for(run, 5)
    assert result.status == "cancelled"
    never.set()


SEGFAULT = '''\
import ctypes
import math

print("noise", math.sqrt(16))


def read(address):
    return ctypes.string_at(address)


read(0)
'''


async def test_minimize_a_crash_without_a_message(client: EditorClient, tmp_path):
    import signal
    import subprocess

    uri = h.open_document(client, h.write(tmp_path, "segv.py", SEGFAULT))

    result = await h.minimize(client, {"uri": uri, "crash": "SIGSEGV"})

    assert result.status == "done", result.message
    assert "rule: killed by SIGSEGV" in result.message
    output = tmp_path / "segv.min.py"
    assert "math" not in output.read_text() and client.documents[result.outputUri].text == output.read_text()
    alone = subprocess.run([sys.executable, str(output)], capture_output=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
    assert alone.returncode == -signal.SIGSEGV

    # What a probe suggests for it, with the arguments that keep it.
    suggested = await h.execute(client, "autodd.suggestErrMsg", {"uri": uri})
    assert [(f.title, vars(f.arguments)) for f in suggested.failures] == [("killed by SIGSEGV", {"crash": "SIGSEGV"})]

    # One failure to keep at most.
    both = await h.minimize(client, {"uri": uri, "errMsg": "x", "hang": True})
    assert both.status == "failed"
    assert both.message == "give one failure to keep (errMsg, errRegex, crash, exitCode, hang, wrongAnswer, check), not errMsg and hang"
    bad = await h.minimize(client, {"uri": uri, "errRegex": "("})
    assert bad.status == "failed" and bad.message.startswith("errRegex: bad regular expression")


TEST_FILE = '''\
import pytest


@pytest.fixture
def width():
    return 3


def helper(values):
    return [v * 2 for v in values]


@pytest.mark.parametrize("n", [1, 4])
def test_widths(n, width):
    assert helper([n]) == [2 * n]
    if n > width:
        raise ValueError(f"server-test-sentinel: {n} > {width}")
'''


async def test_a_failing_test_is_minimized_from_its_code_action(client: EditorClient, tmp_path):
    """The code action on a test function minimizes that test under pytest; the result fails alone."""
    source = h.write(tmp_path, "test_widths.py", TEST_FILE)
    uri = h.open_document(client, source)
    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=15, character=4), end=types.Position(line=15, character=4)),
        context=types.CodeActionContext(diagnostics=[]),
    ))
    (action,) = [a for a in found or [] if isinstance(a, types.CodeAction) and "failing test" in a.title]
    assert action.title == "AutoDD: Minimize this failing test (test_widths)"
    assert action.command is not None
    arguments = list(action.command.arguments or [])
    assert arguments == [{"uri": uri, "test": "test_widths"}]
    assert isinstance(arguments[0], dict)
    argument = {**arguments[0], "errMsg": "server-test-sentinel"}
    result = await h.minimize(client, argument, timeout=120)
    assert result.status == "done", result.message
    final = (tmp_path / "test_widths.min.py").read_text()
    assert "def test_widths" in final and "helper" not in final and len(final) < len(TEST_FILE)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "test_widths.py").write_text(final)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_widths.py"],
                         cwd=alone, capture_output=True, text=True, timeout=60, check=False)
    assert ran.returncode == 1 and "server-test-sentinel: 4 > 3" in ran.stdout


NOTEBOOK_CELLS = [
    ("markdown", "# Prices"),
    ("code", "%matplotlib inline\n!pip list 2>/dev/null | grep -i numpy\nRATES = {'a': 1.0}\nunused = [1, 2, 3]"),
    ("code", "%%time\ndef rate(tier):\n    return RATES[tier]\nprint(sum(unused))\nrate('gold')"),
]


def write_notebook(path):
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell(text) if kind == "markdown" else nbformat.v4.new_code_cell(text)
                      for kind, text in NOTEBOOK_CELLS]
    nbformat.write(notebook, str(path))
    return from_fs_path(str(path))


async def test_a_notebook_on_disk_is_minimized_to_a_script_beside_it(client: EditorClient, tmp_path):
    uri = write_notebook(tmp_path / "prices.ipynb")  # not a text document: the server reads the file's cells

    suggested = await h.execute(client, "autodd.suggestErrMsg", {"uri": uri})
    assert suggested.suggestions[0] == "KeyError: 'gold'"
    assert 'prices.ipynb", cell 3, line 5, in <module>' in suggested.outputTail

    result = await h.minimize(client, {"uri": uri, "errMsg": "KeyError: 'gold'", "output": "inPlace"})
    assert result.status == "done", result.message
    output = tmp_path / "prices.min.py"  # never the notebook itself, whatever the output setting
    assert result.outputUri == from_fs_path(str(output))
    assert "KeyError: 'gold'" in subprocess.run([sys.executable, str(output)], capture_output=True, text=True,
                                                check=False).stderr
    assert "system(" not in output.read_text()  # the shell line ran, and went: the failure does not need it
    assert (tmp_path / "prices.ipynb").read_text().startswith("{")

    missing = await h.minimize(client, {"uri": uri, "errMsg": "no such text"})
    assert missing.status == "failed" and 'cell 3, line 5, in <module>' in missing.message


async def test_a_missing_top_level_import_is_reported_as_the_environment(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "needs.py", "import numpy_is_not_here_at_all\nprint(1)\n"))

    suggested = await h.execute(client, "autodd.suggestErrMsg", {"uri": uri})
    assert suggested.suggestions == [] and suggested.failures == []
    assert suggested.environment.module == "numpy_is_not_here_at_all"
    assert suggested.environment.python == sys.executable and "autodd.interpreter" in suggested.error

    result = await h.minimize(client, {"uri": uri})  # no failure given: nothing is asked, the run stops
    assert result.status == "failed" and "cannot import 'numpy_is_not_here_at_all'" in result.message


async def test_the_data_the_result_reads_is_written_in_or_named_in_the_message(client: EditorClient, tmp_path):
    """The editor's result is the CLI's: a cut file of a few lines written into the result (it runs
    alone), or with dataAsFiles kept in the output's .data folder, which the message names."""
    (tmp_path / "words.txt").write_text("apple\nzebra\n" * 200)
    source = h.write(tmp_path, "words.py", 'words = open("words.txt").read().split()\n'
                                           'if "zebra" in words:\n    raise ValueError("zebra found")\n')
    uri = h.open_document(client, source)

    result = await h.minimize(client, {"uri": uri, "errMsg": "zebra found"})

    assert result.status == "done", result.message
    assert "Written into the result: words.txt: 2,400 -> " in result.message, result.message
    assert "io.StringIO(" in (tmp_path / "words.min.py").read_text()
    assert not (tmp_path / "words.min.data").exists()
    kept = await h.minimize(client, {"uri": uri, "errMsg": "zebra found", "dataAsFiles": True})
    assert kept.status == "done", kept.message
    assert f"in {tmp_path / 'words.min.data'}/" in kept.message and "Written into" not in kept.message
    assert (tmp_path / "words.min.data" / "words.txt").read_text().strip() == "zebra"
