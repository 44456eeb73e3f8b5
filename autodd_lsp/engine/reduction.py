"""`Reduction`, the engine's facade: one reduction of one program, run from start to finish.

See the package docstring for the API (`run`, `cancel`, `offer`, `why_kept`,
`try_text`). A run, and the module that does each step:
  1. the original runs until its failure is known, stable or measured, and the
     candidates' rules are set (`original.py`; the inlining swap, `inlined.py`);
     its values are recorded in the background (`value_recorder.py`);
  2. the pass groups run to a fixpoint (`fixpoint.py`), each pass's edits
     searched by `pass_search.py`, each candidate tested by `candidates.py`
     and judged by `judge.py`; a person's text may be adopted between groups
     (`loop.py`);
  3. the result is re-run in a fresh interpreter, the history bisected if it no
     longer fails (`verify.py`), and the summary returned.
Everything that starts the program gets the one `Launcher` built here at the
start of a run; events go out through one `Reporter` (`progress.py`). This
class holds the run together and is the host that the fixpoint and the searches
call back (accept a text, test a candidate, stop); it decides nothing itself.
"""

from __future__ import annotations

import ast
import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidates import CandidateTester, JobSlots
from autodd_lsp.engine.errors import NotReproducible, UsageError
from autodd_lsp.engine.events import (
    Event,
    Failed,
    Finished,
    PassStarted,
    Started,
    Summary,
)
from autodd_lsp.engine.fixpoint import Fixpoint
from autodd_lsp.engine.judge import KIND_ENV
from autodd_lsp.engine.loop import (
    Kept,
    Offers,
    OfferVerdict,
    judge_text,
    offered_shadow,
    syntax_problem,
)
from autodd_lsp.engine.options import ReduceOptions
from autodd_lsp.engine.original import OriginalChecks
from autodd_lsp.engine.progress import Reporter
from autodd_lsp.engine.protection import frozen_fingerprint
from autodd_lsp.engine.pytest_target import PYTEST_ENV, PytestTest
from autodd_lsp.engine.texts import Texts, parse_program
from autodd_lsp.engine.value_recorder import ValueRecorder
from autodd_lsp.engine.verify import FinalCheck
from autodd_lsp.execution import SCRIPT, CancelEvent, RunResult
from autodd_lsp.execution.gpus import GpuPool
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.passes import ReductionPass
from autodd_lsp.syntax.metrics import size_of
from autodd_lsp.values import RecordedValues


