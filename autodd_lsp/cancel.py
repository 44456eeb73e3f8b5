"""What a cancel flag is: the one shape the search, the execution layer and the engine share.

A candidate's run is stopped through a flag set from another thread. The search
only sets and reads it; a backend also waits on it. `threading.Event` is one;
so is `execution.CancelEvent`, which also wakes a backend at once. A protocol
here, not a class, so that neither layer imports the other for it.
"""

from __future__ import annotations

from typing import Protocol


class Cancel(Protocol):
    def is_set(self) -> bool: ...

    def set(self) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...
