"""How each format of data file is cut: its steps, each a list of units to keep or drop.

`steps_for(name, data)` gives a file's format and its steps in order, or None
when the file is left alone (`left_alone` says why: an archive, a pickle, a
checkpoint, bytes of no format cut here). A `Step` is called with the file's
current bytes (what the steps before it kept) and returns a `Cut`: `count` units,
and `render(kept)`, the file's bytes with only the units at the indices `kept`
(ascending), or None when no such file can be written (an array with an empty
axis). Nothing here knows which units a program needs: the engine tries.

  text (.txt, .md, .log, .jsonl, ... and any UTF-8 file without NUL bytes):
      lines, then characters;
  CSV (.csv, .tsv): data rows (the header row is always kept), then columns;
  JSON (.json): elements: every list element and object member, at any depth
      (one unit each, in document order; dropping one drops what it holds);
  NumPy .npy: indices along each axis in turn (`np.take`; at least one kept);
  NumPy .npz: whole arrays, then each array's axes as for .npy;
  CSV files together (`shared_columns`): the columns two or more headers name.

Units are contiguous runs of the file in order, so the search's halves drop
whole blocks of rows or lines first. NumPy is imported only for its files;
without it they are left alone.
"""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cut:
    """`count` units of a file (`unit` names them: "rows"); `render(kept)` the file with only those."""

    unit: str
    count: int
    render: Callable[[Sequence[int]], bytes | None]


Step = Callable[[bytes], "Cut | None"]

# Never cut: their bytes mean something only whole (or to code that may run on load).
_WHOLE = {
    ".zip": "an archive",
    ".tar": "an archive",
    ".gz": "an archive",
    ".tgz": "an archive",
    ".bz2": "an archive",
    ".xz": "an archive",
    ".7z": "an archive",
    ".zst": "an archive",
    ".pkl": "a pickle",
    ".pickle": "a pickle",
    ".joblib": "a pickle",
    ".dill": "a pickle",
    ".pt": "a checkpoint",
    ".pth": "a checkpoint",
    ".ckpt": "a checkpoint",
    ".safetensors": "a checkpoint",
    ".bin": "a checkpoint",
    ".h5": "a checkpoint",
    ".hdf5": "a checkpoint",
    ".onnx": "a checkpoint",
    ".parquet": "a columnar file",
    ".feather": "a columnar file",
    ".arrow": "a columnar file",
    ".png": "an image",
    ".jpg": "an image",
    ".jpeg": "an image",
    ".gif": "an image",
    ".bmp": "an image",
    ".so": "a library",
    ".pyd": "a library",
    ".dll": "a library",
}


def left_alone(name: str, data: bytes) -> str:
    """Why a file of this name and content is not cut ("" when it is)."""
    extension = os.path.splitext(name)[1].lower()
    if extension in _WHOLE:
        return f"{_WHOLE[extension]}, not cut"
    if steps_for(name, data) is None:
        return "a format not cut here"
    return ""


def steps_for(name: str, data: bytes) -> tuple[str, list[Step]] | None:
    """The format of the file `name` holding `data`, and its steps; None when it is left alone."""
    extension = os.path.splitext(name)[1].lower()
    if extension in _WHOLE:
        return None
    if extension == ".npy":
        return ("npy", _npy_steps(data)) if _load_npy(data) is not None else None
    if extension == ".npz":
        arrays = _load_npz(data)
        return ("npz", _npz_steps(arrays)) if arrays is not None else None
    text = _text(data)
    if text is None:
        return None
    if (
        extension in (".csv", ".tsv")
        and _csv_rows(text, "\t" if extension == ".tsv" else ",") is not None
    ):
        return "csv", [
            _csv_rows_step("\t" if extension == ".tsv" else ","),
            _csv_columns_step("\t" if extension == ".tsv" else ","),
        ]
    if extension == ".json":
        try:
            json.loads(text)
        except ValueError:
            pass
        else:
            return "json", [_json_step]
    return "text", [_lines_step, _characters_step]


