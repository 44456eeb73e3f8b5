"""`runner`: one warm fork server per job slot; each candidate runs in a fresh fork.

The servers (forkserver_main.py, run by the candidates' interpreter) import the
program's heavy modules once; per candidate, the server forks a child that
becomes `python path`. The client here owns the candidate's stdout/stderr pipes
(their write ends travel to the server over the socket), so capture, timeouts,
cancelling and truncation are the shared ones of capture.py.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import queue
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from collections.abc import Sequence
from types import CodeType

from autodd_lsp.execution.base import Backend, Launch, RunResult
from autodd_lsp.execution.capture import (
    REAP_TIMEOUT,
    STOP_TICK,
    Exit,
    RunningGroups,
    cancelled_result,
    candidate_env,
    collect,
    kill_group,
    make_pipe,
    wait_readable,
)
from autodd_lsp.execution.gpus import gpu_for_run
from autodd_lsp.execution.forkserver_main import Channel, code_header
from autodd_lsp.execution.subproc import SubprocessBackend
from autodd_lsp.files import overwrite, private_tempdir

SERVER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forkserver_main.py")
FORK_TIMEOUT = 30.0  # a server that does not report its fork by then is wedged
CLOSE_GRACE = 0.5  # how long close() lets servers exit by themselves before SIGKILL
DIAGNOSTICS_TAIL = 2000
LEARN_AT_LEAST = 20  # lazily imported modules worth restarting the servers for
CODE_HEADER = code_header()  # this Python's: a server run by another one compiles for itself


def fork_supported() -> bool:
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


class ServerDied(Exception):
    """The server ended (or stopped answering) before the candidate was forked."""

    def __init__(self, importing: int | None = None, diagnostics: str = "") -> None:
        super().__init__(diagnostics or "fork server died")
        self.importing = importing  # the preload index it was importing, if any
        self.diagnostics = diagnostics


class Stopped(Exception):
    """close() or the caller's cancel event interrupted a wait."""


@dataclass
class Tainted:
    index: int
    reason: str


