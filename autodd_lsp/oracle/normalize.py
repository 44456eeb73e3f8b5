"""What may differ between two runs of one failure and is not the failure: masked.

A failure line is compared after masking memory addresses, the program's own
path and folder (candidates run as another file than the original), other
temporary paths, and line numbers (a smaller program has its lines elsewhere),
and what a RecursionError says it was doing when the limit tripped (`in
comparison`, `while calling a Python object`): that depends on how deep the
stack already was when the program began, which differs between the warm runner
and `python file.py`. Nothing else is masked: numbers in the message (`K_A =
32`), names, shapes and dtypes are the bug.
"""

from __future__ import annotations

import os
import re
import tempfile

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_LINE_NUMBER = re.compile(r"\b(line) \d+|(\.pyw?|<program>):\d+")
_RECURSION = re.compile(r"^(RecursionError: maximum recursion depth exceeded)\b.*$")
_TEMP_ROOTS = tuple(sorted({"/tmp", "/var/tmp", tempfile.gettempdir()}, key=len, reverse=True))


def _temp_path_pattern() -> re.Pattern[str]:
    roots = "|".join(re.escape(root) for root in _TEMP_ROOTS)
    return re.compile(rf"(?:{roots})/[^\s'\"<>:,()\[\]]*")


_TEMP_PATH = _temp_path_pattern()


def normalize_line(line: str, program_paths: tuple[str, ...] = ()) -> str:
    """`line` with run-to-run and file-to-file details masked (see the module docstring)."""
    text = line.strip()
    for path in sorted(program_paths, key=len, reverse=True):
        if path:
            text = text.replace(path, "<program>")
            folder = os.path.dirname(path)
            if folder and folder != "/":
                text = text.replace(folder + os.sep, "<folder>/")
    text = _TEMP_PATH.sub("<tmp>", text)
    text = _ADDRESS.sub("0x?", text)
    text = _RECURSION.sub(r"\1", text)
    return _LINE_NUMBER.sub(lambda m: f"{m[1]} ?" if m[1] else f"{m[2]}:?", text)