def _text(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _keep(items: Sequence[Any], kept: Sequence[int]) -> list[Any]:
    return [items[i] for i in kept]


# --- text ---------------------------------------------------------------------------------


def _lines_step(data: bytes) -> Cut | None:
    lines = data.decode("utf-8").splitlines(keepends=True)
    return Cut(
        "lines", len(lines), lambda kept: "".join(_keep(lines, kept)).encode("utf-8")
    )


def _characters_step(data: bytes) -> Cut | None:
    text = data.decode("utf-8")
    return Cut(
        "characters", len(text), lambda kept: "".join(_keep(text, kept)).encode("utf-8")
    )


# --- CSV ----------------------------------------------------------------------------------


def _csv_rows(text: str, delimiter: str) -> list[list[str]] | None:
    """The records, when each is one line (no field spans lines) and there is a header; else None."""
    lines = text.splitlines()
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error:
        return None
    return rows if rows and len(rows) == len(lines) else None


def _csv_rows_step(delimiter: str) -> Step:
    def step(data: bytes) -> Cut | None:
        lines = data.decode("utf-8").splitlines(keepends=True)
        header, rows = lines[:1], lines[1:]
        return Cut(
            "rows",
            len(rows),
            lambda kept: "".join(header + _keep(rows, kept)).encode("utf-8"),
        )

    return step


def _csv_columns_step(delimiter: str) -> Step:
    def step(data: bytes) -> Cut | None:
        text = data.decode("utf-8")
        rows = _csv_rows(text, delimiter)
        if rows is None:
            return None
        ending = "\r\n" if "\r\n" in text else "\n"
        width = max(len(row) for row in rows)

        def render(kept: Sequence[int]) -> bytes | None:
            out = io.StringIO()
            writer = csv.writer(out, delimiter=delimiter, lineterminator=ending)
            for row in rows:
                writer.writerow([row[i] for i in kept if i < len(row)])
            return out.getvalue().encode("utf-8")

        return Cut("columns", width, render)

    return step


# --- JSON ---------------------------------------------------------------------------------


def _json_units(value: Any, path: tuple[Any, ...], into: list[tuple[Any, ...]]) -> None:
    """Every element's path (list index or object key from the top), in document order."""
    items = (
        enumerate(value)
        if isinstance(value, list)
        else value.items()
        if isinstance(value, dict)
        else ()
    )
    for key, inner in items:
        into.append((*path, key))
        _json_units(inner, (*path, key), into)


def _json_step(data: bytes) -> Cut | None:
    text = data.decode("utf-8")
    value = json.loads(text)
    units: list[tuple[Any, ...]] = []
    _json_units(value, (), units)
    indent = 2 if "\n" in text.strip() else None

    def render(kept: Sequence[int]) -> bytes | None:
        keep = {units[i] for i in kept}

        def rebuilt(node: Any, path: tuple[Any, ...]) -> Any:
            if isinstance(node, list):
                return [
                    rebuilt(v, (*path, i))
                    for i, v in enumerate(node)
                    if (*path, i) in keep
                ]
            if isinstance(node, dict):
                return {
                    k: rebuilt(v, (*path, k))
                    for k, v in node.items()
                    if (*path, k) in keep
                }
            return node

        return (
            json.dumps(rebuilt(value, ()), indent=indent)
            + ("\n" if text.endswith("\n") else "")
        ).encode("utf-8")

    return Cut("elements", len(units), render)


# --- NumPy --------------------------------------------------------------------------------


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _load_npy(data: bytes) -> Any:
    numpy = _numpy()
    if numpy is None:
        return None
    try:
        array = numpy.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError):
        return None
    return array if isinstance(array, numpy.ndarray) and array.dtype != object else None


def _save_npy(array: Any) -> bytes:
    out = io.BytesIO()
    _numpy().save(out, array, allow_pickle=False)
    return out.getvalue()


def _taken(array: Any, axis: int, kept: Sequence[int]) -> Any:
    return None if not kept else _numpy().take(array, list(kept), axis=axis)


def _npy_steps(data: bytes) -> list[Step]:
    array = _load_npy(data)
    return [_npy_axis_step(axis) for axis in range(array.ndim)]


def _npy_axis_step(axis: int) -> Step:
    def step(data: bytes) -> Cut | None:
        array = _load_npy(data)
        if array is None or array.ndim <= axis:
            return None

        def render(kept: Sequence[int]) -> bytes | None:
            taken = _taken(array, axis, kept)
            return None if taken is None else _save_npy(taken)

        return Cut(f"indices of axis {axis}", array.shape[axis], render)

    return step


