"""Where candidates are written: beside the source, so that they run as the original does.

A program that reads `os.path.join(os.path.dirname(__file__), "data.csv")`, or
imports a sibling module, only runs as it does for the user when its file sits
in its own folder. So each job slot is a hidden file in the source's folder,
`.autodd-<pid>-<slot>-<name>` (its own file per slot, so parallel candidates
never share one; the original's name at the end, so tracebacks read like the
original's), and `sys.path[0]` is that folder as with `python file.py`.

A run's output is read as if the program had run under its own name: the
hidden prefix is taken out of it (`unmasked`), so a traceback says
`/project/load.py`, and so does argparse's `usage: load.py`, exactly as in a
plain run; so does a test module's name as pytest's importlib mode makes it
(`src._autodd-1-job0-test_pack.PackError` reads `test_pack.PackError`).

Nothing is left there: `remove()` deletes every slot file on every exit path of a
run, and a run that was killed (SIGKILL, power loss) leaves files whose pid is
dead, which the next run in that folder deletes first (`sweep_stale_slots`).

The private temporary folder is named after this process too, and swept the
same way (`files.sweep_stale_tempdirs`).

Where the source's folder cannot be written, the slots fall back to a private
temporary folder (one folder per slot, the original's file name), and
`fallback_reason` says why, for the one-line notice the user gets. Scratch
files that are not programs (the recorded values) always go to the temporary
folder, `root`.

Your own check's slots (`--check CMD`, given a `FolderMirror`) are not beside the
source: each is a mirror of its folder in the temporary folder, the candidate in
it under the source's own name (`mirror.py`); the mirror's path in a run's output
reads as the original folder's, and what a run created in it is removed after
the run (`tidy`).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
from dataclasses import replace

from autodd_lsp.engine.candidate.mirror import FolderMirror
from autodd_lsp.execution import RunResult
from autodd_lsp.files import private_tempdir, sweep_stale, sweep_stale_tempdirs

PREFIX = ".autodd-"
_STALE = re.compile(r"^\.autodd-(\d+)-[a-z]+\d*-")


class JobSlots:
    def __init__(self, count: int, file_name: str, beside: str | None = None, kind: str = "job",
                 mirror: FolderMirror | None = None) -> None:
        sweep_stale_tempdirs()
        self.root = private_tempdir("slots")
        self.file_name = file_name
        self.folder: str | None = None  # the source's folder, where the slots are; None: the temporary one
        self.mirror = mirror  # a check's slots: each a mirror of the source's folder (mirror.py)
        self.fallback_reason = ""
        self.paths: list[str] = []
        self._free: queue.SimpleQueue[str] = queue.SimpleQueue()
        if beside is not None and mirror is None:
            sweep_stale_slots(beside)
            try:
                self._claim(os.path.join(beside, self._hidden_name("check")))
                self.folder = beside
            except OSError as error:
                self.fallback_reason = f"{beside} is not writable ({error.strerror or error})"
        for index in range(count):
            self.paths.append(self._new_path(f"{kind}{index}"))  # kind: "job", or "side" (passing_side.py)
            self._free.put(self.paths[-1])

    def _hidden_name(self, slot: str) -> str:
        return f"{PREFIX}{os.getpid()}-{slot}-{self.file_name}"

    @property
    def _prefixes(self) -> list[bytes]:
        return [os.fsencode(os.path.basename(p)[: -len(self.file_name)]) for p in self.paths]

    def _claim(self, path: str) -> None:
        """Create `path`, failing if it exists (or the folder is not writable); then remove it."""
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.remove(path)

    def _new_path(self, slot: str) -> str:
        if self.mirror is not None:
            folder = os.path.join(self.root, slot)
            os.mkdir(folder)
            return self.mirror.build(folder)  # the candidate's file made there, empty
        if self.folder is not None:
            path = os.path.join(self.folder, self._hidden_name(slot))
        else:
            folder = os.path.join(self.root, slot)
            os.mkdir(folder)
            path = os.path.join(folder, self.file_name)
        # Created now, empty (and never another's): a watch of its folder made from here on (the
        # final check's, clean_runs.py) holds it, and never takes it for what a run in flight wrote.
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        return path

    def side_path(self, slot: str) -> str:
        """A program path for a run outside the job slots (the recording run), beside the others."""
        path = self._new_path(slot)
        self.paths.append(path)
        return path

    def scratch_path(self, name: str) -> str:
        """A path for a file that is not a program, in the private temporary folder."""
        return os.path.join(self.root, name)

    def is_program(self, file: str) -> bool:
        """Whether a traceback's file is one of the candidates run here."""
        return file in self.paths

    def unmasked(self, result: RunResult) -> RunResult:
        """`result` with the slots' hidden prefixes taken out of its output (see the module docstring)."""
        if self.mirror is not None:
            return replace(result, stdout=self._unmirror(result.stdout), stderr=self._unmirror(result.stderr))
        if self.folder is None:
            return result
        return replace(result, stdout=self._unmask(result.stdout), stderr=self._unmask(result.stderr))

    def _unmask(self, data: bytes) -> bytes:
        for prefix in self._prefixes:
            # pytest's importlib mode names a module after its path, `src._autodd-1-job0-test_pack`
            # (its classes print as `src._autodd-1-job0-test_pack.PackError`); a plain run, `test_pack`
            module = b"_" + prefix[1:]
            if module in data:
                data = re.sub(rb"\b(?:[A-Za-z_]\w*\.)*" + re.escape(module), b"", data)
            if prefix in data:
                data = data.replace(prefix, b"")
        return data

    def _unmirror(self, data: bytes) -> bytes:
        """`data` with each mirror's path read as the original folder's."""
        assert self.mirror is not None
        root = os.fsencode(self.mirror.root.rstrip(os.sep) + os.sep)
        mirrors = sorted((self.mirror.mirror_of(path) for path in self.paths), key=len, reverse=True)
        for mirror in mirrors:
            mirror_bytes = os.fsencode(mirror + os.sep)
            if mirror_bytes in data:
                data = data.replace(mirror_bytes, root)
        return data

    def tidy(self, path: str) -> None:
        """After a run of the candidate at `path`: what it created in its mirror is removed (mirror.py)."""
        if self.mirror is not None:
            self.mirror.tidy(path)

    def acquire(self) -> str:
        return self._free.get()

    def release(self, path: str) -> None:
        self._free.put(path)

    def remove(self) -> None:
        if self.folder is not None:
            for path in self.paths:
                try:
                    os.remove(path)
                except OSError:
                    pass
        shutil.rmtree(self.root, ignore_errors=True)


def sweep_stale_slots(folder: str) -> None:
    """Delete the slot files of runs in `folder` whose process is gone (killed before cleaning up)."""
    sweep_stale(folder, _STALE, os.remove)
