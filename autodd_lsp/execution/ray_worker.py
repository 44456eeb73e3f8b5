"""The worker side of `--backend ray` (ray_backend.py): one slot on the cluster, a warm runner.

`_Worker` is what a Ray actor runs (ray_backend.py makes it remote; this module imports no
Ray): a ForkServerBackend with one job slot, the program's imports preloaded, one fresh fork
per candidate. It runs the candidate in place where the nodes share this machine's files,
else in the copy of the source's folder that Ray shipped (its `working_dir`), with that
copy's path put back to the source's folder in the output. It runs the engine's
compilation of the candidate when given one (marshalled, from a Python like its own), as
the runner's child does: a code-probed candidate's frozen regions are then seen in its own
run. With `timing` it hands back its stage marks (execution/stages.py).
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
from dataclasses import replace
from types import CodeType

import autodd_lsp.execution.stages as stages
from autodd_lsp.execution.backend import CancelEvent
from autodd_lsp.execution.capture import cancelled_result
from autodd_lsp.execution.runner.wire import code_header
from autodd_lsp.files import sweep_stale_tempdirs

CODE_HEADER = code_header()  # this Python's: a worker of another one compiles the file itself


def _loaded(code: bytes) -> tuple[CodeType, ...] | None:
    """The code objects `RayBackend._shipped_code` marshalled; None if none, or made by another Python."""
    if not code.startswith(CODE_HEADER):
        return None
    try:
        codes = marshal.loads(memoryview(code)[len(CODE_HEADER):])
    except (EOFError, ValueError, TypeError):
        return None
    return codes if isinstance(codes, tuple) else None


class _Worker:
    """One slot on the cluster: a warm runner that runs one candidate at a time.

    Threaded (max_concurrency=2) so that `cancel` reaches it while `run` waits.
    """

    def __init__(self, python, cwd, folder, preload, output_limit, extra_env, shipped, launch):
        from autodd_lsp.execution.runner.client import ForkServerBackend

        self.folder = folder
        self.root = os.getcwd() if shipped else None  # the folder's copy (runtime_env working_dir)
        if self.root is not None:
            python = python if os.access(python, os.X_OK) else sys.executable
            cwd = self._map(cwd) if self._inside(cwd) else self.root
            launch = replace(launch, stdin=self._map(launch.stdin))  # an input file in the folder: its copy
        self.written: set[str] = set()
        self.cancels: dict[int, CancelEvent] = {}
        self.cancelled: set[int] = set()
        self.lock = threading.Lock()
        sweep_stale_tempdirs()  # what workers killed on this node before left in its temporary folder
        self.backend = ForkServerBackend(
            python, cwd, jobs=1, extra_sys_path=[self._map(folder)], preload=preload,
            output_limit=output_limit, extra_env=extra_env, launch=launch,
        )
        self.backend.start()

    def _inside(self, path):
        return path == self.folder or path.startswith(self.folder.rstrip(os.sep) + os.sep)

    def _map(self, path):
        if self.root is None or not self._inside(path):
            return path
        return self.root + path[len(self.folder.rstrip(os.sep)):]

    def ready(self):
        return self.backend.degraded(), os.getpid()

    def cancel(self, run_id):
        with self.lock:
            event = self.cancels.get(run_id)
            if event is None:
                self.cancelled.add(run_id)
        if event is not None:
            event.set()

    def run(self, run_id, path, text, timeout, learn_imports, code=b"", timing=False):
        """The candidate's RunResult; with `timing`, (it, its stage marks on this worker, this pid).

        `text`: the file's bytes, written into the folder's copy (b"" where the file is shared);
        `code`: its compilation, marshalled (b"": compile the file), run instead of the file."""
        event = CancelEvent()
        if timing:
            stages.attach(event)
            stages.mark(event, "start")
        result = self._run(event, run_id, path, text, timeout, learn_imports, _loaded(code) if code else None)
        if not timing:
            return result
        stages.mark(event, "return")
        return result, stages.marks(event), os.getpid()

    def _run(self, event, run_id, path, text, timeout, learn_imports, code):
        with self.lock:
            if run_id in self.cancelled:
                self.cancelled.discard(run_id)
                return cancelled_result()
            self.cancels[run_id] = event
        try:
            if self.root is not None:
                path = self._map(path)
                with open(path, "wb") as handle:
                    handle.write(text)
                self.written.add(path)
            result = self.backend.run(path, timeout, event, code=code, learn_imports=learn_imports)
        finally:
            with self.lock:
                self.cancels.pop(run_id, None)
        if self.root is None:
            return result
        root, folder = os.fsencode(self.root.rstrip(os.sep)), os.fsencode(self.folder.rstrip(os.sep))
        return replace(result, stdout=result.stdout.replace(root, folder), stderr=result.stderr.replace(root, folder))

    def learned(self):
        """The modules this worker's runner learned to preload from `learn_imports` runs."""
        return list(self.backend.learned)

    def adopt(self, names):
        """Preload `names` too from now on (what another worker learned)."""
        self.backend.adopt(names)

    def shutdown(self):
        self.backend.close()
        for path in self.written:
            try:
                os.remove(path)
            except OSError:
                pass
