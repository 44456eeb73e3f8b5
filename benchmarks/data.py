"""The data files a result reads, cut with it (issue 43): sizes before and after, and what it costs.

    python benchmarks/data.py [--digitizer PATH/TO/main.py --python PYTHON_WITH_PANDAS_AND_SKLEARN]
                              [--ng-video-lecture CHECKOUT] [--neural-network-test CHECKOUT] [--cases a,b]

Each case is copied into a temporary folder and reduced by the CLI (`-o out/<name>.min.py`,
`-j 1`); the summary's data lines give each file's size before and after, the candidates and
seconds the cutting added; then `out/<name>.min.data/` is copied into an empty folder and the
result run there alone (the failure line must show); a result whose data was all written into it
(no data folder) is copied alone into an empty folder and run there. Cases:

- `data_beside` (the corpus): a site report reading its 121-byte `measurements.csv`;
- `three_formats`: a program reading a 541 KB CSV, a 99 KB text file and an 80 KB `.npy`
  (the data written here from a fixed seed: the program of tests/test_data_files.py, larger);
- `digitizer` (with `--digitizer`): Skrynia/Digitizer `main.py` at ba00331, a public decision-tree
  digit classifier (pandas, scikit-learn) that reads `train.csv` (785 columns) and `test.csv`
  (784) beside it and builds its submission with `numpy.arange(1, 28001)`: with a test set of
  another size, `ValueError: All arrays must be of the same length`. Its code is not kept here:
  pass the file. Its data is MNIST-shaped, written here (2,000 and 1,000 rows, 80% zero pixels);
- `bigram` (with `--ng-video-lecture`, a checkout of karpathy/ng-video-lecture at 5220142): its
  `bigram.py`, a character-level bigram language model reading the 1.1 MB tiny-Shakespeare
  `input.txt` of the same checkout, with one realistic mistake made here: `vocab_size = 64` (a
  power of two) in place of `len(chars)` (65): the embedding is one row short, and the first
  batch that holds a `z` (index 64) fails with `IndexError: index out of range in self`;
- `npz` (with `--neural-network-test`, a checkout of sweet-and-salty-studios/Neural-network-test
  at 231461f): `main.py` and its `neural_network.py`, a from-scratch NumPy network that reads
  `training_images` and `training_labels` from `mnist.npz`; the `.npz` is written here as a
  user who saved Keras' `mnist.load_data()` arrays without reshaping them has it (images
  `(10000, 28, 28)` uint8 where the program wants `(N, 784, 1)`; labels one-hot `(10000, 10, 1)`):
  `np.matmul` fails with `matmul: Input operand 1 has a mismatch in its core dimension 0`;
- `public_word_lm` (the corpus): pytorch/examples' word language model at cc8e404 (`main.py`,
  `data.py`, `model.py`) with its `data/wikitext-2/` (three small text files, 1,319 bytes), run
  as its CI does (`--epochs 1 --dry-run`): `torch.load` of the saved model refuses it;
- `dataset_folder` (written here): a review classifier's loader over `dataset/<label>/<n>.txt`
  (420 files, 2 KB each), the shape of a torch `Dataset` over a folder: the headers are parsed
  after the loading loop, and one file's says `stars: 4.5`, which `int()` refuses.

Prints one Markdown table (benchmarks/data.md holds a run).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.corpus.cases import CORPUS_DIR

THREE_FORMATS = """\
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
total = sum(labels)
if "zebra" in words and max(labels) == 9:
    raise ValueError(f"bad label for width {weights.shape[1]}")
