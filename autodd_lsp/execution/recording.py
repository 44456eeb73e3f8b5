"""Running `record_main.py` over the original: a subprocess like `subproc`'s candidates.

The records are read back as `autodd_lsp.values.RecordedValues`.
"""

from __future__ import annotations

import os
import subprocess

from autodd_lsp.cancel import Cancel
from autodd_lsp.execution.backend import RunResult
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.execution.subproc import SubprocessBackend
from autodd_lsp.files import overwrite, source_bytes
from autodd_lsp.syntax.source import Source
from autodd_lsp.values.recorded import RecordedValues

RECORDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "record_main.py")


class _RecordingBackend(SubprocessBackend):
    """`python record_main.py PROGRAM OUT ARGS` instead of `python PROGRAM ARGS`, same environment, input and limits."""

    def __init__(self, out_path: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.out_path = out_path

    def _spawn(self, path: str, stdout_fd: int, stderr_fd: int, env: dict[str, str]) -> subprocess.Popen:
        return self._popen([self.python, RECORDER, path, self.out_path, *self.launch.args], stdout_fd, stderr_fd, env, path)


def record_values(
    text: str, path: str, out_path: str, launcher: Launcher, *, timeout: float, cancel: Cancel,
) -> tuple[RecordedValues | None, RunResult]:
    """Write `text` at `path`, run it recorded into `out_path` as `launcher` starts programs (its
    command aside: the recorder runs the file); the records (None if none came) and the run."""
    overwrite(path, source_bytes(text))
    backend = _RecordingBackend(out_path, **launcher.backend_args())
    try:
        result = backend.run(path, timeout, cancel)
    finally:
        backend.close()
    try:
        return RecordedValues.load(out_path, Source(text)), result
    except (OSError, ValueError, TypeError):
        return None, result
    finally:
        for leftover in (out_path, out_path + ".part"):
            try:
                os.remove(leftover)
            except OSError:
                pass
