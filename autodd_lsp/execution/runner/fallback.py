"""The runner's fallback: `subproc` with the runner's own settings, and the one-line notice.

Where no fork server can run (no fork on this platform, an interpreter that cannot
start the server, servers that keep dying), the runner runs its candidates with a
SubprocessBackend instead; `notice` puts the reason in the sentence the engine
sends once as a `Notice` event.
"""

from __future__ import annotations

from autodd_lsp.execution.backend import Backend
from autodd_lsp.execution.subproc import SubprocessBackend

NOTICE_REASON_LIMIT = 200


def subproc_like(backend: Backend) -> SubprocessBackend:
    """A SubprocessBackend that runs candidates as `backend` would (same python, cwd, env, launch, GPUs)."""
    return SubprocessBackend(
        backend.python,
        backend.cwd,
        jobs=backend.jobs,
        extra_sys_path=backend.extra_sys_path,
        output_limit=backend.output_limit,
        extra_env=backend.extra_env,
        launch=backend.launch,
        gpus=backend.gpus,
    )


def notice(reason: str) -> str:
    """The one-line notice for a runner that fell back for `reason`."""
    reason = " ".join(reason.split())  # one line, even with a traceback in it
    if len(reason) > NOTICE_REASON_LIMIT:
        reason = reason[: NOTICE_REASON_LIMIT - 3] + "..."
    return f"the runner backend is unavailable ({reason}); candidates run with subproc, a fresh interpreter each, which is slower"
