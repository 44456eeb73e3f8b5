"""Candidates run beside the source: data files, sibling modules and the script's own name work as in a plain run."""

import os
import signal
import subprocess
import sys
import time

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction
from autodd_lsp.engine.candidate.slots import PREFIX, JobSlots
from tests.support import SLOW_SENTINEL, process_table, slow_program, wait_gone

BACKENDS = ["runner", "subproc"]

LOADER = '''\
import csv
import os

import helpers

HERE = os.path.dirname(__file__)
assert os.getcwd() == os.environ["EXPECTED_CWD"], os.getcwd()


def read_rows():
    with open(os.path.join(HERE, "data.csv")) as handle:
        return list(csv.DictReader(handle))


def report(rows):
    print("rows:", len(rows))
    return helpers.total(rows)


print("total:", report(read_rows()))
'''

HELPERS = '''\
def total(rows):
    result = 0
    for row in rows:
        result += int(row["count"])
    return result
'''


def hidden_files(folder):
    return sorted(name for name in os.listdir(folder) if name.startswith(PREFIX))


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_program_next_to_its_data_and_modules_reduces(tmp_path, monkeypatch, backend, no_leftovers):
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.csv").write_text("name,count\na,1\nb,x\n")
    (project / "helpers.py").write_text(HELPERS)
    source = project / "load.py"
    source.write_text(LOADER)
    elsewhere = tmp_path / "elsewhere"  # the user's working directory is not the source's folder
    elsewhere.mkdir()
    monkeypatch.setenv("EXPECTED_CWD", str(elsewhere))
    options = ReduceOptions(err_msg="invalid literal", backend=backend, cwd=str(elsewhere))
    summary = Reduction(source.read_text(), str(source), options).run()
    assert summary.verified
    assert summary.original_failure_line == "ValueError: invalid literal for int() with base 10: 'x'"
    assert summary.final.nodes < summary.original.nodes
    assert hidden_files(project) == []  # every candidate file is gone
    assert sorted(os.listdir(project)) == ["data.csv", "helpers.py", "load.py"]
    assert source.read_text() == LOADER


@pytest.mark.slow
def test_the_programs_own_name_shows_as_in_a_plain_run(program, no_leftovers):
    """argparse names the program after sys.argv[0]: `usage: tool.py`, not the hidden file's name."""
    path = program("tool.py", (
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--size', type=int)\n"
        "noise = [n * n for n in range(10)]\n"
        "parser.parse_args(['--size', 'big'])\n"
    ))
    options = ReduceOptions(err_msg="tool.py: error: argument --size: invalid int value", cwd=str(path.parent))
    summary = Reduction(path.read_text(), str(path), options).run()
    assert summary.verified
    assert summary.final_failure_line == "tool.py: error: argument --size: invalid int value: 'big'"
    assert "noise" not in summary.text
    assert hidden_files(path.parent) == []


@pytest.mark.slow
def test_slot_files_of_a_dead_run_are_swept_and_a_live_ones_kept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"{PREFIX}{dead.pid}-job0-prog.py"
    live = tmp_path / f"{PREFIX}1-job0-prog.py"  # pid 1 is alive
    stale.write_text("x = 1\n")
    live.write_text("x = 1\n")
    slots = JobSlots(2, "prog.py", beside=str(tmp_path))
    try:
        assert not stale.exists() and live.exists()
        assert all(os.path.dirname(p) == str(tmp_path) for p in slots.paths)
        assert all(os.path.basename(p).endswith("-prog.py") for p in slots.paths)
    finally:
        slots.remove()
    assert hidden_files(tmp_path) == [live.name]


def test_where_the_source_folder_cannot_hold_files_the_slots_fall_back_to_a_temporary_folder(tmp_path):
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("")
    slots = JobSlots(2, "prog.py", beside=str(not_a_folder))
    try:
        assert slots.folder is None and "not writable" in slots.fallback_reason
        assert all(p.startswith(slots.root) and os.path.basename(p) == "prog.py" for p in slots.paths)
    finally:
        slots.remove()
    assert not os.path.exists(slots.root)


SLOW = slow_program(0, 0.3, junk=2)


@pytest.mark.slow
def test_a_killed_run_leaves_nothing_that_the_next_run_does_not_clean_up(tmp_path, no_leftovers):
    source = tmp_path / "slow.py"
    source.write_text(SLOW)
    command = [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", SLOW_SENTINEL, "-o", str(tmp_path / "out.py"), "-q"]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    # A file appearing has no event to wait on here (no inotify in the standard library, and
    # the run is quiet): polled, with a deadline.
    deadline = time.monotonic() + 30
    while not hidden_files(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hidden_files(tmp_path), "the run never wrote a candidate"
    descendants = [pid for pid, (parent, _) in process_table().items() if parent == first.pid]  # its fork servers
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert all(wait_gone(pid) for pid in descendants)  # its fork servers die with it (PDEATHSIG)
    assert hidden_files(tmp_path)  # killed: it could not clean up
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert hidden_files(tmp_path) == []
