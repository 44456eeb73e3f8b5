"""One session through a real editor: headless Neovim 0.7 (`apt-get install neovim`) and its LSP client."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.editor

EDITOR_DIR = Path(__file__).parent / "editor"
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


@pytest.mark.skipif(shutil.which("nvim") is None, reason="needs Neovim (apt-get install -y neovim)")
def test_neovim_session(tmp_path):
    source = tmp_path / "prog.py"
    source.write_text(PROGRAM)
    result_file = tmp_path / "result.json"
    env = dict(os.environ,
               AUTODD_LSP_CMD=json.dumps([sys.executable, "-m", "autodd_lsp.server"]),
               AUTODD_RESULT=str(result_file))
    subprocess.run(
        ["nvim", "--headless", "--clean", "-n", "prog.py", "-c", f"luafile {EDITOR_DIR / 'drive.lua'}"],
        cwd=tmp_path, env=env, timeout=90, check=False, capture_output=True,
    )
    result = json.loads(result_file.read_text())
    assert "error" not in result, result

    # The bad annotation on line 4 is shown as a warning from "autodd".
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["lnum"] == 3 and diagnostic["source"] == "autodd"
    assert "freez" in diagnostic["message"]

    # The Minimize code action ran, the failure was chosen from the server's question.
    assert any("Minimize" in title for title in result["code_actions"])
    assert result["question"]["actions"][0]["title"] == "ValueError: nvim-sentinel: too many values"
    command = result["command_result"]
    assert command["status"] == "done", command

    # The edits Neovim applied built the same text the server wrote to disk; the source is untouched.
    output = tmp_path / "prog.min.py"
    assert result["output_buffer"] == output.read_text()
    assert "nvim-sentinel" in output.read_text()
    assert 'setting = "fast"' in output.read_text()  # frozen, so kept
    assert len(output.read_text()) < len(PROGRAM)
    assert source.read_text() == PROGRAM and result["source_buffer"] == PROGRAM
    assert result["progress"][0] == "begin" and result["progress"][-1] == "end"
