"""Engine orchestration: check the original, run the pass groups to a fixpoint, verify.

See the package docstring for the API. The loop:
  1. run the original twice (or `repeat` times); stop with NotReproducible if it
     does not show the failure; if only some runs show it, measure how often
     (the candidates' sequential test, `flaky.py`, compares with that rate);
  2. repeat the pass groups (statements, canonicalize, simplify, slow) in
     order until a whole cycle changes nothing;
     each pass proposes edits on the current best text and ProbDD picks subsets
     (one ProbDD per independent region when there are enough, search/regions.py);
  3. tidy the layout, re-run the result once (as many times as the original, when
     its rate was measured) with a fresh interpreter, report.
"""

from __future__ import annotations

import ast
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidates import CandidateTester, JobSlots, Rules
from autodd_lsp.engine.clean_runs import FolderWatch, writes_notice
from autodd_lsp.engine.errors import NotReproducible, UsageError
from autodd_lsp.engine.events import (
    Accepted,
    Event,
    Failed,
    Finished,
    Notice,
    PassStarted,
    Progress,
    Started,
    Stats,
    Summary,
)
from autodd_lsp.engine.flaky import (
    DEFAULT_RUNS,
    FINAL_RUNS,
    MARGIN,
    RECORD_TRIES,
    FailureRate,
    RateTest,
)
from autodd_lsp.engine.frozen_probe import FrozenCheck, markers_seen
from autodd_lsp.engine.judge import Judge, failure_observer, failure_oracle
from autodd_lsp.engine.no_match import NoMatchWatch
from autodd_lsp.engine.options import ReduceOptions
from autodd_lsp.engine.person import (
    Kept,
    Learned,
    Offers,
    OfferVerdict,
    describe_outcome,
    offered_shadow,
    syntax_problem,
)
from autodd_lsp.engine.protection import (
    frozen_fingerprint,
    frozen_spans,
    respects_frozen,
)
from autodd_lsp.engine.pytest_target import PYTEST_ENV, PytestTest, conftest_files
from autodd_lsp.engine.seeds import seed_spans
from autodd_lsp.execution import (
    SCRIPT,
    Backend,
    CancelEvent,
    Launch,
    RunResult,
    create_backend,
)
from autodd_lsp.execution.gpus import GpuPool
from autodd_lsp.execution.recording import record_values
from autodd_lsp.freeze import parse_freeze
from autodd_lsp.inlining import (
    Inlined,
    freeze_check,
    inline_conftests,
    inline_local_modules,
)
from autodd_lsp.kinds.signature import output_tail
from autodd_lsp.oracle.degenerate import degenerate_values
from autodd_lsp.oracle.run import Oracle
from autodd_lsp.oracle.same import (
    Observation,
    Observer,
    SameFailure,
    StatementsOf,
    stable,
)
from autodd_lsp.passes import Group, PassContext, ReductionPass, registered_passes
from autodd_lsp.search import ProbDD, regions_of, search, search_regions
from autodd_lsp.syntax.metrics import Size, count_lines, size_of
from autodd_lsp.syntax.origin import (
    OriginalStatements,
    aligned,
    identity_shadow,
    line_origins,
)
from autodd_lsp.syntax.parsing import parse
from autodd_lsp.syntax.patch import Edit, EditSelector, render
from autodd_lsp.syntax.source import Source, first_line
from autodd_lsp.values import RecordedValues, ValueLookup

_PROGRESS_INTERVAL = 0.2  # seconds between Progress events
SIZE_RECOUNT = 1.0  # seconds between node counts of accepted texts (a count parses the text)
RECORD_TIMEOUT_FLOOR = 20.0  # seconds the recording run may take at least (interpreter start and imports included)


