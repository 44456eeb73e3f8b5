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
from autodd_lsp.datafiles.written_in import Site, literal, written_in
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


def run_alone(program, tmp_path):
    """What `program` prints when it runs alone in an empty folder (its output and errors)."""
    alone = Path(tempfile.mkdtemp(dir=tmp_path))
    shutil.copy(program, alone)
    run = subprocess.run([sys.executable, program.name], cwd=alone, capture_output=True, text=True,
                         timeout=60, check=False)
    return run.stdout + run.stderr


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
    # The CSV and the text, cut to a few lines, are written into the program where it opened them;
    # the array (binary) is a file of the data folder.
    result = (out / "prog.min.py").read_text()
    assert result.count("io.StringIO(") == 2 and "written into the program" in done.stderr
    assert '"""\\\nlabel\n' in result  # the header stays
    assert (folder / "feats.npy").stat().st_size * 20 < len(before["feats.npy"])
    assert not (folder / "data").exists() and not (folder / "vocab.txt").exists()
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
    assert "written into the program" in report


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
    # Its cut CSV is a few lines: written into it, the reproducer is one file.
    assert not (out / "q.min.data").exists() and "io.StringIO(" in result
    assert "could not convert string to float: 'n/a'" in run_alone(out / "q.min.py", tmp_path)


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
    # open(path, newline="") in load(path): the call opened readings.csv, cut to a few lines and
    # written in there, the rest of load as it was.
    assert "io.StringIO(" in result and "def load(" in result, result
    assert "could not convert string to float" in run_alone(out / "report.min.py", tmp_path)


def sites_of(text):
    """Each call of `text` by what it calls, where the reads probe would say it ran."""
    import ast

    return {
        ast.unparse(node.func): Site(node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call)
    }


def test_a_small_file_is_written_in_where_it_was_opened():
    text = '"""Doc."""\nimport csv\n\nwith open("data/x.csv", newline="") as f:\n    rows = list(csv.reader(f))\n'
    made = written_in(text, text, {"data/x.csv": [sites_of(text)["open"]]}, {"data/x.csv": b"a,b\r\n1,2\r\n"})
    assert made is not None and made.names == ("data/x.csv",)
    assert made.text.startswith('"""Doc."""\nimport io\nimport csv\n')
    namespace: dict = {}
    exec(made.text, namespace)
    assert namespace["rows"] == [["a", "b"], ["1", "2"]]  # newline="" keeps the CRLF for csv, as open did
    assert made.shadow == made.text  # the same edits (an identity shadow stays the text)


def test_a_reader_call_keeps_its_words_and_reads_a_string_io():
    text = "import numpy as np\n\nvalues = np.loadtxt('v.txt', delimiter=',')\n"
    made = written_in(text, None, {"v.txt": [sites_of(text)["np.loadtxt"]]}, {"v.txt": b"1,2\n3,4\n"})
    assert made is not None
    assert "np.loadtxt(io.StringIO(" in made.text and "delimiter=','" in made.text
    namespace: dict = {}
    exec(made.text, namespace)
    assert namespace["values"].tolist() == [[1, 2], [3, 4]]


def test_what_is_not_written_in():
    text = "import pathlib\nwords = pathlib.Path('w.txt').read_text()\nrows = open('r.txt').read()\n"
    calls = sites_of(text)
    # read_text is not open nor a reader that takes a file object
    assert written_in(text, None, {"w.txt": [calls["pathlib.Path('w.txt').read_text"]]}, {"w.txt": b"a\n"}) is None
    assert written_in(text, None, {"r.txt": [calls["open"]]}, {"r.txt": b"x\n" * 41}) is None  # 41 lines
    assert written_in(text, None, {"r.txt": [calls["open"]]}, {"r.txt": b"x" * 2049}) is None  # 2,049 bytes
    assert written_in(text, None, {"r.txt": [calls["open"]]}, {"r.txt": b"a\0b"}) is None  # binary
    assert written_in(text, None, {"r.txt": []}, {"r.txt": b"a\n"}) is None  # opened where no code of it ran
    loop = "for name in ['a.txt', 'b.txt']:\n    print(open(name).read())\n"
    site = sites_of(loop)["open"]  # one place opened two files
    assert written_in(loop, None, {"a.txt": [site], "b.txt": [site]}, {"a.txt": b"1", "b.txt": b"2"}) is None
    io_bound = "io = 3\nprint(open('r.txt').read(), io)\n"
    assert written_in(io_bound, None, {"r.txt": [sites_of(io_bound)["open"]]}, {"r.txt": b"a"}) is None


def test_literals_keep_their_lines_when_they_can():
    assert literal("a,b\n1,2\n") == '"""\\\na,b\n1,2\n"""'
    for value in ('ends with "', 'has """ in it', "back\\slash", "tab\tand\r", "", b"ab\n", b"\xff"):
        assert eval(literal(value)) == value


