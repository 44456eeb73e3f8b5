"""What a reduction tells its listener while it runs: events, sizes and counters.

One `Reporter` per run sends every event (`events.py`) to the listener and
keeps what they carry: the size shown (nodes recounted at most every
`SIZE_RECOUNT` seconds, since counting parses the text), the counters
(`Stats`), the pass under way, and the characters of the newest text shown, so
that a region's smaller text can be shown before the merge accepts it
(`show_smaller`). `Progress` goes out at most every `PROGRESS_INTERVAL`
seconds. It decides nothing about the reduction.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

from autodd_lsp.engine.candidate.candidates import Counters
from autodd_lsp.engine.lifecycle.events import Accepted, Event, Notice, Progress, Stats
from autodd_lsp.syntax.metrics import Size, count_lines, size_of

PROGRESS_INTERVAL = 0.2  # seconds between Progress events
SIZE_RECOUNT = 1.0  # seconds between node counts of accepted texts (a count parses the text)


class Reporter:
    def __init__(self, listener: Callable[[Event], None], text: str, size: Size) -> None:
        self.listener = listener
        self.size = size  # the size shown
        self.started_at = time.monotonic()
        self.accepted = 0
        self.current_pass = ""
        self.counters: Counters | None = None  # the candidate tester's, once the run has started
        self._size_counted_at = 0.0
        self._last_progress = 0.0
        self._show_lock = threading.Lock()
        self._shown_chars = len(text)  # characters of the newest text shown (Accepted)
        self._degraded_reported = False

    def emit(self, event: Event) -> None:
        self.listener(event)

    def notice(self, message: str) -> None:
        self.emit(Notice(message))

    def stats(self) -> Stats:
        counters = self.counters
        return Stats(
            candidates_run=counters.candidates_run if counters else 0,
            runs=counters.runs if counters else 0,
            cache_hits=counters.cache_hits if counters else 0,
            rejected_unparsable=counters.rejected_unparsable if counters else 0,
            stale=counters.stale if counters else 0,
            ahead=counters.ahead if counters else 0,
            accepted=self.accepted,
            elapsed=time.monotonic() - self.started_at,
            current_pass=self.current_pass,
        )

    def tick(self) -> None:
        now = time.monotonic()
        if now - self._last_progress >= PROGRESS_INTERVAL:
            self._last_progress = now
            self.emit(Progress(self.size, self.stats()))

    def accepted_text(self, text: str) -> None:
        """`text` became the best: shown, and counted."""
        with self._show_lock:
            self._shown_chars = len(text)
        self.size = self._size_for_progress(text)
        self.accepted += 1
        self.emit(Accepted(text, self.size, self.stats()))

    def show_smaller(self, text: str) -> None:
        """Show a smaller text that fails the same way (a region's, before the merge) as the
        newest result, without making it the search's base: the search goes on from the
        base, and the merge's text, accepted next, is usually smaller still. So a slow
        program's first improvement is written as soon as one region has one."""
        with self._show_lock:
            if len(text) >= self._shown_chars:
                return
            self._shown_chars = len(text)
            self.size = self._size_for_progress(text)
            self.emit(Accepted(text, self.size, self.stats()))

    def _size_for_progress(self, text: str) -> Size:
        """The size shown while reducing; nodes recounted at most every SIZE_RECOUNT seconds.

        Counting nodes parses the text: on a big file, acceptances in quick
        succession would spend more on that than on their candidates.
        """
        now = time.monotonic()
        if now - self._size_counted_at < SIZE_RECOUNT:
            return replace(self.size, lines=count_lines(text), chars=len(text))
        self._size_counted_at = now
        return size_of(text)

    def report_degraded(self, degraded: Callable[[], str]) -> None:
        """Tell the user, once, that the backend fell back to a slower way of running (`degraded`:
        the backend's reason, "" if it did not). Asked at each pass's start: the first one follows the check of the
        original, where the backend starts, and a later fallback (servers dying) is caught too."""
        reason = "" if self._degraded_reported else degraded()
        if reason:
            self._degraded_reported = True
            self.notice(reason)