class Reduction:
    def __init__(
        self,
        source_text: str,
        source_path: str,
        options: ReduceOptions,
        listener: Callable[[Event], None] | None = None,
    ) -> None:
        options.validate()
        self.options = options
        self.path = os.path.abspath(source_path)
        self.original_text = source_text
        self.best_text = source_text
        self._listener = listener or (lambda event: None)
        self._tree = _parse_or_explain(source_text, self.path)
        _check_annotations(source_text, self.path)
        self._stopped = threading.Event()
        self._started_at = time.monotonic()
        self._best_size = size_of(source_text, self._tree)
        self._size_counted_at = 0.0
        self._show_lock = threading.Lock()
        self._shown_chars = len(source_text)  # characters of the newest text shown (Accepted)
        self._accepted = 0
        self._current_pass = ""
        self._last_progress = 0.0
        self._tester: CandidateTester | None = None
        self._verifier: CandidateTester | None = None  # runs the final check standalone
        self._needed: set[tuple] = set()  # keys of edits found needed (see edit_key)
        self._history: list[str] = [source_text]  # every accepted text, oldest first
        self._needed_share: dict[str, float] = {}  # per pass: share of edits found needed last round
        self._pass_context: PassContext | None = None
        self._valued_context: PassContext | None = None  # the same, with the original's values
        self._degraded_reported = False
        # Where the best text came from (syntax/origin.py): its shadow. Only the best's is
        # kept (4 bytes a character; a history of them would not fit a big file's run).
        self._shadow: str | None = identity_shadow(source_text)
        self._original_statements = OriginalStatements(source_text, Source(source_text, self._tree).statement_spans)
        self._observer: Observer | None = None
        self._spec = options.spec
        self._oracle: Oracle | None = None  # the kind's rule, set from the original's run
        self._rule = ""  # how candidates are judged, for the summary (set by the original's check)
        self._original_observation: Observation | None = None
        self._final_observation: Observation | None = None
        self._values: RecordedValues | None = None
        self._values_done = threading.Event()
        self._record_cancel = CancelEvent()
        self._record_timeout = options.timeout
        # The original's failure rate, when measured (intermittent, or `repeat` asked), and
        # the result's at the end; `_rate_runs` runs of the result measure it (1: one re-run).
        self._original_rate: FailureRate | None = None
        self._final_rate: FailureRate | None = None
        self._rate_runs = 1
        self._no_match = NoMatchWatch(None, lambda line: None)  # set by the original's check
        self._keep_seeds = False  # the seeding statements are protected (set by the original's check)
        self._watch = FolderWatch(())  # the folders runs must leave as they found them, set when the run starts
        # A pytest test of the file (engine/pytest_target.py), or None: the file runs as a script.
        self._pytest = PytestTest(options.test) if options.test else None
        self._verify_slots: JobSlots | None = None  # where the final check runs, if not in the job slots
        # The user in the loop (engine/person.py): offered texts, and what rejected removals did.
        self._learned = Learned(self._original_statements)
        self._rules_ready = threading.Event()
        self._offers = Offers(self._judge_offer, self._rules_ready)

    # -- what a run sets up ------------------------------------------------------
    @property
    def _jobs(self) -> int:
        """-j: given, or (--backend ray) the cluster's slots, counted when the run starts."""
        if self.options.jobs is None:
            raise RuntimeError("jobs are known once the run has started")
        return self.options.jobs

    @property
    def _active_tester(self) -> CandidateTester:
        if self._tester is None:
            raise RuntimeError("the candidate tester exists once the run has started")
        return self._tester

    @property
    def _kind_rule(self) -> Oracle:
        """The kind's rule, set from the original's run."""
        if self._oracle is None:
            raise RuntimeError("the kind's rule is set once the original has run")
        return self._oracle

    # -- public API ------------------------------------------------------------
    def run(self) -> Summary:
        self._started_at = time.monotonic()
        original = self._best_size
        if self.options.backend == "ray":
            self._connect_ray()
        self._emit(Started(original, self.original_text))
        # One GPU per running program, shared by every backend of this run (execution/gpus.py).
        self._gpus = GpuPool(self.options.gpu_ids) if self.options.gpu_ids else None
        slots = JobSlots(self._jobs + 1, os.path.basename(self.path), beside=os.path.dirname(self.path))
        if slots.fallback_reason:
            self._emit(Notice(
                f"{slots.fallback_reason}: candidates run from a temporary folder, so files the program "
                "reads beside itself (through __file__) are not found there"
            ))
        backend = create_backend(
            self.options.backend,
            python=self.options.python,
            cwd=self.options.cwd or os.getcwd(),
            jobs=self.options.jobs,
            extra_sys_path=[os.path.dirname(self.path)],
            preload=(["pytest"] if self._pytest else []) + top_level_imports(self._tree),
            output_limit=self.options.output_limit,
            extra_env=self._extra_env(),
            launch=self._pytest.launch() if self._pytest else SCRIPT,
            gpus=self._gpus,
            **({"address": self.options.ray_address} if self.options.backend == "ray" else {}),
        )
        # Every run sees the folders as the user had them: what a run writes is removed after it (clean_runs.py).
        self._watch = FolderWatch([os.path.dirname(self.path)], working_folder=self.options.cwd or os.getcwd())
        self._tester = CandidateTester(backend, slots, self._jobs, watch=self._watch)
        self._slots = slots
        verified = False
        recorder: threading.Thread | None = None
        try:
            with ThreadPoolExecutor(self._jobs + 1, thread_name_prefix="autodd-job") as pool:
                self._check_original(pool)
                self._rules_ready.set()
                if not self.cancelled and self._values_help():
                    recorder = threading.Thread(target=self._record_values, args=(slots,), name="autodd-values", daemon=True)
                    recorder.start()
                else:
                    self._values_done.set()  # none: the passes that use values go on without them
                self._reduce(pool)
            backend.close()  # free the warm servers before the standalone check
            verified = self._verify_standalone(slots)
        except NotReproducible as error:
            self._emit(Failed(str(error), error.output_tail))
            raise
        except OSError as error:  # e.g. the interpreter vanished, the disk is full
            reason = f"cannot run candidates with {self.options.python}: {error.strerror or error}"
            self._emit(Failed(reason))
            raise UsageError(reason) from None
        finally:
            self._offers.close()
            backend.close()
            if recorder is not None:
                self._record_cancel.set()  # not needed any more, if still running
                recorder.join()
            slots.remove()
        final = size_of(self.best_text)
        summary = Summary(
            original, final, self.best_text, self._stats(), self.cancelled, verified,
            rule=self._rule,
            original_failure_line=self._original_observation.line if self._original_observation else "",
            final_failure_line=self._final_observation.line if self._final_observation else "",
            original_rate=self._original_rate,
            final_rate=self._final_rate if self._original_rate is not None else None,
            signal=getattr(self._oracle, "signal", None),
        )
        self._emit(Finished(summary))
        return summary

    def cancel(self) -> None:
        """Stop as soon as possible (any thread); run() returns the best text so far."""
        self._stopped.set()
        self._record_cancel.set()
        for tester in (self._tester, self._verifier):
            if tester is not None:
                tester.cancel_all()

    @property
    def cancelled(self) -> bool:
        return self._stopped.is_set()

    def offer(self, text: str) -> Future:
        """A person's text, judged at once and adopted if it fails the same way (engine/person.py)."""
        return self._offers.submit(text)

    def why_kept(self, line: int) -> Kept | None:
        """After run(): what the run saw without line `line` (1-based) of the result; never runs anything."""
        return self._learned.why_kept(self._shadow, line)

    def try_text(self, text: str, cancel: CancelEvent | None = None) -> OfferVerdict:
        """After run(): judge one text by the run's oracle, in a fresh interpreter (engine/person.py)."""
        if self._tester is None or not self._tester.has_rules:
            raise UsageError("the run did not get as far as judging candidates")
        problem = syntax_problem(text)
        if problem:
            return OfferVerdict(False, problem)
        slots = JobSlots(2, os.path.basename(self.path), beside=os.path.dirname(self.path))
        try:
            with self._fresh_backend() as fresh:
                tester = CandidateTester(fresh, slots, jobs=1, rules=self._tester.rules, watch=self._watch)
                return self._judged(tester, text, offered_shadow(self.best_text, self._shadow, text, self.original_text), cancel)
        finally:
            slots.remove()

    # -- steps -----------------------------------------------------------------
    def _check_original(self, pool: ThreadPoolExecutor | None = None) -> None:
        """Does the original fail, the same way each time, and how often?

        Two runs: the first teaches the runner the program's imports, the second
        says whether the failure line and its place are stable and how long a
        warm run takes. When the second does not show the failure the first
        showed, the failure is intermittent: DEFAULT_RUNS runs measure its rate.
        With `repeat`, that many runs measure it whatever they show. A rate
        below 100% makes candidates face the sequential test (`flaky.py`); a
        deterministic failure keeps one run per candidate. A hang is run once:
        a second run would cost the limit again and tell nothing more.
        """
        tester, options, text, spec = self._active_tester, self.options, self.original_text, self._spec
        timeout = options.timeout
        runs = [self._run_original(learn_imports=True)]
        if self.cancelled:
            return
        if self._watch.created:
            self._emit(Notice(writes_notice(self._watch.created)))
        oracle = self._failure_rule(runs[0])
        while oracle is None and len(runs) < options.repeat:  # a failure that shows late
            runs.append(self._run_original())
            if self.cancelled:
                return
            oracle = self._failure_rule(runs[-1])
        if oracle is None:
            last = runs[-1]
            not_run = self._pytest.not_run_reason(last) if self._pytest else None
            if not_run:
                raise NotReproducible(not_run, output_tail(last.output, max_lines=15))
            reason = spec.rules.not_reproduced(spec.value, failure_oracle(spec, last, text, timeout), last,
                                               len(runs), timeout, hint=not options.repeat)
            raise NotReproducible(reason, output_tail(last.output, max_lines=15))
        self._oracle = oracle
        self._observer = failure_observer(
            spec, oracle, self._is_program, self._program_paths
        )
        first_index = len(runs) - 1
        first = self._observe(runs[first_index].output, text)
        self._original_observation = first
        inlined = self._inlined_instead(oracle, first)
        if inlined is not None:  # from here on the reduction's original is the inlined program
            result, oracle, first = inlined
            self._oracle = oracle
            runs, first_index, text = [result], 0, self.original_text
            self._original_observation = first
        self._rule = spec.rules.rule(oracle, options.match, first)

        def shows(result: RunResult) -> bool:
            return not result.cancelled and oracle.accepts(result, text)

        first_run = runs[first_index]
        # The recording run starts a fresh interpreter and runs slower, instrumented; passes wait for it.
        self._record_timeout = min(timeout, max(RECORD_TIMEOUT_FLOOR, 10.0 * first_run.duration))
        rate_test, timeout_rejects = None, True
        if spec.rules.runs_to_the_limit:
            # A candidate hangs if it runs past the limit the original ran past (see oracle/timeout.py).
            judge, candidate_timeout = Judge(oracle, None, degenerate_values(self._tree)), timeout
        else:
            # A second run: is the failure line stable, and how long does a warm run take?
            if len(runs) < max(2, options.repeat):
                runs.append(self._run_original())
                if self.cancelled:
                    return
            if options.repeat or not shows(runs[-1]):
                self._run_original_more(runs, options.repeat or DEFAULT_RUNS, pool)
                if self.cancelled:
                    return
            again = next((r for r in runs[first_index + 1:] if shows(r)), None)
            judge = Judge(oracle, self._same_failure(first, again), degenerate_values(self._tree))
            failed = [
                index == first_index
                or (not r.cancelled and judge.is_interesting(r, text, self._original_statements.of_line))
                for index, r in enumerate(runs)
            ]
            warm = [r.duration for index, r in enumerate(runs) if index and failed[index]]
            duration = max(warm) if warm and not first_run.timed_out else first_run.duration
            candidate_timeout = adaptive_timeout(duration, timeout)
            rate_test = self._measured(FailureRate(sum(failed), len(runs)))
            # A candidate's run that times out has left the original's path, unless the original timed out too.
            timeout_rejects = not any(r.timed_out for r in runs)
        rules = Rules(judge, candidate_timeout, rate_test=rate_test, timeout_rejects=timeout_rejects)
        frozen = frozen_fingerprint(text)
        if frozen:
            rules = replace(
                rules,
                well_formed=lambda candidate: frozen_fingerprint(candidate) == frozen,
                frozen=self._frozen_check() if options.match == "same" else None,
            )
        tester.judge_by(rules)
        tester.set_best(text)
        self._no_match = NoMatchWatch(self._original_observation, lambda line: self._emit(Notice(line)))
        self._keep_seeds = rate_test is None  # a deterministic failure: its seeds stay (engine/seeds.py)

    def _inlined_instead(
        self, oracle: Oracle, first: Observation | None,
    ) -> tuple[RunResult, Oracle, Observation | None] | None:
        """The program with its own modules inlined (autodd_lsp.inlining), if it fails as the original does:
        then the reduction goes on from it, and the result is one standalone file.
        Returns that run, its message oracle and its observation; None to go on with the original."""
        if self.cancelled or not (self.options.inline_modules or self._pytest):
            return None
        text = self.original_text
        files: tuple[str, ...] = ()
        if self._pytest:
            conftests = inline_conftests(text, self.path, conftest_files(self.path))
            for conftest, why in conftests.kept:
                self._emit(Notice(f"{conftest} is not inlined: {why}; the result needs it beside the test"))
            text, files = conftests.text, conftests.modules
        inlined = inline_local_modules(text, self.path) if self.options.inline_modules else Inlined(text)
        for module, why in inlined.kept:
            self._emit(Notice(f"the import of {module} stays (it is not inlined): {why}"))
        if not inlined.modules and not self._pytest:
            return None
        names = ", ".join(os.path.relpath(m, os.path.dirname(self.path)) for m in (*files, *inlined.modules))
        frame = first.place.library_frame if first is not None and first.place else None
        # The module's own `raise`/`assert` raises the failure: inlined, its check is frozen (inlining/checks.py)
        check_at = frame if frame is not None and frame[0] in inlined.modules and _raises_itself(*frame) else None
        try:
            parse(inlined.text)
        except (SyntaxError, ValueError):
            return None
        if parse_freeze(inlined.text).errors:
            self._emit(Notice(f"{names} not inlined: their freeze annotations do not pair up once inlined"))
            return None
        tester = self._active_tester
        text = inlined.text
        if check_at is not None:  # a first run finds the check's line in the inlined text; the check is frozen there
            origin = f"{os.path.relpath(check_at[0], os.path.dirname(self.path))}:{check_at[1]}"
            located = self._observe(tester.run(text, self.options.timeout, tester.new_cancel_event()).output, text)
            line = located.place.program_line if located is not None and located.place else None
            frozen_text = freeze_check(text, line, origin) if line is not None else None
            if frozen_text is None or parse_freeze(frozen_text).errors:
                self._emit(Notice(
                    f"{names} not inlined: the failure is raised by {os.path.basename(check_at[0])}'s own "
                    "raise or assert, which could not be frozen once inlined (the reproducer keeps that import)"
                ))
                return None
            text = frozen_text
        if self._pytest:  # from here on, without the conftest.py files (see engine/pytest_target.py)
            tester.backend.launch = self._pytest.launch(conftest=False)
        result = tester.run(text, self.options.timeout, tester.new_cancel_event())
        seen = self._observe(result.output, text)
        rule = self._failure_rule(result, text)
        same = rule is not None and (first is None or (seen is not None and seen.normalized == first.normalized))
        if rule is None or not same:
            shown = seen.line.strip() if seen is not None else output_tail(result.output, max_lines=1) or "no output"
            if self._pytest:
                tester.backend.launch = self._pytest.launch()
                what = f"with {names} inlined and without conftest.py files" if names else "without its conftest.py files"
                self._emit(Notice(f"the test fails otherwise {what} ({shown}): the result needs them beside it"))
            else:
                self._emit(Notice(f"{names} not inlined: with them inlined the program fails otherwise ({shown})"))
            return None
        if text == self.original_text:
            return result, rule, seen  # a test that needs no conftest.py: nothing to rebase
        self._rebase(text, parse(text))
        kept = f"; its check at {origin} is frozen" if check_at is not None else ""
        self._emit(Notice(f"inlined {names}: the reproducer will be one file{kept}"))
        self._emit(Accepted(text, self._best_size, self._stats()))  # the first reproducer, one file
        return result, rule, seen

    def _rebase(self, text: str, tree: ast.Module) -> None:
        """Reduce `text` instead of the user's text (which stays what sizes are compared with)."""
        self.original_text = self.best_text = text
        self._tree = tree
        self._history = [text]
        self._best_size = size_of(text, tree)
        self._shadow = identity_shadow(text)
        self._original_statements = OriginalStatements(text, Source(text, tree).statement_spans)
        self._learned = Learned(self._original_statements)

    def _run_original(self, learn_imports: bool = False) -> RunResult:
        tester = self._active_tester
        return tester.run(self.original_text, self.options.timeout, tester.new_cancel_event(), learn_imports=learn_imports)

    def _run_original_more(self, runs: list[RunResult], total: int, pool: ThreadPoolExecutor | None) -> None:
        """Run the original until `runs` holds `total` runs; `jobs` at a time."""
        missing = total - len(runs)
        if missing <= 0:
            return
        if pool is None or self._jobs == 1:
            for _ in range(missing):
                runs.append(self._run_original())
                if self.cancelled:
                    return
        else:
            runs.extend(pool.map(lambda _: self._run_original(), range(missing)))

    def _failure_rule(self, result: RunResult, text: str | None = None) -> Oracle | None:
        """The rule of the failure to keep, learnt from a run of the original (of `text`), or None
        if that run does not show the failure."""
        if result.cancelled:
            return None
        text = self.original_text if text is None else text
        oracle = failure_oracle(self._spec, result, text, self.options.timeout, test=self._pytest is not None)
        return oracle if oracle.reproduced_by_original else None

    def _measured(self, rate: FailureRate) -> RateTest | None:
        """Take the original's failure rate; below 100%, the sequential test candidates face."""
        if self.options.repeat or not rate.always:
            self._original_rate = rate
            self._rate_runs = rate.runs
        if rate.always:
            return None
        test = RateTest(rate.rate)
        self._emit(Notice(
            f"the failure is intermittent: the original {rate.describe()}; a candidate counts only if it "
            f"fails about as often (at least {100 * (1 - MARGIN):.0f}% of that rate, by a sequential test of "
            f"up to {test.max_runs} runs; one that never fails is rejected after "
            f"{test.runs_to_reject_a_candidate_that_never_fails()} runs)"
        ))
        return test

    def _observe(self, output: str, text: str) -> Observation | None:
        if self._observer is None:
            return None
        seen = self._observer.observations(output, text)
        return seen[-1] if seen else None

    def _same_failure(self, first: Observation | None, again: RunResult | None) -> SameFailure | None:
        """The same-failure rule for this original, or None (the message rule alone); says why once."""
        if self.options.match != "same" or first is None or self._observer is None:
            return None
        second = None
        if again is not None:
            seen = self._observer.observations(again.output, self.original_text)
            second = next((o for o in reversed(seen) if o.normalized == first.normalized), seen[-1] if seen else None)
        same_line, same_place = stable(first, second)
        rules = self._spec.rules
        kept = rules.rule_prefix(self._kind_rule)
        if not same_line:
            loose = rules.loose_rule(self._kind_rule)
            self._rule = f"{loose} (the original's failure line differs between runs)"
            shown = second.line.strip() if second else "no failure line"
            alone = "the message alone" if not kept else f"{loose!r} alone"
            self._emit(Notice(
                f"the original's failure line differs between two runs ({first.line.strip()!r}, then {shown!r}); "
                f"candidates are judged by {alone}"
            ))
            return None
        same = SameFailure(self._observer, first, self._original_statements.of_line)
        if not same_place:
            self._rule = f"{kept}same failure line (its place differs between runs of the original)"
            self._emit(Notice(
                "the original fails at different places in two runs; candidates must show the same "
                "failure line, from any place"
            ))
            return same.without_place()
        return same

    def _frozen_check(self, text: str | None = None) -> FrozenCheck | None:
        """Which frozen regions the original (or `text`) runs: a probed copy of it, run once."""
        source = Source(self.original_text, self._tree) if text is None else Source(text)
        ids, probed = FrozenCheck.probe_original(source, frozen_spans(source))
        if probed is None:
            return None
        result = self._active_tester.run(probed, self.options.timeout, self._active_tester.new_cancel_event())
        required = markers_seen(result.output)
        return FrozenCheck(ids, required) if required and not result.cancelled else None

    def _values_help(self) -> bool:
        """Offer the original's values, unless the program reports the failure itself.

        A failure raised by the program's own `raise` or `assert`, or a line it
        prints, is a check of its own computation: writing that computation's
        results in its place would leave a reproducer that shows the message and
        nothing else. Values serve failures that an operation raises in a
        traceback (library code, a subscript, a call).
        """
        if not self._spec.rules.records_values:
            return False  # a killed program records nothing (record_main.py writes its records at exit)
        if self._pytest:
            return False  # the recording run runs a script: a test file's test would not run there
        seen = self._original_observation
        if seen is None or seen.place is None:
            return False
        if seen.place.library_frame is not None:
            return True
        if seen.place.program_line is None:
            return True
        return not _own_check(self._tree, seen.place.program_line)

    def _record_values(self, slots: JobSlots) -> None:
        """The original's values (see autodd_lsp.values), in the background; passes that use them wait.

        The recording run must fail as the original does (same failure line): values from a
        run that went elsewhere (a program that inspects its own bytecode) would mislead.
        """
        # An intermittent original may not fail in a given run: a few tries.
        tries = 1 if self._active_tester.rules.rate_test is None else RECORD_TRIES
        path = slots.side_path("values")
        try:
            for _ in range(tries):
                with self._watch.run():  # what the recording run writes, no candidate sees either
                    values, result = record_values(
                        self.original_text, path, slots.scratch_path("values.json"),
                        python=self.options.python, cwd=self.options.cwd or os.getcwd(),
                        extra_sys_path=[os.path.dirname(self.path)], timeout=self._record_timeout,
                        cancel=self._record_cancel, output_limit=self.options.output_limit, gpus=self._gpus,
                    )
                result = slots.unmasked(result)
                seen = self._observe(result.output, self.original_text)
                original = self._original_observation
                same = seen is not None and original is not None and seen.normalized == original.normalized
                same = same and self._kind_rule.accepts(result, self.original_text)
                self._values = values if same and not result.cancelled else None
                if self._values is not None or result.cancelled:
                    break
        except OSError:
            self._values = None
        finally:
            self._values_done.set()

    def _reduce(self, pool: ThreadPoolExecutor) -> None:
        passes = registered_passes()
        groups = sorted({p.group for p in passes} - {Group.TIDY})
        adopted = True
        while adopted and not self.cancelled:
            changed = True
            while changed and not self.cancelled:
                changed = False
                for group in groups:
                    members = [p for p in passes if p.group == group]
                    changed |= self._run_group(members, pool)
                    if self._adopt_offer():
                        changed = True
                        break  # the cycle starts again from the person's text
            for tidy in (p for p in passes if p.group == Group.TIDY):
                self._run_pass(tidy, pool)
            adopted = self._adopt_offer()
        self._offers.close()

    def _interrupted(self) -> bool:
        """Stop the search under way: cancelled, or a person's text waits to be adopted."""
        return self._stopped.is_set() or self._offers.waiting

    def _judge_offer(self, text: str) -> OfferVerdict:
        """An offered text, judged by the run's rules (in the offers' thread)."""
        problem = syntax_problem(text)
        if problem:
            return OfferVerdict(False, problem)
        return self._judged(self._active_tester, text, offered_shadow(self.best_text, self._shadow, text, self.original_text))

    def _judged(self, tester: CandidateTester, text: str, shadow: str | None,
                cancel: CancelEvent | None = None) -> OfferVerdict:
        """Run `text` (until the rate test decides, for an intermittent failure) and judge it by
        the run's rules; frozen code aside (a person's text sets its own, see engine/person.py)."""
        rules = tester.rules
        statements_of = self._statements_of(lambda: shadow)
        failure_line = self._original_observation.line.strip() if self._original_observation else ""
        failures = runs = 0
        while True:
            result = tester.run(text, rules.timeout, cancel or CancelEvent())
            if result.cancelled:
                return OfferVerdict(False, "the run was stopped")
            runs += 1
            if rules.judge.is_interesting(result, text, statements_of):
                failures += 1
            elif rules.rate_test is None or (result.timed_out and rules.timeout_rejects):
                return OfferVerdict(False, describe_outcome(result, failure_line))
            decision = True if rules.rate_test is None else rules.rate_test.decide(failures, runs)
            if decision is not None:
                return OfferVerdict(True, failure_line) if decision else OfferVerdict(False, describe_outcome(result, failure_line))

    def _adopt_offer(self) -> bool:
        """Go on from a person's text that fails the same way, with its frozen regions as the rule."""
        if self.cancelled:
            return False  # a waiting offer is refused by close()
        taken = self._offers.take()
        if taken is None:
            return False
        text, adopted = taken
        frozen = frozen_fingerprint(text)
        self._active_tester.judge_by(replace(
            self._active_tester.rules,
            well_formed=(lambda candidate: frozen_fingerprint(candidate) == frozen) if frozen else (lambda candidate: True),
            frozen=self._frozen_check(text) if frozen and self.options.match == "same" else None,
        ))
        self._needed.clear()  # what follows depends on the adopted text alone
        self._needed_share.clear()
        self._accept(text, offered_shadow(self.best_text, self._shadow, text, self.original_text))
        adopted()
        self._emit(Notice("the text you gave fails the same way: the reduction goes on from it"))
        return True

    def _run_group(self, members: list[ReductionPass], pool: ThreadPoolExecutor) -> bool:
        changed = False
        for reduction_pass in members:
            if self._interrupted():
                break
            changed |= self._run_pass(reduction_pass, pool)
        return changed

    def _run_pass(self, reduction_pass: ReductionPass, pool: ThreadPoolExecutor) -> bool:
        self._current_pass = reduction_pass.name
        if reduction_pass.uses_values:
            while not self._values_done.wait(0.1) and not self.cancelled:
                self._tick()
        self._report_degraded()
        self._emit(PassStarted(reduction_pass.name, self._stats()))
        changed = False
        level = 0
        while not self._interrupted():
            ctx = self._context(reduction_pass.uses_values)
            source = ctx.source
            edits = reduction_pass.edits(ctx, level)
            if edits is None:
                break
            edits = [e for e in edits if respects_frozen(e, ctx.frozen)]
            if reduction_pass.remembers_needed:
                edits = [e for e in edits if edit_key(source, e) not in self._needed]
            if edits and self._search(ctx, edits, pool, reduction_pass):
                changed = True
            if not reduction_pass.has_levels:
                break
            level += 1
        return changed

    def _context(self, with_values: bool) -> PassContext:
        """What passes look at: the best text parsed, with its frozen spans and block guards,
        and for the passes that use them (they waited for them), the original's values.

        Kept while the best text stays the same: most passes and levels end
        without a change, and parsing a big file for each would leave the
        runners idle meanwhile. A pass that does not wait for the values never
        sees them, whenever they arrive: the result is the same for every -j.
        """
        context = self._pass_context
        if context is None or context.source.text != self.best_text:
            source = Source(self.best_text)
            protected = frozen_spans(source) + (seed_spans(source) if self._keep_seeds else [])
            context = self._pass_context = PassContext(source, protected, original=self.original_text)
            self._valued_context = None
        if not with_values or self._values is None:
            return context
        if self._valued_context is None:
            self._valued_context = replace(context, values=ValueLookup(self._values, self._shadow))
        return self._valued_context

    def _search(self, ctx: PassContext, edits: list[Edit], pool: ThreadPoolExecutor, reduction_pass: ReductionPass) -> bool:
        base, selector = ctx.source.text, EditSelector(edits, ctx.guards)
        accepted = False
        share = self._needed_share.get(reduction_pass.name, reduction_pass.prior)
        prior = min(0.5, max(0.05, share))
        strategy = ProbDD(len(edits), prior=prior)

        interesting: dict[tuple[int, ...], str] = {}  # texts judged interesting, until accepted
        shadow_base = self._shadow
        # What rejected removals of statements did (engine/person.py); their shadows are made for that, not kept.
        failure_line = self._original_observation.line.strip() if self._original_observation else ""
        record = self._learned.recorder(shadow_base, failure_line) if reduction_pass.group == Group.STATEMENTS else None

        def candidate(indices: list[int]) -> str:
            return render(base, selector.patches(indices))

        shadows: dict[tuple[int, ...], str] = {}  # made for a judge, kept for the acceptance

        def shadow_of(indices: list[int], text: str) -> str | None:
            if shadow_base is None:
                return None
            key = tuple(sorted(indices))
            made = shadows.get(key)
            if made is None:
                made = shadows[key] = aligned(text, render(shadow_base, selector.patches(indices)))
            return made

        regions = regions_of(
            [min(patch.start for patch in edit.patches) for edit in edits],
            region_starts(ctx.source),
        )
        region_of = {i: number for number, region in enumerate(regions or []) for i in region}
        region_text: dict[int, str] = {}  # per region, the text of what it applied so far

        def region_accept(number: int, applied: list[int]) -> None:
            key = tuple(sorted(applied))
            text = region_text[number] = interesting.get(key) or candidate(applied)
            self._show_smaller(text)

        def test(indices: list[int], cancel: Cancel) -> bool:
            text = candidate(indices)
            if regions is not None and len({region_of[i] for i in indices}) == 1:
                if text == region_text.get(region_of[indices[0]]):
                    return False  # moot on top of the region's own edits (the best is still the base)
            learn = None if record is None or shadow_base is None else (  # a recorder implies a base shadow
                lambda result: record(result, aligned(text, render(shadow_base, selector.patches(indices)))))

            def rejected(result: RunResult) -> None:
                if learn is not None:
                    learn(result)
                if self._no_match.watching:
                    self._no_match.rejected(self._observe(result.output, text))

            verdict = self._active_tester.test(
                text, cancel, self._statements_of(lambda: shadow_of(indices, text)), rejected)
            if verdict:
                interesting[tuple(sorted(indices))] = text
            return verdict

        def on_accept(applied: list[int]) -> None:
            nonlocal accepted
            accepted = True
            text = interesting.pop(tuple(sorted(applied)), None)
            interesting.clear()  # the others were stale
            text = candidate(applied) if text is None else text
            self._accept(text, shadow_of(applied, text))
            shadows.clear()

        if regions is None:
            search(
                strategy, test, pool, self._jobs, on_accept, self._interrupted, self._tick,
                new_event=self._active_tester.new_cancel_event, on_discard=self._active_tester.discarded,
            )
            applied, needed = strategy.applied, strategy.open_or_needed()
        else:  # independent top-level statements: one chain each, then a merge (search/regions.py)
            outcome = search_regions(
                regions, prior, test, pool, self._jobs,
                self._interrupted, self._tick, self._active_tester.new_chain, self._active_tester.discarded,
                region_accept,
            )
            applied, needed = outcome.applied, outcome.needed
            if applied and not self._offers.waiting:  # a person's text waiting replaces it
                on_accept(applied)
        if not self._interrupted():
            unapplied = len(edits) - len(applied)
            self._needed_share[reduction_pass.name] = unapplied / len(edits)
            if reduction_pass.remembers_needed:
                self._needed.update(edit_key(ctx.source, edits[i]) for i in needed)
        return accepted

    def _statements_of(self, shadow: Callable[[], str | None]) -> StatementsOf:
        """A candidate's line -> the original statements its text came from (its shadow made once, if asked)."""
        made: list[str | None] = []

        def statements_of(lineno: int) -> frozenset[int] | None:
            if not made:
                made.append(shadow())
            if made[0] is None:
                return None  # origins unknown (a text too big to track, an old one)
            return self._original_statements.of_offsets(line_origins(made[0], lineno))

        return statements_of

    def _accept(self, text: str, shadow: str | None) -> None:
        self._no_match.accepted()
        self._history.append(text)
        self._shadow = shadow
        self.best_text = text
        self._active_tester.set_best(text)
        with self._show_lock:
            self._shown_chars = len(text)
        self._best_size = self._size_for_progress(text)
        self._accepted += 1
        self._emit(Accepted(text, self._best_size, self._stats()))

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
        if self.options.jobs is None:
            self.options = replace(self.options, jobs=count)

    def _show_smaller(self, text: str) -> None:
        """Show a smaller text that fails the same way (a region's, before the merge) as the
        newest result, without making it the search's base: the search goes on from the
        base, and the merge's text, accepted next, is usually smaller still. So a slow
        program's first improvement is written as soon as one region has one."""
        with self._show_lock:
            if len(text) >= self._shown_chars:
                return
            self._shown_chars = len(text)
            self._best_size = self._size_for_progress(text)
            self._emit(Accepted(text, self._best_size, self._stats()))

    def _size_for_progress(self, text: str) -> Size:
        """The size shown while reducing; nodes recounted at most every SIZE_RECOUNT seconds.

        Counting nodes parses the text: on a big file, acceptances in quick
        succession would spend more on that than on their candidates.
        """
        now = time.monotonic()
        if now - self._size_counted_at < SIZE_RECOUNT:
            return replace(self._best_size, lines=count_lines(text), chars=len(text))
        self._size_counted_at = now
        return size_of(text)

    def _verify_standalone(self, slots: JobSlots) -> bool:
        """Re-run the result in a fresh interpreter, exactly as a user will: first alone in an empty
        temporary folder (nothing a run left there, nothing of the user's), then, only if it needs
        files of the source's folder, beside the source as the user had it (clean_runs.py).

        A deterministic failure must show in every one of FINAL_RUNS runs (a result that fails
        only sometimes, a seed dropped, is not the user's bug); an intermittent one in at least one
        of as many runs as the original ran to measure its rate (the summary shows the result's).
        A warm runner has modules preloaded that a candidate may have stopped importing, and one
        run of a candidate cannot tell a flaky text: if the result fails these runs, go back to
        the newest accepted text that passes them (binary search over the history).
        """
        if self.cancelled:
            return False
        if not self._pytest and not self.options.inline_modules:  # the result imports modules beside it
            return self._verify_with(self._fresh_backend(), slots, self._watch, go_back="always")
        alone = self._verify_slots = JobSlots(1, os.path.basename(self.path))
        folder = os.path.dirname(alone.paths[0])
        launch = self._pytest.launch(standalone=True) if self._pytest else SCRIPT
        try:  # a test is judged alone only (notes/pytest.md); a script goes on beside its files if it must
            fresh = self._fresh_backend(folder, launch, extra_sys_path=[])
            if self._verify_with(fresh, alone, FolderWatch([folder]), go_back="always" if self._pytest else "if-flaky"):
                return True
        finally:
            alone.remove()
        self._verify_slots = None
        if self._pytest or self.cancelled:
            return False
        verified = self._verify_with(self._fresh_backend(), slots, self._watch, go_back="always")
        if verified:
            self._emit(Notice(
                f"the result does not fail alone in an empty folder, only beside {os.path.basename(self.path)}: "
                "it needs files of that folder"
            ))
        return verified

    def _verify_with(self, fresh: Backend, slots: JobSlots, watch: FolderWatch, go_back: str) -> bool:
        """The final runs of the result with `fresh`; `go_back` through the history when they fail
        ("always"), or only when some of them fail the same way ("if-flaky": the text then does not
        need what this place lacks, it is not deterministic)."""
        deterministic = self._active_tester.rules.rate_test is None
        wanted = max(self._rate_runs, FINAL_RUNS) if deterministic else self._rate_runs
        with fresh:
            checker = CandidateTester(fresh, slots, jobs=1, rules=self._active_tester.rules, watch=watch)
            self._verifier = checker

            def measure(index: int, quick: bool) -> FailureRate:
                """Run a text of the history up to `wanted` times: how many failed the same way.
                `quick`: stop as soon as the verdict is known (a failure of an intermittent one,
                a run without it of a deterministic one)."""
                text = self._history[index]
                # An older text's place was judged when it was accepted; only the best's shadow is kept.
                shadow = self._shadow if index == len(self._history) - 1 else None
                statements_of = self._statements_of(lambda: shadow)
                failures = runs = 0
                observed = None
                while runs < wanted:
                    result = checker.run(text, self.options.timeout, checker.new_cancel_event())
                    if result.cancelled:
                        break
                    runs += 1
                    seen = self._observe(result.output, text)
                    if checker.rules.judge.is_interesting(result, text, statements_of):
                        failures, observed = failures + 1, seen
                    elif not failures or deterministic:
                        observed = seen
                    if quick and (failures if not deterministic else failures < runs):
                        break
                    if deterministic and runs >= 2 and not failures:
                        break  # it does not fail here at all
                if runs:
                    self._final_observation = observed
                if failures and checker.rules.frozen is not None:
                    probed = checker.rules.frozen.probe(text)
                    probe = None if probed is None else checker.run(probed, self.options.timeout, checker.new_cancel_event())
                    if probe is None or probe.cancelled or not checker.rules.frozen.satisfied(probe.output):
                        failures = 0  # the frozen code no longer runs (or cannot be probed)
                return FailureRate(failures, runs)

            def passes(rate: FailureRate) -> bool:
                return rate.runs > 0 and (rate.failures == rate.runs if deterministic else rate.failures > 0)

            last = len(self._history) - 1
            self._final_rate = measure(last, quick=False)
            if passes(self._final_rate) or (go_back == "if-flaky" and not self._final_rate.failures):
                return passes(self._final_rate)
            if deterministic and self._final_rate.failures:
                self._emit(Notice(
                    f"the result failed the same way in {self._final_rate.failures} of {self._final_rate.runs} "
                    "fresh runs, the original in every run: going back to the newest smaller text that fails in "
                    f"all of {wanted}"
                ))
            elif self.options.backend == "subproc" and not deterministic:
                return False  # judged the same way before: the failure is flaky
            good, bad = 0, last
            while good + 1 < bad and not self.cancelled:
                middle = (good + bad) // 2
                good, bad = (middle, bad) if passes(measure(middle, quick=True)) else (good, middle)
            self._accept(self._history[good], None)
            self._final_rate = measure(len(self._history) - 1, quick=False)
            return passes(self._final_rate)

    def _is_program(self, file: str) -> bool:
        """Whether a traceback's file is the program (the source, or a candidate of it)."""
        verify = self._verify_slots
        return file == self.path or self._slots.is_program(file) or (verify is not None and verify.is_program(file))

    def _program_paths(self) -> tuple[str, ...]:
        verify = self._verify_slots.paths if self._verify_slots is not None else ()
        return (*self._slots.paths, *verify, self.path)

    def _extra_env(self) -> dict[str, str]:
        """What candidates' environment gets beyond the user's: the kind's, a test's."""
        return {**self._spec.rules.env, **(PYTEST_ENV if self._pytest else {})}

    def _fresh_backend(self, cwd: str | None = None, launch: Launch | None = None,
                       extra_sys_path: list[str] | None = None) -> Backend:
        """A backend that runs each text in a fresh interpreter, exactly as a user will (by default
        the way candidates are started now: as a script, or the test under pytest)."""
        return create_backend(
            "subproc",
            python=self.options.python,
            cwd=cwd or self.options.cwd or os.getcwd(),
            extra_sys_path=[os.path.dirname(self.path)] if extra_sys_path is None else extra_sys_path,
            output_limit=self.options.output_limit,
            extra_env=self._extra_env(),
            launch=launch or self._active_tester.backend.launch,
            gpus=self._gpus,
        )

    # -- reporting -------------------------------------------------------------
    def _report_degraded(self) -> None:
        """Tell the user, once, that the backend fell back to a slower way of running.
        Asked at each pass's start: the first one follows the check of the original,
        where the backend starts, and a later fallback (servers dying) is caught too."""
        reason = "" if self._degraded_reported else self._active_tester.backend.degraded()
        if reason:
            self._degraded_reported = True
            self._emit(Notice(reason))

    def _tick(self) -> None:
        now = time.monotonic()
        if now - self._last_progress >= _PROGRESS_INTERVAL:
            self._last_progress = now
            self._emit(Progress(self._best_size, self._stats()))

    def _stats(self) -> Stats:
        counters = self._active_tester.counters if self._tester else None
        return Stats(
            candidates_run=counters.candidates_run if counters else 0,
            runs=counters.runs if counters else 0,
            cache_hits=counters.cache_hits if counters else 0,
            rejected_unparsable=counters.rejected_unparsable if counters else 0,
            stale=counters.stale if counters else 0,
            accepted=self._accepted,
            elapsed=time.monotonic() - self._started_at,
            current_pass=self._current_pass,
        )

    def _emit(self, event: Event) -> None:
        self._listener(event)


