"""Execution backends: how a candidate program is run.

`subproc` starts a fresh interpreter per candidate; `runner` keeps a warm
fork server per job slot that has already imported the program's heavy modules
and forks a fresh child per candidate; `ray` runs candidates on a Ray cluster's
workers, each keeping a warm runner.
"""

from autodd_lsp.execution.backend import (
    FILE,
    SCRIPT,
    Backend,
    CancelEvent,
    Launch,
    RunResult,
)


def create_backend(name: str, **kwargs) -> Backend:
    """Build the backend called `name` ("runner", "subproc" or "ray") with Backend's keyword arguments
    (`ray` also takes `address`; it imports Ray, which only it needs)."""
    if name == "subproc":
        from autodd_lsp.execution.subproc import SubprocessBackend

        return SubprocessBackend(**kwargs)
    if name == "runner":
        from autodd_lsp.execution.runner.client import ForkServerBackend

        return ForkServerBackend(**kwargs)
    if name == "ray":
        from autodd_lsp.execution.ray_backend import RayBackend

        return RayBackend(**kwargs)
    raise ValueError(f"unknown backend {name!r}")


__all__ = ["FILE", "SCRIPT", "Backend", "CancelEvent", "Launch", "RunResult", "create_backend"]
