"""The final check: the result, re-run in a fresh interpreter exactly as a user will run it.

Once, or as many times as the original ran to measure its failure rate (the
result's rate goes into the summary). Candidates ran on a warm runner, whose
preloaded modules a candidate may have stopped importing; so if the result
fails standalone no more, the newest accepted text that does is found by a
binary search over the history (each text run up to its first failure) and
becomes the result. With `subproc` candidates already ran that way: a result
that does not fail then is a flaky failure, and is kept.

A run here has the full `--timeout`, not the candidates' adaptive limit: a
fresh interpreter starts slower than a warm fork. A run that times out does not
end the measure (`timeout_rejects=False`): all of them count towards the rate.
Frozen code is probed once after the runs, in the same fresh interpreter; a
probe that cannot run counts as frozen code not run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

from autodd_lsp.engine.candidates import CandidateTester, Rules
from autodd_lsp.engine.flaky import FailureRate
from autodd_lsp.engine.original import OriginalChecks
from autodd_lsp.engine.pytest_target import PytestTest
from autodd_lsp.engine.slots import JobSlots
from autodd_lsp.engine.texts import Texts
from autodd_lsp.engine.verdict import FixedRuns, run_until_decided
from autodd_lsp.execution import Backend, RunResult
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.oracle.same import Observation


class FinalCheck:
    """Runs the check (`run`) and keeps what it saw: `rate` (the result's failure rate) and
    `observation` (the failure line of its last run that showed it, or of its last run)."""

    def __init__(self, checks: OriginalChecks, texts: Texts, launcher: Launcher, pytest: PytestTest | None,
                 accept: Callable[[str, str | None], None], cancelled: Callable[[], bool]) -> None:
        self.checks, self.texts, self.launcher, self.pytest = checks, texts, launcher, pytest
        self.accept, self.cancelled = accept, cancelled
        self.rate: FailureRate | None = None
        self.observation: Observation | None = None
        self.slots: JobSlots | None = None  # where a test runs alone, if not in the job slots
        self.tester: CandidateTester | None = None  # the fresh interpreter's, while the check runs

    def run(self, slots: JobSlots, rules: Rules, backend_name: str) -> bool:
        """Whether the result (after the bisection, if it came to that) still fails the same way."""
        if self.cancelled():
            return False
        launcher = self.launcher  # a script: as candidates ran
        if self.pytest:  # the test file alone in an empty folder, under plain `python -m pytest`
            slots = self.slots = JobSlots(1, os.path.basename(self.checks.path))
            launcher = replace(launcher, cwd=os.path.dirname(slots.paths[0]), launch=self.pytest.launch(standalone=True))
        fresh = launcher.backend("subproc")
        try:
            return self._check(fresh, slots, rules, backend_name)
        finally:
            if self.slots is not None:
                self.slots.remove()

    def _check(self, fresh: Backend, slots: JobSlots, rules: Rules, backend_name: str) -> bool:
        history = self.texts.history
        with fresh:
            checker = self.tester = CandidateTester(fresh, slots, jobs=1, rules=rules)
            last = len(history) - 1
            self.rate = self._measure(checker, last, self.checks.rate_runs)
            if self.rate.failures:
                return True
            if backend_name == "subproc":
                return False  # judged the same way before: the failure is flaky
            good, bad = 0, last
            while good + 1 < bad and not self.cancelled():
                middle = (good + bad) // 2
                failing = self._measure(checker, middle, self.checks.rate_runs, until_first_failure=True).failures
                good, bad = (middle, bad) if failing else (good, middle)
            self.accept(history[good], None)
            self.rate = self._measure(checker, len(history) - 1, self.checks.rate_runs)
            return self.rate.failures > 0

    def _measure(self, checker: CandidateTester, index: int, runs: int, until_first_failure: bool = False) -> FailureRate:
        """Run a text of the history up to `runs` times: how many failed the same way."""
        texts, checks = self.texts, self.checks
        text = texts.history[index]
        # An older text's place was judged when it was accepted; only the best's shadow is kept.
        shadow = texts.shadow if index == len(texts.history) - 1 else None
        statements_of = texts.statements_of(lambda: shadow)
        judge, frozen, timeout = checker.rules.judge, checker.rules.frozen, checks.options.timeout
        seen_last: list[Observation | None] = []  # the failure line to report, as the runs go
        failed_once = False

        def shows_failure(result: RunResult) -> bool:
            nonlocal failed_once
            seen = checks.observe(result.output, text)
            failed = judge.is_interesting(result, text, statements_of)
            if failed or not failed_once:
                seen_last[:] = [seen]
            failed_once = failed_once or failed
            return failed

        decided = run_until_decided(
            lambda: checker.run(text, timeout, checker.new_cancel_event()), shows_failure,
            # Every run counts towards the rate, a timed-out one too; the full limit (not the adaptive
            # one): a fresh interpreter starts slower than the warm fork the candidates ran in.
            FixedRuns(runs, until_first_failure), timeout_rejects=False,
        )
        failures = decided.failures
        if decided.runs:
            self.observation = seen_last[0] if seen_last else None
        if failures and frozen is not None:
            probed = frozen.probe(text)
            probe = None if probed is None else checker.run(probed, timeout, checker.new_cancel_event())
            if probe is None or probe.cancelled or not frozen.satisfied(probe.output):
                failures = 0  # the frozen code no longer runs (or cannot be probed)
        return FailureRate(failures, decided.runs)
