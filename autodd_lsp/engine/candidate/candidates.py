"""Trying one candidate text: cheap checks first, then a real run.

Order of checks, cheapest first: not smaller than the current best (reduction
must make progress), already seen (content-hash cache), does not compile or
breaks frozen code (rejected without running), then a run in a free job slot
judged by the oracle. The compilation is handed to the backend, so that a
warm runner need not compile the candidate again.

There is one file slot more than jobs: the search prepares (renders, compiles,
writes) the next candidate while `jobs` others run.

Candidates are numbered in the order the search proposes them (their cancel
events carry the number, for the timing records). A verdict cancels no other
candidate: a search's round uses every verdict it started (`search/driver.py`),
and the search itself cancels what it throws away.

A candidate runs in its slot, holding its run permit, until its stopping rule
decides (`verdict.run_until_decided`): one run for a deterministic failure;
for an intermittent one (`rate_test` set, see `flaky.py`) the sequential
test's runs. The decision is what the cache keeps and what cancels later
candidates, never one run's verdict. With frozen code, an interesting
candidate is then run probed in the same slot (`frozen_probe.py`).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import CodeType

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.ahead import Ahead
from autodd_lsp.engine.candidate.clean_runs import FolderWatch
from autodd_lsp.engine.candidate.compiler import CandidateCompiler
from autodd_lsp.engine.candidate.permits import RunPermits
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.candidate.verdict import (
    CANCELLED,
    ONE_RUN,
    UNPARSABLE,
    Verdict,
    run_until_decided,
    text_key,
)
from autodd_lsp.engine.rules.frozen_probe import FrozenCheck, split_run
from autodd_lsp.engine.rules.judge import Judge
from autodd_lsp.engine.rules.operand_probe import split_markers
from autodd_lsp.engine.spec.flaky import RateTest
from autodd_lsp.execution import Backend, CancelEvent, RunResult, stages
from autodd_lsp.files import overwrite, source_bytes
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.syntax.metrics import order_key, value_chars


@dataclass
class Counters:
    candidates_run: int = 0
    runs: int = 0  # runs of the candidates counted in candidates_run (a second, probed run too)
    cache_hits: int = 0
    rejected_unparsable: int = 0
    stale: int = 0  # candidates whose run started, then discarded: an earlier one was accepted
    ahead: int = 0  # of candidates_run, those whose verdict a run ahead gave (ahead.py)


class OrderedCancelEvent(CancelEvent):
    """A candidate's cancel flag, numbered in proposal order; `started` once its run began."""

    def __init__(self, order: int) -> None:
        super().__init__()
        self.order = order
        self.started = False
        if stages.ON:  # AUTODD_STAGES: this candidate's timing record starts at its proposal
            stages.begin(self, "proposed", order=order)


def _any_text(text: str) -> bool:
    return True


@dataclass(frozen=True)
class Rules:
    """How candidates are judged: given once, complete, when the original's checks are done
    (`original.OriginalChecks.check`); until then the tester only runs the original."""

    judge: Judge
    timeout: float  # seconds a candidate may run (adaptive: see engine/lifecycle/timeouts.adaptive_timeout)
    well_formed: Callable[[str], bool] = _any_text  # a structural check before running (frozen code intact)
    frozen: FrozenCheck | None = None  # frozen code that must run (probed in the run, or in a second one)
    rate_test: RateTest | None = None  # an intermittent failure: the sequential test over a candidate's runs
    timeout_rejects: bool = True  # with `rate_test`: a run that times out rejects at once
    probe: Callable[[str], str | None] | None = None  # runs the probed copy of each text (operand_probe.py)
    # Works with A: whether a text passes there (passing_side.py); None: cancelled.
    passes_on: Callable[[str, Cancel], bool | None] | None = None


class BestOrder:
    """The best text so far, and whether a text is smaller (`metrics.order_key`): each accepted
    text must be, so that the reduction ends. Any text is smaller while there is no best.
    Asked from several threads: what it works out of the best is kept with that text."""

    def __init__(self) -> None:
        self._text: str | None = None
        # (the best, its code length, its order_key worked out on the first tie)
        self._measured: tuple[str, int, tuple[int, int, int] | None] | None = None

    def set(self, text: str) -> None:
        self._text = text

    def smaller(self, text: str) -> bool:
        # order_key's first part (code length) decides almost always; the literal sum (a regex
        # over the whole text) breaks ties only, so it is worked out on a tie.
        best = self._text
        if best is None:
            return True
        measured = self._measured
        if measured is None or measured[0] is not best:
            measured = self._measured = (best, len(best) - value_chars(best), None)
        code_length = len(text) - value_chars(text)
        if code_length != measured[1]:
            return code_length < measured[1]
        if len(text) != len(best):
            return len(text) < len(best)
        key = measured[2]
        if key is None:
            key = order_key(best)
            self._measured = (best, measured[1], key)
        return order_key(text) < key