print(total)
"""


def build_data_beside(folder: Path) -> tuple[Path, str]:
    for name in ("site_report.py", "units.py", "measurements.csv"):
        shutil.copyfile(CORPUS_DIR / "data_beside" / name, folder / name)
    return folder / "site_report.py", "could not convert string to float"


def build_public_word_lm(folder: Path) -> tuple[Path, str, tuple[str, ...]]:
    shutil.copytree(CORPUS_DIR / "public" / "word_language_model", folder, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return folder / "main.py", "Weights only load failed", ("--epochs", "1", "--dry-run")


def build_three_formats(folder: Path) -> tuple[Path, str]:
    rng = np.random.default_rng(0)
    (folder / "data").mkdir()
    with open(folder / "data" / "train.csv", "w") as f:
        f.write("label," + ",".join(f"px{i}" for i in range(50)) + "\n")
        for label in rng.integers(0, 10, 3000):
            f.write(
                f"{label}," + ",".join(str(v) for v in rng.integers(0, 255, 50)) + "\n"
            )
    words = ["apple", "banana", "cherry", "zebra", "kiwi"]
    (folder / "vocab.txt").write_text(
        "".join(" ".join(rng.choice(words, 8)) + "\n" for _ in range(2000))
    )
    np.save(folder / "feats.npy", rng.random((500, 20)))
    (folder / "prog.py").write_text(THREE_FORMATS)
    return folder / "prog.py", "bad label for width"


def mnist_like(path: Path, rows: int, label: bool, rng: np.random.Generator) -> None:
    pixels = rng.integers(0, 256, (rows, 784)) * (rng.random((rows, 784)) > 0.8)
    with open(path, "w") as f:
        f.write(
            ",".join((["label"] if label else []) + [f"pixel{i}" for i in range(784)])
            + "\n"
        )
        for row in range(rows):
            f.write(
                ",".join(
                    ([str(rng.integers(0, 10))] if label else [])
                    + [str(v) for v in pixels[row]]
                )
                + "\n"
            )


def digitizer_builder(program: Path):
    def build(folder: Path) -> tuple[Path, str]:
        rng = np.random.default_rng(0)
        shutil.copyfile(program, folder / "main.py")
        mnist_like(folder / "train.csv", 2000, True, rng)
        mnist_like(folder / "test.csv", 1000, False, rng)
        return folder / "main.py", "All arrays must be of the same length"

    return build


def ng_video_lecture_builder(checkout: Path):
    def build(folder: Path) -> tuple[Path, str]:
        text = (checkout / "bigram.py").read_text()
        mistake = text.replace("vocab_size = len(chars)\n", "vocab_size = 64\n")
        assert mistake != text, "bigram.py: no `vocab_size = len(chars)` line (not 5220142?)"
        (folder / "bigram.py").write_text(mistake)
        shutil.copyfile(checkout / "input.txt", folder / "input.txt")
        return folder / "bigram.py", "IndexError: index out of range in self"

    return build


def neural_network_test_builder(checkout: Path):
    def build(folder: Path) -> tuple[Path, str]:
        for name in ("main.py", "neural_network.py"):
            shutil.copyfile(checkout / name, folder / name)
        rng = np.random.default_rng(0)
        images = (rng.integers(0, 256, (10000, 28, 28)) * (rng.random((10000, 28, 28)) > 0.8)).astype(np.uint8)
        labels = np.eye(10)[rng.integers(0, 10, 10000)][:, :, None]
        np.savez(folder / "mnist.npz", training_images=images, training_labels=labels)
        return folder / "main.py", "matmul: Input operand 1 has a mismatch in its core dimension 0"

    return build


DATASET_FOLDER = """\
import os

LABELS = {"neg": 0, "pos": 1}


def load(root):
    samples = []
    for label in sorted(os.listdir(root)):
        for name in sorted(os.listdir(os.path.join(root, label))):
            with open(os.path.join(root, label, name), encoding="utf-8") as f:
                header, text = f.read().split("\\n", 1)
            samples.append((header, text.split(), LABELS[label]))
    return samples


