"""Clean runs (engine/candidate/clean_runs.py): no run sees a file an earlier run wrote; the user's files stay."""

import os
import subprocess
import sys

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction
from autodd_lsp.engine.candidate.clean_runs import CLOCK_SLACK_NS, FolderWatch
from autodd_lsp.engine.lifecycle.events import Event, Notice
from autodd_lsp.files import atomic_write
from tests.conftest import program_text


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "jobs"), [("runner", 1), ("runner", 2), ("subproc", 1)])
def test_a_script_that_loads_its_own_checkpoint_keeps_the_save(tmp_path, monkeypatch, no_leftovers, backend, jobs):
    """pytorch/examples' word_language_model shape: train, save model.ckpt, fail loading it.
    The original's run leaves model.ckpt beside the script; a candidate that only loads it
    must not count (alone it fails with FileNotFoundError)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("the user's own file\n")
    source = project / "train.py"
    source.write_text(program_text("checkpoint.py"))
    monkeypatch.chdir(project)  # the user runs it from its folder: model.ckpt goes there
    events: list[Event] = []
    options = ReduceOptions(err_msg="Weights only load failed", backend=backend, jobs=jobs)
    summary = Reduction(source.read_text(), str(source), options, events.append).run()
    assert summary.verified
    assert summary.final_failure_line == summary.original_failure_line
    assert "pickle.dump(" in summary.text  # the save that makes the checkpoint stays
    assert summary.final.nodes < summary.original.nodes
    assert sorted(os.listdir(project)) == ["notes.txt", "train.py"]  # no model.ckpt left, the user's file kept
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("writes files beside it (model.ckpt)" in n for n in notices), notices


@pytest.mark.slow
def test_the_checkpoint_the_users_own_run_left_is_not_read(tmp_path, monkeypatch, no_leftovers):
    """The same program after the user ran it once: model.ckpt is there before AutoDD starts.
    A candidate that only loads it would fail here on the user's old checkpoint and with
    FileNotFoundError anywhere else (earlier_files.py): the save must stay."""
    project = tmp_path / "project"
    project.mkdir()
    source = project / "train.py"
    source.write_text(program_text("checkpoint.py"))
    monkeypatch.chdir(project)
    users_run = subprocess.run(check=False, args=[sys.executable, str(source)], capture_output=True, text=True)
    assert "Weights only load failed" in users_run.stderr
    events: list[Event] = []
    options = ReduceOptions(err_msg="Weights only load failed")
    summary = Reduction(source.read_text(), str(source), options, events.append).run()
    assert summary.verified
    assert "pickle.dump(" in summary.text
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("rewrites model.ckpt" in n for n in notices), notices
    assert not any("does not fail alone" in n for n in notices), notices
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "train.py").write_text(summary.text)
    rerun = subprocess.run(check=False, args=[sys.executable, "train.py"], cwd=alone, capture_output=True, text=True)
    assert "Weights only load failed" in rerun.stderr, rerun.stderr
    assert sorted(os.listdir(project)) == ["model.ckpt", "train.py"]  # the user's checkpoint stays


def test_a_file_the_run_rewrites_is_named(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "model.ckpt").write_text("the user's last run")
    (folder / "data.csv").write_text("a,b\n")
    watch = FolderWatch([str(folder)])
    assert watch.rewritten() == []
    with watch.run():
        (folder / "model.ckpt").write_text("this run's checkpoint, longer")
        (folder / "new.bin").write_text("made by the run")
    assert watch.rewritten() == [os.path.realpath(folder / "model.ckpt")]


HOOK_PROGRAM = """\
import os, sys
with open("written.txt", "w") as f:
    f.write("x")
with open("written.txt") as f:
    f.read()
with open("earlier.txt", "rb") as f:
    f.read()
with open("earlier.txt", "rb") as f:
    f.read()
fd = os.open("input.txt", os.O_RDONLY)
os.close(fd)
"""


@pytest.mark.slow
def test_the_hook_reports_a_read_before_a_write_once(tmp_path):
    from autodd_lsp.engine.rules.earlier_files import earlier_hook
    from autodd_lsp.engine.rules.operand_probe import insert_hooks, split_markers
    from autodd_lsp.execution import RunResult

    for name in ("written.txt", "earlier.txt", "input.txt"):
        (tmp_path / name).write_text("old")
    paths = [str(tmp_path / n) for n in ("written.txt", "earlier.txt")]
    probed = insert_hooks(HOOK_PROGRAM, earlier_hook(paths))
    assert probed is not None and probed.count("\n") == HOOK_PROGRAM.count("\n")  # no line moves
    (tmp_path / "p.py").write_text(probed)
    done = subprocess.run(check=False, args=[sys.executable, "p.py"], cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stderr
    result = split_markers(RunResult(done.stdout, done.stderr, 0))
    assert result.read_earlier == (str(tmp_path / "earlier.txt"),)
    assert result.stderr == b""


def test_only_what_a_run_created_goes(tmp_path):
    folder = tmp_path / "project"
    (folder / "data" / "deep").mkdir(parents=True)
    (folder / "model.ckpt").write_text("the user's checkpoint")
    (folder / "data" / "train.csv").write_text("a,b\n")
    watch = FolderWatch([str(folder)])
    atomic_write(str(folder / "train.min.py"), "x = 1\n")  # a result AutoDD writes while runs are in flight
    with watch.run():
        (folder / "model.ckpt").write_text("overwritten by the run")  # the user's file: kept as the run left it
        (folder / "data" / "cache.bin").write_text("new")
        (folder / "runs" / "1").mkdir(parents=True)
        (folder / "runs" / "1" / "events").write_text("new")
        (folder / ".autodd-1-job0-train.py").write_text("a job slot")
    assert (folder / "model.ckpt").read_text() == "overwritten by the run"
    assert sorted(os.listdir(folder)) == [".autodd-1-job0-train.py", "data", "model.ckpt", "train.min.py"]
    assert sorted(os.listdir(folder / "data")) == ["deep", "train.csv"]
    assert watch.serial  # a program that writes files: its runs go one at a time from now on
    assert sorted(os.path.basename(p) for p in watch.created) == ["cache.bin", "runs"]


def test_a_file_made_while_no_run_is_in_flight_stays(tmp_path):
    """Saved by someone else before the run started (its status change is older): not the run's."""
    (tmp_path / "user.txt").write_text("saved by the user after the baseline")
    made = os.stat(tmp_path / "user.txt").st_ctime_ns
    start = [made + 5 * CLOCK_SLACK_NS]
    watch = FolderWatch([str(tmp_path)], clock=lambda: start[0])
    watch._names[str(tmp_path.resolve())] = frozenset()  # as if the baseline was taken before it was saved
    watch._seen_mtime[str(tmp_path.resolve())] = 0
    with watch.run():
        pass
    assert os.listdir(tmp_path) == ["user.txt"]
    start[0] = made  # a run in flight when it was saved: taken for the run's
    watch._seen_mtime[str(tmp_path.resolve())] = 0
    with watch.run():
        pass
    assert os.listdir(tmp_path) == []


