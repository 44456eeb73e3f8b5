"""Failing pytest tests as SOURCE (`autodd file.py::test_x[64-float16]`): real tests, real pytest.

The programs are real test files with a conftest.py beside them; the result must
be one test file that fails the same way under `python -m pytest`, copied alone
into an empty folder.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import assert_one_line_error, autodd

pytestmark = pytest.mark.slow  # every test here starts an interpreter

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus" / "pytest_fixture"

MESSAGE = "tile check failed"
FAILURE_LINE = "ValueError: tile check failed: block 64 needs 65536 bytes of shared memory (float16)"
NODE = "test_plan[64-float16]"


@pytest.fixture
def quick_pytest(monkeypatch):
    """Candidates load no third-party pytest plugins (this venv has several): faster, the same failure."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def kernel_project(folder: Path) -> Path:
    """The benchmark's pytest_fixture case as a user has it: test_kernel.py, conftest.py, tiles.py."""
    folder.mkdir()
    shutil.copy(CORPUS / "kernel_tests.py", folder / "test_kernel.py")
    shutil.copy(CORPUS / "conftest.py", folder / "conftest.py")
    shutil.copy(CORPUS / "tiles.py", folder / "tiles.py")
    return folder / "test_kernel.py"


def pytest_alone(test_file: Path, node: str, folder: Path) -> subprocess.CompletedProcess:
    """Copy `test_file` alone into the empty `folder` and run `python -m pytest FILE::node` there."""
    folder.mkdir()
    copy = folder / test_file.name
    shutil.copy(test_file, copy)
    return subprocess.run(
        [sys.executable, "-m", "pytest", f"{copy.name}::{node}", "--tb=native", "-p", "no:cacheprovider"],
        cwd=folder, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, check=False,
    )


def test_reduces_a_parametrized_test_with_a_conftest_fixture(tmp_path, no_leftovers, quick_pytest):
    source = kernel_project(tmp_path / "project")
    original = source.read_text()
    before = sorted(p.name for p in source.parent.iterdir())
    output = tmp_path / "out" / "test_min.py"
    output.parent.mkdir()
    regression = tmp_path / "regression" / "test_regression.py"
    regression.parent.mkdir()
    done = autodd(f"{source}::{NODE}", "--err-msg", MESSAGE, "-o", output, "--emit-test", regression,
                  cwd=source.parent)
    assert done.returncode == 0, done.stderr
    assert "re-run: still fails the same way" in done.stderr
    assert "inlined conftest.py, tiles.py" in done.stderr
    result = output.read_text()
    non_blank = [line for line in result.splitlines() if line.strip()]
    assert len(non_blank) < len([line for line in original.splitlines() if line.strip()]) / 2
    assert 'if smem > device["smem"] * 0.7:' in result  # the check that raises keeps its test (its guard)
    # What that guard read is the user's: pytest never calls sys.excepthook, the probe's pytest plugin
    # writes the failing statement's record (execution/pytest_hook.py). Without it, `"smem": 1`.
    assert "the failing statement's operands" in done.stderr
    assert "48 * 1024" in result or "49152" in result, result
    assert "import tiles" not in result and "from tiles" not in result  # one file
    assert source.read_text() == original
    assert sorted(p.name for p in source.parent.iterdir()) == before  # nothing left beside the source
    assert [p.name for p in output.parent.iterdir()] == ["test_min.py"]
    # Standalone: alone in an empty folder, plain pytest, the same node fails with the same line.
    alone = pytest_alone(output, NODE, tmp_path / "empty")
    assert alone.returncode == 1, alone.stdout + alone.stderr
    assert FAILURE_LINE in alone.stdout.splitlines()
    assert "1 failed" in alone.stdout
    # The regression test runs the embedded test under pytest: it fails while the bug is there.
    own_tmp = tmp_path / "regression-tmp"  # its tmp_path: not AutoDD's private temporary folder
    own_tmp.mkdir()
    check = subprocess.run([sys.executable, "-m", "pytest", str(regression), "-q", "-p", "no:cacheprovider"],
                           cwd=regression.parent, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "TMPDIR": str(own_tmp)}, check=False)
    assert check.returncode == 1 and "the bug is still there" in check.stdout, check.stdout


