"""Execution backends: how a candidate program is run.

`subproc` starts a fresh interpreter per candidate; `runner` keeps a warm
fork server per job slot that has already imported the program's heavy modules
and forks a fresh child per candidate.
"""

from autodd_lsp.execution.base import FILE, SCRIPT, Backend, CancelEvent, Launch, RunResult


def create_backend(name: str, **kwargs) -> Backend:
    """Build the backend called `name` ("runner" or "subproc") with Backend's keyword arguments."""
    if name == "subproc":
        from autodd_lsp.execution.subproc import SubprocessBackend

        return SubprocessBackend(**kwargs)
    if name == "runner":
        from autodd_lsp.execution.forkserver import ForkServerBackend

        return ForkServerBackend(**kwargs)
    raise ValueError(f"unknown backend {name!r}")


__all__ = ["FILE", "SCRIPT", "Backend", "CancelEvent", "Launch", "RunResult", "create_backend"]
