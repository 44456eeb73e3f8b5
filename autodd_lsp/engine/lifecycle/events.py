"""What a reduction tells its front end while it runs.

The engine calls one listener with these events, from the engine's own thread.
The CLI turns them into a status line; the language server into progress reports
and streamed workspace edits. Listeners must return quickly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autodd_lsp.engine.spec.flaky import FailureRate
from autodd_lsp.syntax.metrics import Size
from autodd_lsp.wording import counted


@dataclass(frozen=True)
class Stats:
    """Running counters; `elapsed` is seconds since the reduction started.

    `runs` counts the runs of those candidates: one each for a deterministic
    failure, as many as the sequential test took for an intermittent one, and
    one more for a frozen-code probe that ran apart from the candidate's run
    (`frozen_probe.py`). `stale` counts the candidates whose run had started when the search
    discarded them unread (a round's moot member, a prefix not needed, a run ahead no search
    took: `search/driver.py`; not in `candidates_run` unless their run ended first). `ahead`
    counts the candidates whose verdict came from a run started before their search asked
    for it, on a job the searches left idle (`lookahead.py`).
    """

    candidates_run: int = 0
    runs: int = 0
    cache_hits: int = 0
    rejected_unparsable: int = 0
    stale: int = 0  # runs started, then discarded because an earlier candidate was accepted (-j > 1)
    ahead: int = 0  # of candidates_run, those run ahead of their search on an idle job (-j > 1)
    accepted: int = 0
    elapsed: float = 0.0
    current_pass: str = ""


@dataclass(frozen=True)
class Started:
    original: Size
    text: str


@dataclass(frozen=True)
class PassStarted:
    name: str
    stats: Stats


@dataclass(frozen=True)
class Progress:
    """Sent now and then (at most a few times a second) so a UI can refresh."""

    size: Size
    stats: Stats


@dataclass(frozen=True)
class Accepted:
    """A smaller candidate still fails the same way; `text` is the new best program."""

    text: str
    size: Size
    stats: Stats


@dataclass(frozen=True)
class DataFile:
    """A file the result reads beside it, as the result needs it (`engine/lifecycle/data_files.py`):
    `name` relative to the program's folder, its size `before` and `after` (bytes), the bytes to
    write beside the result (`data`), how it was cut (`how`: "csv, cut", "a pickle, not cut"), and
    where it goes (`place`): "folder" (the result's data folder), "program" (written into the
    result where it opened it: `data_inline.py`), "dropped" (one of a dataset folder's files
    the failure does not need: written nowhere)."""

    name: str
    before: int
    after: int
    data: bytes
    how: str
    place: str = "folder"

    def describe(self) -> str:
        return f"{self.name}: {self.before:,} -> {self.after:,} bytes ({self.how})"


@dataclass(frozen=True)
class Summary:
    original: Size
    final: Size
    text: str
    stats: Stats
    cancelled: bool = False
    # Whether the final text was re-run once at the end and still reproduced.
    verified: bool = False
    # The rule candidates were judged by ("same failure line, same place" or
    # "message substring"; for a failure without a message, what was kept first:
    # "killed by SIGSEGV; same failure line, same place", "exit status 3",
    # "hangs past 2 s", "matches /K_A = \d+/; same failure line"), and the line
    # showing the failure in the original's output and in the result's final
    # re-run ("" when unknown or when there is none, as for a hang).
    rule: str = ""
    original_failure_line: str = ""
    final_failure_line: str = ""
    # How often the original failed the same way in the runs that measured it, and the
    # result in as many runs with a fresh interpreter at the end; None when the failure
    # was deterministic and no number of runs was asked for (one run each).
    original_rate: FailureRate | None = None
    final_rate: FailureRate | None = None
    signal: int | None = None  # --crash: the signal the original died by, required of the result
    # A numeric comparison that fails (oracle/operands.py): its record in the original's run and the result's.
    original_comparison: dict[str, Any] | None = None
    final_comparison: dict[str, Any] | None = None
    # The files the result reads beside it, cut with it (data_files.py); () when it reads none (or
    # fails alone, or --no-data). `data_seconds`, `data_candidates`: what cutting them took.
    data: tuple[DataFile, ...] = ()
    data_candidates: int = 0
    data_seconds: float = 0.0

    def data_in(self, place: str) -> tuple[DataFile, ...]:
        """The data files that go to `place` ("folder": the data folder; "program": written in;
        "dropped": not needed)."""
        return tuple(item for item in self.data if item.place == place)

    def describe(self) -> str:
        o, f, s = self.original, self.final, self.stats
        pct = 100.0 * (1 - f.nodes / o.nodes) if o.nodes else 0.0
        head = "Stopped early" if self.cancelled else "Done"
        if self.cancelled and not self.verified:  # a stopped run skips the final check
            check = "not re-run (stopped early)"
        elif self.final_rate is not None and self.original_rate is not None:
            final, runs = self.final_rate, self.final_rate.runs
            seen = "still fails the same way" if self.verified else "NOT reproduced"
            check = (
                f"re-run {runs} times: {seen}, {final.describe()}; "
                f"the original {self.original_rate.describe()}"
            )
        elif self.verified:
            check = "re-run: still fails the same way"
        else:
            check = "re-run: NOT reproduced"
        run_count = f" ({counted(s.runs, 'run')})" if s.runs != s.candidates_run else ""
        change = f"({pct:.0f}% smaller), " if f.nodes < o.nodes else (
            f"({-pct:.0f}% larger), " if f.nodes > o.nodes else "(the same size), ")
        return (
            f"{head}: {o.lines} -> {counted(f.lines, 'non-blank line')}, "
            f"{o.nodes} -> {counted(f.nodes, 'AST node')} "
            + change
            + f"{counted(s.candidates_run, 'candidate')} run{run_count}, "
            + (f"{s.ahead} of them ahead of their search, " if s.ahead else "")
            + f"{counted(s.cache_hits, 'cache hit')}, {s.rejected_unparsable} rejected without running, "
            + (f"{s.stale} started and discarded as stale, " if s.stale else "")
            + f"{s.elapsed:.1f} s; {check}" + (f" (rule: {self.rule})." if self.rule else ".")
        )


@dataclass(frozen=True)
class Finished:
    summary: Summary


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not a failure (e.g. a slower backend is in use)."""

    message: str


@dataclass(frozen=True)
class Failed:
    """The reduction could not start or could not go on (e.g. the original does not reproduce)."""

    reason: str
    output_tail: str = ""


Event = Started | PassStarted | Progress | Accepted | Notice | Finished | Failed

__all__ = [
    "Accepted",
    "DataFile",
    "Event",
    "Failed",
    "Finished",
    "Notice",
    "PassStarted",
    "Progress",
    "Size",
    "Started",
    "Stats",
    "Summary",
]