class Reduction:
    def __init__(
        self,
        source_text: str,
        source_path: str,
        options: ReduceOptions,
        listener: Callable[[Event], None] | None = None,
    ) -> None:
        options.validate()  # once: nothing changes the options afterwards
        self.options = options
        self.path = os.path.abspath(source_path)
        tree = parse_program(source_text, self.path)
        self._texts = Texts(source_text, tree)
        self._reporter = Reporter(listener or (lambda event: None), source_text, size_of(source_text, tree))
        self._stopped = threading.Event()
        self._jobs = options.jobs  # --backend ray without -j: the cluster's slots, counted when the run starts
        self._tester: CandidateTester | None = None
        self._slots: JobSlots | None = None
        self._launcher: Launcher | None = None
        # A pytest test of the file (engine/pytest_target.py), or None: the file runs as a script.
        self._pytest = PytestTest(options.test) if options.test else None
        self._checks: OriginalChecks | None = None
        self._recorder: ValueRecorder | None = None
        self._final: FinalCheck | None = None
        self._fixpoint = Fixpoint(self)
        # The user in the loop (engine/loop.py): offered texts, and what rejected removals did.
        self._rules_ready = threading.Event()
        self._offers = Offers(self._judge_offer, self._rules_ready)

    @property
    def original_text(self) -> str:
        return self._texts.original

    @property
    def best_text(self) -> str:
        return self._texts.best

    # -- public API ------------------------------------------------------------
    def run(self) -> Summary:
        original = self._reporter.size
        self._reporter.started_at = time.monotonic()
        if self.options.backend == "ray":
            self._connect_ray()
        jobs = self.jobs
        self._reporter.emit(Started(original, self._texts.original))
        launcher = self._launcher = self._launcher_for_run()
        slots = self._slots = JobSlots(jobs + 1, os.path.basename(self.path), beside=os.path.dirname(self.path))
        if slots.fallback_reason:
            self._reporter.notice(
                f"{slots.fallback_reason}: candidates run from a temporary folder, so files the program "
                "reads beside itself (through __file__) are not found there"
            )
        backend = launcher.backend(
            self.options.backend, jobs=jobs,
            preload=(["pytest"] if self._pytest else []) + top_level_imports(self._texts.tree),
            **({"address": self.options.ray_address} if self.options.backend == "ray" else {}),
        )
        tester = self._tester = CandidateTester(backend, slots, jobs)
        self._reporter.counters = tester.counters
        checks = self._checks = OriginalChecks(
            self.options, self.path, self._texts, tester, self._reporter, self._pytest, jobs,
            lambda: self.cancelled, self._is_program, self._program_paths,
        )
        recorder = self._recorder = ValueRecorder(checks, launcher)
        final = self._final = FinalCheck(checks, self._texts, launcher, self._pytest, self.accept, lambda: self.cancelled)
        verified = False
        try:
            with ThreadPoolExecutor(jobs + 1, thread_name_prefix="autodd-job") as pool:
                checks.check(pool)
                self._rules_ready.set()
                recorder.start(slots, self.cancelled)
                self._fixpoint.run(pool)
                self._offers.close()
            backend.close()  # free the warm servers before the standalone check
            verified = final.run(slots, tester.rules, self.options.backend)
        except NotReproducible as error:
            self._reporter.emit(Failed(str(error), error.output_tail))
            raise
        except OSError as error:  # e.g. the interpreter vanished, the disk is full
            reason = f"cannot run candidates with {self.options.python}: {error.strerror or error}"
            self._reporter.emit(Failed(reason))
            raise UsageError(reason) from None
        finally:
            self._offers.close()
            backend.close()
            recorder.stop()
            slots.remove()
        summary = Summary(
            original, size_of(self.best_text), self.best_text, self._reporter.stats(), self.cancelled, verified,
            rule=checks.rule,
            original_failure_line=checks.observation.line if checks.observation else "",
            final_failure_line=final.observation.line if final.observation else "",
            original_rate=checks.rate,
            final_rate=final.rate if checks.rate is not None else None,
            signal=getattr(checks.oracle, "signal", None),
        )
        self._reporter.emit(Finished(summary))
        return summary

    def cancel(self) -> None:
        """Stop as soon as possible (any thread); run() returns the best text so far."""
        self._stopped.set()
        if self._recorder is not None:
            self._recorder.cancel()
        for tester in (self._tester, self._final.tester if self._final else None):
            if tester is not None:
                tester.cancel_all()

    @property
    def cancelled(self) -> bool:
        return self._stopped.is_set()

    def offer(self, text: str) -> Future:
        """A person's text, judged at once and adopted if it fails the same way (engine/loop.py)."""
        return self._offers.submit(text)

    def why_kept(self, line: int) -> Kept | None:
        """After run(): what the run saw without line `line` (1-based) of the result; never runs anything."""
        return self._texts.learned.why_kept(self._texts.shadow, line)

    def try_text(self, text: str, cancel: CancelEvent | None = None) -> OfferVerdict:
        """After run(): judge one text by the run's oracle, in a fresh interpreter (engine/loop.py)."""
        if self._tester is None or self._launcher is None or not self._tester.has_rules:
            raise UsageError("the run did not get as far as judging candidates")
        problem = syntax_problem(text)
        if problem:
            return OfferVerdict(False, problem)
        slots = JobSlots(2, os.path.basename(self.path), beside=os.path.dirname(self.path))
        try:
            # As candidates are started now: a script, or the test under pytest (without its conftest.py once inlined).
            with replace(self._launcher, launch=self._tester.backend.launch).backend("subproc") as fresh:
                tester = CandidateTester(fresh, slots, jobs=1, rules=self._tester.rules)
                return self._judged(tester, text, cancel)
        finally:
            slots.remove()

    # -- the host of the fixpoint and of the searches (fixpoint.FixpointHost) --------
    @property
    def jobs(self) -> int:
        """-j: given, or (--backend ray) the cluster's slots, counted when the run starts."""
        if self._jobs is None:
            raise RuntimeError("jobs are known once the run has started")
        return self._jobs

    @property
    def _active_tester(self) -> CandidateTester:
        if self._tester is None:
            raise RuntimeError("the candidate tester exists once the run has started")
        return self._tester

    def test(self, text: str, cancel: Cancel, statements_of: StatementsOf | None = None,
             on_rejected: Callable[[RunResult], None] | None = None) -> bool:
        return self._active_tester.test(text, cancel, statements_of, on_rejected)

    def new_cancel_event(self) -> Cancel:
        return self._active_tester.new_cancel_event()

    def new_chain(self) -> Callable[[], Cancel]:
        return self._active_tester.new_chain()

    def discarded(self, events: Iterable[Cancel]) -> None:
        self._active_tester.discarded(events)

    def best_so_far(self) -> str:
        return self._texts.best

    def reduced_original(self) -> str:
        return self._texts.original

    def shadow(self) -> str | None:
        return self._texts.shadow

    def statements_of(self, shadow: Callable[[], str | None]) -> StatementsOf:
        return self._texts.statements_of(shadow)

    def rejection_recorder(self, shadow_base: str | None) -> Callable[[RunResult, str], None] | None:
        failure_line = self._checks.failure_line if self._checks else ""
        return self._texts.learned.recorder(shadow_base, failure_line)

    def accept(self, text: str, shadow: str | None) -> None:
        self._texts.accept(text, shadow)
        self._active_tester.set_best(text)
        self._reporter.accepted_text(text)

    def show_smaller(self, text: str) -> None:
        self._reporter.show_smaller(text)

    def interrupted(self) -> bool:
        """Stop the search under way: cancelled, or a person's text waits to be adopted."""
        return self._stopped.is_set() or self._offers.waiting

    def offer_waiting(self) -> bool:
        return self._offers.waiting

    def tick(self) -> None:
        self._reporter.tick()

    def pass_started(self, reduction_pass: ReductionPass) -> RecordedValues | None:
        self._reporter.current_pass = reduction_pass.name
        recorder = self._recorder
        if reduction_pass.uses_values and recorder is not None:
            while not recorder.done.wait(0.1) and not self.cancelled:
                self._reporter.tick()
        self._reporter.report_degraded(self._active_tester.backend.degraded)
        self._reporter.emit(PassStarted(reduction_pass.name, self._reporter.stats()))
        return recorder.values if recorder is not None else None

    def adopt_offer(self) -> bool:
        """Go on from a person's text that fails the same way, with its frozen regions as the rule."""
        if self.cancelled:
            return False  # a waiting offer is refused by close()
        taken = self._offers.take()
        if taken is None:
            return False
        text, adopted = taken
        frozen = frozen_fingerprint(text)
        checks = self._checks
        self._active_tester.judge_by(replace(
            self._active_tester.rules,
            well_formed=(lambda candidate: frozen_fingerprint(candidate) == frozen) if frozen else (lambda candidate: True),
            frozen=checks.frozen_check(text) if checks is not None and frozen and self.options.match == "same" else None,
        ))
        self._fixpoint.forget_needed()  # what follows depends on the adopted text alone
        self.accept(text, self._offered_shadow(text))
        adopted()
        self._reporter.notice("the text you gave fails the same way: the reduction goes on from it")
        return True

    # -- helpers ---------------------------------------------------------------
    def _judge_offer(self, text: str) -> OfferVerdict:
        """An offered text, judged by the run's rules (in the offers' thread)."""
        problem = syntax_problem(text)
        if problem:
            return OfferVerdict(False, problem)
        return self._judged(self._active_tester, text)

    def _judged(self, tester: CandidateTester, text: str, cancel: CancelEvent | None = None) -> OfferVerdict:
        shadow = self._offered_shadow(text)
        failure_line = self._checks.failure_line if self._checks else ""
        return judge_text(tester, text, self._texts.statements_of(lambda: shadow), failure_line, cancel)

    def _offered_shadow(self, text: str) -> str | None:
        texts = self._texts
        return offered_shadow(texts.best, texts.shadow, text, texts.original)

    def _launcher_for_run(self) -> Launcher:
        """How every program of this run starts (execution/launcher.py), built once."""
        options = self.options
        # One GPU per running program, shared by every backend of this run (execution/gpus.py).
        return Launcher(
            python=options.python,
            cwd=options.cwd or os.getcwd(),
            extra_sys_path=(os.path.dirname(self.path),),
            # What candidates' environment gets beyond the user's: the kind's, a test's.
            extra_env={**KIND_ENV.get(options.spec.kind, {}), **(PYTEST_ENV if self._pytest else {})},
            output_limit=options.output_limit,
            gpus=GpuPool(options.gpu_ids) if options.gpu_ids else None,
            launch=self._pytest.launch() if self._pytest else SCRIPT,
        )

    def _connect_ray(self) -> None:
        """Connect to the Ray cluster now (a one-line UsageError if it cannot be reached); without
        -j, run one candidate per slot of the cluster."""
        from autodd_lsp.execution.ray_backend import cluster_slots

        address = self.options.ray_address or os.environ.get("RAY_ADDRESS", "")
        try:
            count = cluster_slots(self.options.ray_address)
        except Exception as error:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError...
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            reason = " ".join(str(error).split())[:200] or type(error).__name__
            raise UsageError(f"cannot reach {where}: {reason}") from None
        if self._jobs is None:
            self._jobs = count

    def _is_program(self, file: str) -> bool:
        """Whether a traceback's file is the program (the source, or a candidate of it)."""
        verify = self._final.slots if self._final else None
        slots = self._slots
        return file == self.path or (slots is not None and slots.is_program(file)) or (verify is not None and verify.is_program(file))

    def _program_paths(self) -> tuple[str, ...]:
        verify = self._final.slots.paths if self._final and self._final.slots is not None else ()
        return (*(self._slots.paths if self._slots else ()), *verify, self.path)


def top_level_imports(tree: ast.Module) -> list[str]:
    """Modules the program imports at module level: what a warm runner may preload."""
    names: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            names.extend(alias.name for alias in stmt.names)
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            if stmt.module != "__future__":
                names.append(stmt.module)
    return list(dict.fromkeys(names))
