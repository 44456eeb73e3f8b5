"""The bundled TileLang example, reduced on the CPU with the real CLI (needs the `tilelang` extra)."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autodd_lsp.oracle.degenerate import degenerate_values, more_degenerate
from tests.support import run_standalone

pytest.importorskip("tilelang", reason="needs the tilelang extra (pip install torch==2.13.0 -e '.[tilelang]')")
pytestmark = [pytest.mark.tilelang, pytest.mark.slow]

EXAMPLE = Path(__file__).parent.parent / "examples" / "autodd" / "gemm_bug.py"
MESSAGE = "T.gemm K shape check failed"


def nodes(text):
    return sum(1 for _ in ast.walk(ast.parse(text)))


def test_bundled_tilelang_example_reduces_to_a_small_reproducer(tmp_path):
    source = tmp_path / "gemm_bug.py"
    shutil.copy(EXAMPLE, source)
    output = tmp_path / "gemm_bug.min.py"
    done = subprocess.run(
        [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", MESSAGE, "-o", str(output), "-j", "2", "-q"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert source.read_text() == EXAMPLE.read_text()
    result = output.read_text()
    assert nodes(result) < nodes(EXAMPLE.read_text()) / 5
    assert "T.gemm(" in result and "@T.prim_func" in result
    # the tiles T.gemm checks keep the user's shapes (the statement hook describes TileLang buffers):
    # B given as (block_N, block_K) where (block_K, block_N) was meant, not a K shrunk to 1
    assert 'T.alloc_shared((64, 32), "float16")\n    B_shared = T.alloc_shared((64, 32), "float16")' in result, result
    assert "T.alloc_fragment((64, 64)" in result, result
    # the same failure line as the original's, with no zero-sized shape or empty dtype on the way
    assert "T.gemm K shape check failed: K_A = 32, K_B = 64" in run_standalone(output, cwd=tmp_path, timeout=120)
    found = degenerate_values(ast.parse(result))
    assert not more_degenerate(found, degenerate_values(ast.parse(EXAMPLE.read_text()))), found


def test_a_short_message_that_several_checks_print_stays_on_the_first_check(tmp_path):
    """`shape check failed` is printed by TileLang's K, N and M checks: the result keeps the K check."""
    source = tmp_path / "gemm_bug.py"
    shutil.copy(EXAMPLE, source)
    output = tmp_path / "short.min.py"
    done = subprocess.run(
        [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", "shape check failed", "-o", str(output), "-q"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "T.gemm K shape check failed: K_A = 32, K_B = 64" in run_standalone(output, cwd=tmp_path, timeout=120)
