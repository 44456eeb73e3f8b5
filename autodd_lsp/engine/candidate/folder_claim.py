"""One process's reductions at a time in a folder.

Each reduction removes what a run creates in the folders it watches
(`clean_runs.py`): the source's folder and its subfolders, the working folder's
own entries. Another process's reduction there would see its runs' files and its
result removed by this one (and this one's by it): two `autodd` started in one
folder lost the first one's `-o` output that way. So, before its first run, a
reduction claims its folders, and a claim another process holds refuses it with
one line (`FolderTaken`) before it writes anything.

How: `flock` on the folders themselves, no lock file (nothing to leave behind,
and a killed process's locks go with it):
- an exclusive lock on the source's folder, a shared one on the working folder
  (reductions of files in different folders may start from the same one; only a
  reduction of a file in it watches it whole, and that one's exclusive lock
  conflicts);
- a probe, taken and dropped at once, of every other folder it watches
  (exclusive: whoever holds one runs there, where this one would remove files) and
  of the roots' parents up to `depth` levels (shared: only an exclusive holder
  there watches this one's folders).

The reductions of one process (the language server's, one per document) share
their claims: each knows the results the others write (`files.written_result`),
so none removes another's. Within a process, a folder is held by one descriptor
and counted; a shared hold becomes exclusive when a reduction needs it so.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from dataclasses import dataclass

from autodd_lsp.engine.spec.errors import UsageError


@dataclass
class _Hold:
    """This process's hold on one folder."""

    handle: int  # the folder's descriptor, holding the flock
    kind: int  # fcntl.LOCK_SH or LOCK_EX
    reductions: int = 1  # this process's reductions that claimed it


_lock = threading.Lock()
_held: dict[str, _Hold] = {}  # folder -> this process's hold on it


class FolderTaken(UsageError):
    """Another process's reduction holds a folder this one would watch."""

    def __init__(self, folder: str) -> None:
        super().__init__(f"another AutoDD reduction is running in {folder}: its runs and this one's would remove "
                         "each other's files there; wait for it to end, or reduce a copy in another folder")


class FolderClaim:
    """This reduction's hold on its folders, from construction to `release`."""

    def __init__(self, sources: list[str], working: list[str], watched: list[str], depth: int) -> None:
        """Hold `sources` exclusively and `working` shared; probe `watched` (exclusive) and the parents of
        both up to `depth` levels (shared). FolderTaken (holding nothing) where another process holds one."""
        wanted = dict.fromkeys(working, fcntl.LOCK_SH) | dict.fromkeys(sources, fcntl.LOCK_EX)
        self._folders: list[str] = []
        near = [os.path.dirname(folder) for folder in wanted]
        for _ in range(depth - 1):
            near += [os.path.dirname(folder) for folder in near]
        with _lock:
            try:
                for folder, kind in wanted.items():
                    if _hold(folder, kind):
                        self._folders.append(folder)
                probes = dict.fromkeys(near, fcntl.LOCK_SH) | dict.fromkeys(watched, fcntl.LOCK_EX)
                for folder, kind in probes.items():
                    if folder not in _held:
                        handle = _locked(folder, kind)
                        if handle is not None:
                            os.close(handle)
            except FolderTaken:
                self._let_go()
                raise

    def release(self) -> None:
        """Let other processes' reductions claim the folders again (once the last of this process's lets go)."""
        with _lock:
            self._let_go()

    def _let_go(self) -> None:
        while self._folders:
            folder = self._folders.pop()
            held = _held[folder]
            held.reductions -= 1
            if not held.reductions:
                os.close(held.handle)
                del _held[folder]


def _hold(folder: str, kind: int) -> bool:
    """Hold `folder` for one more of this process's reductions; False where it cannot be opened."""
    held = _held.get(folder)
    if held is None:
        handle = _locked(folder, kind)
        if handle is not None:
            _held[folder] = _Hold(handle, kind)
        return handle is not None
    if kind == fcntl.LOCK_EX and held.kind != kind:
        try:
            _lock_as(held.handle, folder, kind)
        except FolderTaken:
            with contextlib.suppress(OSError):  # a refused conversion may have dropped the shared lock
                fcntl.flock(held.handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            raise
        held.kind = kind
    held.reductions += 1
    return True


def _locked(folder: str, kind: int) -> int | None:
    """A new descriptor of `folder` holding a `kind` flock; None where the folder cannot be opened
    (nothing to hold); FolderTaken where another holds a conflicting one."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        _lock_as(handle, folder, kind)
    except FolderTaken:
        os.close(handle)
        raise
    return handle


def _lock_as(handle: int, folder: str, kind: int) -> None:
    try:
        fcntl.flock(handle, kind | fcntl.LOCK_NB)
    except BlockingIOError:
        raise FolderTaken(folder) from None
    except OSError:
        pass  # a file system without flock: nothing held, nothing refused
