"""Texts run ahead of the search that will ask for them.

A verdict depends on the candidate's text alone (the cache relies on it), so a
text can be run before a search proposes it. `lookahead.py` predicts the texts
the next searches will propose and asks for them here (`request`), in order;
they run on run permits that are idle (free, and no search's candidate waiting
for one: `permits.py`), each at a slot path of its own beside the job slots. A
search that proposes such a text takes the verdict (`taken`) instead of running
the text again, waiting for it if it still runs; it is counted, learned from and
cached there as if that search had run it, so every decision is the one -j 1
makes. A text that a search is running already is not run ahead (`in_search`),
nor one whose verdict is cached.

When the prediction goes wrong (a search accepted a text), `drop` cancels what
waits and what runs. A run ahead that was started and never taken is counted as
stale (`Counters.stale`: started, then discarded), as a search's are.
"""

from __future__ import annotations

import queue
import threading
from collections import Counter, deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.permits import RunPermits
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.candidate.verdict import CANCELLED, Verdict, text_key
from autodd_lsp.execution import CancelEvent
from autodd_lsp.files import source_bytes
from autodd_lsp.oracle.same import StatementsOf

POLL = 0.01  # seconds between looks at a waiting search's cancel flag


class Counted(Protocol):
    stale: int


class Tester(Protocol):
    """What running ahead needs of the candidate tester (`candidates.CandidateTester`)."""

    @property
    def counters(self) -> Counted: ...

    @property
    def permits(self) -> RunPermits: ...

    def smaller(self, text: str) -> bool: ...

    def verdict(self, digest: bytes) -> bool | None: ...

    def decide(self, text: str, data: bytes, cancel: Cancel, statements_of: StatementsOf | None,
               ahead_path: str | None = None) -> Verdict: ...


@dataclass
class _Run:
    text: str
    data: bytes
    statements_of: StatementsOf | None
    cancel: CancelEvent = field(default_factory=CancelEvent)
    started: bool = False
    wanted: bool = False  # a search waits for its verdict: kept when the prediction is dropped
    done: threading.Event = field(default_factory=threading.Event)
    verdict: Verdict | None = None


