"""The VS Code extension's server entry script (vscode-extension/bundled/tool/autodd_server.py).

Run for real with this interpreter (which has autodd-lsp installed) against a
bundled/libs folder holding only a distribution's metadata: which copy `--check`
chooses (the installed one only when newer), what it says on stderr, and that it
never puts bundled/libs on PYTHONPATH. The full bundle (pip install --target) is
exercised by vscode-extension/scripts/test-e2e.sh with a bare venv.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import autodd_lsp

pytestmark = pytest.mark.slow  # every test here starts an interpreter

ENTRY = Path(__file__).resolve().parents[1] / "vscode-extension" / "bundled" / "tool" / "autodd_server.py"


def fake_extension(root: Path, bundled_version: str | None) -> Path:
    """An extension folder with the real entry script and a bundled/libs with metadata only."""
    tool = root / "bundled" / "tool"
    tool.mkdir(parents=True)
    shutil.copy(ENTRY, tool / ENTRY.name)
    libs = root / "bundled" / "libs"
    libs.mkdir()
    if bundled_version is not None:
        info = libs / f"autodd_lsp-{bundled_version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: autodd-lsp\nVersion: {bundled_version}\n")
    return tool / ENTRY.name


def check(script: Path) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(Path(autodd_lsp.__file__).resolve().parents[1])  # this checkout's package
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr.strip()


def test_bundled_copy_wins_unless_the_installed_one_is_newer(tmp_path, no_leftovers):
    installed = autodd_lsp.__version__
    newer, _ = check(fake_extension(tmp_path / "newer", "999.0"))
    assert newer["using"] == "bundled" and newer["bundled"] == "999.0" and newer["user"] == installed
    older, said = check(fake_extension(tmp_path / "older", "0.0.1"))
    assert older["using"] == "user" and older["bundled"] == "0.0.1"
    assert f"using the interpreter's own autodd-lsp {installed} (newer than the bundled 0.0.1)" in said
    same, said = check(fake_extension(tmp_path / "same", installed))
    assert same["using"] == "bundled"
    assert f"using the bundled autodd-lsp {installed} (the interpreter's own {installed} is not newer)" in said


def test_without_a_bundle_it_uses_the_installed_copy(tmp_path, no_leftovers):
    choice, said = check(fake_extension(tmp_path / "none", None))
    assert choice["using"] == "user" and choice["bundled"] is None
    assert "(nothing bundled)" in said


def test_the_server_gets_the_bundle_on_sys_path_not_on_pythonpath(tmp_path, no_leftovers):
    script = fake_extension(tmp_path / "ext", "999.0")
    libs = script.parents[1] / "libs"
    probe = (
        "import importlib.util, os, sys; "
        "spec = importlib.util.spec_from_file_location('entry', sys.argv[1]); "
        "entry = importlib.util.module_from_spec(spec); spec.loader.exec_module(entry); "
        "entry.choose(); print(sys.path[0]); print(os.environ.get('PYTHONPATH', ''))"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    first, pythonpath = ([*done.stdout.splitlines(), ""])[:2]
    assert first == str(libs)
    assert str(libs) not in pythonpath
