"""`subproc`: a fresh `python path` per candidate.

Slow (every candidate pays the interpreter start and its imports) but exactly
what the user would run; the runner falls back to it where fork is unavailable.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from types import CodeType

from autodd_lsp.cancel import Cancel
from autodd_lsp.execution.backend import IN_ITS_FOLDER, Backend, RunResult
from autodd_lsp.execution.capture import (
    REAP_TIMEOUT,
    Exit,
    RunningGroups,
    cancelled_result,
    candidate_env,
    kill_group,
    make_pipe,
)
from autodd_lsp.execution.gpus import gpu_for_run, pinned_env
from autodd_lsp.execution.runner.wire import open_pidfd


class SubprocessBackend(Backend):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._env = candidate_env(self.extra_sys_path, extra=self.extra_env)
        self._running = RunningGroups()

    def run(
        self,
        path: str,
        timeout: float,
        cancel: Cancel | None = None,
        code: Sequence[CodeType] | None = None,
        learn_imports: bool = False,
    ) -> RunResult:
        # `code` and `learn_imports` are of no use to a fresh interpreter: it does what `python` does.
        if self._running.stop_check(cancel)():
            return cancelled_result()
        with gpu_for_run(self.gpus, self._running.stop_check(cancel)) as gpu:
            if gpu is None:
                return cancelled_result()
            return self.run_pinned(path, timeout, cancel, gpu)

    def run_pinned(self, path: str, timeout: float, cancel, gpu: str) -> RunResult:
        """`run` with `gpu` already leased by the caller ("": none): the runner's fallback."""
        path = os.path.abspath(path)
        env = pinned_env(self._env, gpu)
        stdout_r, stdout_w = make_pipe()
        stderr_r, stderr_w = make_pipe()
        try:
            started = time.monotonic()
            proc = self._spawn(path, stdout_w, stderr_w, env)
        except BaseException:
            os.close(stdout_r)
            os.close(stderr_r)
            raise
        finally:
            os.close(stdout_w)
            os.close(stderr_w)
        return self._watch(proc, started, stdout_r, stderr_r, timeout, cancel)

    def _spawn(self, path: str, stdout_fd: int, stderr_fd: int, env: dict[str, str]) -> subprocess.Popen:
        return self._popen(self.launch.command(self.python, path), stdout_fd, stderr_fd,
                           self.launch.env(self.python, path, env), path)

    def _popen(self, command: list[str], stdout_fd: int, stderr_fd: int, env: dict[str, str],
               path: str) -> subprocess.Popen:
        """Start `command` (a run of the file `path`) as every run of the program starts: its
        folder, its input, its own group."""
        stdin = self.launch.open_stdin()
        try:
            return subprocess.Popen(
                command,
                cwd=self.launch.folder(path) or (self.cwd if self.cwd != IN_ITS_FOLDER else os.path.dirname(path)),
                env=env,
                stdin=stdin,
                stdout=stdout_fd,
                stderr=stderr_fd,
                start_new_session=True,  # its own process group: a kill reaches its children too
            )
        finally:
            os.close(stdin)

    def _watch(self, proc, started, stdout_r, stderr_r, timeout, cancel) -> RunResult:
        self._running.add(proc.pid)
        watch = PopenWatch(proc)
        collected = self._running.collect(proc.pid, stdout_r, stderr_r, watch, limit=self.output_limit,
                                          deadline=started + timeout, should_stop=self._running.stop_check(cancel),
                                          cancel=cancel)
        return collected.result((watch.ended or time.monotonic()) - started)

    def close(self) -> None:
        self._running.close()


class PopenWatch:
    """Exit watch for a child of this process: a pidfd wakes the drain loop on exit."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.ended: float | None = None
        self.pidfd = open_pidfd(proc.pid)

    def fileno(self) -> int | None:
        return self.pidfd

    def check(self, readable: bool) -> Exit | None:
        if not _has_exited(self.proc):
            return None
        self.ended = time.monotonic()
        # The unreaped leader still reserves its group id: sweep stray children safely.
        kill_group(self.proc.pid)
        return Exit(self.proc.wait())

    def kill(self) -> None:
        kill_group(self.proc.pid)

    def finish(self) -> None:
        """Make sure the candidate is gone and reaped; release the pidfd."""
        if self.proc.returncode is None:
            kill_group(self.proc.pid)
            try:
                self.proc.wait(REAP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def _has_exited(proc: subprocess.Popen) -> bool:
    """Whether `proc` ended, without reaping it where the OS allows (so its pid stays reserved)."""
    if hasattr(os, "waitid"):
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True  # already reaped
        return info is not None
    return proc.poll() is not None
