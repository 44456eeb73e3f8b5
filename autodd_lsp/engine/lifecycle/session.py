"""One run's parts, wired together: the host that the fixpoint and the searches call back.

`Reduction.run` builds a `Session` once the backend is up: the candidate tester,
the original's checks (`original.py`), the value recorder (`value_recorder.py`),
the final check (`verify.py`) and the fixpoint (`fixpoint.py`), all over the
run's texts (`texts.py`) and reporter (`reporter.py`). The fixpoint and each
pass's search (`pass_search.py`) reach the rest of the run only through the
methods here (`fixpoint.FixpointHost`): test a candidate, accept a text, show a
smaller one, wait for values, stop, adopt a person's text. It decides nothing:
the roles it wires do.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import replace

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.candidates import CandidateTester
from autodd_lsp.engine.candidate.passing_side import PassingSide
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.lifecycle.events import PassStarted
from autodd_lsp.engine.lifecycle.options import ReduceOptions
from autodd_lsp.engine.lifecycle.original import OriginalChecks
from autodd_lsp.engine.lifecycle.reporter import Reporter
from autodd_lsp.engine.lifecycle.texts import Texts
from autodd_lsp.engine.lifecycle.value_recorder import ValueRecorder
from autodd_lsp.engine.lifecycle.verify import FinalCheck
from autodd_lsp.engine.person.person import (
    Offers,
    OfferVerdict,
    judge_text,
    offered_shadow,
)
from autodd_lsp.engine.rules.protection import (
    frozen_fingerprint,
    frozen_spans,
    guard_spans,
)
from autodd_lsp.engine.rules.seeds import seed_spans
from autodd_lsp.engine.searching.fixpoint import Fixpoint
from autodd_lsp.engine.searching.lookahead import Lookahead
from autodd_lsp.engine.searching.run_map import FailingPath, map_wanted
from autodd_lsp.engine.spec.pytest_target import PytestTest
from autodd_lsp.execution import CancelEvent, RunResult
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.passes import ReductionPass
from autodd_lsp.syntax.origin import identity_shadow
from autodd_lsp.syntax.patch import Edit
from autodd_lsp.syntax.source import Source, Span
from autodd_lsp.values import RecordedValues, ValueLookup


class Session:
    def __init__(
        self, options: ReduceOptions, path: str, texts: Texts, reporter: Reporter, stopped: threading.Event,
        offers: Offers, pytest: PytestTest | None, launcher: Launcher, slots: JobSlots, tester: CandidateTester,
        passing: PassingSide | None = None,
    ) -> None:
        self.options, self.path, self.texts, self.reporter = options, path, texts, reporter
        self.offers, self.pytest, self.launcher, self.slots, self.tester = offers, pytest, launcher, slots, tester
        self._stopped = stopped
        reporter.counters = tester.counters
        self.checks = OriginalChecks(
            options, path, texts, tester, reporter, pytest, tester.jobs,
            lambda: self.cancelled, self._is_program, self._program_paths, passing,
        )
        self.recorder = ValueRecorder(self.checks, launcher)
        self.final = FinalCheck(self.checks, texts, launcher, pytest, self.accept, lambda: self.cancelled,
                                reporter.notice, tester.watch, tester.jobs)
        self.fixpoint = Fixpoint(self)
        # Slots of runs after the final check (the data files cut, data_files.py): their tracebacks are the program's.
        self.elsewhere: list[JobSlots] = []
        # From -j 2, the fixpoint's next searches run ahead on idle jobs (lookahead.py).
        self.lookahead = self.fixpoint.lookahead = (
            Lookahead(tester, slots, lambda: self.checks.run_seconds) if tester.jobs > 1 else None)
        self._best_runs: tuple[str | None, ValueLookup | None] = (None, None)  # the last text recorded, its map
        self._best_runs_lock = threading.Lock()
        self._failed_passes: set[str] = set()

    # -- what the fixpoint and the searches call (fixpoint.FixpointHost) -------
    @property
    def jobs(self) -> int:
        return self.tester.jobs

    @property
    def cancelled(self) -> bool:
        return self._stopped.is_set()

    def test(self, text: str, cancel: Cancel, statements_of: StatementsOf | None = None,
             on_rejected: Callable[[RunResult], None] | None = None, expected: bool = False) -> bool:
        no_match = self.checks.no_match

        def rejected(result: RunResult) -> None:
            if on_rejected is not None:
                on_rejected(result)
            if no_match.watching:  # why nothing matches, said early (no_match.py)
                no_match.rejected(self.checks.observe(result.output, text))

        return self.tester.test(text, cancel, statements_of, rejected)

    def protected(self, source: Source, shadow: str | None) -> list[Span]:
        """What no pass may touch: frozen code, the seeding calls of a deterministic failure (seeds.py),
        and the tests of the program's own check that raises the failure (protection.guard_spans)."""
        guards = [span for test in self.checks.own_check for span in guard_spans(source, shadow, test)]
        return frozen_spans(source) + (seed_spans(source) if self.checks.keep_seeds else []) + guards

    def new_cancel_event(self) -> Cancel:
        return self.tester.new_cancel_event()

    def discarded(self, events: Iterable[Cancel]) -> None:
        self.tester.discarded(events)

    def best_so_far(self) -> str:
        return self.texts.best

    def reduced_original(self) -> str:
        return self.texts.original

    def shadow(self) -> str | None:
        return self.texts.shadow

    def statements_of(self, shadow: Callable[[], str | None]) -> StatementsOf:
        return self.texts.statements_of(shadow)

    def rejection_recorder(self, shadow_base: str | None) -> Callable[[RunResult, str], None] | None:
        return self.texts.learned.recorder(shadow_base, self.checks.failure_line)

    def accept(self, text: str, shadow: str | None, found_by: str | None = None) -> None:
        """`text` is the new best; `found_by`: what found it (the pass under way unless said)."""
        self.checks.no_match.accepted()
        self.texts.accept(text, shadow, self.reporter.current_pass if found_by is None else found_by)
        self.tester.set_best(text)
        if self.lookahead is not None:
            self.lookahead.accepted()  # after the best changed: it compares
        self.reporter.accepted_text(text)

    def show_smaller(self, text: str) -> None:
        self.reporter.show_smaller(text)

    def interrupted(self) -> bool:
        """Stop the search under way: cancelled, or a person's text waits to be adopted."""
        return self._stopped.is_set() or self.offers.waiting

    def offer_waiting(self) -> bool:
        return self.offers.waiting

    def tick(self) -> None:
        self.reporter.tick()

    def pass_started(self, reduction_pass: ReductionPass) -> RecordedValues | None:
        """The pass under way, told; a pass that uses the original's values, or its run map, waits for them."""
        self.reporter.current_pass = reduction_pass.name
        if not self.values_now(reduction_pass)[0]:
            while not self.recorder.done.wait(0.1) and not self.cancelled:
                self.reporter.tick()
        self.reporter.report_degraded(self.tester.backend.degraded)
        self.reporter.emit(PassStarted(reduction_pass.name, self.reporter.stats()))
        return self.recorder.values

    def values_now(self, reduction_pass: ReductionPass) -> tuple[bool, RecordedValues | None]:
        waits = reduction_pass.uses_values or (reduction_pass.uses_map and map_wanted())
        return not waits or self.recorder.done.is_set(), self.recorder.values

    def run_map(self) -> RecordedValues | None:
        return self.recorder.recorded if map_wanted() and self.recorder.done.is_set() else None

    def failing_path(self) -> FailingPath | None:
        return self.checks.failing_path

    def best_run_map(self, text: str) -> ValueLookup | None:
        if not map_wanted() or self.recorder.recorded is None or self.tester.rules.rate_test is not None:
            return None  # no map, or an intermittent failure: one run does not say what every run runs
        with self._best_runs_lock:  # one recording run per text, whichever of the fixpoint or its twin asks first
            if self._best_runs[0] != text:
                recorded, shadow = self.recorder.map_of(text, self.slots), identity_shadow(text)
                self._best_runs = (text, None if recorded is None or shadow is None else ValueLookup(recorded, shadow))
            return self._best_runs[1]

    def refused_without_a_run(self, edit: Edit, error: str) -> None:
        self.texts.learned.add_unrun(self.texts.shadow, edit, error)

    def pass_failed(self, reduction_pass: ReductionPass, error: BaseException) -> None:
        if reduction_pass.name not in self._failed_passes:  # once per pass: it may fail on every text
            self._failed_passes.add(reduction_pass.name)
            self.reporter.notice(f"the pass '{reduction_pass.name}' failed on this program "
                                 f"({type(error).__name__}: {error}) and was skipped; please report it")

    def adopt_offer(self) -> bool:
        """Go on from a person's text that fails the same way, with its frozen regions as the rule."""
        if self.cancelled:
            return False  # a waiting offer is refused by close()
        taken = self.offers.take()
        if taken is None:
            return False
        text, adopted = taken
        frozen = frozen_fingerprint(text)
        self.tester.judge_by(replace(
            self.tester.rules,
            well_formed=(lambda candidate: frozen_fingerprint(candidate) == frozen) if frozen else (lambda candidate: True),
            frozen=self.checks.frozen_check(text) if frozen and self.options.match == "same" else None,
        ))
        self.fixpoint.forget_needed()  # what follows depends on the adopted text alone
        self.accept(text, self.offered_shadow(text), "your text")
        adopted()
        self.reporter.notice("the text you gave fails the same way: the reduction goes on from it")
        return True

    def close(self, wait: bool = True) -> None:
        """Nothing more runs ahead (at the end of the reduction, whatever way it ends); `wait`:
        for the twin's thread too (once the recorder stopped: `Lookahead.close`)."""
        if self.lookahead is not None:
            self.lookahead.close(wait)

    # -- a person's text -------------------------------------------------------
    def judged(self, tester: CandidateTester, text: str, cancel: CancelEvent | None = None) -> OfferVerdict:
        """A person's `text` judged by the run's rules on `tester` (engine/person/person.py)."""
        shadow = self.offered_shadow(text)
        return judge_text(tester, text, self.texts.statements_of(lambda: shadow), self.checks.failure_line, cancel)

    def offered_shadow(self, text: str) -> str | None:
        texts = self.texts
        return offered_shadow(texts.best, texts.shadow, text, texts.original)

    # -- where the program runs ------------------------------------------------
    def _is_program(self, file: str) -> bool:
        """Whether a traceback's file is the program (the source, or a candidate of it)."""
        verify = self.final.slots
        return file == self.path or self.slots.is_program(file) or (verify is not None and verify.is_program(file)) \
            or any(slots.is_program(file) for slots in self.elsewhere)

    def _program_paths(self) -> tuple[str, ...]:
        verify = self.final.slots.paths if self.final.slots is not None else ()
        return (*self.slots.paths, *verify, *(p for slots in self.elsewhere for p in slots.paths), self.path)

