"""What both backends share: the candidate's environment, bounded output capture,
process-group killing, and the loop that drains a candidate's pipes until it ends.

A backend supplies an `ExitWatch` (how it learns the candidate's exit status and
how it kills it); `collect` does the rest, so both backends time out, cancel,
truncate and clean up the same way.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from autodd_lsp.cancel import Cancel
from autodd_lsp.execution.backend import RunResult
from autodd_lsp.execution.runner.wire import KILL_SIGNAL, kill_group

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]  # the module or None; its use asks hasattr(fcntl, ...)

READ_CHUNK = 1 << 20
PIPE_SIZE = 1 << 20  # a larger pipe means fewer wake-ups when a candidate floods its output
STOP_TICK = 0.02  # how often a running candidate's `cancel` event is looked at (seconds)
EOF_GRACE = 0.2  # after the exit, how long stray writers may keep the pipes open
PIPE_BATCH = 0.002  # after reading output, how long to let more gather before reading again
KILL_GRACE = 2.0  # after a kill, how long to wait for the exit status before giving up
REAP_TIMEOUT = 5.0  # a SIGKILLed process still not gone by then is stuck in the kernel
TRUNCATION_MARK = b"\n...[output truncated]...\n"


def candidate_env(
    extra_sys_path: Sequence[str], base: dict[str, str] | None = None, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a candidate: `extra` set, `extra_sys_path` first on PYTHONPATH, any old value after."""
    env = dict(os.environ if base is None else base)
    env.update(extra or {})
    entries = [os.fspath(p) for p in extra_sys_path]
    if env.get("PYTHONPATH"):
        entries.append(env["PYTHONPATH"])
    if entries:
        env["PYTHONPATH"] = os.pathsep.join(entries)
    return env


def make_pipe() -> tuple[int, int]:
    """A non-inheritable pipe (read end, write end), enlarged where the OS allows."""
    read_end, write_end = os.pipe()
    if hasattr(fcntl, "F_SETPIPE_SZ"):
        try:
            fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        except OSError:
            pass  # over the user's pipe quota: the default size works, only slower
    return read_end, write_end


class BoundedOutput:
    """Keeps the first and the last bytes of a stream, at most `limit` in all."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        # Trim only when twice over: each byte is moved at most once, so flooding stays linear.
        if len(self.tail) > 2 * self.tail_limit + READ_CHUNK:
            self._trim()

    def _trim(self) -> None:
        excess = len(self.tail) - self.tail_limit
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    @property
    def truncated(self) -> bool:
        return self.dropped > 0 or len(self.tail) > self.tail_limit

    def value(self) -> bytes:
        """The kept bytes; where some were dropped, a marker (within the limit) shows where."""
        self._trim()
        if not self.dropped or len(self.tail) <= len(TRUNCATION_MARK):  # tiny limits: no room
            return bytes(self.head + self.tail)
        return bytes(self.head) + TRUNCATION_MARK + bytes(self.tail[len(TRUNCATION_MARK):])


@dataclass(frozen=True)
class Exit:
    returncode: int | None  # None: the status was lost (the fork server died)
    duration: float | None = None  # measured by whoever saw the fork; None: measure here


class ExitWatch(Protocol):
    """How `collect` learns that a candidate ended, and how it stops one."""

    def fileno(self) -> int | None:
        """A descriptor that becomes readable when `check` may have news; None: ask every tick."""

    def check(self, readable: bool) -> Exit | None:
        """The exit, once the candidate ended and its process group was swept; else None."""

    def kill(self) -> None:
        """Kill the candidate's whole process group now."""


class FinishedWatch(ExitWatch, Protocol):
    """An exit watch that holds something (a pidfd, the server's exit record) until `finish`."""

    def finish(self) -> None:
        """The run is over: let go of what the watch holds."""


@dataclass
class Collected:
    exit: Exit | None
    stdout: BoundedOutput
    stderr: BoundedOutput
    timed_out: bool = False
    cancelled: bool = False

    def result(self, duration: float) -> RunResult:
        return RunResult(
            stdout=self.stdout.value(),
            stderr=self.stderr.value(),
            returncode=self.exit.returncode if self.exit else None,
            timed_out=self.timed_out,
            cancelled=self.cancelled,
            truncated=self.stdout.truncated or self.stderr.truncated,
            duration=duration,
        )


def collect(
    stdout_fd: int,
    stderr_fd: int,
    watch: ExitWatch,
    *,
    limit: int,
    deadline: float,
    should_stop: Callable[[], bool],
    cancel: Cancel | None = None,
) -> Collected:
    """Drain both pipes (closing them) until the candidate exited and the pipes hit EOF.

    Kills the candidate at `deadline` or when `should_stop()` turns true. Waits only a
    bounded time for EOF after the exit: a daemonized grandchild may hold a pipe forever.
    """
    drain = _Drain(stdout_fd, stderr_fd, watch, limit, deadline, should_stop)
    waker = _Waker(drain.selector, cancel) if hasattr(cancel, "on_set") else None
    try:
        drain.run()
    finally:
        if waker is not None:
            waker.close()
        drain.close()
    return drain.state


