"""The original's values, recorded in the background while the first passes run.

One instrumented run of the original (`execution/recording.py`) records the
values its expressions had (`autodd_lsp.values`); the passes that offer them
(`uses_values`) wait until it is done. The recording is used only when that
run fails as the original does (the same failure line): values from a run that
went elsewhere (a program that inspects its own bytecode) would mislead. The
same run records which statements ran (the run map, `run_map.py`), kept as
`recorded`. Values are offered only where they help (`values_help`): not for a
program that reports the failure itself, whose passes get the map alone
(`RecordedValues.map_only`: the constant pass writes no `0` where the run went,
`constants._no_zero_here`). No recording is made for a killed or
hanging program, or a pytest test (`records`).
"""

from __future__ import annotations

import contextlib
import threading

from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.lifecycle.inlined import own_check
from autodd_lsp.engine.lifecycle.original import OriginalChecks
from autodd_lsp.engine.searching.run_map import map_wanted
from autodd_lsp.engine.spec.flaky import RECORD_TRIES
from autodd_lsp.execution import CancelEvent
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.execution.recording import record_values
from autodd_lsp.values import RecordedValues


class ValueRecorder:
    def __init__(self, checks: OriginalChecks, launcher: Launcher) -> None:
        self._checks, self._launcher = checks, launcher
        self.values: RecordedValues | None = None  # offered to the passes (None: no values)
        self.recorded: RecordedValues | None = None  # the whole recording, the run map with it
        self.done = threading.Event()  # set once `values` is final (None: no values)
        self._cancel = CancelEvent()
        self._thread: threading.Thread | None = None
        self._path: str | None = None  # where the recording run's program is written
        self._one_at_a_time = threading.Lock()  # recordings share that path and their records' file

    def start(self, slots: JobSlots, cancelled: bool) -> None:
        """Record in the background when it helps; otherwise the passes go on without values at once."""
        if not cancelled and self.records():
            self._thread = threading.Thread(target=self._record, args=(slots,), name="autodd-values", daemon=True)
            self._thread.start()
        else:
            self.done.set()

    def restart(self, slots: JobSlots, cancelled: bool) -> None:
        """Record again, for a new original (the program with its modules inlined: `inlined.py`)."""
        self.stop()
        self.values, self._thread, self._cancel = None, None, CancelEvent()
        self.done.clear()
        self.start(slots, cancelled)

    def cancel(self) -> None:
        self._cancel.set()

    def stop(self) -> None:
        """Stop the recording run if it still runs (not needed any more), and wait for it."""
        if self._thread is not None:
            self._cancel.set()
            self._thread.join()

    def records(self) -> bool:
        """Whether a recording run can tell anything: the failure seen in the original's run,
        a program that ends by itself (records are written at exit), run as a script."""
        checks = self._checks
        return checks.spec.rules.records_values and not checks.pytest and checks.observation is not None

    def values_help(self) -> bool:
        """Offer the original's values, unless the program reports the failure itself.

        A failure raised by the program's own `raise` or `assert`, or a line it
        prints, is a check of its own computation: writing that computation's
        results in its place would leave a reproducer that shows the message and
        nothing else. Values serve failures that an operation raises in a
        traceback (library code, a subscript, a call).
        """
        checks = self._checks
        if not checks.spec.rules.records_values:
            return False  # a killed program records nothing (record_main.py writes its records at exit)
        if checks.pytest:
            return False  # the recording run runs a script: a test file's test would not run there
        seen = checks.observation
        if seen is None or seen.place is None:
            return False
        if seen.place.library_frame is not None:
            return True
        if seen.place.program_line is None:
            return True
        return not own_check(checks.texts.tree, seen.place.program_line)

    def _record(self, slots: JobSlots) -> None:
        """The recording run(s); `values` stays None unless one fails as the original does."""
        checks = self._checks
        # An intermittent original may not fail in a given run: a few tries.
        tries = 1 if checks.tester.rules.rate_test is None else RECORD_TRIES
        try:
            for _ in range(tries):
                self.recorded, cancelled = self._record_once(checks.texts.original, slots)
                if self.recorded is not None or cancelled:
                    break
            recorded = self.recorded
            self.values = recorded if recorded is None or self.values_help() else (
                recorded.map_only() if map_wanted() else None)
        except OSError:
            self.values = self.recorded = None
        finally:
            self.done.set()

    def map_of(self, text: str, slots: JobSlots) -> RecordedValues | None:
        """One recording run of `text` (the best so far), its records by `text`'s own offsets
        (`engine/searching/best_run.py`); None where it did not fail as the original does, or was not run."""
        if not self.records() or self._cancel.is_set():
            return None
        try:
            return self._record_once(text, slots)[0]
        except OSError:
            return None

    def _record_once(self, text: str, slots: JobSlots) -> tuple[RecordedValues | None, bool]:
        """One recording run of `text`: its records if it failed as the original does, and
        whether it was cancelled."""
        checks = self._checks
        with self._one_at_a_time:  # the best's own run (a twin's too, lookahead.py) and a restarted recording
            if self._path is None:  # one program path for every recording of the run (a restart reuses it)
                self._path = slots.side_path("values")
            watch = checks.tester.watch
            with watch.run() if watch is not None else contextlib.nullcontext():  # no candidate sees its files
                values, result = record_values(
                    text, self._path, slots.scratch_path("values.json"), self._launcher,
                    timeout=checks.record_timeout, cancel=self._cancel,
                )
        result = slots.unmasked(result)
        seen = checks.observe(result.output, text)
        original = checks.observation
        same = seen is not None and original is not None and seen.normalized == original.normalized
        same = same and checks.kind_rule.accepts(result, text)
        return (values if same and not result.cancelled else None), result.cancelled
