"""Engine orchestration (being written): see the package docstring for the API."""

from __future__ import annotations

import threading
from typing import Callable

from autodd_lsp.engine.events import Event, Summary
from autodd_lsp.engine.options import ReduceOptions


class Reduction:
    def __init__(self, source_text: str, source_path: str, options: ReduceOptions,
                 listener: Callable[[Event], None] | None = None) -> None:
        raise NotImplementedError("engine not written yet")

    def run(self) -> Summary:
        raise NotImplementedError

    def cancel(self) -> None:
        raise NotImplementedError
