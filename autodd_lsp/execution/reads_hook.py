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
"""

import os
import sys

_roots = tuple(
    os.path.join(root, "") for root in globals()["ROOTS"]
)  # given by the probe's namespace
_out = globals()["OUT"]
_seen = set()
_WRITES = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_busy = [False]


def _real(path):
    if isinstance(path, int):
        return None
    try:
        return os.path.realpath(os.fsdecode(os.fspath(path)))
    except (TypeError, ValueError, OSError):
        return None


def _hook(event, args):
    if event != "open" or _busy[0]:
        return
    _busy[0] = True
    try:
        path = _real(args[0])
        if path is None or path in _seen or not path.startswith(_roots):
            return
        _seen.add(path)
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
        if flags & _WRITES or any(c in mode for c in "wax+"):
            return  # written first: the run's own file
        if (
            path.endswith((".py", ".pyc"))
            or "__pycache__" in path
            or not os.path.isfile(path)
        ):
            return
        fd = os.open(_out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (path + "\n").encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    finally:
        _busy[0] = False


sys.addaudithook(_hook)
sys.__dict__["_autodd_reads_probe"] = 1
