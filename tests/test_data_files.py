"""The data files the result reads, cut with it (autodd_lsp/datafiles, engine/lifecycle/data_files.py, notes/data.md)."""

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from autodd_lsp.datafiles import left_alone, shared_columns, split_files, steps_for
from autodd_lsp.search.blocks import keep_fewer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def autodd(*words, cwd):
    """The CLI of this checkout, as a user runs it from `cwd`."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run(
        [sys.executable, "-m", "autodd_lsp", *map(str, words)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def found(name, data):
    """The format and steps of a file that is cut."""
    steps = steps_for(name, data)
    assert steps is not None
    return steps


def units(name, data, step):
    """The `step`th step's cut of `data`."""
    made = found(name, data)[1][step](data)
    assert made is not None
    return made


def cut(name, data, step, kept):
    return units(name, data, step).render(kept)


def test_csv_rows_keep_the_header_and_columns_keep_their_fields():
    data = b"label,a,b\n1,10,20\n2,30,40\n3,50,60\n"
    kind, steps = found("train.csv", data)
    assert kind == "csv" and len(steps) == 2
    assert cut("train.csv", data, 0, [1]) == b"label,a,b\n2,30,40\n"
    assert cut("train.csv", data, 1, [0, 2]) == b"label,b\n1,20\n2,40\n3,60\n"


def test_text_by_lines_then_characters():
    data = b"alpha\nbeta\ngamma\n"
    assert found("words.txt", data)[0] == "text"
    assert cut("words.txt", data, 0, [1]) == b"beta\n"
    assert cut("words.txt", data, 1, [0, 1]) == b"al"


def test_json_elements_at_any_depth():
    data = json.dumps({"a": [1, 2, 3], "b": {"c": 4}}).encode()
    count = units("x.json", data, 0).count
    assert count == 6  # a, a[0], a[1], a[2], b, b.c
    assert json.loads(cut("x.json", data, 0, [0, 2])) == {"a": [2]}


def test_npy_slices_each_axis_and_keeps_one_index():
    array = np.arange(12).reshape(3, 4)
    buffer = io.BytesIO()
    np.save(buffer, array)
    data = buffer.getvalue()
    assert np.load(io.BytesIO(cut("f.npy", data, 1, [1, 3]))).tolist() == [
        [1, 3],
        [5, 7],
        [9, 11],
    ]
    assert units("f.npy", data, 0).render([]) is None  # an empty axis is no file


def test_npz_drops_arrays_then_slices_them():
    buffer = io.BytesIO()
    np.savez(buffer, x=np.zeros((5, 2)), y=np.ones(3))
    data = buffer.getvalue()
    kind, steps = found("f.npz", data)
    assert kind == "npz" and len(steps) == 1 + 2 + 1
    with np.load(io.BytesIO(cut("f.npz", data, 0, [1]))) as only:
        assert only.files == ["y"]


def test_archives_pickles_checkpoints_and_binary_are_left_alone():
    for name in ("model.pt", "cache.pkl", "data.zip", "weights.safetensors"):
        assert steps_for(name, b"abc") is None and left_alone(name, b"abc")
    assert steps_for("blob.dat", b"\x00\x01\x02") is None
    assert left_alone("notes.txt", b"hello\n") == ""


def test_keep_fewer_finds_a_few_needed_units_among_many():
    kept, tries = keep_fewer(60000, lambda units: 5 in units and 40000 in units, 300)
    assert kept == [5, 40000] and tries < 120
    kept, tries = keep_fewer(785, lambda units: 0 in units, 300)
    assert kept == [0] and tries < 40


PROGRAM = """\
import csv
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "train.csv")) as f:
    rows = list(csv.DictReader(f))
with open(os.path.join(here, "vocab.txt")) as f:
    words = f.read().split()
feats = np.load(os.path.join(here, "feats.npy"))
labels = [int(r["label"]) for r in rows]
weights = feats[:, :3]
if "zebra" in words and max(labels) == 9:
    raise ValueError(f"bad label for width {weights.shape[1]}")
print(sum(labels))
"""


def write_project(folder):
    (folder / "data").mkdir()
    rng = np.random.default_rng(0)
    with open(folder / "data" / "train.csv", "w") as f:
        f.write("label," + ",".join(f"px{i}" for i in range(30)) + "\n")
        for label in rng.integers(0, 10, 1500):
            f.write(
                f"{label}," + ",".join(str(v) for v in rng.integers(0, 255, 30)) + "\n"
            )
    words = ["apple", "banana", "cherry", "zebra", "kiwi"]
    (folder / "vocab.txt").write_text(
        "".join(" ".join(rng.choice(words, 8)) + "\n" for _ in range(800))
    )
    np.save(folder / "feats.npy", rng.random((300, 20)))
    (folder / "prog.py").write_text(PROGRAM)