def region_starts(source: Source) -> list[int]:
    """Where the search's independent regions begin (search/regions.py): each top-level
    statement, and each statement of a top-level function's or class's body."""
    starts = []
    for node in source.tree.body:
        starts.append(source.line_start(first_line(node)))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            starts.extend(source.line_start(first_line(inner)) for inner in node.body)
    return sorted(starts)


def edit_key(source: Source, edit: Edit) -> tuple:
    """What an edit does, wherever its statement moved: the text of the innermost
    statement around each patch, the patch's place in it, and the replacement
    (rendered without other edits). Any change to that statement -- e.g. a line
    removed from a string it holds -- makes the edit new again."""
    text = source.text
    plain = lambda start, end: text[start:end]  # noqa: E731
    parts = []
    for patch in edit.patches:
        start, end = _innermost_statement(source, patch.start, patch.end)
        parts.append((text[start:end], patch.start - start, patch.end - start, patch.build(plain)))
    return (edit.pass_name, tuple(parts))


def _innermost_statement(source: Source, start: int, end: int) -> tuple[int, int]:
    best = (0, len(source.text))
    for stmt_start, stmt_end in source.statement_spans:
        if stmt_start <= start and end <= stmt_end and stmt_end - stmt_start < best[1] - best[0]:
            best = (stmt_start, stmt_end)
    return best


