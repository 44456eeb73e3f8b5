"""Writing results safely: a reader never sees a half-written file."""

from __future__ import annotations

import os
import tempfile
import tokenize


def read_python_source(path: str) -> str:
    """The text of a Python file, honouring its coding cookie; line breaks kept.

    Raises OSError if it cannot be read, UnicodeDecodeError/SyntaxError if its bytes
    do not match its declared encoding.
    """
    with open(path, "rb") as handle:
        encoding, _ = tokenize.detect_encoding(handle.readline)
    with open(path, encoding=encoding, newline="") as handle:
        return handle.read()


def beside_output_path(source: str) -> str:
    """Where a result goes by default: `folder/name.py` -> `folder/name.min.py`."""
    stem, _ = os.path.splitext(source)
    return stem + ".min.py"


def atomic_write(path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(prefix=".autodd-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        if os.path.exists(path):
            os.chmod(temp, os.stat(path).st_mode & 0o777)
        else:
            os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


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
        handle, probe = tempfile.mkstemp(prefix=".autodd-probe-", dir=folder)
    except OSError as error:
        return f"folder {folder} is not writable ({error.strerror})"
    os.close(handle)
    os.unlink(probe)
    return None
