"""What both ends of the fork server share: the message channel and two process primitives.

The client (runner/client.py, subproc.py, capture.py) imports this module as
`autodd_lsp.execution.runner.wire`; the fork server loads it by file location, under its
candidates' interpreter (see server_main.py). Hence the rules of the server's
own files hold here: standard library only, no import of ours, Python 3.9 syntax.
One home for `Channel` (the framing both sides must agree on), `code_header` (what
the client's compiled code must start with to be used by the child), `open_pidfd`
and `kill_group`.
"""

import marshal
import os
import signal
import socket
import sys

MESSAGE_FORMAT = 4  # marshal's, for Channel messages
KILL_SIGNAL = getattr(signal, "SIGKILL", signal.SIGTERM)


class Channel:
    """Messages (dicts of plain values) over a stream socket; file descriptors ride along.

    Each is a 4-byte length, then the message marshalled: cheaper than JSON at both
    ends, and nothing to import (the server's every import is also in each
    candidate's `sys.modules`). Both ends are our own processes; format version 4
    reads alike in every Python 3 that can run the server.
    """

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.fds = []
        self.closed = False

    def send(self, message, fds=()):
        body = marshal.dumps(message, MESSAGE_FORMAT)
        data = len(body).to_bytes(4, "little") + body
        sent = socket.send_fds(self.sock, [data], list(fds)) if fds else self.sock.send(data)
        if sent < len(data):
            self.sock.sendall(data[sent:])

    def pop(self):
        """The next complete message already received, or None."""
        buffer = self.buffer
        if len(buffer) < 4:
            return None
        end = 4 + int.from_bytes(buffer[:4], "little")
        if len(buffer) < end:
            return None
        self.buffer = buffer[end:]
        return marshal.loads(buffer[4:end])

    def fill(self):
        """One receive (blocks unless the socket is readable); False once the peer is gone."""
        try:
            data, fds, _flags, _address = socket.recv_fds(self.sock, 1 << 16, 8)
        except OSError:
            data, fds = b"", []
        self.fds.extend(fds)
        if not data:
            self.closed = True
            return False
        self.buffer += data
        return True

    def receive(self):
        """Block for the next message; None once the peer is gone."""
        while True:
            message = self.pop()
            if message is not None or self.closed or not self.fill():
                return message


def code_header():
    """What a marshalled code object must start with to be run here instead of compiled."""
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER + bytes([sys.flags.optimize & 0xFF])


def open_pidfd(pid):
    """A descriptor that becomes readable when process `pid` exits, or None.

    None where the OS has none (not Linux >= 5.3): the caller then learns of the
    exit only by waiting for it (or by asking every tick).
    """
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def kill_group(pgid):
    """SIGKILL the process group `pgid`; if the group does not exist yet, the process itself."""
    for kill in (getattr(os, "killpg", None), os.kill):
        if kill is None:
            continue
        try:
            kill(pgid, KILL_SIGNAL)
            return
        except ProcessLookupError:
            continue
        except OSError:
            return
