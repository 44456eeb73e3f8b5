"""Runs INSIDE a probed program: writes down the data files it opens for reading.

Standalone (no autodd import, Python 3.9 syntax), like `earlier_files_hook.py`: the
probe (`engine/lifecycle/data_files.py`) runs this file's source in a namespace of its
own, with `ROOTS` (real folders: the program's, its working folder) and `OUT` (a file
path) in it, on the line of the program's first module-level statement.

An audit hook (the "open" event of `open()`, `io.open` and `os.open`, which
numpy.load, pandas.read_csv, torch.load and pathlib all end in) appends, the first
time a path is opened for reading, its real path as one line to `OUT`, when it is a
regular file under one of `ROOTS` and not Python source or bytecode (the program's
own modules are not its data) and not a file the run itself opened for writing
first. It writes at once (a program that crashes still leaves its list). Nothing
else changes: the hook never refuses an open.

Each line is the path, a tab, and where the program opened it: the innermost frame of
the program's own file (the file whose module-level code ran this hook) and the span
of the call it was running, "LINE END_LINE COL END_COL" (UTF-8 columns, as `ast` has
them), or "LINE" where the interpreter gives no columns, or nothing when no frame of
the program's file is on the stack. A path opened from two places has two lines
(`datafiles/written_in.py` writes a file into the program where it was opened).
"""

import os
import sys

_roots = tuple(
    os.path.join(root, "") for root in globals()["ROOTS"]
)  # given by the probe's namespace
_out = globals()["OUT"]
_program = sys._getframe(1).f_code.co_filename  # the probe runs this from the program's module code
_data = {}  # real path -> whether it is a data file (decided at its first open)
_sites = set()  # (path, site) lines written
_WRITES = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_busy = [False]


def _real(path):
    if isinstance(path, int):
        return None
    try:
        return os.path.realpath(os.fsdecode(os.fspath(path)))
    except (TypeError, ValueError, OSError):
        return None


def _is_data(path, args):
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    if flags & _WRITES or any(c in mode for c in "wax+"):
        return False  # written first: the run's own file
    return not (
        path.endswith((".py", ".pyc"))
        or "__pycache__" in path
        or not os.path.isfile(path)
    )


def _site():
    """Where the program's own code opened the file: "LINE END_LINE COL END_COL", "LINE" or ""."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename != _program:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return ""
    try:
        where = list(frame.f_code.co_positions())[frame.f_lasti // 2]  # type: ignore[attr-defined]
    except (AttributeError, IndexError):  # before Python 3.11: no columns
        where = None
    if where and None not in where:
        return " ".join(str(number) for number in where)
    return str(frame.f_lineno)


def _hook(event, args):
    if event != "open" or _busy[0]:
        return
    _busy[0] = True
    try:
        path = _real(args[0])
        if path is None or not path.startswith(_roots):
            return
        if path not in _data:
            _data[path] = _is_data(path, args)
        if not _data[path]:
            return
        line = path + "\t" + _site()
        if line in _sites:
            return
        _sites.add(line)
        fd = os.open(_out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    finally:
        _busy[0] = False


sys.addaudithook(_hook)
sys.__dict__["_autodd_reads_probe"] = 1