class CandidateTester:
    def __init__(self, backend: Backend, slots: JobSlots, jobs: int, rules: Rules | None = None,
                 watch: FolderWatch | None = None) -> None:
        self.backend = backend
        self.slots = slots
        self.watch = watch  # the folders each run must leave as it found them (clean_runs.py)
        self.jobs = jobs  # candidates run at once
        self._running = RunPermits(jobs)
        self._compiler = CandidateCompiler()
        self._rules = rules
        # Runs the probed copy of each text instead (operand_probe.py): set early for --wrong-answer.
        self.probe: Callable[[str], str | None] | None = rules.probe if rules is not None else None
        self.counters = Counters()
        self._verdicts: dict[bytes, bool] = {}
        self._lock = threading.Lock()
        self._best = BestOrder()
        self._numbers = itertools.count()
        # Cancel flags of the candidates not yet judged (weak: a dropped one needs no cancel).
        self._live: weakref.WeakSet[Cancel] = weakref.WeakSet()
        self._stopped = False
        self.ahead: Ahead | None = None  # runs texts ahead of their search (ahead.py), set by the lookahead

    def _as_run(self, text: str) -> str:
        """The text that runs for `text`: itself, or its probed copy."""
        probed = self.probe(text) if self.probe is not None else None
        return text if probed is None else probed

    def judge_by(self, rules: Rules) -> None:
        """From now on, judge candidates by `rules` (once the original's checks are done, and again
        when a person's text is adopted: engine/person/person.py); verdicts cached under other rules go."""
        with self._lock:
            self._rules = rules
            self.probe = rules.probe
            self._verdicts.clear()
        if self.ahead is not None:
            self.ahead.forget()

    @property
    def has_rules(self) -> bool:
        """Whether `judge_by` has been given rules (candidates can be judged)."""
        return self._rules is not None

    @property
    def rules(self) -> Rules:
        """How candidates are judged; only the original runs before `judge_by`."""
        if self._rules is None:
            raise RuntimeError("no rules yet: candidates are judged after judge_by")
        return self._rules

    def new_cancel_event(self) -> OrderedCancelEvent:
        """The cancel flag of the next candidate (made in proposal order)."""
        with self._lock:
            event = OrderedCancelEvent(next(self._numbers))
            self._live.add(event)
        return event

    def discarded(self, events: Iterable[Cancel]) -> None:
        """The search threw these candidates away (no decision used their verdicts): count
        those whose run had started as stale (wasted work, not a verdict)."""
        started = sum(1 for event in events if getattr(event, "started", False))
        if started:
            with self._lock:
                self.counters.stale += started

    def cancel_all(self) -> None:
        """Kill every running candidate; later ones are refused."""
        with self._lock:
            self._stopped = True
            events = list(self._live)
        for event in events:
            event.set()

    def set_best(self, text: str) -> None:
        self._best.set(text)

    def run(self, text: str, timeout: float, cancel: Cancel, learn_imports: bool = False) -> RunResult:
        """Run `text` (the original, or a text known to compile) whatever it is."""
        text = self._as_run(text)
        with self._compiled_in_slot(text) as (path, code):
            return self._run_at(path, source_bytes(text), code, timeout, cancel, learn_imports)

    @contextlib.contextmanager
    def _compiled_in_slot(self, text: str) -> Iterator[tuple[str, tuple[CodeType, ...] | None]]:
        """A free slot's file path, and `text` compiled as that file (None if it does not compile)."""
        path = self.slots.acquire()
        try:
            yield path, self._compiler.compile(text, path)
        finally:
            self.slots.release(path)

    @contextlib.contextmanager
    def _compiled_at(self, path: str, text: str) -> Iterator[tuple[str, tuple[CodeType, ...] | None]]:
        """`path` (a slot its caller holds), and `text` compiled as that file."""
        yield path, self._compiler.compile(text, path)

    def _run_at(
        self, path: str, data: bytes, code: tuple[CodeType, ...] | None, timeout: float, cancel: Cancel,
        learn_imports: bool = False,
    ) -> RunResult:
        """Write `data` (the file's bytes) at `path` and run it."""
        with self._staged_run(path, data, code, cancel):
            with self._running:  # the others in flight end (or are cancelled) soon
                _mark_started(cancel)
                return self._backend_run(path, timeout, cancel, code, learn_imports)

    def _backend_run(self, path: str, timeout: float, cancel: Cancel, code: tuple[CodeType, ...] | None,
                     learn_imports: bool = False) -> RunResult:
        """One run of the staged file at `path`, its output unmasked; what it created is cleaned away."""
        with self.watch.run() if self.watch is not None else contextlib.nullcontext():
            stages.mark(cancel, "run")
            try:
                result = self.backend.run(path, timeout, cancel, code=code, learn_imports=learn_imports)
            finally:
                stages.mark(cancel, "returned")
                self.slots.tidy(path)  # a check's mirror as the user had it (mirror.py)
        stages.note(cancel, duration=result.duration, cancelled=result.cancelled)
        return split_markers(self.slots.unmasked(result))  # a probed run's records out of its stderr

    @contextlib.contextmanager
    def _staged_run(self, path: str, data: bytes, code: tuple[CodeType, ...] | None, cancel: Cancel) -> Iterator[None]:
        """`data` written at `path` and staged; `cancel` among the live candidates meanwhile."""
        with self._lock:
            if self._stopped:
                cancel.set()
            self._live.add(cancel)
        try:
            overwrite(path, data)
            self.backend.stage(path, code)
            yield
        finally:
            with self._lock:
                self._live.discard(cancel)

    def run_probed(self, path: str, text: str, cancel: Cancel) -> RunResult | None:
        """Run `text` with its frozen regions probed, in the slot at `path` (whose run permit the caller holds)."""
        frozen = self.rules.frozen
        probed = None if frozen is None else frozen.probe(text)
        code = None if probed is None else self._compiler.compile(probed, path)
        if probed is None or code is None:
            return None
        overwrite(path, source_bytes(probed))
        self.backend.stage(path, code)
        return self._backend_run(path, self.rules.timeout, cancel, code)

    def _frozen_ran(self, path: str, text: str, cancel: Cancel) -> bool | None:
        """Whether the probed `text` runs every frozen region the original ran; None if cancelled."""
        probe = self.run_probed(path, text, cancel)
        if probe is not None and probe.cancelled:
            return None
        frozen = self.rules.frozen
        return probe is not None and frozen is not None and frozen.satisfied(probe.output)

    def test(self, text: str, cancel: Cancel, statements_of: StatementsOf | None = None,
             on_rejected: Callable[[RunResult], None] | None = None) -> bool:
        """Is `text` smaller than the best so far and does it still fail the same way?

        `statements_of` maps a line of `text` to the original statements it came from
        (for the same-place rule); worked out only for a run that needs it.
        `on_rejected`, if given, sees the run of a candidate that ran and was rejected
        (what the reduction learns: engine/person/person.py).
        """
        stages.mark(cancel, "tested")
        if not self._best.smaller(text):
            return False  # no progress (often: the edits were moot)
        data = source_bytes(text)  # hashed for the cache, then written
        digest = text_key(data)
        with self._lock:
            known = self._verdicts.get(digest)
            if known is not None:
                self.counters.cache_hits += 1
                return known
        ahead = self.ahead
        decided = ahead.taken(digest, cancel) if ahead is not None else None  # run ahead (ahead.py)
        was_ahead = decided is not None
        if decided is None:
            with ahead.in_search(digest) if ahead is not None else contextlib.nullcontext():
                decided = self.decide(text, data, cancel, statements_of)
        if decided.unparsable:
            with self._lock:
                self.counters.rejected_unparsable += 1
                self._verdicts[digest] = False
            return False
        if decided.decision is None:
            return False  # cancelled (the run, or the frozen-code probe): incomplete, never cached
        if on_rejected is not None and decided.oracle_rejected and self.rules.rate_test is None:
            # What a removal did is read from its one run; an intermittent failure's runs disagree.
            assert decided.last is not None
            on_rejected(decided.last)
        with self._lock:
            self.counters.candidates_run += 1
            self.counters.ahead += was_ahead
            self.counters.runs += decided.runs
            self._verdicts[digest] = decided.decision
        return decided.decision

    @property
    def permits(self) -> RunPermits:
        return self._running

    def smaller(self, text: str) -> bool:
        """Whether `text` is smaller than the best so far (else it is refused without a run)."""
        return self._best.smaller(text)

    def verdict(self, digest: bytes) -> bool | None:
        """The cached verdict on the text of `digest` (None: none)."""
        return self._verdicts.get(digest)

    def decide(self, text: str, data: bytes, cancel: Cancel, statements_of: StatementsOf | None,
               ahead_path: str | None = None) -> Verdict:
        """`text` (whose bytes are `data`) compiled, checked, and run until its stopping rule decides:
        in a free job slot, taking a run permit; or at `ahead_path` with a permit already taken
        (a run ahead of its search, `ahead.py`), held by the caller."""
        stages.begin(cancel, "decide")  # AUTODD_STAGES only (execution/stages.py)
        verdict = None
        try:
            verdict = self._decide(text, data, cancel, statements_of, ahead_path)
            return verdict
        finally:
            stages.finish(cancel, verdict=verdict and verdict.decision, runs=verdict and verdict.runs,
                          ahead=ahead_path is not None)

    def _decide(self, text: str, data: bytes, cancel: Cancel, statements_of: StatementsOf | None,
                ahead_path: str | None) -> Verdict:
        rules = self.rules
        run_text = self._as_run(text)
        if run_text is not text:
            data = source_bytes(run_text)
        in_slot = self._compiled_in_slot(run_text) if ahead_path is None else self._compiled_at(ahead_path, run_text)
        permit = self._running if ahead_path is None else contextlib.nullcontext()  # held by the caller
        with in_slot as (path, code):
            stages.mark(cancel, "compiled")
            # not run: does not compile, or breaks frozen code; or stale already (see the module's docstring)
            early = UNPARSABLE if code is None or not rules.well_formed(text) else CANCELLED if cancel.is_set() else None
            if early is not None:
                return early
            return self._run_until_decided(path, data, code, cancel, text, statements_of, run_text, permit)

    def _run_until_decided(
        self, path: str, data: bytes, code: tuple[CodeType, ...] | None, cancel: Cancel, text: str,
        statements_of: StatementsOf | None, run_text: str, permit: contextlib.AbstractContextManager,
    ) -> Verdict:
        """Run the candidate at `path` until its stopping rule decides (`verdict.py`: one run, or the
        rate test); with frozen code, see that it ran (probed in the run's code, else in a second run).

        The run permit is held from the first run to the verdict, the probe
        included (it runs in the same slot, with the candidates' time limit): the
        next candidate, prepared meanwhile, waits as it waits for a single run.
        """
        rules = self.rules
        frozen = rules.frozen
        # One run decides: the regions probed in the code (one run's markers: not with a rate test).
        probed = None if frozen is None or rules.rate_test is not None else frozen.probe_code(run_text, path)
        seen: list[frozenset[int] | None] = []

        def one_run() -> RunResult:
            result = self._backend_run(path, rules.timeout, cancel, code if probed is None else (probed,))
            if probed is not None:
                result, ran = split_run(result)  # the markers out before any rule reads the run
                seen.append(ran)
            return result

        with self._staged_run(path, data, code if probed is None else (probed,), cancel):
            with permit:
                _mark_started(cancel)
                stages.mark(cancel, "permit")
                decided = run_until_decided(
                    one_run,
                    lambda result: rules.judge.is_interesting(result, text, statements_of),
                    rules.rate_test or ONE_RUN,
                    rules.timeout_rejects,
                )
                decision = decided.decision
                if decision and rules.passes_on is not None:
                    decision = rules.passes_on(text, cancel)  # works with A (passing_side.py); None: cancelled
                runs = decided.runs
                ran = seen[-1] if seen else None  # None: the run said nothing of the frozen regions
                if decision and frozen is not None and ran is not None:
                    decision = frozen.satisfied_by(ran)
                elif decision and frozen is not None:
                    decision = self._frozen_ran(path, text, cancel)  # None: the probe was cancelled
                    runs += 1
                stages.mark(cancel, "judged")
                return Verdict(decision, runs, decided.last, oracle_rejected=decided.decision is False)


def _mark_started(cancel: Cancel) -> None:
    """A candidate's run begins now (holding a run permit), unless it is cancelled already."""
    if isinstance(cancel, OrderedCancelEvent) and not cancel.is_set():
        cancel.started = True
