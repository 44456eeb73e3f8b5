"""The runner's scratch files: the compiled code and the import lists that travel with a request.

One private folder per backend (made on first use, removed by `remove`), in the
temporary folder (`files.private_tempdir`: a dead run's folder is removed by the
next run). A candidate's code is one marshal file per candidate path, rewritten per
run, which the child loads instead of compiling; `stage` writes it ahead, while the
previous candidate still runs.
"""

from __future__ import annotations

import marshal
import os
import shutil
import threading
from collections.abc import Callable, Sequence
from types import CodeType

from autodd_lsp.execution.runner.wire import code_header
from autodd_lsp.files import overwrite, private_tempdir

CODE_HEADER = code_header()  # this Python's: a server run by another one compiles for itself


class Scratch:
    """The scratch folder of one runner; `is_closed`: once true, no file is made any more. Any thread."""

    def __init__(self, is_closed: Callable[[], bool]) -> None:
        self.is_closed = is_closed
        self._dir: str | None = None
        self._lock = threading.Lock()
        self._code_files: dict[str, str] = {}  # candidate path -> its code file's name
        self._staged: dict[str, tuple[Sequence[CodeType], str]] = {}  # path -> (code, its file)

    def path(self, name: str) -> str:
        """A path in the scratch folder (made on first use); "" once closed."""
        with self._lock:
            if self.is_closed():
                return ""
            if self._dir is None:
                self._dir = private_tempdir("runner")
            return os.path.join(self._dir, name)

    def stage(self, path: str, code: Sequence[CodeType] | None) -> None:
        """Write `code`'s marshal file now (~0.2 ms), not once the run may start."""
        if code is not None:
            self._staged[path] = (code, self._write_code(path, code))

    def code_file(self, path: str, code: Sequence[CodeType] | None) -> str:
        """The marshal file of `code` for this run: the staged one if it holds `code`."""
        staged_code, staged_file = self._staged.pop(path, (None, ""))  # used once at most
        if code is None:
            return ""
        if staged_code is code:
            return staged_file
        return self._write_code(path, code)

    def _write_code(self, path: str, code: Sequence[CodeType]) -> str:
        """The marshal file holding `code` for candidate `path` ("" if it cannot be written):
        the child loads it instead of compiling.

        Loading is ~5x cheaper than compiling in a fresh fork, where every page the
        compiler writes is a copy-on-write fault. The header makes a child whose
        Python differs (magic number, -O level) compile for itself. One file per
        candidate path: a path is run by one caller at a time.
        """
        with self._lock:
            name = self._code_files.setdefault(path, f"code{len(self._code_files)}")
        code_file = self.path(name)
        if not code_file:
            return ""
        try:
            overwrite(code_file, CODE_HEADER + marshal.dumps(tuple(code)))
        except (OSError, ValueError):
            return ""  # closed meanwhile, or unmarshallable: the child compiles
        return code_file

    def remove(self) -> None:
        """Remove the folder (call once `is_closed` is true)."""
        with self._lock:
            if self._dir is not None:
                shutil.rmtree(self._dir, ignore_errors=True)