def snapshot(folder):
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_the_result_runs_alone_with_its_cut_data(tmp_path, no_leftovers):
    project = tmp_path / "project"
    project.mkdir()
    write_project(project)
    before = snapshot(project)
    out = tmp_path / "out"
    out.mkdir()
    done = autodd(
        project / "prog.py",
        "--err-msg",
        "bad label for width",
        "-o",
        out / "prog.min.py",
        "--report",
        out / "bug.md",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert (
        snapshot(project) == before
    )  # the user's files: unchanged, nothing left beside them
    folder = out / "prog.min.data"
    assert "data/train.csv:" in done.stderr and f"wrote {folder}" in done.stderr
    for name in ("data/train.csv", "vocab.txt", "feats.npy"):
        assert (folder / name).stat().st_size * 20 < len(before[name]), (
            name
        )  # much smaller
    assert (
        (folder / "data" / "train.csv").read_text().startswith("label")
    )  # the header stays
    # Alone: the data folder copied into an empty one, run from there as the user will.
    alone = tmp_path / "alone"
    shutil.copytree(folder, alone)
    run = subprocess.run(
        [sys.executable, "prog.min.py"],
        cwd=alone,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "ValueError: bad label for width 3" in run.stderr
    report = (out / "bug.md").read_text()
    assert "## The data it reads" in report and "| `data/train.csv` |" in report


@pytest.mark.slow
def test_no_data_leaves_the_data_whole(tmp_path, no_leftovers):
    project = tmp_path / "project"
    project.mkdir()
    (project / "words.txt").write_text("apple\nzebra\n" * 200)
    (project / "p.py").write_text(
        'words = open("words.txt").read().split()\nif "zebra" in words:\n'
        '    raise ValueError("zebra found")\n'
    )
    out = tmp_path / "out"
    out.mkdir()
    done = autodd(
        project / "p.py",
        "--err-msg",
        "zebra found",
        "-o",
        out / "p.min.py",
        "--no-data",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert not os.path.exists(out / "p.min.data") and "beside it:" not in done.stderr


FILTERED = """\
import csv

rows = list(csv.DictReader(open("readings.csv")))
rows = [row for row in rows if row["kind"] != "skip"]
for row in rows:
    value = float(row["value"])
    print(row["site"], value * 2)
"""


@pytest.mark.slow
def test_the_result_goes_further_with_its_cut_data(tmp_path, no_leftovers):
    """The filter that keeps the 'oops' rows away is needed with the whole data, not with the cut one."""
    project = tmp_path / "project"
    project.mkdir()
    rows = [
        f"s{i},temp,{i / 7:.3}" if i % 3 == 0 else f"s{i},skip,oops" for i in range(600)
    ]
    lines = ["site,kind,value", *rows, "s9,temp,n/a"]
    (project / "readings.csv").write_text("\n".join(lines) + "\n")
    (project / "q.py").write_text(FILTERED)
    out = tmp_path / "out"
    out.mkdir()
    done = autodd(
        project / "q.py",
        "--err-msg",
        "could not convert string to float: 'n/a'",
        "-o",
        out / "q.min.py",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    result = (out / "q.min.py").read_text()
    assert "skip" not in result and "float(" in result
    assert (out / "q.min.data" / "q.min.py").read_text() == result
    run = subprocess.run(
        [sys.executable, "q.min.py"],
        cwd=out / "q.min.data",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "could not convert string to float: 'n/a'" in run.stderr


def test_columns_two_csv_files_share_are_cut_in_both():
    files = {
        "train.csv": b"label,a,b\n1,2,3\n",
        "test.csv": b"a,b\n4,5\n",
        "notes.txt": b"a,b\n",
    }
    made = shared_columns(files)
    assert made is not None and made.count == 2  # a and b: label is in one file only
    joined = made.render([1])
    assert joined is not None
    assert split_files(joined) == {
        "train.csv": b"label,b\n1,3\n",
        "test.csv": b"b\n5\n",
    }
    assert shared_columns({"x.csv": b"a\n1\n", "y.csv": b"b\n2\n"}) is None


@pytest.mark.slow
def test_a_path_built_from_the_programs_folder_stays_an_expression(tmp_path, no_leftovers):
    """`os.path.join(HERE, "readings.csv")` was recorded as this machine's absolute path and written
    in: the result read the user's file wherever it ran, and its data could not be cut (the corpus's
    data_beside). An absolute path is not a value to write in: the result keeps the expression,
    and its data is cut into the data folder."""
    project = Path(tempfile.mkdtemp(prefix="p", dir="/tmp"))  # short: the recorded strings are short ones
    try:
        _path_written_in(project, tmp_path)
    finally:
        shutil.rmtree(project)


def _path_written_in(project, tmp_path):
    (project / "readings.csv").write_text("site,value\n" + "north,1.5\n" * 300 + "south,oops\n" + "east,2\n" * 50)
    (project / "report.py").write_text(
        "import csv\nimport os\n\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
        'DATA = os.path.join(HERE, "readings.csv")\n\n\ndef load(path):\n'
        '    with open(path, newline="") as handle:\n        return list(csv.DictReader(handle))\n\n\n'
        "for row in load(DATA):\n    print(row['site'], float(row['value']))\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    done = autodd(project / "report.py", "--err-msg", "could not convert string to float", "-o",
                  out / "report.min.py", cwd=project)
    assert done.returncode == 0, done.stderr
    result = (out / "report.min.py").read_text()
    assert str(project) not in result, result
    cut = out / "report.min.data" / "readings.csv"
    assert cut.exists() and len(cut.read_text()) < 100, done.stderr
