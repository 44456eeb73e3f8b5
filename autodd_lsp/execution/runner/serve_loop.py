"""The fork server's serve loop: one spare child forked ahead, handed each request, watched to its end.

Per request (from the client, over `wire.Channel`) the server gives the request
to a spare child forked and set up in advance (child.py), forks the next
spare while the candidate runs, and answers the candidate's pid, then its exit
status: from the candidate's early report on its private socket where it ends
through Python, else from its pidfd (or its reaping). The state of the loop is
the `Serving` object; nothing of it lives at module level.

Server side only, loaded by file location with the fork server's other files:
standard library only, no import of ours but its siblings (relative imports),
Python 3.9 syntax (see server_main.py).
"""

import os
import select
import socket
import time

from . import child
from .wire import kill_group, open_pidfd


class Serving:
    """The serve loop of one server: its channel to the client, what its children inherit, its spare."""

    def __init__(self, channel, inheritance):
        self.channel = channel
        self.inheritance = inheritance
        self.spare = None

    def serve(self):
        """Per request, hand it to the spare child forked in advance; fork the next one meanwhile.

        The next spare is forked (and sets itself up) while the candidate runs, so a
        request that follows right away -- the client prepares the next candidate
        while this one runs -- finds it ready. It is as fresh as one forked on
        demand: the server does nothing in between but wait.
        """
        channel = self.channel
        self.inheritance.flush_all()  # nothing writes to the server's buffers from here on: no fork duplicates them
        try:
            while not channel.closed:
                self.spare = self.spare or Spare(self)
                request = channel.receive()
                if request is None:
                    return
                fds, channel.fds = channel.fds[:2], channel.fds[2:]
                started = time.monotonic()
                taker, self.spare = self.spare, None
                try:
                    candidate = self.hand_over(taker, request, fds)
                finally:
                    for fd in fds:
                        os.close(fd)
                channel.send({"pid": candidate.pid})
                self.spare = Spare(self, candidate.descriptors())
                status = candidate.wait(channel)
                channel.send({"status": status, "duration": time.monotonic() - started})
                if candidate.reported:  # the kernel is still tearing it down: reap it before the next request
                    candidate.reap()
        finally:
            if self.spare is not None:
                self.spare.discard()
                self.spare = None

    def hand_over(self, spare, request, fds):
        """Give `spare` the request (path, cwd, folder, ...) and the output pipes; return the Candidate."""
        fields = (
            request["path"], request["cwd"], request["folder"], request.get("code", ""), request.get("imports", ""),
            request.get("gpu", ""), request.get("module", ""), *request.get("args", ()),
        )
        message = "\0".join(fields).encode("utf-8", "surrogatepass")
        for attempt in range(2):
            try:
                socket.send_fds(spare.sock, [message], fds)
                return Candidate(spare.pid, spare.sock)
            except OSError:  # it was killed while waiting: a fresh one takes the request
                spare.discard()
                if attempt:
                    raise
                spare = Spare(self)


class Spare:
    """A child forked ahead of its request, set up and waiting for it on a private socket.

    Once it runs a candidate, the same socket brings its exit status early (see `Candidate`).
    """

    def __init__(self, serving, foreign=()):
        """`foreign`: the server's descriptors for the running candidate, closed in the child."""
        ours, theirs_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        theirs = child.Report(theirs_sock)  # made here: the server's own pages are not shared yet
        pid = os.fork()
        if pid == 0:
            ours.close()
            for fd in foreign:
                os.close(fd)
            child.become_candidate(serving.inheritance, serving.channel.sock, theirs)  # never returns
        theirs.sock.close()
        self.pid, self.sock = pid, ours

    def discard(self):
        """Kill and reap it (it waits, so it has no children of its own)."""
        self.sock.close()
        kill_group(self.pid)
        os.waitpid(self.pid, 0)


class Candidate:
    """A running candidate: its pid (= its process group) and the socket of its early report.

    A candidate that ends through Python (not a crash, not os._exit) sends its exit
    status just before `_exit`, with its output complete and its fds 1/2 released.
    The server then sweeps the group at once and answers the client, instead of
    waiting until the kernel has torn the process down (~0.3 ms small, ~2 ms with
    torch); the leader is reaped right after (forking the next spare meanwhile),
    before the next request.
    """

    def __init__(self, pid, sock):
        self.pid, self.sock = pid, sock
        self.pidfd = open_pidfd(pid)  # None: a vanished client is noticed only after the candidate ends
        self.reported = False

    def wait(self, channel):
        """The exit status; kills the group if the client goes away, and at the end."""
        if self.pidfd is None:  # no pidfd: only the real exit can be waited for
            self.sock.close()
            return self.reap()
        watched = [self.pidfd, channel.sock, self.sock]
        while True:
            ready = select.select(watched, [], [])[0]
            if self.pidfd in ready:
                return self.reap()
            if self.sock in ready:
                status = self.report()
                if status is not None:
                    kill_group(self.pid)  # the leader lives, so the group id is still its own
                    self.reported = True
                    return status
                watched.remove(self.sock)  # closed by the candidate: wait for the exit
            if channel.sock in ready and not channel.fill():
                kill_group(self.pid)
                watched.remove(channel.sock)

    def descriptors(self):
        return [fd for fd in (self.pidfd, self.sock.fileno()) if fd is not None]

    def report(self):
        try:
            data = self.sock.recv(64)
            return int(data) if data else None
        except (OSError, ValueError):
            return None

    def release(self):
        """Close our descriptors for it."""
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        self.sock.close()

    def reap(self):
        """Wait for the real exit; sweep the group (the unreaped leader still reserves its id); reap."""
        self.release()
        if hasattr(os, "waitid"):
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
        kill_group(self.pid)  # stray children
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)
