"""One description of how a run's programs are started, built once and handed to every backend.

A reduction starts the program in several ways: its candidates on the chosen
backend, a fresh interpreter for the final check and for a person's text
(`subproc`), the recording run of the original's values, and the one-off run
that shows the program's output (the trial run, `engine/asking/trial.py`). Each of them must run it as
the user would, in the same way: the same interpreter, working folder, extra
`sys.path` entries (the original's folder, so sibling imports work), extra
environment (a kind of failure's, a test's), output limit and GPU pool, and the
same command (`Launch`: a script, or a test under pytest). `Launcher` holds
those once (frozen), and is the only place that turns them into a backend's
arguments; a caller changes only what differs on purpose (the command, the
folder), through `replace`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autodd_lsp.execution.backend import SCRIPT, Backend, Launch
from autodd_lsp.execution.gpus import GpuPool


@dataclass(frozen=True)
class Launcher:
    """How and where every program of a run starts: `python` in `cwd`, with `extra_sys_path`
    after the program's folder, `extra_env` set, one GPU of `gpus` pinned, output bounded to
    `output_limit` bytes a stream, started by `launch`."""

    python: str
    cwd: str
    extra_sys_path: tuple[str, ...] = ()
    extra_env: Mapping[str, str] = field(default_factory=dict)
    output_limit: int = 8 * 1024 * 1024
    gpus: GpuPool | None = None
    launch: Launch = SCRIPT

    def backend_args(self) -> dict[str, Any]:
        """The keyword arguments every backend takes for these settings."""
        return {
            "python": self.python,
            "cwd": self.cwd,
            "extra_sys_path": list(self.extra_sys_path),
            "output_limit": self.output_limit,
            "extra_env": dict(self.extra_env),
            "launch": self.launch,
            "gpus": self.gpus,
        }

    def backend(self, name: str, *, jobs: int = 1, preload: Sequence[str] = (), **specific: Any) -> Backend:
        """The backend `name` (see `create_backend`) running `jobs` at once with these settings;
        `specific` holds what only that backend takes (`ray`: `address`)."""
        from autodd_lsp.execution import create_backend

        return create_backend(name, jobs=jobs, preload=list(preload), **self.backend_args(), **specific)