class _Waker:
    """Wakes the drain's selector the moment `cancel` is set (a CancelEvent), so that
    a stale candidate is killed at once rather than at the next STOP_TICK."""

    def __init__(self, selector: ReadPoller, cancel) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.selector, self.lock, self.closed = selector, threading.Lock(), False
        selector.register(self.read_fd, signal=True)
        self.forget = cancel.on_set(self.wake)

    def wake(self) -> None:
        with self.lock:  # never write to a descriptor number that was closed and reused
            if not self.closed:
                os.write(self.write_fd, b"!")

    def close(self) -> None:
        self.forget()
        with self.lock:
            self.closed = True
            self.selector.unregister(self.read_fd)
            os.close(self.read_fd)
            os.close(self.write_fd)


class ReadPoller:
    """The descriptors to wait on for reading; `poll(2)` where there is one.

    A run waits on three or four descriptors a few times: poll needs no kernel
    object of its own (epoll costs ~6 system calls a run to set up and tear down).
    "Signal" descriptors (the exit source, a cancel waker) can be waited on alone.
    """

    def __init__(self) -> None:
        self._every = select.poll() if hasattr(select, "poll") else None
        self._signals = select.poll() if hasattr(select, "poll") else None
        self._fds: dict[int, bool] = {}  # fd -> is a signal

    def register(self, fd: int, signal: bool = False) -> None:
        self._fds[fd] = signal
        if self._every is not None and self._signals is not None:  # both or neither
            self._every.register(fd, select.POLLIN)
            if signal:
                self._signals.register(fd, select.POLLIN)

    def unregister(self, fd: int) -> None:
        signal = self._fds.pop(fd, None)
        if signal is not None and self._every is not None and self._signals is not None:
            self._every.unregister(fd)
            if signal:
                self._signals.unregister(fd)

    def select(self, timeout: float, signals_only: bool = False) -> list[int]:
        """The descriptors ready to read (or at EOF, or in error) within `timeout` seconds."""
        timeout = max(0.0, timeout)
        if self._every is None or self._signals is None:  # both or neither
            fds = [fd for fd, signal in self._fds.items() if signal or not signals_only]
            return select.select(fds, [], [], timeout)[0]
        poller = self._signals if signals_only else self._every
        return [fd for fd, _events in poller.poll(timeout * 1000)]

    def close(self) -> None:
        self._fds.clear()


class _Drain:
    def __init__(self, stdout_fd, stderr_fd, watch: ExitWatch, limit, deadline, should_stop) -> None:
        self.outputs = {stdout_fd: BoundedOutput(limit), stderr_fd: BoundedOutput(limit)}
        self.state = Collected(None, self.outputs[stdout_fd], self.outputs[stderr_fd])
        self.watch, self.deadline, self.should_stop = watch, deadline, should_stop
        self.open_pipes = set(self.outputs)
        self.selector = ReadPoller()
        for fd in self.outputs:
            self.selector.register(fd)
        self.exit_fd = watch.fileno()
        if self.exit_fd is not None:
            self.selector.register(self.exit_fd, signal=True)
        self.quiet_until = 0.0  # till then, while it runs, only the exit or a cancel wakes us
        self.killed_at: float | None = None  # when we killed it (timeout or stop)
        self.eof_deadline: float | None = None  # set at the exit: how long pipes may stay open
        self.holders_killed = False

    def run(self) -> None:
        self.state.exit = self.watch.check(False)
        while True:
            now = time.monotonic()
            self._kill_if_due(now)
            if self.state.exit is not None:
                self._after_exit(now)
                if not self.open_pipes or self._give_up_on_pipes(now):
                    return
            elif self.killed_at is not None and now >= self.killed_at + KILL_GRACE:
                return  # the status never came (a wedged server): the caller cleans up
            self._pump(self._wait_time(now))

    def _kill_if_due(self, now: float) -> None:
        if self.state.exit is not None or self.killed_at is not None:
            return
        if now >= self.deadline:
            self.state.timed_out = True
        elif self.should_stop():
            self.state.cancelled = True
        else:
            return
        self.killed_at = now
        self.watch.kill()

    def _after_exit(self, now: float) -> None:
        if self.eof_deadline is not None:
            return
        self.eof_deadline = now + EOF_GRACE
        # close() kills candidates itself; their end is still a cancellation.
        self.state.cancelled = self.state.cancelled or (self.killed_at is None and self.should_stop())
        if self.exit_fd is not None:
            self.selector.unregister(self.exit_fd)
            self.exit_fd = None

    def _give_up_on_pipes(self, now: float) -> bool:
        """Past the grace, kill whoever still holds a pipe once; after a second grace, stop."""
        assert self.eof_deadline is not None  # run() calls _after_exit, which sets it, first
        if now < self.eof_deadline:
            return False
        if self.holders_killed:
            return True  # a writer that survived even that: stop waiting
        kill_pipe_holders(self.open_pipes)
        self.holders_killed, self.eof_deadline = True, now + EOF_GRACE
        return False

    def _wait_time(self, now: float) -> float:
        if self.state.exit is not None:
            assert self.eof_deadline is not None  # run() called _after_exit, which sets it, this tick
            return max(0.0, self.eof_deadline - now)
        if self.killed_at is not None:
            return STOP_TICK
        return max(0.0, min(self.deadline - now, STOP_TICK))

    def _pump(self, timeout: float) -> None:
        """Wait up to `timeout` for output, news of the exit or a cancel; take what came.

        After output, the pipes rest for PIPE_BATCH while the candidate runs: a
        traceback or a print loop writes line by line, and waking for each line
        would take the CPU the candidate needs (the pipes hold 1 MiB meanwhile).
        """
        now = time.monotonic()
        quiet = self.state.exit is None and self.exit_fd is not None and now < self.quiet_until
        ready = self.selector.select(min(timeout, self.quiet_until - now) if quiet else timeout, quiet)
        for fd in ready:
            if fd in self.open_pipes:
                self._read(fd)
                self.quiet_until = time.monotonic() + PIPE_BATCH
            elif fd == self.exit_fd:
                if self.state.exit is None:
                    self.state.exit = self.watch.check(True)
            else:  # a _Waker: cancel was set; `run` looks at should_stop() next
                self.selector.unregister(fd)
        if self.exit_fd is None and self.state.exit is None:
            self.state.exit = self.watch.check(False)  # no exit descriptor: ask every tick

    def _read(self, fd: int) -> None:
        data = os.read(fd, READ_CHUNK)
        if data:
            self.outputs[fd].feed(data)
        else:
            self.selector.unregister(fd)
            self.open_pipes.discard(fd)

    def close(self) -> None:
        self.selector.close()
        for fd in self.outputs:
            os.close(fd)


