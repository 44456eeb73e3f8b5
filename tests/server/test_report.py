"""autodd.writeReport and autodd.writeTest: the real server over stdio, after a real run to the end."""

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from tests.support import SLOW_SENTINEL, slow_program
from tests.support import server_harness as h
from tests.support.server_harness import EditorClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # one real server per module



def error_messages(client: EditorClient) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Error]


async def test_report_and_test_of_the_last_finished_run(client: EditorClient, tmp_path):
    source = h.write(tmp_path, "prog.py", h.FAILING_PROGRAM)
    uri = h.open_document(client, source)
    done = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL})
    assert done.status == "done", done.message
    reproducer = (tmp_path / "prog.min.py").read_text()

    report = await h.execute(client, "autodd.writeReport", {"uri": uri})
    assert report.ok is True and report.path == str(tmp_path / "prog.report.md")
    assert report.uri == from_fs_path(report.path)
    text = Path(report.path).read_text()
    assert f"```python\n{reproducer.rstrip()}\n```" in text and "```bash\npython prog.min.py\n```" in text
    assert "## Environment\n\n- Python " in text and "GPU: no GPU used" in text
    assert f"reproducer (prog.min.py): ValueError: {h.SENTINEL}" in text

    test = await h.execute(client, "autodd.writeTest", {"uri": uri})
    assert test.ok is True and test.path == str(tmp_path / "test_prog_regression.py")
    maintainer = tmp_path / "maintainer"
    maintainer.mkdir()
    (maintainer / "test_prog_regression.py").write_text(Path(test.path).read_text())
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'basetemp'}",
         "test_prog_regression.py"],
        cwd=maintainer, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
    )
    assert ran.returncode == 1 and h.SENTINEL in ran.stdout, ran.stdout + ran.stderr

    # A path of one's own: relative to the source's folder, or a file uri; never the source or the result.
    custom = await h.execute(client, "autodd.writeReport", {"uri": uri, "path": "bug.md"})
    assert custom.ok and Path(custom.path) == tmp_path / "bug.md" and (tmp_path / "bug.md").exists()
    as_uri = await h.execute(client, "autodd.writeTest", {"uri": uri, "path": from_fs_path(str(tmp_path / "t.py"))})
    assert as_uri.ok and (tmp_path / "t.py").exists()
    clash = await h.execute(client, "autodd.writeTest", {"uri": uri, "path": "prog.min.py"})
    assert clash.ok is False and "the minimized file" in clash.message
    assert (tmp_path / "prog.min.py").read_text() == reproducer
    nowhere = await h.execute(client, "autodd.writeReport", {"uri": uri, "path": "no/such/folder/r.md"})
    assert nowhere.ok is False and "does not exist" in nowhere.message
    assert source.read_text() == h.FAILING_PROGRAM


NO_FINISHED = 'no finished run of this file yet: run "AutoDD: Minimize this failure" to the end first'


async def test_without_a_finished_run_there_is_nothing_to_write(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "slow.py", slow_program()))

    never_ran = await h.execute(client, "autodd.writeReport", {"uri": uri})
    assert never_ran.ok is False and NO_FINISHED in never_ran.message
    await h.wait_until(lambda: error_messages(client))
    assert NO_FINISHED in error_messages(client)[0]

    # A stopped run is not a finished one.
    run = asyncio.ensure_future(h.minimize(client, {"uri": uri, "errMsg": SLOW_SENTINEL}))
    await h.wait_until(lambda: (tmp_path / "slow.min.py").exists(), timeout=20)
    await h.execute(client, "autodd.cancel", {"uri": uri})
    assert (await asyncio.wait_for(run, 10)).status == "cancelled"
    stopped = await h.execute(client, "autodd.writeTest", {"uri": uri})
    assert stopped.ok is False and NO_FINISHED in stopped.message
    assert not (tmp_path / "test_slow_regression.py").exists() and not (tmp_path / "slow.report.md").exists()

    no_argument = await h.execute(client, "autodd.writeTest", None)
    assert no_argument.ok is False and "expected one argument" in no_argument.message


async def test_the_match_rule_is_a_setting(client: EditorClient, tmp_path):
    uri = h.open_document(client, h.write(tmp_path, "m.py", h.FAILING_PROGRAM))

    bad = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL, "match": "loose"})
    assert bad.status == "failed" and "match" in bad.message and "loose" in bad.message

    loose = await h.minimize(client, {"uri": uri, "errMsg": h.SENTINEL, "match": "substring"})
    assert loose.status == "done", loose.message
