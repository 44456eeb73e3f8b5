"""Trying one candidate text: cheap checks first, then a real run.

Order of checks, cheapest first: not smaller than the current best (reduction
must make progress), already seen (content-hash cache), does not compile or
breaks frozen code (rejected without running), then a run in a free job slot
judged by the oracle.
"""

from __future__ import annotations

import hashlib
import os
import queue
import shutil
import tempfile
import threading
import warnings
from dataclasses import dataclass
from typing import Callable

from autodd_lsp.execution import Backend, RunResult
from autodd_lsp.oracle import FailureOracle
from autodd_lsp.syntax.metrics import order_key


@dataclass
class Counters:
    candidates_run: int = 0
    cache_hits: int = 0
    rejected_unparsable: int = 0


class JobSlots:
    """One private folder per job; a candidate is written there under the original's file name.

    Keeping the file name makes tracebacks look like the original's; a folder
    per job lets parallel candidates never share a file.
    """

    def __init__(self, jobs: int, file_name: str) -> None:
        self.root = tempfile.mkdtemp(prefix="autodd-")
        self._free: queue.SimpleQueue[str] = queue.SimpleQueue()
        for index in range(jobs):
            folder = os.path.join(self.root, f"job{index}")
            os.mkdir(folder)
            self._free.put(os.path.join(folder, file_name))

    def acquire(self) -> str:
        return self._free.get()

    def release(self, path: str) -> None:
        self._free.put(path)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def compiles(text: str, file_name: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings of candidates are not ours to show
            compile(text, file_name, "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


class CandidateTester:
    def __init__(self, backend: Backend, slots: JobSlots, file_name: str) -> None:
        self.backend = backend
        self.slots = slots
        self.file_name = file_name
        self.oracle: FailureOracle | None = None
        self.timeout = 60.0
        self.counters = Counters()
        self._verdicts: dict[bytes, bool] = {}
        self._lock = threading.Lock()
        self._best_key: tuple[int, int] | None = None
        self._active: set[threading.Event] = set()
        self._stopped = False
        # Extra structural check (frozen code intact); the engine sets it when needed.
        self.well_formed: Callable[[str], bool] = lambda text: True

    def new_cancel_event(self) -> threading.Event:
        return threading.Event()

    def cancel_all(self) -> None:
        """Kill every running candidate; later ones are refused."""
        with self._lock:
            self._stopped = True
            for event in self._active:
                event.set()

    def set_best(self, text: str) -> None:
        self._best_key = order_key(text)

    def run(self, text: str, timeout: float, cancel: threading.Event) -> RunResult:
        with self._lock:
            if self._stopped:
                cancel.set()
            self._active.add(cancel)
        path = self.slots.acquire()
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            return self.backend.run(path, timeout, cancel)
        finally:
            self.slots.release(path)
            with self._lock:
                self._active.discard(cancel)

    def test(self, text: str, cancel: threading.Event) -> bool:
        """Is `text` smaller than the best so far and does it still fail the same way?"""
        if self._best_key is not None and order_key(text) >= self._best_key:
            return False  # no progress (often: the edits were moot)
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            known = self._verdicts.get(digest)
            if known is not None:
                self.counters.cache_hits += 1
                return known
        if not compiles(text, self.file_name) or not self.well_formed(text):
            with self._lock:
                self.counters.rejected_unparsable += 1
                self._verdicts[digest] = False
            return False
        result = self.run(text, self.timeout, cancel)
        if result.cancelled:
            return False  # incomplete: never cached
        verdict = self.oracle.is_interesting(result.output, text, timed_out=result.timed_out)
        with self._lock:
            self.counters.candidates_run += 1
            self._verdicts[digest] = verdict
        return verdict
