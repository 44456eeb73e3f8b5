"""`runner`: one warm fork server per job slot; each candidate runs in a fresh fork.

The servers (server_main.py, run by the candidates' interpreter) import the
program's heavy modules once; per candidate, the server forks a child that
becomes `python path`. The client here owns the candidate's stdout/stderr pipes
(their write ends travel to the server over the socket), so capture, timeouts,
cancelling and truncation are the shared ones of capture.py.

`ForkServerBackend` is the run path (a free slot, a GPU lease, the request, the
collection of the output); its other roles live beside it: the servers and their
warm-up in warm_servers.py, the files that travel with a request in
scratch.py, import learning in learning.py, the subproc fallback and its
notice in fallback.py.
"""

from __future__ import annotations

import os
import queue
import socket
import time
from collections.abc import Sequence
from types import CodeType

import autodd_lsp.execution.stages as stages
from autodd_lsp.cancel import Cancel
from autodd_lsp.execution.backend import Backend, Launch, RunResult
from autodd_lsp.execution.capture import (
    STOP_TICK,
    RunningGroups,
    cancelled_result,
    candidate_env,
    make_pipe,
)
from autodd_lsp.execution.gpus import gpu_for_run
from autodd_lsp.execution.runner.fallback import notice as fallback_notice
from autodd_lsp.execution.runner.fallback import subproc_like
from autodd_lsp.execution.runner.learning import imports_worth_preloading
from autodd_lsp.execution.runner.scratch import Scratch
from autodd_lsp.execution.runner.warm_servers import (
    CannotFork,
    Server,
    ServerDied,
    ServerWatch,
    Stopped,
    WarmServers,
)
from autodd_lsp.execution.subproc import SubprocessBackend

FORK_TIMEOUT = 30.0  # a server that does not report its fork by then is wedged
CLOSE_GRACE = 0.5  # how long close() lets servers exit by themselves before SIGKILL


def fork_supported() -> bool:
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