def _load_npz(data: bytes) -> dict[str, Any] | None:
    numpy = _numpy()
    if numpy is None:
        return None
    try:
        with numpy.load(io.BytesIO(data), allow_pickle=False) as loaded:
            arrays = {name: loaded[name] for name in loaded.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, AttributeError):
        return None
    return arrays if all(a.dtype != object for a in arrays.values()) else None


def _save_npz(arrays: dict[str, Any], compressed: bool) -> bytes:
    out = io.BytesIO()
    numpy = _numpy()
    (numpy.savez_compressed if compressed else numpy.savez)(out, **arrays)
    return out.getvalue()


def _compressed(data: bytes) -> bool:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return any(
            info.compress_type != zipfile.ZIP_STORED for info in archive.infolist()
        )


def _npz_steps(arrays: dict[str, Any]) -> list[Step]:
    steps: list[Step] = [_npz_arrays_step]
    for name, array in arrays.items():
        steps.extend(_npz_axis_step(name, axis) for axis in range(array.ndim))
    return steps


def _npz_arrays_step(data: bytes) -> Cut | None:
    arrays = _load_npz(data)
    if arrays is None:
        return None
    names, compressed = list(arrays), _compressed(data)
    return Cut(
        "arrays",
        len(names),
        lambda kept: _save_npz({names[i]: arrays[names[i]] for i in kept}, compressed),
    )


def _npz_axis_step(name: str, axis: int) -> Step:
    def step(data: bytes) -> Cut | None:
        arrays = _load_npz(data)
        if arrays is None or name not in arrays or arrays[name].ndim <= axis:
            return None  # dropped by the arrays' step
        compressed = _compressed(data)

        def render(kept: Sequence[int]) -> bytes | None:
            taken = _taken(arrays[name], axis, kept)
            return (
                None
                if taken is None
                else _save_npz({**arrays, name: taken}, compressed)
            )

        return Cut(
            f"indices of axis {axis} of {name}", arrays[name].shape[axis], render
        )

    return step


# --- CSV files together ---------------------------------------------------------------------


def shared_columns(files: dict[str, bytes]) -> Cut | None:
    """The columns named alike in the headers of two or more of the CSV files among `files` (name ->
    bytes), cut together: a training set and a test set whose columns must match (scikit-learn
    checks the feature names) lose a column in both at once. `render(kept)` gives every CSV file
    at once, in one blob that `split_files` takes apart. None when no two files share a column."""
    tables: dict[str, tuple[list[list[str]], str, str]] = {}
    for name, data in files.items():
        extension = os.path.splitext(name)[1].lower()
        text = _text(data) if extension in (".csv", ".tsv") else None
        delimiter = "\t" if extension == ".tsv" else ","
        rows = _csv_rows(text, delimiter) if text is not None else None
        if rows:
            tables[name] = (rows, delimiter, "\r\n" if "\r\n" in (text or "") else "\n")
    counts: dict[str, int] = {}
    for rows, _, _ in tables.values():
        for column in dict.fromkeys(rows[0]):
            counts[column] = counts.get(column, 0) + 1
    order = list(dict.fromkeys(c for rows, _, _ in tables.values() for c in rows[0]))
    shared = [c for c in order if counts.get(c, 0) >= 2]
    if not shared:
        return None

    def render(kept: Sequence[int]) -> bytes | None:
        gone = set(shared) - {shared[i] for i in kept}
        parts = {}
        for name, (rows, delimiter, ending) in tables.items():
            keep = [i for i, column in enumerate(rows[0]) if column not in gone]
            out = io.StringIO()
            writer = csv.writer(out, delimiter=delimiter, lineterminator=ending)
            for row in rows:
                writer.writerow([row[i] for i in keep if i < len(row)])
            parts[name] = out.getvalue().encode("utf-8")
        return json.dumps({n: d.decode("utf-8") for n, d in parts.items()}).encode(
            "utf-8"
        )

    return Cut("shared columns", len(shared), render)


def split_files(joined: bytes) -> dict[str, bytes]:
    """The files of a `shared_columns` rendering, by name."""
    return {name: text.encode("utf-8") for name, text in json.loads(joined).items()}
