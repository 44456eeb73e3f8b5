"""Frozen code judged in the candidate's own run: probes in its code, not in its text (frozen_probe.py)."""

import os
import subprocess
import sys

import pytest

from autodd_lsp.engine.rules.frozen_probe import FrozenCheck, probed_code, split_run
from autodd_lsp.engine.rules.protection import frozen_spans
from autodd_lsp.execution import RunResult
from autodd_lsp.syntax.source import Source
from tests.support import reduce, run_standalone

NOISE = "".join(f"noise_{i} = [{i}] * 3\n" for i in range(6))


def _run_code(text: str, tmp_path, ids: dict[str, int]) -> subprocess.CompletedProcess:
    """Run `text`'s probed code as the file it is (written unprobed), as the runner would."""
    path = tmp_path / "prog.py"
    path.write_text(text)
    source = Source(text)
    code = probed_code(source, frozen_spans(source), ids, str(path))
    assert code is not None
    (tmp_path / "code.bin").write_bytes(__import__("marshal").dumps(code))
    loader = ("import marshal, sys; sys.argv = sys.argv[1:]; "
              "exec(marshal.loads(open('code.bin', 'rb').read()), {'__name__': '__main__', '__file__': sys.argv[0]})")
    return subprocess.run([sys.executable, "-c", loader, str(path)], cwd=tmp_path, capture_output=True,
                          check=False, env={**os.environ, "PYTHONPATH": ""})


@pytest.mark.slow
def test_probed_code_keeps_every_line_and_marks_each_region_once(tmp_path):
    text = (
        "import os\n"
        "def step(i):\n"
        "    total = i * 2  # autodd: freeze\n"
        "    return total\n"
        "for i in range(500):\n"
        "    step(i)\n"
        "if os.sep == '?':\n"
        "    pass\n"
        "elif os.sep:  # autodd: freeze\n"
        "    table = {'a': 1}\n"
        "table['missing']  # autodd: freeze\n"
    )
    ids: dict[str, int] = {}
    probed = _run_code(text, tmp_path, ids)
    plain = subprocess.run([sys.executable, str(tmp_path / "prog.py")], cwd=tmp_path, capture_output=True,
                           check=False)
    result, seen = split_run(RunResult(probed.stdout, probed.stderr, probed.returncode))
    assert seen == frozenset(ids.values()) and len(ids) == 3  # every region ran, the loop's once
    assert probed.stderr.count(b"<autodd-frozen-ran:") == 3 and b"<autodd-frozen-probed>" in probed.stderr
    # Without its markers the run is the plain run: the failing line echoed as written, at its own line
    # (the loader's frame `<string>` aside), carets included.
    assert result.stderr.splitlines()[-4:] == plain.stderr.splitlines()[-4:]
    assert b'prog.py", line 11' in result.stderr and b"table['missing']  # autodd: freeze" in result.stderr


@pytest.mark.slow
def test_a_region_that_did_not_run_shows_no_marker(tmp_path):
    text = "def never():\n    value = 1  # autodd: freeze\n    return value\nraise SystemExit(3)\n"
    ids: dict[str, int] = {}
    probed = _run_code(text, tmp_path, ids)
    assert probed.returncode == 3
    assert split_run(RunResult(probed.stdout, probed.stderr, probed.returncode))[1] == frozenset()
    assert split_run(RunResult(b"", b"Traceback ...\n", 1))[1] is None  # the file ran, not the probed code
    assert not FrozenCheck(ids, frozenset(ids.values())).satisfied_by(frozenset())


def test_no_probe_before_a_docstring_or_future_import():
    for text in ('"""doc"""  # autodd: freeze\nx = 1\n', "from __future__ import annotations  # autodd: freeze\n"):
        source = Source(text)
        assert probed_code(source, frozen_spans(source), {}, "p.py") is None


@pytest.mark.slow
def test_frozen_program_reduces_in_one_run_per_candidate(program):
    """On the warm runner, a candidate that keeps its frozen code running is decided by its own run:
    as many runs as candidates."""
    text = (
        "import os\n"
        "def work(n):\n"
        "    for i in range(n):\n"
        "        kept = os.sep * i  # autodd: freeze\n"
        "    return n\n"
        + NOISE + "work(200)\n" + NOISE.replace("noise", "more")
        + "raise RuntimeError('frozen failure ' + str(len(noise_1)))\n"
    )
    path = program("frozen_loop.py", text)
    summary, _ = reduce(path, "frozen failure 3")
    assert summary.verified
    assert "kept = os.sep * i  # autodd: freeze" in summary.text
    assert "noise_3" not in summary.text and "more_2" not in summary.text and summary.final.lines <= 5
    stats = summary.stats
    assert stats.candidates_run > 10
    assert stats.runs == stats.candidates_run  # no second, probed run for any candidate
    out = path.parent / "out.py"
    out.write_text(summary.text)
    assert "frozen failure 3" in run_standalone(out)
