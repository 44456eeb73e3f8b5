"""The runs' own temporary folder and TileLang kernel cache, and the timeout that leaves room
to compile (engine/lifecycle/run_scratch.py, timeouts.adaptive_timeout): a real TileLang CPU kernel
whose wrong answer shows only after compiling."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autodd_lsp.engine.lifecycle.run_scratch import (
    KERNEL_CACHE,
    TEMPORARY,
    compiled,
    scratch_env,
    without_scratch,
)
from autodd_lsp.engine.lifecycle.timeouts import adaptive_timeout, crowding
from tests.support import program_text


def test_the_timeout_leaves_twice_the_cold_run_where_kernels_compiled():
    assert adaptive_timeout(0.1, 60.0) == pytest.approx(0.5)
    assert adaptive_timeout(0.01, 60.0) == pytest.approx(0.3)
    assert adaptive_timeout(0.1, 60.0, cold_seconds=1.5) == pytest.approx(3.0)
    assert adaptive_timeout(0.1, 2.0, cold_seconds=1.5) == pytest.approx(2.0)  # never past --timeout


def test_more_jobs_than_cpus_leave_each_run_more_time(monkeypatch):
    """-j 8 on 2 cores: a candidate that computes takes up to 4x as long, and a timeout the
    original's runs set would make its verdict depend on the load (benchmarks/parallel.md)."""
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert crowding(1) == crowding(2) == 1.0 and crowding(8) == 4.0
    assert adaptive_timeout(1.45, 120.0, crowding=crowding(8)) == pytest.approx(29.0)
    assert adaptive_timeout(1.45, 20.0, crowding=crowding(8)) == pytest.approx(20.0)  # never past --timeout


def test_compiled_means_a_kernel_was_written_into_the_runs_own_folder(tmp_path):
    env = scratch_env(str(tmp_path))
    assert env[TEMPORARY] == str(tmp_path / "tmp") and (tmp_path / "tmp").is_dir()
    assert compiled(env) is False and compiled({}) is False
    (tmp_path / "kernels" / "0.1.15" / "abc").mkdir(parents=True)
    assert compiled(env) is False  # folders alone: nothing compiled
    (tmp_path / "kernels" / "0.1.15" / "abc" / "kernel.so").write_bytes(b"\0")
    assert compiled(env) is True
    assert without_scratch({**env, "OTHER": "1"}) == {"OTHER": "1"}


@pytest.mark.tilelang
@pytest.mark.slow
def test_a_kernel_edit_that_must_compile_again_is_tried_and_nothing_is_left_in_the_users_folders(
        tmp_path, monkeypatch):
    """The kernel writes Z, which nothing checks, then Y one too high: the Z loop goes. The
    user ran the program before, so their cache holds its kernel: with it, the original's
    runs found the kernel compiled, every kernel edit timed out while compiling (0.4 s
    against ~0.5 s here) and the Z loop stayed. TileLang leaves each compile's C++ and
    library in the temporary folder: the runs' own, removed after."""
    pytest.importorskip("tilelang", reason="needs the tilelang extra")
    private, users_cache = tmp_path / "private-tmp", tmp_path / "users-cache"
    private.mkdir()
    source = tmp_path / "scale.py"
    source.write_text(program_text("tile_scale_plus_one.py"))
    output = tmp_path / "scale.min.py"
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setenv(KERNEL_CACHE, str(users_cache))
    # The user ran it once before: their cache holds its kernel (and their temporary folder TileLang's files).
    ran = subprocess.run([sys.executable, str(source)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         check=False)
    assert "Tensor-likes are not close" in ran.stderr
    cached = sorted(users_cache.rglob("*"))
    assert cached
    for leftover in private.iterdir():
        leftover.unlink()
    done = subprocess.run(
        [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", "Tensor-likes are not close",
         "-o", str(output), "-j", "1"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "note: the program compiles kernels before it fails" in done.stderr, done.stderr
    result = output.read_text()
    assert "* 3.0" not in result, result  # the Z loop: an edit of the kernel, compiled again
    assert "* 2.0 + 1.0" in result, result  # the bug stays
    assert sorted(users_cache.rglob("*")) == cached, "a run wrote into the user's kernel cache"
    assert list(private.iterdir()) == []  # no tmp*.cpp, tmp*.so: the runs' folders went with the run
