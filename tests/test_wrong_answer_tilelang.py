"""The issue's TileLang example: a CPU matmul kernel that drops its last K tile (needs the `tilelang` extra).

Reduced with the message of its failing `assert_close`: the result keeps the
kernel (nothing else produces the same operands), where the message alone ended at
`assert_close(torch.zeros(...), a)`.
"""

import re
import subprocess
import sys

import pytest

from tests.support import program_text

pytest.importorskip("tilelang", reason="needs the tilelang extra (pip install torch==2.13.0 -e '.[tilelang]')")
pytestmark = [pytest.mark.tilelang, pytest.mark.slow]

MESSAGE = "Tensor-likes are not close"


def test_the_kernel_that_drops_its_last_tile_stays(tmp_path):
    source = tmp_path / "tile_mm.py"
    source.write_text(program_text("tile_matmul_last_tile.py"))
    output, report = tmp_path / "tile_mm.min.py", tmp_path / "report.md"
    done = subprocess.run(
        [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", MESSAGE, "-o", str(output), "-j", "2", "-q",
         "--report", str(report)],
        capture_output=True, text=True, timeout=1800, cwd=tmp_path, check=False,
    )
    assert done.returncode == 0, done.stderr
    result = output.read_text()
    assert "T.serial(T.ceildiv(K, bk) - 1)" in result and "tilelang.compile(" in result, result
    assert "torch.testing.assert_close(c, a @ b" in result
    page = report.read_text()
    assert "the same operands at torch.testing.assert_close" in page
    # original and reproducer: the same elements differ by as much
    lines = [line for line in page.splitlines() if "elements differ" in line]
    differed = [re.sub(r".* at line \d+: ", "", line) for line in lines]
    assert len(lines) == 2 and differed[0] == differed[1], lines
    assert "4095 of 4096 elements differ" in lines[0]
