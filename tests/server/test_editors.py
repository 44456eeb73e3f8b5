"""Sessions through real editors and their own LSP clients: headless Neovim 0.7 (`apt-get install neovim`)
and Emacs 28 with eglot 1.9 in batch mode (`apt-get install emacs-nox elpa-eglot`).

Each runs a real minimize end to end: the server's question answered in the editor's own prompt,
progress, streamed edits landing in a buffer, a cancelled run, and the buffers equal to the files.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import SLOW_SENTINEL, slow_program

pytestmark = [pytest.mark.editor, pytest.mark.slow]

EDITOR_DIR = Path(__file__).parent.parent / "editor"
PROGRAM = '''\
import math

setting = "fast"  # autodd: freeze
scale = 3  # autodd: freez


def noise(n):
    return sum(i * i for i in range(n))


def check(values):
    if len(values) > 3:
        raise ValueError("nvim-sentinel: too many values")


data = [v * scale for v in range(5)]
print("noise", noise(10), math.sqrt(16))
check(data)
'''


def server_env(result_file: Path) -> dict:
    return dict(os.environ, AUTODD_LSP_CMD=json.dumps([sys.executable, "-m", "autodd_lsp.server"]),
                AUTODD_RESULT=str(result_file))


# Every candidate sleeps (the sleep is frozen) and most statements can go: a run that
# streams edits for a while, long enough to be stopped.
SLOW = slow_program(0, 0.2, junk=40)


@pytest.mark.skipif(shutil.which("nvim") is None, reason="needs Neovim (apt-get install -y neovim)")
def test_neovim_session(tmp_path, no_leftovers):
    source = tmp_path / "prog.py"
    source.write_text(PROGRAM)
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW)
    result_file = tmp_path / "result.json"
    subprocess.run(
        ["nvim", "--headless", "--clean", "-n", "prog.py", "-c", f"luafile {EDITOR_DIR / 'drive.lua'}"],
        cwd=tmp_path, env=server_env(result_file), timeout=150, check=False, capture_output=True,
    )
    result = json.loads(result_file.read_text())
    assert "error" not in result, result

    # The bad annotation on line 4 is shown as a warning from "autodd".
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["lnum"] == 3 and diagnostic["source"] == "autodd"
    assert "freez" in diagnostic["message"]

    # The Minimize code action started a run at once; the failure was chosen in Neovim's own prompt.
    assert any("Minimize" in title for title in result["code_actions"])
    started = result["replies"][0]
    assert started["status"] == "started" and started["runId"], started
    assert "1. ValueError: nvim-sentinel: too many values" in result["question"]
    first = result["first"]
    assert first["status"] == "done", first

    # The edits Neovim applied built the same text the server wrote to disk; the source is untouched.
    output = tmp_path / "prog.min.py"
    assert result["output_buffer"] == output.read_text()
    assert "nvim-sentinel" in output.read_text()
    assert 'setting = "fast"' in output.read_text()  # frozen, so kept
    assert len(output.read_text()) < len(PROGRAM)
    # the source as the person left it: the annotation they fixed, nothing else (the run never writes it)
    fixed = PROGRAM.replace("# autodd: freez\n", "# autodd: freeze\n")
    assert source.read_text() == fixed and result["source_buffer"] == fixed
    kinds = [p["kind"] for p in result["progress"]]
    assert kinds[0] == "begin" and "report" in kinds and kinds.count("end") == 2
    assert result["run_progress"] > 0
    assert any(m.startswith("AutoDD: Done") for m in result["messages"])

    # The second run, cancelled from its progress token, ends "cancelled" with the buffer equal to the file.
    assert result["replies"][1]["status"] == "started"
    second = result["second"]
    assert second["status"] == "cancelled", second
    assert result["slow_output_buffer"] == (tmp_path / "slow.min.py").read_text()
    assert SLOW_SENTINEL in result["slow_output_buffer"]
    assert slow.read_text() == SLOW


def eglot_available() -> bool:
    if shutil.which("emacs") is None:
        return False
    found = subprocess.run(
        ["emacs", "--batch", "-Q", "--eval",
         "(progn (require 'package) (add-to-list 'package-directory-list \"/usr/share/emacs/site-lisp/elpa\")"
         " (package-initialize) (princ (if (require 'eglot nil t) \"yes\" \"no\")))"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    return found.stdout.strip().endswith("yes")


@pytest.mark.skipif(not eglot_available(), reason="needs Emacs with eglot (apt-get install -y emacs-nox elpa-eglot)")
def test_emacs_eglot_session(tmp_path, no_leftovers):
    source = tmp_path / "prog.py"
    # No mistyped marker here (it would stop the run; the Neovim session shows its diagnostic).
    source.write_text(PROGRAM.replace("nvim-sentinel", "emacs-sentinel").replace("# autodd: freez\n", "# autodd: freeze\n"))
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW)
    result_file = tmp_path / "result.json"
    # What the person types at Emacs' prompts, in order: the code action, the failure to keep,
    # and "y" to eglot's question before it first edits prog.min.py (a file it is not visiting).
    answers = "AutoDD: Minimize this failure\nValueError: emacs-sentinel: too many values\ny\n"
    done = subprocess.run(
        ["emacs", "--batch", "-Q", "-l", str(EDITOR_DIR / "drive.el")],
        cwd=tmp_path, env=server_env(result_file), input=answers, timeout=150, check=False,
        capture_output=True, text=True,
    )
    result = json.loads(result_file.read_text())
    assert "error" not in result, (result, done.stderr[-3000:])
    assert result["connected"] is True
    assert result["code_actions"] == ["AutoDD: Minimize this failure"]

    # The run started from the code action ended "done"; eglot's prompts took the answers.
    first = result["first"]
    assert first["status"] == "done", first
    prompts = done.stdout + done.stderr  # batch Emacs prints its prompts
    assert "Pick an action" in prompts
    assert "AutoDD: which failure of prog.py should the reduced program keep?" in prompts
    output = tmp_path / "prog.min.py"
    # The streamed edits (eglot checks versions strictly) built the file's text in the buffer.
    assert result["output_buffer"] == output.read_text()
    assert "emacs-sentinel" in output.read_text() and len(output.read_text()) < len(PROGRAM)
    assert source.read_text() == result["source_buffer"]
    assert "require version" not in prompts
    assert result["progress_count"] > 0
    progress = result["last_progress"]
    assert progress["runId"] == first["runId"] and progress["original"]["nodes"] >= progress["size"]["nodes"]

    # In place, stopped with autodd.cancel {runId}: the buffer holds what the file holds.
    assert result["slow_managed"] is True
    second_reply = result["second_reply"]
    assert second_reply["status"] == "started"
    assert result["cancel_reply"]["cancelled"] == [second_reply["uri"]]
    second = result["second"]
    assert second["status"] == "cancelled", second
    assert second["final"]["nodes"] < second["original"]["nodes"]  # edits were streamed before the stop
    assert result["slow_buffer"] == slow.read_text()
    assert SLOW_SENTINEL in slow.read_text() and len(slow.read_text()) < len(SLOW)