SMALL_TEST = '''\
import pytest


class TestCodec:
    def test_roundtrip(self, payload):
        header = payload[:2]
        body = payload[2:]
        assert header == b"ok"
        length = len(body)
        body.decode("ascii")
        assert length > 0
'''

SMALL_CONFTEST = '''\
import pytest


@pytest.fixture
def payload():
    prefix = b"ok"
    return prefix + bytes([104, 105, 0xff, 33])


@pytest.fixture
def unused():
    return 1
'''


def test_a_test_in_a_class_with_subproc(tmp_path, no_leftovers, quick_pytest):
    folder = tmp_path / "codec"
    folder.mkdir()
    (folder / "test_codec.py").write_text(SMALL_TEST)
    (folder / "conftest.py").write_text(SMALL_CONFTEST)
    output = tmp_path / "test_codec_min.py"
    done = autodd(f"{folder / 'test_codec.py'}::TestCodec::test_roundtrip", "--err-msg", "can't decode byte 0xff",
                  "-o", output, "--backend", "subproc", cwd=folder)
    assert done.returncode == 0, done.stderr
    result = output.read_text()
    assert "def payload" in result  # the fixture, inlined from conftest.py
    assert "def unused" not in result
    assert len(result) < len(SMALL_TEST) + len(SMALL_CONFTEST)
    assert sorted(p.name for p in folder.iterdir()) == ["conftest.py", "test_codec.py"]
    alone = pytest_alone(output, "TestCodec::test_roundtrip", tmp_path / "empty")
    assert alone.returncode == 1, alone.stdout + alone.stderr
    assert any("UnicodeDecodeError" in line and "can't decode byte 0xff" in line for line in alone.stdout.splitlines())


@pytest.mark.parametrize("node, fragment", [
    ("test_kernel.py::", "not a pytest node id"),
    ("test_kernel.py::test plan", "not a pytest node id"),
    ("test_kernel.py::test_plan[64", "not a pytest node id"),
])
def test_a_bad_node_id_is_a_one_line_error(tmp_path, node, fragment):
    kernel_project(tmp_path / "project")
    done = autodd(node, "--err-msg", MESSAGE, "-o", tmp_path / "m.py", cwd=tmp_path / "project")
    assert_one_line_error(done, 2, fragment)


def test_a_test_that_passes_or_is_missing_is_not_reproducible(tmp_path, no_leftovers, quick_pytest):
    source = kernel_project(tmp_path / "project")
    passes = autodd(f"{source}::test_plan[16-float16]", "--err-msg", MESSAGE, "-o", tmp_path / "m.py",
                    "--backend", "subproc", cwd=source.parent)
    assert_one_line_error(passes, 1, "test_plan[16-float16]: the test passes")
    missing = autodd(f"{source}::test_nothing", "--err-msg", MESSAGE, "-o", tmp_path / "m.py",
                     "--backend", "subproc", cwd=source.parent)
    assert_one_line_error(missing, 1, "test_nothing: pytest cannot run it (no such test")
    assert sorted(p.name for p in source.parent.iterdir()) == ["conftest.py", "test_kernel.py", "tiles.py"]
    assert not (tmp_path / "m.py").exists()


def test_a_test_without_a_failure_to_keep_gets_suggestions_from_one_run_under_pytest(tmp_path, no_leftovers):
    source = kernel_project(tmp_path / "project")
    done = autodd(f"{source}::{NODE}", "-o", tmp_path / "m.py", cwd=source.parent)
    assert done.returncode == 2
    offered = [line.strip() for line in done.stderr.splitlines() if line.startswith("  autodd ")]
    assert offered and all(f"{NODE}" in line and "--err-msg" in line for line in offered), done.stderr
    assert any(MESSAGE in line for line in offered), done.stderr  # the test's own exception line
    assert not (tmp_path / "m.py").exists()
    passes = autodd(f"{source}::test_plan[16-float16]", "-o", tmp_path / "m.py", cwd=source.parent)
    assert_one_line_error(passes, 1, "test_plan[16-float16]: the test passes")
