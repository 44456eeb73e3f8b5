"""The run permits: how many candidates run at once, searches' candidates first.

`jobs` permits. A search's candidate takes one with `with`, waiting if none is
free. A text run ahead of its search (`ahead.py`) takes one only while it is
idle: free, and no search's candidate waiting for it; and when a search's
candidate finds every permit taken, a run ahead that no search waits for is
cancelled to free one (`short`). So running ahead never makes a search wait
for a run it did not ask for longer than it takes to stop one.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator


class RunPermits:
    """`jobs` permits to run, taken with `with` by the searches' candidates; a run ahead of its
    search (`ahead.py`) takes one only while it is idle (`take_idle`: free, nobody waiting), and
    gives it back when a search's candidate finds none free (`short`)."""

    def __init__(self, jobs: int) -> None:
        self._free = jobs
        self._waiting = 0
        self._changed = threading.Condition(threading.Lock())
        self.short: Callable[[], None] = lambda: None  # a search's candidate waits: free one if you can

    def __enter__(self) -> None:
        with self._changed:
            self._waiting += 1
            short = not self._free
        if short:
            self.short()  # runs ahead give theirs back (ahead.py)
        with self._changed:
            while not self._free:
                self._changed.wait()
            self._waiting -= 1
            self._free -= 1

    def __exit__(self, *exc_info: object) -> None:
        self.give_back()

    def give_back(self) -> None:
        with self._changed:
            self._free += 1
            self._changed.notify_all()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """A permit taken already (`take_idle`), given back at the end."""
        try:
            yield
        finally:
            self.give_back()

    def idle(self) -> bool:
        """Whether a permit is free and nobody waits for one."""
        with self._changed:
            return bool(self._free and not self._waiting)

    def take_idle(self, timeout: float) -> bool:
        """Take a permit nobody waits for, waiting up to `timeout` for one; whether taken."""
        with self._changed:
            if not (self._free and not self._waiting):
                self._changed.wait(timeout)
            if self._free and not self._waiting:
                self._free -= 1
                return True
            return False
