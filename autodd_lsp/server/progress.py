"""Progress of one run: work-done progress (begin, throttled reports, end, the client's Cancel)
and the structured `autodd/progress` notification, sent together at most four times a second.

Clients render `autodd/progress` from its fields (pass, sizes, candidates, rate,
percentage); the work-done report's message is the same in words, for clients
that only show `$/progress`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable

from lsprotocol import types

from autodd_lsp.engine import Size, Stats

logger = logging.getLogger(__name__)

REPORT_INTERVAL_S = 0.25  # at most four reports a second
PROGRESS_NOTIFICATION = "autodd/progress"


def size_dict(size: Size) -> dict:
    return {"lines": size.lines, "nodes": size.nodes}


def structured_progress(original: Size, size: Size, stats: Stats | None) -> dict:
    """The fields of `autodd/progress` other than the run's identity."""
    candidates = stats.candidates_run if stats is not None else 0
    elapsed = stats.elapsed if stats is not None else 0.0
    return {
        "pass": stats.current_pass if stats is not None else "",
        "size": size_dict(size),
        "original": size_dict(original),
        "candidates": candidates,
        "rate": round(candidates / elapsed, 2) if elapsed > 0 else 0.0,
        "percentage": reduction_percentage(original, size) or 0,
    }


def describe_progress(original: Size | None, size: Size | None, stats: Stats | None) -> str:
    """'remove statements · 1340 → 420 nodes · 312 candidates'."""
    parts = []
    if stats is not None and stats.current_pass:
        parts.append(stats.current_pass)
    if original is not None and size is not None:
        parts.append(f"{original.nodes} → {size.nodes} nodes")
    if stats is not None:
        runs = stats.candidates_run
        parts.append(f"{runs} candidate{'' if runs == 1 else 's'}")
    return " · ".join(parts)


def reduction_percentage(original: Size | None, size: Size | None) -> int | None:
    if original is None or size is None or not original.nodes:
        return None
    return max(0, min(100, round(100 * (1 - size.nodes / original.nodes))))


class RunProgress:
    """The progress bar of one run; silent when the client cannot show one."""

    def __init__(self, server, title: str, token: types.ProgressToken | None = None,
                 identity: dict | None = None) -> None:
        self.server = server
        self.title = title
        self.token = token
        self.identity = identity or {}  # runId, uri, outputUri: the head of every autodd/progress
        self._pending: tuple[str, int | None, dict | None] | None = None
        self._last_sent = 0.0
        self._flush_handle: asyncio.TimerHandle | None = None
        self._ended = False

    async def begin(self, message: str, on_cancel: Callable[[], None]) -> None:
        if self.token is None and self._client_supports_progress():
            self.token = f"autodd-{uuid.uuid4()}"
            try:
                await asyncio.wait_for(self.server.work_done_progress.create_async(self.token), 10)
            except Exception as error:  # noqa: BLE001 - the client refused: run without a progress bar
                logger.info("no progress bar: %s", error)
                self.token = None
        if self.token is None:
            return
        progress = self.server.work_done_progress
        progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=self.title, message=message, cancellable=True, percentage=0),
        )
        def cancelled(future: asyncio.Future[object]) -> None:
            if future.cancelled():
                on_cancel()

        progress.tokens[self.token].add_done_callback(cancelled)

    def report(self, message: str, percentage: int | None = None, fields: dict | None = None) -> None:
        """Show `message` (and send `fields` as autodd/progress); reports closer together than
        REPORT_INTERVAL_S are merged (the newest wins)."""
        if self._ended:
            return
        self._pending = (message, percentage, fields)
        loop = asyncio.get_running_loop()
        wait = self._last_sent + REPORT_INTERVAL_S - loop.time()
        if wait <= 0:
            self._flush()
        elif self._flush_handle is None:
            self._flush_handle = loop.call_later(wait, self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        if self._pending is None or self._ended:
            return
        message, percentage, fields = self._pending
        self._pending = None
        self._last_sent = asyncio.get_running_loop().time()
        if fields is not None:
            self.server.protocol.notify(PROGRESS_NOTIFICATION, {**self.identity, **fields})
        if self.token is not None:
            self.server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    def end(self, message: str) -> None:
        if self._ended:
            return
        self._ended = True
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        if self.token is None:
            return
        self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        self.server.work_done_progress.tokens.pop(self.token, None)

    def _client_supports_progress(self) -> bool:
        window = self.server.client_capabilities.window
        return bool(window and window.work_done_progress)
