"""The client's side of the fork servers: one server process (`Server`), and the job slots' warm servers.

`Server` starts `server_main.py` under the candidates' interpreter and speaks
`wire.Channel` with it; `ServerWatch` is the exit watch capture.collect uses for a
candidate it forked. `WarmServers` keeps one server per job slot warm: it starts
them in parallel, follows their preload, and shortens the preload list at the
first module that makes forking unfaithful or unsafe (`skipped` says why) until
every server is clean; `restart_with` adds learned imports. It knows nothing of
the fallback: a server that cannot start at all raises `CannotFork`, and the
backend (client.py) decides what to do.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from autodd_lsp.execution.capture import (
    REAP_TIMEOUT,
    STOP_TICK,
    Exit,
    kill_group,
    wait_readable,
)
from autodd_lsp.execution.runner.wire import Channel

SERVER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server_main.py")
DIAGNOSTICS_TAIL = 2000


class ServerDied(Exception):
    """The server ended (or stopped answering) before the candidate was forked."""

    def __init__(self, importing: int | None = None, diagnostics: str = "") -> None:
        super().__init__(diagnostics or "fork server died")
        self.importing = importing  # the preload index it was importing, if any
        self.diagnostics = diagnostics


class Stopped(Exception):
    """close() or the caller's cancel event interrupted a wait."""


class CannotFork(Stopped):
    """No fork server can start here (the message says why); raised again by every later warm-up."""


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
        self.diagnostics = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server; closed in close() or on a failed start
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


class WarmServers:
    """One fork server per job slot, warm with the longest clean prefix of `preload`.

    `preloaded`: what the servers really imported; `skipped`: preload name -> why it
    was not preloaded. `is_closed`: whether the backend was closed (a server started
    meanwhile is terminated at once). Any thread; warm-ups take turns on one lock.
    """

    def __init__(
        self, python: str, cwd: str, env: dict[str, str], jobs: int, preload: list[str],
        warmup_timeout: float, is_closed: Callable[[], bool],
    ) -> None:
        self.python, self.cwd, self.env = python, cwd, env
        self.warmup_timeout = warmup_timeout
        self.is_closed = is_closed
        self.servers: list[Server | None] = [None] * jobs
        self.names = list(preload)  # the preload prefix still believed safe
        self.preloaded: list[str] = []
        self.skipped: dict[str, str] = {}
        self.cannot_fork = ""  # why no server can start, once known
        self._lock = threading.Lock()
        self._started = False

    def start(self, should_stop) -> None:
        """Warm every slot's server (in parallel), once; raises Stopped or CannotFork."""
        if self._started:
            return
        with self._lock_unless(should_stop):
            if not self._started:
                self._warm_up(list(range(len(self.servers))), should_stop)
                self._started = True

    def ready_server(self, slot: int, should_stop) -> Server:
        """This slot's server, restarted if it died; its warm-up is not the candidate's time."""
        server = self.servers[slot]
        if server is not None and server.usable():
            return server
        with self._lock_unless(should_stop):
            self._warm_up([slot], should_stop)
        server = self.servers[slot]
        assert server is not None
        return server

    def restart_with(self, new: list[str]) -> None:
        """Preload `new` too from now on: every server restarts (lazily) with it."""
        with self._lock:
            self.names = self.names + new
            for slot in range(len(self.servers)):
                self.discard(slot)
            self._started = False

    def discard(self, slot: int) -> None:
        server, self.servers[slot] = self.servers[slot], None
        if server is not None:
            server.release()

    def all(self) -> list[Server]:
        return [server for server in list(self.servers) if server is not None]

    @contextlib.contextmanager
    def _lock_unless(self, should_stop):
        """Hold the warm-up lock; raise Stopped instead if `should_stop` turns true first."""
        while not self._lock.acquire(timeout=STOP_TICK):
            if should_stop():
                raise Stopped
        try:
            if self.cannot_fork:
                raise CannotFork(self.cannot_fork)
            if should_stop():
                raise Stopped
            yield
        finally:
            self._lock.release()

    def _warm_up(self, slots: list[int], should_stop) -> None:
        """Warm servers for `slots`; shorten the preload list until all of them are clean.

        Raises Stopped if `should_stop` turns true (a server still warming is kept
        and awaited next time), CannotFork if a server could not start at all.
        """
        while True:
            servers = [self._warming_server(slot) for slot in slots]
            problems = [problem for problem in (self._await(s, should_stop) for s in servers) if problem]
            if not problems:
                return
            for slot in slots:
                self.discard(slot)
            if any(index is None for index, _ in problems):
                self.cannot_fork = next(reason for index, reason in problems if index is None)
                raise CannotFork(self.cannot_fork)
            index, reason = min((index, reason) for index, reason in problems if index is not None)
            self.skipped[self.names[index]] = reason
            self.names = self.names[:index]

    def _warming_server(self, slot: int) -> Server:
        """The slot's server if it is alive (warming or warm), else a new one."""
        server = self.servers[slot]
        if server is not None and server.alive():
            return server
        self.discard(slot)
        server = self.servers[slot] = Server(self.python, self.cwd, self.env, self.names)
        if self.is_closed():  # close() may have missed it
            server.terminate()
            raise Stopped
        return server

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