def adaptive_timeout(original_seconds: float, limit: float) -> float:
    """How long a candidate may run: 5x the original, at least 0.3 s, at most --timeout.

    A candidate that runs much longer than the original has almost always left
    the failing path (a hang, or -- typical for kernels -- a "fixed" kernel that
    goes on to compile for a second or more); it costs a fraction of a second,
    not the whole --timeout. The floor keeps a loaded machine from turning slow
    runs of fast programs into timeouts.
    """
    return min(limit, max(0.3, 5.0 * original_seconds))


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


def _raises_itself(path: str, line: int) -> bool:
    """Whether the statement at `path`:`line` is the module's own check (see `_own_check`)."""
    try:
        with open(path, "rb") as handle:
            tree = parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return True  # unknown: keep the import
    return _own_check(tree, line)


def _own_check(tree: ast.AST, line: int) -> bool:
    """Whether a `raise` or an `assert` of `tree` spans `line`: the program reports the failure itself."""
    return any(
        isinstance(node, (ast.Raise, ast.Assert)) and node.lineno <= line <= (node.end_lineno or node.lineno)
        for node in ast.walk(tree)
    )


def _parse_or_explain(text: str, path: str) -> ast.Module:
    try:
        return parse(text, filename=path)
    except SyntaxError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.offset}: syntax error: {error.msg}") from None
    except (ValueError, RecursionError) as error:
        raise UsageError(f"{path}: cannot parse: {error}") from None


def _check_annotations(text: str, path: str) -> None:
    problems = parse_freeze(text).errors
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UsageError(f"{path}:{first.line}:{first.start_col + 1}: {first.message}{more}")