def wait_readable(fd: int, timeout: float) -> bool:
    """Whether `fd` became readable within `timeout` seconds (poll: no FD_SETSIZE limit)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(max(0.0, timeout) * 1000))


def kill_pipe_holders(read_fds) -> None:
    """Kill every process that still holds the write end of one of our pipes.

    Only a descendant that left the candidate's process group (setsid) can; Linux
    names the pipe's inode in /proc/*/fd, elsewhere this does nothing.
    """
    inodes = {f"pipe:[{os.fstat(fd).st_ino}]" for fd in read_fds}
    if not inodes or not os.path.isdir("/proc/self/fd"):
        return
    for pid in _holders(inodes):
        try:
            os.kill(pid, KILL_SIGNAL)
        except OSError:
            pass


def _holders(inodes: set[str]) -> list[int]:
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            links = {os.readlink(f"/proc/{entry}/fd/{fd}") for fd in os.listdir(f"/proc/{entry}/fd")}
        except OSError:
            continue  # gone, or not ours
        if links & inodes:
            found.append(int(entry))
    return found


def cancelled_result() -> RunResult:
    """What `run` returns when closed or cancelled before the candidate could start."""
    return RunResult(b"", b"", None, cancelled=True)


class RunningGroups:
    """Process groups of running candidates, so `close` can kill them from any thread.

    Lock-free on purpose: `close` may run in a signal handler that interrupted `run`.
    """

    def __init__(self) -> None:
        self.groups: set[int] = set()
        self.closed = False

    def add(self, pgid: int) -> None:
        self.groups.add(pgid)
        if self.closed:  # close() ran between the spawn and this registration
            kill_group(pgid)

    def discard(self, pgid: int) -> None:
        self.groups.discard(pgid)

    def collect(self, pgid: int, stdout_fd: int, stderr_fd: int, watch: FinishedWatch, *, limit: int,
                deadline: float, should_stop: Callable[[], bool], cancel: Cancel | None) -> Collected:
        """`collect` for the candidate of group `pgid` (already `add`ed, so that `close` reaches it):
        its watch finished and the group forgotten once it is over, whatever happens."""
        try:
            return collect(stdout_fd, stderr_fd, watch, limit=limit, deadline=deadline,
                           should_stop=should_stop, cancel=cancel)
        finally:
            watch.finish()
            self.discard(pgid)

    def stop_check(self, cancel: Cancel | None) -> Callable[[], bool]:
        """Whether a run must stop now: the backend was closed, or the run's `cancel` was set."""
        return lambda: self.closed or (cancel is not None and cancel.is_set())

    def close(self) -> None:
        self.closed = True
        for pgid in list(self.groups):
            kill_group(pgid)
