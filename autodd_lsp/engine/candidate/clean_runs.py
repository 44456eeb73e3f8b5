"""Clean runs: every run of the program sees the folders as the user had them before AutoDD started.

Candidates run beside the source (`slots.py`), so what one run writes there --
a checkpoint `model.pt`, a `runs/` folder, a downloaded data set -- would be
there for the next: a candidate that keeps only `torch.load("model.pt")` would
fail the same way on the original's checkpoint and nowhere else. So the folders
a run can write to by a plain relative path or through `__file__` (the source's
folder and the working folder) are listed once before the first run (the
baseline), and after each run what it created there is removed: files and
folders that were not in the baseline. Nothing else is touched: a file the
user had is never removed nor restored (a program that rewrites one of the
user's files rewrites it for every run alike).

Bounded: the baseline holds the source's folder and its subfolders down to
`DEPTH` levels (the working folder, when it is another, only its own entries,
and not at all when it is the home folder or `/`, where other programs create
files all the time), at most `MAX_FOLDERS` folders (breadth-first, names sorted);
deeper or further folders are not watched, a new folder anywhere in a watched
one is (it is removed whole). After a run, a folder is listed again only if
its own modification time changed (an entry was added, removed or renamed in
it): one `stat` per watched folder and run, ~1-3 us each.

What counts as the run's: a new entry whose status change time (`ctime`, which
no program can set back, unlike `mtime`: an extracted archive keeps its files'
old mtimes) is not older than the start of the oldest run in flight, minus a
second for coarse file-system clocks. A file someone else creates there while
no run is in flight stays; one created while a run is in flight is taken for
the run's. Never removed: what editors and Python make on their own beside a
file (swap, backup and lock files: `.x.swp`, `x~`, `#x#`, `.#x`; `__pycache__`,
which Python revalidates and which no failure can depend on), AutoDD's own files (`.autodd-*`: job slots,
temporary results; `autodd-<pid>-*`: private temporary folders) and the results
this process writes (`files.atomic_write`: the reproducer shown as it shrinks,
the report); the temporary folder is not watched (when it lies in a watched one).

A file the user had that the original's own run rewrites (`model.pt`, left there
by the user's last run of a script that trains, saves and loads it) is not
removed either, but it is the program's product, not its input: `rewritten()`
names such files (their size or modification time changed since the baseline;
the baseline keeps both for up to `MAX_FILES` files), and `earlier_files.py`
refuses a candidate that reads one before writing it.

One reduction at a time in a folder: another process's reduction, its runs'
files and its result there would be taken for this one's runs' and removed
(`folder_claim.py` keeps the second from starting).

Parallel runs (`-j N`) share the folders: while one writes `model.pt` another
could read it. A program that writes files is found at its first run (the
original's), or at the first run of a candidate that does: from then on runs
go one at a time (`serial`), each cleaned before the next starts, so no run
sees another's files. A program that writes nothing keeps its parallel runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from autodd_lsp.engine.candidate.folder_claim import FolderClaim
from autodd_lsp.files import written_result

DEPTH = 2  # levels of subfolders watched below each watched folder
MAX_FOLDERS = 500  # folders watched at most (each costs one stat per run)
MAX_FILES = 20_000  # files whose size and modification time the baseline keeps (`rewritten`)
CLOCK_SLACK_NS = 1_000_000_000  # file-system timestamps may lag the clock (coarse ticks)
_NOT_WATCHED = frozenset({".git", ".hg", ".svn"})
_OWN = re.compile(r"^(\.autodd-|autodd-\d+-)")  # job slots, results being written; private temporary folders
# Made beside files by editors (swap, backup, lock files, Vim's write test) and by Python itself.
_OTHERS = re.compile(r"^(\..*\.sw[a-p]|.*~|#.*#|\.#.*|4913|__pycache__)$")


class FolderWatch:
    """The baseline of the folders runs may write to, and the removal of what each run created."""

    def __init__(self, folders: Iterable[str], clock: Callable[[], int] = time.time_ns,
                 working_folder: str | None = None) -> None:
        """Watch `folders` down to `DEPTH`, and `working_folder` (if another) by its own entries only."""
        self._clock = clock  # the wall clock file times are compared with, in ns
        roots = [(r, 0) for r in dict.fromkeys(os.path.realpath(f) for f in folders if os.path.isdir(f))]
        if working_folder and os.path.isdir(working_folder):
            cwd = os.path.realpath(working_folder)
            if cwd not in {r for r, _ in roots} and cwd not in (os.path.realpath(os.path.expanduser("~")), os.sep):
                roots.append((cwd, DEPTH))
        self._names: dict[str, frozenset[str]] = {}  # watched folder -> the names it had (the baseline)
        self._seen_mtime: dict[str, int] = {}  # watched folder -> its mtime when last listed
        self._lock = threading.Lock()
        self._one_at_a_time = threading.Lock()
        self._in_flight: dict[int, int] = {}  # run id -> its start (time.time_ns())
        self._ids = iter(range(1 << 62))
        self.serial = False
        self.created: list[str] = []  # paths removed after runs, first seen first (for the notice)
        self._files: dict[str, tuple[int, int]] = {}  # a file of the baseline -> its (mtime, size) then
        self._roots = roots  # (folder, depth it starts at): the source's folder, the working folder
        temporary = os.path.realpath(tempfile.gettempdir())  # others' scratch files come and go there
        queue = list(roots)
        while queue and len(self._names) < MAX_FOLDERS:
            folder, depth = queue.pop(0)
            listed = _list(folder)
            if listed is None:
                continue
            mtime, entries = listed
            self._names[folder], self._seen_mtime[folder] = frozenset(entries), mtime
            for name in sorted(entries):
                if not entries[name] and len(self._files) < MAX_FILES \
                        and not (_OWN.match(name) or _OTHERS.match(name)):
                    path = os.path.join(folder, name)
                    stamp = _stamp(path)
                    if stamp is not None:
                        self._files[path] = stamp
            if depth < DEPTH:
                queue.extend((path, depth + 1) for path in (os.path.join(folder, name) for name in sorted(entries)
                             if entries[name] and name not in _NOT_WATCHED) if path != temporary)

    def claim(self) -> FolderClaim:
        """Hold the folders this watch removes files from against other processes' reductions
        (`folder_claim.py`); FolderTaken where one holds them. `release()` the claim at the end."""
        return FolderClaim([folder for folder, depth in self._roots if folder in self._names and not depth],
                           [folder for folder, depth in self._roots if folder in self._names and depth],
                           list(self._names), DEPTH)

    @contextlib.contextmanager
    def run(self) -> Iterator[None]:
        """Around one run of the program: one at a time once the program writes files; after it,
        what it created is removed."""
        serial = self.serial
        if serial:
            self._one_at_a_time.acquire()
        with self._lock:
            run_id = next(self._ids)
            self._in_flight[run_id] = self._clock()
        try:
            yield
        finally:
            try:
                self.sweep()
            finally:
                with self._lock:
                    del self._in_flight[run_id]
                if serial:
                    self._one_at_a_time.release()

    def sweep(self) -> list[str]:
        """Remove what runs in flight created in the watched folders; the paths removed."""
        with self._lock:
            since = min(self._in_flight.values(), default=self._clock()) - CLOCK_SLACK_NS
        removed = []
        for folder, names in self._names.items():
            try:
                mtime = os.stat(folder).st_mtime_ns
            except OSError:
                continue  # gone (the program removed a folder of the user's: not ours to restore)
            if mtime == self._seen_mtime[folder]:
                continue
            listed = _list(folder)
            if listed is None:
                continue
            self._seen_mtime[folder] = listed[0]  # the stat before the listing: a later change is seen next time
            for name in sorted(set(listed[1]) - names):
                path = os.path.join(folder, name)
                if _OWN.match(name) or _OTHERS.match(name) or written_result(path) or not _created_since(path, since):
                    continue
                if remove_entry(path):
                    removed.append(path)
        if removed:
            with self._lock:
                self.serial = True
                self.created.extend(removed)
        return removed


    def rewritten(self) -> list[str]:
        """The baseline's files whose size or modification time changed since (a run rewrote them)."""
        return [os.path.realpath(path) for path, stamp in self._files.items() if _stamp(path) not in (stamp, None)]


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def _list(folder: str) -> tuple[int, dict[str, bool]] | None:
    """The folder's mtime (taken before listing it) and its entries: name -> is a folder (not a link)."""
    try:
        mtime = os.stat(folder).st_mtime_ns
        with os.scandir(folder) as scan:
            return mtime, {entry.name: entry.is_dir(follow_symlinks=False) for entry in scan}
    except OSError:
        return None


def _created_since(path: str, since_ns: int) -> bool:
    try:
        return os.lstat(path).st_ctime_ns >= since_ns
    except OSError:
        return False


def remove_entry(path: str) -> bool:
    """Remove a file, link or folder (a link to a folder: the link); False if it could not be."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except OSError:
        return False
    return True


def writes_notice(created: list[str]) -> str:
    """The one line that says a run wrote files, which go after every run."""
    names = ", ".join(os.path.basename(path) for path in created[:3]) + (", ..." if len(created) > 3 else "")
    return (f"the program writes files beside it ({names}): what each run writes is removed after it, and runs "
            "go one at a time, so that no run sees another's files")