@pytest.mark.slow
def test_the_reading_code_not_a_plain_open_keeps_the_data_folder(tmp_path, no_leftovers):
    """`Path.read_text()` opens the file inside pathlib: its call is not one that reads a StringIO,
    the cut file stays a file; a failure that needs 60 lines is no small file either."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "words.txt").write_text("apple\nzebra\n" * 300)
    (project / "lines.txt").write_text("".join(f"line {i}\n" for i in range(500)))
    (project / "p.py").write_text(
        "import pathlib\n\nwords = pathlib.Path('words.txt').read_text().split()\n"
        "lines = open('lines.txt').read().splitlines()\n"
        "if 'zebra' in words and len(lines) >= 60:\n    raise ValueError('zebra and enough lines')\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    done = autodd(project / "p.py", "--err-msg", "zebra and enough lines", "-o", out / "p.min.py", cwd=project)
    assert done.returncode == 0, done.stderr
    result = (out / "p.min.py").read_text()
    assert "StringIO" not in result and "written into" not in done.stderr
    folder = out / "p.min.data"
    assert (folder / "words.txt").read_text().split() == ["zebra"]
    assert len((folder / "lines.txt").read_text().splitlines()) == 60
    run = subprocess.run([sys.executable, "p.min.py"], cwd=folder, capture_output=True, text=True, timeout=60,
                         check=False)
    assert "zebra and enough lines" in run.stderr


@pytest.mark.slow
def test_data_as_files_keeps_a_small_file_a_file(tmp_path, no_leftovers):
    project = tmp_path / "project"
    project.mkdir()
    (project / "words.txt").write_text("apple\nzebra\n" * 200)
    (project / "p.py").write_text(
        'words = open("words.txt").read().split()\nif "zebra" in words:\n    raise ValueError("zebra found")\n'
    )
    out = tmp_path / "out"
    out.mkdir()
    done = autodd(project / "p.py", "--err-msg", "zebra found", "-o", out / "p.min.py", "--data-as-files",
                  cwd=project)
    assert done.returncode == 0, done.stderr
    assert "StringIO" not in (out / "p.min.py").read_text()
    assert (out / "p.min.data" / "words.txt").read_text().strip() == "zebra"


DATASET = """\
import os


def load(root):
    samples = []
    for label in sorted(os.listdir(root)):
        for name in sorted(os.listdir(os.path.join(root, label))):
            with open(os.path.join(root, label, name)) as f:
                header, text = f.read().split("\\n", 1)
            samples.append((header, text.split(), label))
    return samples


samples = load("dataset")
stars = [int(header.split(":")[1]) for header, _, _ in samples]
print(sum(stars) / len(stars))
"""


@pytest.mark.slow
def test_a_dataset_folder_is_cut_to_the_files_it_needs(tmp_path, no_leftovers):
    """60 files read in two folders (more than 20): the files first, as units (one holds the bad
    header), then that one by its format; the other 59 are written nowhere, and the folder they
    leave empty is gone from the candidates' folder too (the result alone would not find it:
    without that, a result that lists dataset/ was written in and did not fail alone). Where the
    result still lists the folder, the file stays a file; where the listing went (its labels
    written in as recorded), the file is written into the result."""
    project = tmp_path / "project"
    for label in ("neg", "pos"):
        (project / "dataset" / label).mkdir(parents=True)
        for index in range(30):
            stars = "4.5" if (label, index) == ("pos", 11) else str(1 + index % 5)
            lines = [" ".join(f"w{(index * 7 + i * 3 + j) % 500}" for j in range(12)) for i in range(20)]
            (project / "dataset" / label / f"{index:03}.txt").write_text(f"stars: {stars}\n" + "\n".join(lines) + "\n")
    (project / "mean.py").write_text(DATASET)
    before = snapshot(project)
    out = tmp_path / "out"
    out.mkdir()
    done = autodd(project / "mean.py", "--err-msg", "invalid literal for int()", "-o", out / "mean.min.py",
                  cwd=project)
    assert done.returncode == 0, done.stderr
    assert snapshot(project) == before
    assert "the result read 60 file(s)" in done.stderr and "59 other file(s) it read are not needed" in done.stderr
    assert "dataset/pos/011.txt: " in done.stderr, done.stderr
    folder = out / "mean.min.data"
    alone = Path(tempfile.mkdtemp(dir=tmp_path))
    if folder.exists():  # the result lists the folder: the file stays a file
        kept = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
        assert kept == ["dataset/pos/011.txt", "mean.min.py"], kept
        shutil.copytree(folder, alone, dirs_exist_ok=True)
    else:  # the folder's listing went with the route (its labels recorded): the one file written in
        assert "written into" in done.stderr and "io.StringIO(" in (out / "mean.min.py").read_text(), done.stderr
        shutil.copy(out / "mean.min.py", alone)
    run = subprocess.run([sys.executable, "mean.min.py"], cwd=alone, capture_output=True, text=True, timeout=60,
                         check=False)
    assert "invalid literal for int() with base 10: ' 4.5'" in run.stderr, (run.stderr, done.stderr)
