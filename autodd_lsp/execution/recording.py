"""Running `record_main.py` over the original: a subprocess like `subproc`'s candidates.

The records are read back as `autodd_lsp.values.RecordedValues`.
"""

from __future__ import annotations

import os
import subprocess

from autodd_lsp.cancel import Cancel
from autodd_lsp.execution.backend import RunResult
from autodd_lsp.execution.gpus import GpuPool
from autodd_lsp.execution.subproc import SubprocessBackend
from autodd_lsp.files import overwrite, source_bytes
from autodd_lsp.syntax.source import Source
from autodd_lsp.values.recorded import RecordedValues

RECORDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "record_main.py")


class _RecordingBackend(SubprocessBackend):
    """`python record_main.py PROGRAM OUT` instead of `python PROGRAM`, same environment and limits."""

    def __init__(self, out_path: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.out_path = out_path

    def _spawn(self, path: str, stdout_fd: int, stderr_fd: int, env: dict[str, str]) -> subprocess.Popen:
        return subprocess.Popen(
            [self.python, RECORDER, path, self.out_path],
            cwd=self.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout_fd,
            stderr=stderr_fd,
            start_new_session=True,
        )


def record_values(
    text: str, path: str, out_path: str, *, python: str, cwd: str, extra_sys_path: list[str], timeout: float,
    cancel: Cancel, output_limit: int, gpus: GpuPool | None = None,
) -> tuple[RecordedValues | None, RunResult]:
    """Write `text` at `path`, run it recorded into `out_path`; the records (None if none came) and the run."""
    overwrite(path, source_bytes(text))
    backend = _RecordingBackend(out_path, python=python, cwd=cwd, extra_sys_path=extra_sys_path,
                                output_limit=output_limit, gpus=gpus)
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