def test_editor_and_python_files_stay_and_the_working_folder_is_watched_shallowly(tmp_path, monkeypatch):
    """An editor's swap and lock files and Python's own cache are not the run's; a working folder
    other than the source's is watched by its own entries only, and the home folder not at all."""
    source, cwd = tmp_path / "project", tmp_path / "cwd"
    (cwd / "downloads").mkdir(parents=True)
    source.mkdir()
    watch = FolderWatch([str(source)], working_folder=str(cwd))
    with watch.run():
        for name in (".train.py.swp", "train.py~", "#train.py#", ".#train.py", "__pycache__"):
            (source / name).mkdir() if name == "__pycache__" else (source / name).write_text("")
        (cwd / "model.pt").write_text("written by the run")
        (cwd / "downloads" / "file.zip").write_text("not under the watch")
    assert sorted(os.listdir(source)) == sorted([".#train.py", ".train.py.swp", "#train.py#", "__pycache__", "train.py~"])
    assert sorted(os.listdir(cwd)) == ["downloads"]  # the run's model.pt went
    assert os.listdir(cwd / "downloads") == ["file.zip"]
    monkeypatch.setenv("HOME", str(cwd))
    home_watch = FolderWatch([str(source)], working_folder=str(cwd))
    with home_watch.run():
        (cwd / "notes.txt").write_text("saved in the home folder")
    assert sorted(os.listdir(cwd)) == ["downloads", "notes.txt"]


CLAIM = """
import sys
from autodd_lsp.engine.candidate.clean_runs import FolderWatch
from autodd_lsp.engine.candidate.folder_claim import FolderTaken
source, cwd = sys.argv[1], sys.argv[2] or None
try:
    FolderWatch([source], working_folder=cwd).claim()
except FolderTaken as error:
    print(error)
else:
    print("claimed")
"""


@pytest.mark.slow
def test_one_process_reduction_at_a_time_holds_a_folder(tmp_path):
    """Another process's watch of the same folder, of a folder the first watches below it, of one
    above whose watch reaches it, or of one above a working folder, is refused; a sibling folder and
    a shared working folder are not.
    The reductions of one process (the server's) share the folders. The hold ends with `release`
    (and with the process: a flock, no file)."""
    project, sibling, cwd = tmp_path / "project", tmp_path / "sibling", tmp_path / "cwd"
    (project / "data" / "raw").mkdir(parents=True)
    sibling.mkdir()
    cwd.mkdir()

    def elsewhere(source, working=""):
        done = subprocess.run([sys.executable, "-c", CLAIM, str(source), str(working)], capture_output=True,
                              text=True, check=True, cwd=tmp_path)
        return done.stdout.strip()

    first = FolderWatch([str(project)], working_folder=str(cwd)).claim()
    taken = f"another AutoDD reduction is running in {project}: "
    for folder in (project, project / "data", project / "data" / "raw"):
        assert elsewhere(folder).startswith(taken), folder
    assert elsewhere(tmp_path).startswith("another AutoDD reduction is running in ")  # it watches both
    assert elsewhere(sibling, cwd) == "claimed"  # another source folder, the same working folder
    assert elsewhere(cwd).startswith(f"another AutoDD reduction is running in {cwd}: ")  # it watches cwd whole
    first.release()
    runs_in_data = FolderWatch([str(sibling)], working_folder=str(project / "data")).claim()
    # a reduction of project/ would remove what those runs write in data/
    assert elsewhere(project).startswith(f"another AutoDD reduction is running in {project / 'data'}: ")
    runs_in_data.release()
    first = FolderWatch([str(project)], working_folder=str(cwd)).claim()
    second = FolderWatch([str(project / "data")]).claim()  # this process's own: shared
    first.release()
    assert elsewhere(project).startswith(f"another AutoDD reduction is running in {project / 'data'}: ")  # `second`'s
    second.release()
    assert elsewhere(project) == elsewhere(project / "data") == elsewhere(tmp_path) == "claimed"
    assert sorted(os.listdir(tmp_path)) == ["cwd", "project", "sibling"]
