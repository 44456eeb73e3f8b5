"""Showing a reduction on the terminal: a live status line, or plain log lines."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from autodd_lsp.engine import (
    Accepted,
    Event,
    Failed,
    Finished,
    Notice,
    PassStarted,
    Progress,
    Size,
    Started,
    Stats,
)
from autodd_lsp.wording import counted

if TYPE_CHECKING:
    from rich.status import Status


def status_text(size: Size, original: Size, stats: Stats) -> str:
    rate = stats.candidates_run / stats.elapsed if stats.elapsed > 0 else 0.0
    return (
        f"{stats.current_pass} · {original.lines} → {counted(size.lines, 'non-blank line')} · "
        f"{original.nodes} → {counted(size.nodes, 'node')} · {counted(stats.candidates_run, 'candidate')} "
        f"({rate:.0f}/s) · {stats.elapsed:.1f} s"
    )


def step_label(before: Size | None, after: Size) -> str:
    """"smaller" for an accepted step that shrank the program (neither lines nor nodes went up),
    else "accepted" (inlining a module, say, makes it bigger before it shrinks)."""
    if before is not None and after.lines <= before.lines and after.nodes <= before.nodes \
            and (after.lines, after.nodes) != (before.lines, before.nodes):
        return "smaller"
    return "accepted"


class TerminalReporter:
    """Listener for engine events. On a terminal: one live status line on stderr."""

    def __init__(self, quiet: bool = False, verbose: bool = False, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.verbose = verbose
        self.live = not quiet and _is_terminal(self.stream)
        if self.live:
            from rich.console import Console  # ~70 ms to import: only for a terminal

            self.console = Console(file=self.stream, highlight=False)
            self.live = self.console.is_terminal
        self._status: Status | None = None
        self._original: Size | None = None
        self._size: Size | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            self._original = self._size = event.original
            self._log(f"autodd: original: {event.original}; checking that it fails")
            if self.live:
                status = self.console.status("checking the original…")
                status.start()
                self._status = status
        elif isinstance(event, (PassStarted, Progress, Accepted)):
            before = self._size
            if isinstance(event, (Progress, Accepted)):
                self._size = event.size
            self._show(event, before)
        elif isinstance(event, Notice):
            self._note(f"autodd: note: {event.message}")
        elif isinstance(event, (Finished, Failed)):
            self.close()

    def _show(self, event: PassStarted | Progress | Accepted, before: Size | None = None) -> None:
        if self._size is None or self._original is None:
            return  # before Started: nothing to compare with
        text = status_text(self._size, self._original, event.stats)
        if self._status is not None:
            self._status.update(text)
        elif isinstance(event, PassStarted) and self.verbose:
            self._log(f"autodd: pass: {text}")
        elif isinstance(event, Accepted):
            self._log(f"autodd: {step_label(before, self._size)}: {text}")

    def _log(self, line: str) -> None:
        if not self.quiet and not self.live:
            print(line, file=self.stream, flush=True)

    def _note(self, line: str) -> None:
        """Like `_log`, but also shown under the live status line (it goes above it)."""
        if self.live and not self.quiet:
            self.console.print(line, markup=False)
        else:
            self._log(line)

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False