class Ahead:
    def __init__(self, tester: Tester, slots: JobSlots, jobs: int) -> None:
        self._tester, self._slots, self._jobs = tester, slots, jobs
        self._paths: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._made = 0
        self._lock = threading.Lock()
        self._asked = threading.Condition(self._lock)
        self._waiting: deque[tuple[bytes, _Run]] = deque()  # asked for, not started
        self._runs: dict[bytes, _Run] = {}  # asked for, not taken (waiting, running or done)
        self._searching: Counter[bytes] = Counter()  # texts a search runs now
        self._closed = False
        self._pool = ThreadPoolExecutor(jobs, thread_name_prefix="autodd-ahead")
        tester.permits.short = self._give_way
        self._thread = threading.Thread(target=self._dispatch, name="autodd-ahead", daemon=True)
        self._thread.start()

    def idle(self) -> bool:
        """Whether a run permit is idle (free, no search's candidate waiting for one)."""
        return self._tester.permits.idle()

    def pending(self) -> int:
        """How many texts asked for have not started yet."""
        with self._lock:
            return len(self._waiting)

    def request(self, text: str, statements_of: StatementsOf | None, digest: bytes | None = None) -> None:
        """Run `text` when a permit is idle, unless its verdict is known or on its way, or it is no
        smaller than the best (a search would refuse it without a run). `digest`: its
        `verdict.text_key`, where the caller has it."""
        if not self._tester.smaller(text):
            return
        data = source_bytes(text)
        digest = text_key(data) if digest is None else digest
        with self._lock:
            if self._closed or digest in self._runs or self._searching[digest] or self._tester.verdict(digest) is not None:
                return
            run = self._runs[digest] = _Run(text, data, statements_of)
            self._waiting.append((digest, run))
            self._asked.notify_all()

    def taken(self, digest: bytes, cancel: Cancel) -> Verdict | None:
        """The verdict on the text of `digest` run ahead, waited for while it runs; None: it was not
        run ahead (or its run was cancelled): the search runs it. A search's candidate cancelled
        while it waits gets a cancelled verdict (the run ahead goes on for a later one)."""
        with self._lock:
            run = self._runs.get(digest)
            if run is None:
                return None
            if not run.started:  # asked for, not begun: the search runs it now itself
                run.cancel.set()
                del self._runs[digest]
                return None
        run.wanted = True
        while not run.done.wait(POLL):
            if cancel.is_set():
                return CANCELLED
        with self._lock:
            if self._runs.get(digest) is run:
                del self._runs[digest]
        verdict = run.verdict
        return None if verdict is None or verdict.decision is None else verdict

    def verdict_of(self, text: str) -> bool | None:
        """The verdict on `text` if known: a search's (the cache), or a run ahead's; else None."""
        return self.verdict_by_key(text_key(source_bytes(text)))

    def verdict_by_key(self, digest: bytes) -> bool | None:
        """`verdict_of` the text whose `verdict.text_key` is `digest`."""
        known = self._tester.verdict(digest)
        if known is not None:
            return known
        with self._lock:
            run = self._runs.get(digest)
            return run.verdict.decision if run is not None and run.verdict is not None else None

    @contextmanager
    def in_search(self, digest: bytes) -> Iterator[None]:
        """A search runs the text of `digest` meanwhile: it is not run ahead."""
        with self._lock:
            self._searching[digest] += 1
        try:
            yield
        finally:
            with self._lock:
                self._searching[digest] -= 1
                if not self._searching[digest]:
                    del self._searching[digest]

    def drop(self) -> None:
        """Forget what was asked for: what waits is not run, what runs is cancelled (stale);
        verdicts that came are kept (a search may still ask for their texts)."""
        with self._lock:
            for digest, run in self._waiting:
                run.cancel.set()
                if self._runs.get(digest) is run:
                    del self._runs[digest]
            self._waiting.clear()
            running = self._unwanted()
        for run in running:
            run.cancel.set()

    def _give_way(self) -> None:
        """A search's candidate finds no run permit free: the latest run ahead that no search
        waits for is cancelled (stale), and its permit goes to that candidate."""
        with self._lock:
            running = self._unwanted()
        if running:
            running[-1].cancel.set()

    def _unwanted(self) -> list[_Run]:
        """The runs ahead under way that no search waits for, oldest first (the lock held)."""
        return [run for run in self._runs.values() if run.started and not run.wanted and not run.done.is_set()]

    def forget(self) -> None:
        """Drop everything, verdicts too (they were judged by rules that changed)."""
        self.drop()
        self._discard_verdicts()

    def close(self) -> None:
        """Stop: what waits or runs is cancelled, and waited for."""
        with self._lock:
            self._closed = True
            self._asked.notify_all()
        self.drop()
        self._thread.join()
        self._pool.shutdown(wait=True)
        self._discard_verdicts()

    def _discard_verdicts(self) -> None:
        """Forget every run ahead; those that ran and were never taken count as stale."""
        with self._lock:
            untaken = sum(1 for run in self._runs.values() if run.verdict is not None and not run.verdict.unparsable)
            self._tester.counters.stale += untaken
            self._runs.clear()

    def _dispatch(self) -> None:
        """Start the texts asked for, in order, each when a run permit is idle."""
        permits = self._tester.permits
        while True:
            with self._lock:
                while not self._waiting and not self._closed:
                    self._asked.wait()
                if self._closed:
                    return
            if not permits.take_idle(POLL * 5):
                continue
            with self._lock:
                while self._waiting and self._waiting[0][1].cancel.is_set():
                    self._waiting.popleft()  # a search took it over before it started
                if not self._waiting or self._closed:
                    permits.give_back()
                    continue
                digest, run = self._waiting.popleft()
                run.started = True
            self._pool.submit(self._run, digest, run, self._path())

    def _run(self, digest: bytes, run: _Run, path: str) -> None:
        """Run one text ahead at `path`, holding the permit `_dispatch` took, given back at the end."""
        verdict = CANCELLED
        try:
            with self._tester.permits.held():
                verdict = self._tester.decide(run.text, run.data, run.cancel, run.statements_of, ahead_path=path)
        finally:
            self._paths.put(path)
            with self._lock:
                run.verdict = verdict
                if verdict.decision is None and self._runs.get(digest) is run:
                    del self._runs[digest]  # cancelled: a search that asks runs it itself
                    self._tester.counters.stale += 1  # started, then thrown away
                run.done.set()

    def _path(self) -> str:
        """A slot path for a run ahead: one of `jobs`, made when first needed."""
        try:
            return self._paths.get_nowait()
        except queue.Empty:
            self._made += 1
            return self._slots.side_path(f"ahead{self._made}")