class ForkServerBackend(Backend):
    def __init__(self, *args, warmup_timeout: float = 600.0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fallback: SubprocessBackend | None = None  # set when forking is impossible
        self.learned: list[str] = []  # the modules adopted from `learn_imports` runs, in order
        self.fallback_reason = ""
        self._running = RunningGroups()
        self._warm = WarmServers(
            self.python,
            self.cwd,
            candidate_env(self.extra_sys_path, extra=self.extra_env),
            self.jobs,
            self.preload,
            warmup_timeout,
            is_closed=lambda: self._running.closed,
        )
        self._scratch = Scratch(is_closed=lambda: self._running.closed)
        self._free_slots: queue.SimpleQueue[int] = queue.SimpleQueue()
        for slot in range(self.jobs):
            self._free_slots.put(slot)
        if not fork_supported():
            self._fall_back("this platform cannot fork")

    @property
    def launch(self) -> Launch:
        return self._launch

    @launch.setter
    def launch(self, launch: Launch) -> None:
        self._launch = launch
        fallback = getattr(self, "fallback", None)  # None also while __init__ sets `launch`
        if fallback is not None:
            fallback.launch = launch

    @property
    def preloaded(self) -> list[str]:
        """What the servers really imported."""
        return self._warm.preloaded

    @property
    def skipped(self) -> dict[str, str]:
        """Preload name -> why it was not preloaded."""
        return self._warm.skipped

    # ------------------------------------------------------------ warm-up and fallback

    def start(self) -> None:
        """Start every slot's server in parallel and wait until all have imported `preload`."""
        try:
            self._start(lambda: self._running.closed)
        except Stopped:
            pass

    def _start(self, should_stop) -> None:
        if self.fallback is None:
            self._warming(self._warm.start, should_stop)

    def _ready_server(self, slot: int, should_stop) -> Server:
        return self._warming(self._warm.ready_server, slot, should_stop)

    def _warming(self, warm_up, *args):
        """Call a warm-up of `self._warm`; where no server can start, fall back (and raise Stopped)."""
        try:
            return warm_up(*args)
        except CannotFork as cannot:
            if self.fallback is None:
                self._fall_back(str(cannot))
            raise Stopped from None

    def _fall_back(self, reason: str) -> None:
        self.fallback_reason = reason
        self.fallback = subproc_like(self)
        if self._running.closed:
            self.fallback.close()

    def degraded(self) -> str:
        return "" if self.fallback is None else fallback_notice(self.fallback_reason)

    def _fallback_once(self) -> SubprocessBackend:
        if self.fallback is None:
            self._fall_back("the fork servers keep dying")
        assert self.fallback is not None
        return self.fallback

    # ------------------------------------------------------------ running

    def run(
        self,
        path: str,
        timeout: float,
        cancel: Cancel | None = None,
        code: Sequence[CodeType] | None = None,
        learn_imports: bool = False,
    ) -> RunResult:
        should_stop = self._running.stop_check(cancel)
        if should_stop():
            return cancelled_result()
        try:
            self._start(should_stop)  # lazily; a warm-up cut short resumes on the next call
        except Stopped:
            pass
        if self.fallback is not None:
            return self.fallback.run(path, timeout, cancel)
        if should_stop():
            return cancelled_result()
        path = os.path.abspath(path)
        slot = self._free_slot(should_stop)
        if slot is None:
            return cancelled_result()
        stages.mark(cancel, "slot")
        stages.note(cancel, slot=slot)
        imports_file = self._scratch.path(f"imports{slot}") if learn_imports else ""
        try:
            with gpu_for_run(self.gpus, should_stop) as gpu:
                if gpu is None:
                    return cancelled_result()
                # A module started with `-m` compiles the file itself (pytest rewrites its asserts).
                code_file = "" if self.launch.module else self._scratch.code_file(path, code)
                files = {"code": code_file, "imports": imports_file, "gpu": gpu}
                result = self._run_in_slot(slot, path, files, timeout, cancel, should_stop)
        finally:
            self._free_slots.put(slot)
        if imports_file:
            self._adopt_imports(imports_file)
        return result

    def stage(self, path: str, code: Sequence[CodeType] | None) -> None:
        """Write `code`'s marshal file now (~0.2 ms), not once the run may start."""
        self._scratch.stage(os.path.abspath(path), code)

    def _adopt_imports(self, imports_file: str) -> None:
        """Preload, from now on, the modules the program imported while it ran (if many: learning)."""
        self.adopt(imports_worth_preloading(imports_file, set(self._warm.names) | set(self._warm.skipped)))

    def adopt(self, names: Sequence[str]) -> None:
        """Preload `names` too from now on (those not preloaded or skipped yet): the servers restart
        with them. What another runner learned (a Ray worker's, `ray_backend.py`) is given this way."""
        new = [name for name in names if name not in self._warm.names and name not in self._warm.skipped]
        if new and self.fallback is None:
            self.learned_imports += len(new)
            self.learned += new
            self._warm.restart_with(new)

    def _free_slot(self, should_stop) -> int | None:
        """A slot nobody runs in (more callers than `jobs` wait here), or None if stopped."""
        while True:
            try:
                return self._free_slots.get(timeout=STOP_TICK)
            except queue.Empty:
                if should_stop():
                    return None

    def _run_in_slot(self, slot: int, path: str, files: dict, timeout: float, cancel, should_stop) -> RunResult:
        for _attempt in range(2):  # a server that died before forking gets one replacement
            try:
                server = self._ready_server(slot, should_stop)
                stages.mark(cancel, "ready")
                return self._run_on(server, path, files, timeout, should_stop, cancel)
            except ServerDied:
                self._warm.discard(slot)
            except Stopped:
                if self.fallback is not None and not should_stop():
                    return self.fallback.run_pinned(path, timeout, cancel, files["gpu"])
                return cancelled_result()
        return self._fallback_once().run_pinned(path, timeout, cancel, files["gpu"])

    def _run_on(self, server: Server, path: str, files: dict, timeout: float, should_stop, cancel=None) -> RunResult:
        stdout_r, stdout_w = make_pipe()
        stderr_r, stderr_w = make_pipe()
        try:
            pid = self._fork(server, path, files, stdout_w, stderr_w)
        except BaseException:
            os.close(stdout_r)
            os.close(stderr_r)
            raise
        started = time.monotonic()  # the candidate's clock starts at its fork, never earlier
        stages.mark(cancel, "forked")
        self._running.add(pid)
        watch = ServerWatch(server, pid)
        collected = self._running.collect(pid, stdout_r, stderr_r, watch, limit=self.output_limit,
                                          deadline=started + timeout, should_stop=should_stop, cancel=cancel)
        stages.mark(cancel, "ended")
        duration = watch.exit.duration if watch.exit and watch.exit.duration is not None else None
        return collected.result(time.monotonic() - started if duration is None else duration)

    def _fork(self, server: Server, path: str, files: dict, stdout_w: int, stderr_w: int) -> int:
        """Hand the request (with `files`: code, imports) to the server; return the candidate's pid."""
        try:
            folder = os.path.dirname(os.path.realpath(path))
            launch = self.launch
            request = {"path": path, "cwd": self.cwd, "folder": folder, **files, "stdin": launch.stdin,
                       "module": launch.module, "args": launch.module_args(path)}
            server.channel.send(request, fds=[stdout_w, stderr_w])
        except OSError:
            raise ServerDied from None
        finally:
            os.close(stdout_w)
            os.close(stderr_w)
        # Not interruptible by `cancel`: the fork is a few ms, and only a known pid can be killed.
        try:
            message = server.receive(time.monotonic() + FORK_TIMEOUT)
        except TimeoutError:
            server.broken = True
            raise ServerDied from None
        if "pid" not in message:
            server.broken = True
            raise ServerDied
        return message["pid"]

    # ------------------------------------------------------------ closing

    def close(self) -> None:
        """Kill candidates, hang up on the servers, SIGKILL those that linger. Any thread."""
        self._running.close()
        servers = self._warm.all()
        for server in servers:
            server.hang_up()
        deadline = time.monotonic() + CLOSE_GRACE
        for server in servers:
            server.terminate(grace=max(0.0, deadline - time.monotonic()))
        if self.fallback is not None:
            self.fallback.close()
        self._scratch.remove()
