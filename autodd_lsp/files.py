"""Reading sources and writing files: results safely (a reader never sees a half-written one), scratch files fast."""

from __future__ import annotations

import io
import os
import re
import shutil
import tempfile
import tokenize
from collections.abc import Iterable


def read_python_source(path: str) -> str:
    """The text of a Python file, honouring its coding cookie; line breaks kept.

    Raises OSError if it cannot be read, UnicodeDecodeError/SyntaxError if its bytes
    do not match its declared encoding.
    """
    with open(path, "rb") as handle:
        encoding, _ = tokenize.detect_encoding(handle.readline)
    with open(path, encoding=encoding, newline="") as handle:
        return handle.read()


def source_encoding(text: str) -> str:
    """The encoding Python will read `text` in once written: its coding cookie's, else UTF-8."""
    first = text.find("\n")
    second = text.find("\n", first + 1) if first >= 0 else -1
    head = text if second < 0 else text[: second + 1]  # a cookie sits on line 1 or 2 (PEP 263)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(head.encode("utf-8", "surrogatepass")).readline)
    except SyntaxError:
        return "utf-8"  # an unknown encoding: Python refuses the file anyway
    return "utf-8" if encoding.startswith("utf-8") else encoding


def source_bytes(text: str) -> bytes:
    """`text` as the bytes of a Python file: in the encoding its coding cookie declares."""
    encoding = source_encoding(text)
    if encoding != "utf-8":
        try:
            return text.encode(encoding)
        except UnicodeEncodeError:
            pass  # only a candidate's own edit can bring such a character; it then runs as UTF-8
    return text.encode("utf-8", "surrogatepass")


def beside_output_path(source: str) -> str:
    """Where a result goes by default: `folder/name.py` -> `folder/name.min.py`."""
    stem, _ = os.path.splitext(source)
    return stem + ".min.py"


_RESULTS_WRITTEN: set[str] = set()  # real paths of the results this process wrote (see `written_result`)


def written_result(path: str) -> bool:
    """Whether this process wrote `path` as a result (`atomic_write`): never a run's file to clean away
    (engine/candidate/clean_runs.py)."""
    return os.path.realpath(path) in _RESULTS_WRITTEN


def data_folder(output: str) -> str:
    """Where the data files a result reads go: `out/x.min.py` -> `out/x.min.data` (notes/data.md)."""
    stem, _ = os.path.splitext(output)
    return stem + ".data"


def write_data_folder(output: str, text: str, files: Iterable[tuple[str, bytes]]) -> str:
    """The data files a result reads (name relative to the program's folder, bytes) written into
    OUTPUT's data folder, laid out like the source's, with the result `text` beside them under
    OUTPUT's name, so it runs from there (notes/data.md); the folder. OSError if it cannot be."""
    folder = data_folder(output)
    for name, data in files:
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write_bytes(path, data)
    atomic_write(os.path.join(folder, os.path.basename(output)), text)
    return folder


def atomic_write(path: str, text: str) -> None:
    """Write the Python source `text` (see `source_bytes`) to `path` through a temporary file and a rename."""
    atomic_write_bytes(path, source_bytes(text))


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write `data` to `path` through a temporary file and a rename (a result: `written_result`)."""
    folder = os.path.dirname(os.path.abspath(path))
    _RESULTS_WRITTEN.add(os.path.realpath(path))
    handle, temp = tempfile.mkstemp(prefix=".autodd-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        if os.path.exists(path):
            os.chmod(temp, os.stat(path).st_mode & 0o777)
        else:
            os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def overwrite(path: str, data: bytes) -> None:
    """Replace the contents of a scratch file (candidates, thousands of times a run).

    Written over in place, then cut to length: truncating to zero first, as
    open(path, "w") does, makes ext4 push the data to disk at close (its guard
    for files replaced by truncation), which costs ~20x more.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def writable_problem(path: str) -> str | None:
    """Why `path` cannot be written, or None if it can (checked without touching it)."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        return f"{path} is a directory"
    if not os.path.isdir(folder):
        return f"folder {folder} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is not writable"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return f"{path} is not writable"
    try:  # the real test: permissions, read-only file systems, quotas
        handle, trial = tempfile.mkstemp(prefix=".autodd-writable-", dir=folder)
    except OSError as error:
        return f"folder {folder} is not writable ({error.strerror})"
    os.close(handle)
    os.unlink(trial)
    return None


# -- private scratch folders ---------------------------------------------------------
# Named after the process that owns them, so that one left by a killed run (SIGKILL)
# is recognised and removed by the next run: nothing stays in the temporary folder.

_OWNED = re.compile(r"^autodd-(\d+)-")


def private_tempdir(kind: str) -> str:
    """A new private folder in the temporary folder, owned by this process."""
    return tempfile.mkdtemp(prefix=f"autodd-{os.getpid()}-{kind}-")


def sweep_stale_tempdirs() -> None:
    """Remove the private folders of processes that are gone."""
    sweep_stale(tempfile.gettempdir(), _OWNED, lambda path: shutil.rmtree(path, ignore_errors=True))


def sweep_stale(folder: str, owned: re.Pattern[str], remove) -> None:
    """`remove` each entry of `folder` whose name `owned` matches with a pid (group 1) that is gone."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        match = owned.match(name)
        if match is not None and not process_alive(int(match.group(1))):
            try:
                remove(os.path.join(folder, name))
            except OSError:
                pass


def process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