class Server:
    """One warm fork server: its process, our end of its socket, its diagnostics file."""

    def __init__(self, python: str, cwd: str, env: dict[str, str], preload: list[str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # Its stdout/stderr: a nameless file, so it never leaves a file behind, and
        # the server can see whether an import wrote anything.
        self.diagnostics = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                [python, SERVER_SCRIPT, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=self.diagnostics,
                stderr=self.diagnostics,
                start_new_session=True,  # a Ctrl-C at the terminal is the CLI's to handle
            )
        except BaseException:
            ours.close()
            self.diagnostics.close()
            raise
        finally:
            theirs.close()
        self.channel = Channel(ours)
        self.importing: int | None = None
        self.ready = False  # warmed up with a clean preload
        self.broken = False  # protocol state unknown: must not serve another candidate
        try:
            self.channel.send({"preload": preload})
        except OSError:
            pass  # it died at once: wait_ready reports why

    def receive(self, deadline: float, should_stop=lambda: False) -> dict:
        """The next message; raises ServerDied, TimeoutError or Stopped."""
        while True:
            message = self.channel.pop()
            if message is not None:
                return message
            if self.channel.closed:
                raise ServerDied(self.importing, self.diagnostics_tail())
            now = time.monotonic()
            if now >= deadline:
                raise TimeoutError
            if should_stop():
                raise Stopped
            if wait_readable(self.channel.sock.fileno(), min(STOP_TICK, deadline - now)):
                self.channel.fill()

    def wait_ready(self, deadline: float, should_stop) -> tuple[dict, Tainted | None]:
        """Follow the warm-up until the report; a crash or hang blames the module being imported."""
        try:
            while True:
                message = self.receive(deadline, should_stop)
                if "importing" in message:
                    self.importing = message["importing"]
                elif message.get("ready"):
                    tainted = message["tainted"]
                    self.ready = not tainted
                    return message, Tainted(tainted["index"], tainted["reason"]) if tainted else None
        except TimeoutError:
            raise ServerDied(self.importing, "warm-up timed out") from None

    def alive(self) -> bool:
        return not self.broken and not self.channel.closed and self.proc.poll() is None

    def usable(self) -> bool:
        return self.ready and self.alive()

    def diagnostics_tail(self) -> str:
        try:
            size = os.fstat(self.diagnostics.fileno()).st_size
            tail = os.pread(self.diagnostics.fileno(), DIAGNOSTICS_TAIL, max(0, size - DIAGNOSTICS_TAIL))
        except (OSError, ValueError):
            return ""
        return tail.decode("utf-8", "replace").strip()

    def hang_up(self) -> None:
        """Tell the server to stop: it kills its running candidate's group and exits.

        Also wakes any thread waiting on the socket; the socket itself stays open
        until `release`, so no other thread can end up reading a reused descriptor.
        """
        try:
            self.channel.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def terminate(self, grace: float = 0.0) -> None:
        """Hang up, give the server `grace` seconds to exit by itself, then SIGKILL it."""
        self.hang_up()
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            kill_group(self.proc.pid)
            try:
                # Bounded: close() may run in a signal handler that interrupted a wait on it.
                self.proc.wait(REAP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass

    def release(self) -> None:
        """Terminate and close our descriptors; only once nobody else uses this server."""
        self.terminate()
        self.channel.sock.close()
        self.diagnostics.close()


class ServerWatch:
    """Exit watch for a candidate forked by `server`: its status arrives on the socket."""

    def __init__(self, server: Server, pid: int) -> None:
        self.server = server
        self.pid = pid
        self.exit: Exit | None = None

    def fileno(self) -> int:
        return self.server.channel.sock.fileno()

    def check(self, readable: bool) -> Exit | None:
        channel = self.server.channel
        if readable:
            channel.fill()
        message = channel.pop()
        if message is not None and "status" in message:
            self.exit = Exit(message["status"], message["duration"])
        elif channel.closed:  # the server died under the candidate
            kill_group(self.pid)
            self.server.broken = True
            self.exit = Exit(None)
        return self.exit

    def kill(self) -> None:
        kill_group(self.pid)

    def finish(self) -> None:
        if self.exit is None:  # gave up waiting for the status: it may still come, out of turn
            kill_group(self.pid)
            self.server.broken = True


class ForkServerBackend(Backend):
    def __init__(self, *args, warmup_timeout: float = 600.0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.warmup_timeout = warmup_timeout
        self.preloaded: list[str] = []  # what the servers really imported
        self.skipped: dict[str, str] = {}  # preload name -> why it was not preloaded
        self.fallback: SubprocessBackend | None = None  # set when forking is impossible
        self.fallback_reason = ""
        self._env = candidate_env(self.extra_sys_path, extra=self.extra_env)
        self._running = RunningGroups()
        self._servers: list[Server | None] = [None] * self.jobs
        self._free_slots: queue.SimpleQueue[int] = queue.SimpleQueue()
        for slot in range(self.jobs):
            self._free_slots.put(slot)
        self._names = list(self.preload)  # the preload prefix still believed safe
        self._warm_lock = threading.Lock()
        self._started = False
        # Files that travel with a request (compiled code, modules imported).
        self._scratch_dir: str | None = None
        self._scratch_lock = threading.Lock()
        self._code_files: dict[str, str] = {}  # candidate path -> its code file's name
        self._staged: dict[str, tuple[Sequence[CodeType], str]] = {}  # path -> (code, its file)
        if not fork_supported():
            self._fall_back("this platform cannot fork")

    @property
    def launch(self) -> Launch:
        return self._launch

    @launch.setter
    def launch(self, launch: Launch) -> None:
        self._launch = launch
        if getattr(self, "fallback", None) is not None:
            self.fallback.launch = launch

    # ------------------------------------------------------------ warm-up

    def start(self) -> None:
        """Start every slot's server in parallel and wait until all have imported `preload`."""
        try:
            self._start(lambda: self._running.closed)
        except Stopped:
            pass

    def _start(self, should_stop) -> None:
        if self._started or self.fallback is not None:
            return
        with self._warm_lock_unless(should_stop):
            if not (self._started or self.fallback is not None):
                self._warm_up(list(range(self.jobs)), should_stop)
                self._started = True

    @contextlib.contextmanager
    def _warm_lock_unless(self, should_stop):
        """Hold the warm-up lock; raise Stopped instead if `should_stop` turns true first."""
        while not self._warm_lock.acquire(timeout=STOP_TICK):
            if should_stop():
                raise Stopped
        try:
            if should_stop():
                raise Stopped
            yield
        finally:
            self._warm_lock.release()

    def _warm_up(self, slots: list[int], should_stop) -> None:
        """Warm servers for `slots`; shorten the preload list until all of them are clean.

        Raises Stopped if `should_stop` turns true (a server still warming is kept
        and awaited next time) or if forking turned out impossible (see `fallback`).
        """
        while True:
            servers = [self._warming_server(slot) for slot in slots]
            problems = [problem for problem in (self._await(s, should_stop) for s in servers) if problem]
            if not problems:
                return
            for slot in slots:
                self._discard(slot)
            if any(index is None for index, _ in problems):
                self._fall_back(next(reason for index, reason in problems if index is None))
                raise Stopped
            index, reason = min(problems)
            self.skipped[self._names[index]] = reason
            self._names = self._names[:index]

    def _warming_server(self, slot: int) -> Server:
        """The slot's server if it is alive (warming or warm), else a new one."""
        server = self._servers[slot]
        if server is not None and server.alive():
            return server
        self._discard(slot)
        server = self._servers[slot] = Server(self.python, self.cwd, self._env, self._names)
        if self._running.closed:  # close() may have missed it
            server.terminate()
            raise Stopped
        return server

    def _discard(self, slot: int) -> None:
        server, self._servers[slot] = self._servers[slot], None
        if server is not None:
            server.release()

    def _await(self, server: Server, should_stop) -> tuple[int | None, str] | None:
        """None if the server is ready and clean; else (preload index to blame or None, why)."""
        if server.ready:
            return None
        deadline = time.monotonic() + self.warmup_timeout
        try:
            report, tainted = server.wait_ready(deadline, should_stop)
        except ServerDied as died:
            if died.importing is None:
                return None, f"the fork server could not start: {died.diagnostics}"
            return died.importing, f"the fork server died importing it: {died.diagnostics[-300:]}"
        for name, why in report["failed"].items():
            self.skipped.setdefault(name, f"import failed: {why}")
        self.preloaded = list(report["preloaded"])
        return (tainted.index, tainted.reason) if tainted else None

    def _fall_back(self, reason: str) -> None:
        self.fallback_reason = reason
        self.fallback = SubprocessBackend(
            self.python,
            self.cwd,
            jobs=self.jobs,
            extra_sys_path=self.extra_sys_path,
            output_limit=self.output_limit,
            extra_env=self.extra_env,
            launch=self.launch,
            gpus=self.gpus,
        )
        if self._running.closed:
            self.fallback.close()

    def degraded(self) -> str:
        if self.fallback is None:
            return ""
        reason = " ".join(self.fallback_reason.split())  # one line, even with a traceback in it
        if len(reason) > 200:
            reason = reason[:197] + "..."
        return f"the runner backend is unavailable ({reason}); candidates run with subproc, a fresh interpreter each, which is slower"

    def _ready_server(self, slot: int, should_stop) -> Server:
        """This slot's server, restarted if it died; its warm-up is not the candidate's time."""
        server = self._servers[slot]
        if server is not None and server.usable():
            return server
        with self._warm_lock_unless(should_stop):
            self._warm_up([slot], should_stop)
        return self._servers[slot]

    # ------------------------------------------------------------ running

    def run(
        self,
        path: str,
        timeout: float,
        cancel: threading.Event | None = None,
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
        imports_file = self._scratch_path(f"imports{slot}") if learn_imports else ""
        try:
            with gpu_for_run(self.gpus, should_stop) as gpu:
                if gpu is None:
                    return cancelled_result()
                # A module started with `-m` compiles the file itself (pytest rewrites its asserts).
                code_file = "" if self.launch.module else self._code_file(path, code)
                files = {"code": code_file, "imports": imports_file, "gpu": gpu}
                result = self._run_in_slot(slot, path, files, timeout, cancel, should_stop)
        finally:
            self._free_slots.put(slot)
        if imports_file:
            self._adopt_imports(imports_file)
        return result

    def _scratch_path(self, name: str) -> str:
        """A path in this backend's scratch folder (made on first use); "" once closed."""
        with self._scratch_lock:
            if self._running.closed:
                return ""
            if self._scratch_dir is None:
                self._scratch_dir = private_tempdir("runner")
            return os.path.join(self._scratch_dir, name)

    def stage(self, path: str, code: Sequence[CodeType] | None) -> None:
        """Write `code`'s marshal file now (~0.2 ms), not once the run may start."""
        path = os.path.abspath(path)
        if code is not None:
            self._staged[path] = (code, self._write_code(path, code))

    def _code_file(self, path: str, code: Sequence[CodeType] | None) -> str:
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
        with self._scratch_lock:
            name = self._code_files.setdefault(path, f"code{len(self._code_files)}")
        code_file = self._scratch_path(name)
        if not code_file:
            return ""
        try:
            overwrite(code_file, CODE_HEADER + marshal.dumps(tuple(code)))
        except (OSError, ValueError):
            return ""  # closed meanwhile, or unmarshallable: the child compiles
        return code_file

    def _adopt_imports(self, imports_file: str) -> None:
        """Preload, from now on, the modules the program imported while it ran (if many).

        A program often imports most of its modules lazily: torch pulls in
        sympy and dynamo on the first optimizer step, a kernel compiler its
        back end. Each candidate would import them again; the servers restart
        once with them instead. Slower warm-up, once; never the candidate's time.
        """
        try:
            with open(imports_file, encoding="utf-8", errors="surrogateescape") as handle:
                imported = handle.read().split("\n")
        except OSError:
            return
        known = set(self._names) | set(self.skipped)
        new = [name for name in imported if name and name not in known and name != "__mp_main__"]
        if len(new) < LEARN_AT_LEAST or self.fallback is not None:
            return
        with self._warm_lock:
            self.learned_imports += len(new)
            self._names = self._names + new
            for slot in range(self.jobs):
                self._discard(slot)
            self._started = False

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
                return self._run_on(server, path, files, timeout, should_stop, cancel)
            except ServerDied:
                self._discard(slot)
            except Stopped:
                if self.fallback is not None and not should_stop():
                    return self.fallback.run_pinned(path, timeout, cancel, files["gpu"])
                return cancelled_result()
        return self._fallback_once().run_pinned(path, timeout, cancel, files["gpu"])

    def _fallback_once(self) -> SubprocessBackend:
        if self.fallback is None:
            self._fall_back("the fork servers keep dying")
        return self.fallback

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
        self._running.add(pid)
        watch = ServerWatch(server, pid)
        try:
            collected = collect(
                stdout_r,
                stderr_r,
                watch,
                limit=self.output_limit,
                deadline=started + timeout,
                should_stop=should_stop,
                cancel=cancel,
            )
        finally:
            watch.finish()
            self._running.discard(pid)
        duration = watch.exit.duration if watch.exit and watch.exit.duration is not None else None
        return collected.result(time.monotonic() - started if duration is None else duration)

    def _fork(self, server: Server, path: str, files: dict, stdout_w: int, stderr_w: int) -> int:
        """Hand the request (with `files`: code, imports) to the server; return the candidate's pid."""
        try:
            folder = os.path.dirname(os.path.realpath(path))
            launch = self.launch
            request = {"path": path, "cwd": self.cwd, "folder": folder, **files,
                       "module": launch.module, "args": launch.module_args(path) if launch.module else []}
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
        servers = [server for server in list(self._servers) if server is not None]
        for server in servers:
            server.hang_up()
        deadline = time.monotonic() + CLOSE_GRACE
        for server in servers:
            server.terminate(grace=max(0.0, deadline - time.monotonic()))
        if self.fallback is not None:
            self.fallback.close()
        with self._scratch_lock:
            if self._scratch_dir is not None:
                shutil.rmtree(self._scratch_dir, ignore_errors=True)
