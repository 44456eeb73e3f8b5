"""Runs INSIDE a probed program: says when it reads a file that an earlier run wrote.

Standalone (no autodd import, Python 3.9 syntax), like `operands_hook.py`: the probe
(`engine/rules/operand_probe.py`) runs this file's source in a namespace of its own, with
`PATHS` (a set of real paths) in it, on the line of the program's first module-level
statement. `PATHS` are files the user had beside the program that the original's own
run rewrites (`engine/rules/earlier_files.py`): `model.pt`, left by the user's last run of a
script that trains, saves and loads it. A candidate that opens one of them for reading
before it has opened it for writing reads what an earlier run left there, not what it
made itself; run alone, it would fail another way (`FileNotFoundError`).

An audit hook (`sys.addaudithook`; the "open" event of `open()`, `io.open` and
`os.open`, which torch.load, numpy.load, pickle and pathlib all end in) writes, the
first time that happens for a path, one marker line to stderr,
`<autodd-earlier:{"path": "..."}>`, which the engine takes out of the run again.
Nothing else changes: the hook never refuses an open. An audit hook cannot be removed,
which no program notices; it costs a set lookup per file opened. `sys._autodd_earlier_probe`
says it is installed (the probe's statement may run again, in a loop).
"""

import os
import sys

_paths = frozenset(globals()["PATHS"])  # given by the probe's namespace
_written = set()
_said = set()
_WRITES = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_busy = [False]


def _real(path):
    if isinstance(path, int):
        return None  # a file descriptor: opened earlier, by path
    try:
        return os.path.realpath(os.fsdecode(os.fspath(path)))
    except (TypeError, ValueError, OSError):
        return None


def _say(path):
    text = path.replace("\\", "\\\\").replace('"', '\\"')
    if any(ord(c) < 32 for c in text):
        return
    os.write(2, ('\n<autodd-earlier:{"path": "' + text + '"}>\n').encode("utf-8", "surrogateescape"))


def _hook(event, args):
    if event != "open" or _busy[0]:
        return
    _busy[0] = True
    try:
        path = _real(args[0])
        if path is None or path not in _paths:
            return
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
        if flags & _WRITES or any(c in mode for c in "wax+"):
            _written.add(path)
        elif path not in _written and path not in _said:
            _said.add(path)
            _say(path)
    finally:
        _busy[0] = False


sys.addaudithook(_hook)
sys.__dict__["_autodd_earlier_probe"] = 1  # installed: the probe's statement may sit in a loop, it runs once
