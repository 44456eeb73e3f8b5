"""The original's checks: does it fail, the same way each time, and how often? Then the rules.

Before any candidate, the original runs on the candidates' backend (`check`):
  1. once, to teach a warm runner its imports, and again until it shows the
     failure or `repeat` runs are spent; otherwise NotReproducible, with why
     (your own check must then fail on an empty program: `_refuse_blind_check`);
  2. the kind's rule (`judge.failure_oracle`) and its observer of failure lines
     are set from that run;
  3. with `--inline-modules` or a pytest test, the program with its own modules
     (and conftest.py files) written into it replaces the original when it
     fails the same way (`inlined.py`);
  4. a second run says whether the failure line and its place are stable and
     how long a warm run takes (the candidates' adaptive time limit); when it
     does not show the failure, the failure is intermittent and DEFAULT_RUNS
     runs (or `repeat`) measure its rate (`flaky.py`); a hang runs once;
  5. frozen code that the original runs is found by a probed run
     (`frozen_probe.py`);
  6. by default, every run is of the probed program (`operand_probe.py`): its
     records of the failing statement's operands and, when the failure is a
     numeric comparison that fails (or `--wrong-answer`), of that comparison's,
     become rules candidates must keep (`operand_rule.py`); with
     `--passes-with`, the original must pass on side A (`passing_side.py`).
The result is the candidates' `Rules`, given to the tester once, complete. What
this learnt (the failure line, the rule in words, the rate) goes into the summary.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from autodd_lsp.cancel import Cancel
from autodd_lsp.engine.candidate.candidates import CandidateTester, Rules
from autodd_lsp.engine.candidate.clean_runs import writes_notice
from autodd_lsp.engine.candidate.passing_side import PassingSide
from autodd_lsp.engine.lifecycle.inlined import inlined_instead
from autodd_lsp.engine.lifecycle.options import ReduceOptions
from autodd_lsp.engine.lifecycle.reporter import Reporter
from autodd_lsp.engine.lifecycle.run_scratch import compiled
from autodd_lsp.engine.lifecycle.texts import Texts
from autodd_lsp.engine.lifecycle.timeouts import adaptive_timeout, crowding
from autodd_lsp.engine.rules.earlier_files import earlier_hook, with_hook
from autodd_lsp.engine.rules.earlier_files import notice as earlier_notice
from autodd_lsp.engine.rules.frozen_probe import FrozenCheck, markers_seen
from autodd_lsp.engine.rules.judge import (
    Judge,
    failure_observer,
    failure_oracle,
    replace_judge,
)
from autodd_lsp.engine.rules.no_match import NoMatchWatch
from autodd_lsp.engine.rules.operand_probe import probe, probed_text
from autodd_lsp.engine.rules.operand_rule import (
    from_runs,
    may_be_comparison,
    statement_rule,
)
from autodd_lsp.engine.rules.protection import (
    frozen_fingerprint,
    frozen_spans,
    own_check_tests,
)
from autodd_lsp.engine.rules.seeds import SEEDLESS_RUNS, without_seeds
from autodd_lsp.engine.searching.run_map import FailingPath
from autodd_lsp.engine.spec.errors import NotReproducible, UsageError
from autodd_lsp.engine.spec.flaky import DEFAULT_RUNS, MARGIN, FailureRate, RateTest
from autodd_lsp.engine.spec.pytest_target import PytestTest
from autodd_lsp.execution import RunResult
from autodd_lsp.kinds.signature import output_tail
from autodd_lsp.oracle.degenerate import degenerate_values
from autodd_lsp.oracle.run import Oracle
from autodd_lsp.oracle.same import Observation, Observer, SameFailure, stable
from autodd_lsp.syntax.source import Source

RECORD_TIMEOUT_FLOOR = 60.0  # seconds the recording run may take at least (interpreter start and imports included: on a loaded machine, torch and TileLang alone take 15-20 s)


class OriginalChecks:
    """Runs the original (`check`) and keeps what it showed: `oracle` (the kind's rule), its
    `observer` of failure lines, `observation` (the original's failure line), `rule` (how
    candidates are judged, in words), `rate` (when measured) and `rate_runs` (how many runs
    measure the result's rate at the end: 1, a plain re-run, unless the rate was measured)."""

    def __init__(
        self, options: ReduceOptions, path: str, texts: Texts, tester: CandidateTester, reporter: Reporter,
        pytest: PytestTest | None, jobs: int, cancelled: Callable[[], bool],
        is_program: Callable[[str], bool], program_paths: Callable[[], tuple[str, ...]],
        passing: PassingSide | None = None,
    ) -> None:
        self.options, self.spec, self.path, self.texts = options, options.spec, path, texts
        self.tester, self.reporter, self.pytest, self.jobs = tester, reporter, pytest, jobs
        self.cancelled, self._is_program, self._program_paths = cancelled, is_program, program_paths
        self.oracle: Oracle | None = None
        self.observer: Observer | None = None
        self.observation: Observation | None = None
        self.rule = ""
        self.rate: FailureRate | None = None
        self.rate_runs = 1
        self.record_timeout = options.timeout  # the recording run's limit (`value_recorder.py`)
        self._cold = 0.0  # the first run's time when it compiled kernels (run_scratch.py), else 0
        self.run_seconds = 0.0  # how long the original's run takes, warm (set by check())
        self.no_match = NoMatchWatch(None, lambda line: None)  # why no candidate matches, set by check()
        self.keep_seeds = False  # the seeding calls are protected (seeds.py), set by check()
        self.passing = passing  # side A of --passes-with (passing_side.py)
        self.original_comparison: dict[str, Any] | None = None  # the failing comparison's record (operand_rule.py)
        # The tests of the program's own check that raises the failure and of the ifs around it, in the original: protected (protection.py).
        self.own_check: list[tuple[int, int]] = []
        # The original's statements the failure came through, when the rule checks its place (run_map.py).
        self.failing_path: FailingPath | None = None

    @property
    def kind_rule(self) -> Oracle:
        """The kind's rule, set from the original's run."""
        if self.oracle is None:
            raise RuntimeError("the kind's rule is set once the original has run")
        return self.oracle

    def check(self, pool: ThreadPoolExecutor | None = None) -> None:
        """Does the original fail, the same way each time, and how often? Sets the tester's rules.

        Two runs: the first teaches the runner the program's imports, the second
        says whether the failure line and its place are stable and how long a
        warm run takes. When the second does not show the failure the first
        showed, the failure is intermittent: DEFAULT_RUNS runs measure its rate.
        With `repeat`, that many runs measure it whatever they show. A rate
        below 100% makes candidates face the sequential test (`flaky.py`); a
        deterministic failure keeps one run per candidate. A hang is run once:
        a second run would cost the limit again and tell nothing more.
        """
        tester, options, text, spec = self.tester, self.options, self.texts.original, self.spec
        timeout = options.timeout
        if spec.rules.probes_operands or self._may_keep_operands():
            tester.probe = probed_text  # the failure's operands are seen in the probe's records (operand_rule.py)
        runs = [self.run_original(learn_imports=True)]
        if self.cancelled():
            return
        watch = tester.watch
        if watch is not None and watch.created:
            self.reporter.notice(writes_notice(watch.created))
        rewritten = watch.rewritten() if watch is not None and self.pytest is None else []
        oracle = self.failure_rule(runs[0])
        while oracle is None and len(runs) < options.repeat:  # a failure that shows late
            runs.append(self.run_original())
            if self.cancelled():
                return
            oracle = self.failure_rule(runs[-1])
        if oracle is None:
            last = runs[-1]
            not_run = self.pytest.not_run_reason(last) if self.pytest else None
            if not_run:
                raise NotReproducible(not_run, output_tail(last.output, max_lines=15))
            reason = spec.rules.not_reproduced(spec.value, failure_oracle(spec, last, text, timeout), last,
                                               len(runs), timeout, hint=not options.repeat)
            raise NotReproducible(reason, output_tail(last.output, max_lines=15))
        if spec.rules.command(spec.value) and self.oracle is None:  # once, before the first rule
            self._refuse_blind_check(oracle)
        self.oracle = oracle
        self.observer = failure_observer(spec, oracle, self._is_program, self._program_paths)
        first_index = len(runs) - 1
        first = self.observe(runs[first_index].output, text)
        self.observation = first
        inlined = None if self.cancelled() else inlined_instead(self, first)
        if inlined is not None:  # from here on the reduction's original is the inlined program
            result, oracle, first = inlined
            self.oracle = oracle
            runs, first_index, text = [result], 0, self.texts.original
            self.observation = first
        self.rule = spec.rules.rule(oracle, options.match, first)
        if options.match == "same" and first is not None and first.place is not None \
                and first.place.program_line is not None:
            self.own_check = own_check_tests(Source(text, self.texts.tree), first.place.program_line)

        def shows(result: RunResult) -> bool:
            return not result.cancelled and oracle.accepts(result, text)

        first_run = runs[first_index]
        # The recording run starts a fresh interpreter and runs slower, instrumented; passes wait for it.
        self.record_timeout = min(timeout, max(RECORD_TIMEOUT_FLOOR, 10.0 * first_run.duration))
        rate_test, timeout_rejects = None, True
        tree = self.texts.tree
        if spec.rules.runs_to_the_limit:
            # A candidate hangs if it runs past the limit the original ran past (see oracle/timeout.py).
            judge, candidate_timeout = Judge(oracle, None, degenerate_values(tree)), timeout
        else:
            # A second run: is the failure line stable, and how long does a warm run take?
            if len(runs) < max(2, options.repeat):
                runs.append(self.run_original())
                if self.cancelled():
                    return
            if options.repeat or not shows(runs[-1]):
                self._run_original_more(runs, options.repeat or DEFAULT_RUNS, pool)
                if self.cancelled():
                    return
            again = next((r for r in runs[first_index + 1:] if shows(r)), None)
            same = self._same_failure(first, again)
            judge = Judge(oracle, same, degenerate_values(tree))
            self.failing_path = self._failing_path(first, same)
            failed = [
                index == first_index
                or (not r.cancelled and judge.is_interesting(r, text, self.texts.statements.of_line))
                for index, r in enumerate(runs)
            ]
            warm = [r.duration for index, r in enumerate(runs) if index and failed[index]]
            duration = max(warm) if warm and not first_run.timed_out else first_run.duration
            self.run_seconds = duration
            first_compiled = not self._cold and compiled(self.tester.backend.extra_env)  # (run_scratch.py)
            if first_compiled:
                self._cold = first_run.duration  # kept: a later check (once inlined) finds them compiled
            candidate_timeout = adaptive_timeout(duration, timeout, self._cold, crowding(self.jobs))
            if first_compiled:
                self.reporter.notice(
                    f"the program compiles kernels before it fails ({self._cold:.1f} s without a kernel cache): "
                    f"a candidate may run {candidate_timeout:.1f} s, time to compile one again"
                )
            rate_test = self._measured(FailureRate(sum(failed), len(runs)))
            # A candidate's run that times out has left the original's path, unless the original timed out too.
            timeout_rejects = not any(r.timed_out for r in runs)
            judge = self._with_operands(judge, runs[first_index:], first)
            if rewritten:
                judge = self._refusing_earlier_files(judge, rewritten)
                if self.cancelled():
                    return
        rules = Rules(judge, candidate_timeout, rate_test=rate_test, timeout_rejects=timeout_rejects,
                      probe=tester.probe)
        frozen = frozen_fingerprint(text)
        if frozen:
            rules = replace(
                rules,
                well_formed=lambda candidate: frozen_fingerprint(candidate) == frozen,
                frozen=self.frozen_check() if options.match == "same" else None,
            )
        if self.passing is not None:
            rules = replace(rules, passes_on=self._passing_check(oracle, text))
        tester.judge_by(rules)
        tester.set_best(text)
        self.no_match = NoMatchWatch(self.observation, self.reporter.notice)
        # A deterministic failure keeps its seeds, where it needs them (seeds.py).
        self.keep_seeds = rate_test is None and self._needs_its_seeds(judge, text, candidate_timeout)

    def _refuse_blind_check(self, oracle: Oracle) -> None:
        """UsageError when your check passes on an empty program under the source's name: it does not read
        the candidate (a check of the original, or of nothing, keeps every candidate: an empty result)."""
        empty = self.run_original(text="")
        if not empty.cancelled and oracle.accepts(empty, ""):
            raise UsageError(self.spec.rules.blind(self.spec.value, os.path.basename(self.path)))

    def _needs_its_seeds(self, judge: Judge, text: str, timeout: float) -> bool:
        """Whether the original, its seeding statements made `pass`, stops failing the same way in
        one of `SEEDLESS_RUNS` runs (False: it has none, or fails so every time)."""
        unseeded = without_seeds(Source(text, self.texts.tree))
        if unseeded is None:
            return False
        for _ in range(SEEDLESS_RUNS):
            result = self.tester.run(unseeded, timeout, self.tester.new_cancel_event())
            if result.cancelled or not judge.is_interesting(result, unseeded, self.texts.statements.of_line):
                return True
        return False

    def _passing_check(self, oracle: Oracle, text: str) -> Callable[[str, Cancel], bool | None]:
        """The original passes on side A (else NotReproducible, one line); candidates then must too."""
        side = self.passing
        assert side is not None
        side.oracle = oracle
        side.tester.probe = self.tester.probe
        reason = side.why_not_passing(text, side.tester.new_cancel_event())
        if reason is not None:
            raise NotReproducible(reason, "")
        self.rule = f"{self.rule}; passes with {side.describe()}"
        return side.passes

    def _may_keep_operands(self) -> bool:
        """Whether the failure's operands may become a rule (then every run is probed from the start)."""
        return self.options.match == "same" and self.spec.kind in ("message", "regex", "exit-code")

    def _with_operands(self, judge: Judge, runs: list[RunResult], first: Observation | None) -> Judge:
        """`judge` with the rules that keep the failure's operands (operand_rule.py): the failing
        statement's, and the wrong-answer rule when the failure is a failing comparison. `runs`: the
        original's runs from its first failing one, probed when a rule may apply."""
        tester, of_line, text = self.tester, self.texts.statements.of_line, self.texts.original
        if self.options.match != "same" or tester.probe is None:
            return judge
        operands = statement = None
        notes = []
        if self.spec.rules.probes_operands:
            operands, note = from_runs(runs[:2], "first", of_line)
            notes.append(note)
        elif first is not None and first.place is not None and first.place.program_line is not None:
            failed = [r for r in runs if judge.is_interesting(r, text, of_line)][:2]
            if may_be_comparison(runs[0], first):
                operands, note = from_runs(failed, "last", of_line, first.place.program_line)
                notes.append(note)
            if judge.same is not None and judge.same.check_place:  # a stable place: its statement is known
                statement, note = statement_rule(failed, of_line, first.place.program_line)
                notes.append(note)
        if operands is None and statement is None:
            if not self.spec.rules.probes_operands:
                tester.probe = None  # nothing to keep: candidates run as they are
            return judge
        for note in notes:
            if note:
                self.reporter.notice(note)
        for rule in (operands, statement):
            if rule is not None:
                self.rule = f"{self.rule}; {rule.describe()}"
        if operands is not None:
            self.original_comparison = operands.original
        if not self.spec.rules.probes_operands:
            tester.probe = probe(comparisons=operands is not None, statement=statement is not None)
        return replace_judge(judge, operands, statement)

    def _refusing_earlier_files(self, judge: Judge, rewritten: list[str]) -> Judge:
        """`judge` refusing runs that read, before writing it, a file of `rewritten` that the original
        does not read first itself (earlier_files.py): the original runs once more to see which."""
        tester, before = self.tester, self.tester.probe
        tester.probe = with_hook(before, earlier_hook(rewritten))
        read_first = set(self.run_original().read_earlier)
        products = [path for path in rewritten if path not in read_first]
        if not products:
            tester.probe = before
            return judge
        if read_first:
            tester.probe = with_hook(before, earlier_hook(products))
        self.reporter.notice(earlier_notice(products))
        judge.refuse_earlier = True  # rule 6 (judge.py); the judge's other rules stay as they are
        return judge

    def run_original(self, learn_imports: bool = False, text: str | None = None) -> RunResult:
        """One run of the original (or of `text`) on the candidates' backend, with the full limit."""
        tester = self.tester
        text = self.texts.original if text is None else text
        return tester.run(text, self.options.timeout, tester.new_cancel_event(), learn_imports=learn_imports)

    def _run_original_more(self, runs: list[RunResult], total: int, pool: ThreadPoolExecutor | None) -> None:
        """Run the original until `runs` holds `total` runs; `jobs` at a time."""
        missing = total - len(runs)
        if missing <= 0:
            return
        if pool is None or self.jobs == 1:
            for _ in range(missing):
                runs.append(self.run_original())
                if self.cancelled():
                    return
        else:
            runs.extend(pool.map(lambda _: self.run_original(), range(missing)))

    def failure_rule(self, result: RunResult, text: str | None = None) -> Oracle | None:
        """The rule of the failure to keep, learnt from a run of the original (of `text`), or None
        if that run does not show the failure."""
        if result.cancelled:
            return None
        text = self.texts.original if text is None else text
        oracle = failure_oracle(self.spec, result, text, self.options.timeout, test=self.pytest is not None)
        return oracle if oracle.reproduced_by_original else None

    def _measured(self, rate: FailureRate) -> RateTest | None:
        """Take the original's failure rate; below 100%, the sequential test candidates face."""
        if self.options.repeat or not rate.always:
            self.rate = rate
            self.rate_runs = rate.runs
        if rate.always:
            return None
        test = RateTest(rate.rate)
        self.reporter.notice(
            f"the failure is intermittent: the original {rate.describe()}; a candidate counts only if it "
            f"fails about as often (at least {100 * (1 - MARGIN):.0f}% of that rate, by a sequential test of "
            f"up to {test.max_runs} runs; one that never fails is rejected after "
            f"{test.runs_to_reject_a_candidate_that_never_fails()} runs)"
        )
        return test

    def observe(self, output: str, text: str) -> Observation | None:
        """The last failure line of a run's output (of `text`), and its place; None without one."""
        if self.observer is None:
            return None
        seen = self.observer.observations(output, text)
        return seen[-1] if seen else None

    @property
    def failure_line(self) -> str:
        """The original's failure line, stripped ("" without one)."""
        return self.observation.line.strip() if self.observation else ""

    def _same_failure(self, first: Observation | None, again: RunResult | None) -> SameFailure | None:
        """The same-failure rule for this original, or None (the message rule alone); says why once."""
        if self.options.match != "same" or first is None or self.observer is None:
            return None
        second = None
        if again is not None:
            seen = self.observer.observations(again.output, self.texts.original)
            second = next((o for o in reversed(seen) if o.normalized == first.normalized), seen[-1] if seen else None)
        same_line, same_place = stable(first, second)
        rules = self.spec.rules
        kept = rules.rule_prefix(self.kind_rule)
        if not same_line:
            loose = rules.loose_rule(self.kind_rule)
            self.rule = f"{loose} (the original's failure line differs between runs)"
            shown = second.line.strip() if second else "no failure line"
            alone = "the message alone" if not kept else f"{loose!r} alone"
            self.reporter.notice(
                f"the original's failure line differs between two runs ({first.line.strip()!r}, then {shown!r}); "
                f"candidates are judged by {alone}"
            )
            return None
        same = SameFailure(self.observer, first, self.texts.statements.of_line)
        if not same_place:
            self.rule = f"{kept}same failure line (its place differs between runs of the original)"
            self.reporter.notice(
                "the original fails at different places in two runs; candidates must show the same "
                "failure line, from any place"
            )
            return same.without_place()
        return same

    def _failing_path(self, first: Observation | None, same: SameFailure | None) -> FailingPath | None:
        """The original's failing statement, where the rule checks the place (the candidate's innermost
        frame in the program must be on its text: rule 2 of oracle/same.py)."""
        if same is None or not same.check_place or first is None or first.place is None \
                or first.place.program_line is None:
            return None
        statements = self.texts.statements
        failing = statements.of_line(first.place.program_line)
        return FailingPath(failing, statements) if failing else None

    def frozen_check(self, text: str | None = None) -> FrozenCheck | None:
        """Which frozen regions the original (or `text`) runs: a probed copy of it, run once."""
        source = Source(self.texts.original, self.texts.tree) if text is None else Source(text)
        ids, probed = FrozenCheck.probe_original(source, frozen_spans(source))
        if probed is None:
            return None
        result = self.tester.run(probed, self.options.timeout, self.tester.new_cancel_event())
        required = markers_seen(result.output)
        return FrozenCheck(ids, required) if required and not result.cancelled else None
