"""Saying early, in one line, why a run is not getting smaller: no candidate fails the same way.

A candidate that shows the message with another failure line "fails otherwise".
When every candidate does so -- a test module's own exception class printed
under another module name, a path or a pid in the message that the masking
does not cover -- the run tries hundreds of candidates, ends as large as it
started, and only the summary hints at why. So the first `EARLY` candidates
that ran are watched: if none was accepted and `SHOWING` or more of them showed the message
in another failure line than the original's (the others broke elsewhere, as
removals do), the user is told once, naming the line they showed most and the
original's. An acceptance ends the watch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from autodd_lsp.oracle.same import Observation

EARLY = 25  # candidates that ran, all rejected, before the notice
SHOWING = 5  # of them, at least this many showed the message in another failure line (the others broke elsewhere)


class NoMatchWatch:
    def __init__(self, original: Observation | None, say: Callable[[str], None]) -> None:
        self._original = original
        self._say = say
        self._lock = threading.Lock()
        self._lines: dict[str, int] = {}  # normalized failure line -> rejected candidates showing it
        self._rejected = 0
        self.watching = original is not None

    def rejected(self, seen: Observation | None) -> None:
        """A candidate ran and was rejected, showing `seen` (None: no failure line at all)."""
        if not self.watching or self._original is None:
            return
        with self._lock:
            self._rejected += 1
            if seen is not None and seen.normalized != self._original.normalized:
                self._lines[seen.line.strip()] = self._lines.get(seen.line.strip(), 0) + 1
            if self._rejected < EARLY:
                return
            self.watching = False
            line, count = max(self._lines.items(), key=lambda item: item[1], default=("", 0))
            otherwise = sum(self._lines.values())
        if otherwise >= SHOWING:
            shown = f"{otherwise} show {line!r}" if count == otherwise else f"{otherwise} show other lines (most: {line!r})"
            self._say(
                f"none of the first {EARLY} candidates fails the same way: {shown} where the original "
                f"shows {self._original.line.strip()!r}"
            )

    def accepted(self) -> None:
        self.watching = False