samples = load("dataset")
stars = [int(header.split(":")[1]) for header, _, _ in samples]
vocab = sorted({word for _, words, _ in samples for word in words})
print(len(samples), "reviews,", len(vocab), "words, mean", sum(stars) / len(stars))
"""


def build_dataset_folder(folder: Path) -> tuple[Path, str]:
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(3000)]
    for label in ("neg", "pos"):
        (folder / "dataset" / label).mkdir(parents=True)
        for index in range(210):
            stars = "4.5" if (label, index) == ("pos", 137) else str(rng.integers(1, 6))
            lines = [" ".join(rng.choice(words, 12)) for _ in range(30)]
            (folder / "dataset" / label / f"{index:04}.txt").write_text(f"stars: {stars}\n" + "\n".join(lines) + "\n")
    (folder / "reviews.py").write_text(DATASET_FOLDER)
    return folder / "reviews.py", "invalid literal for int() with base 10"


def run_case(name: str, build, python: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"autodd-data-{name}-") as root:
        project, out, alone = (
            Path(root, "project"),
            Path(root, "out"),
            Path(root, "alone"),
        )
        project.mkdir()
        out.mkdir()
        built = build(project)
        source, message, program_args = (*built, ()) if len(built) == 2 else built
        program_bytes = sum(p.stat().st_size for p in project.glob("*.py"))
        data_bytes = sum(p.stat().st_size for p in project.rglob("*") if p.is_file() and p.suffix != ".py")
        started = time.monotonic()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "autodd_lsp",
                str(source),
                "--err-msg",
                message,
                "-o",
                str(out / f"{name}.min.py"),
                "-j",
                "1",
                "--python",
                python,
                "--quiet",
                *(["--", *program_args] if program_args else []),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=project,
        )
        seconds = time.monotonic() - started
        row = {
            "case": name,
            "rc": done.returncode,
            "seconds": seconds,
            "program": program_bytes,
            "data_bytes": data_bytes,
            "result": (out / f"{name}.min.py").stat().st_size if (out / f"{name}.min.py").exists() else 0,
        }
        summary = re.search(
            r"Done: (\d+) -> (\d+) non-blank lines?, (\d+) -> (\d+) AST nodes.*?(\d+) candidates? run",
            done.stderr,
        )
        if summary:
            row["lines"] = f"{summary[1]} -> {summary[2]}"
            row["nodes"] = f"{summary[3]} -> {summary[4]}"
            row["candidates"] = int(summary[5])
        data = re.search(
            r"beside it: ([\d,]+) -> ([\d,]+) bytes \((\d+) candidates, ([\d.]+) s\)",
            done.stderr,
        )
        row["files"] = re.findall(
            r"autodd:   (\S+): ([\d,]+) -> ([\d,]+) bytes \(([^)]*)\)", done.stderr
        )
        row["notes"] = re.findall(r"autodd: note: (.*)", done.stderr)
        dropped = re.search(r"autodd:   (\d+) other file\(s\) it read are not needed", done.stderr)
        row["dropped"] = int(dropped[1]) if dropped else 0
        if data:
            row["data"] = (data[1], data[2], int(data[3]), float(data[4]))
        if (out / f"{name}.min.data").exists():
            shutil.copytree(out / f"{name}.min.data", alone)
        elif (out / f"{name}.min.py").exists():  # no data, or every file written into it: the result alone
            alone.mkdir()
            shutil.copyfile(out / f"{name}.min.py", alone / f"{name}.min.py")
        if alone.exists():
            check = subprocess.run([python, f"{name}.min.py", *program_args], cwd=alone, capture_output=True,
                                   text=True, check=False, timeout=300)
            row["alone"] = message in check.stdout + check.stderr
        return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--digitizer", help="Skrynia/Digitizer's main.py (ba00331)")
    parser.add_argument("--ng-video-lecture", help="a checkout of karpathy/ng-video-lecture (5220142)")
    parser.add_argument("--neural-network-test", help="a checkout of sweet-and-salty-studios/Neural-network-test (231461f)")
    parser.add_argument("--cases", default="", help="only these cases (comma-separated names)")
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter the programs run with"
    )
    args = parser.parse_args()
    cases: list[tuple[str, Callable[[Path], tuple]]] = [
        ("data_beside", build_data_beside), ("three_formats", build_three_formats),
        ("dataset_folder", build_dataset_folder)]
    if args.digitizer:
        cases.append(("digitizer", digitizer_builder(Path(args.digitizer).resolve())))
    if args.ng_video_lecture:
        cases.append(("bigram", ng_video_lecture_builder(Path(args.ng_video_lecture).resolve())))
    if args.neural_network_test:
        cases.append(("npz", neural_network_test_builder(Path(args.neural_network_test).resolve())))
    cases.append(("public_word_lm", build_public_word_lm))
    if args.cases:
        cases = [case for case in cases if case[0] in args.cases.split(",")]
    print(
        "| case | program: bytes (all .py files -> the result); lines; nodes | data bytes | file | bytes before | bytes after | "
        "how | data candidates | data s | whole run s | fails alone with its data |"
    )
    print("|---|---|---:|---|---:|---:|---|---:|---:|---:|---|")
    for name, build in cases:
        row = run_case(name, build, args.python)
        program = f"{row['program']:,} -> {row['result']:,}; {row.get('lines', '?')}; {row.get('nodes', '?')}"
        data = row.get("data")
        cells = [str(data[2]), f"{data[3]:.1f}"] if data else ["", ""]
        alone = {True: "yes", False: "NO"}.get(bool(row["alone"]), "") if row.get("alone") is not None else ""
        files = row["files"] + ([(f"{row['dropped']} other files", "", "0", "not needed")] if row["dropped"] else [])
        for index, (file, before, after, how) in enumerate(files or [("-", "", "", "")]):
            head = [name, program, f"{row['data_bytes']:,}"] if index == 0 else ["", "", ""]
            tail = (
                [*cells, f"{row['seconds']:.1f}", alone]
                if index == 0
                else ["", "", "", ""]
            )
            shown = file if file.endswith("other files") or file == "-" else f"`{file}`"
            print("| " + " | ".join([*head, shown, before, after, how, *tail]) + " |")
        for note in row["notes"]:
            print(f"<!-- {name}: {note} -->", file=sys.stderr)
        if row["rc"]:
            print(f"{name}: exit status {row['rc']}", file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    main()
