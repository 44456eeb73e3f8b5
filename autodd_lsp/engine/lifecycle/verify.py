"""The final check: the result, re-run in a fresh interpreter exactly as a user will run it.

Where: first alone in an empty temporary folder (nothing a run left there,
nothing of the user's); a script that never fails there goes on beside the
source as the user had it (its own files: `clean_runs.py` removes what each run
writes), and a notice says it needs files of that folder. A pytest test is
judged alone only (notes/pytest.md); a result that still imports modules beside
it (`--keep-imports`) only beside them.

How often: a deterministic failure must show in every one of `FINAL_RUNS`
runs (a result that fails only sometimes -- a seed dropped -- is not the user's
bug; a text that fails at rate p passes with p**5); an intermittent one in at
least one of as many runs as the original ran to measure its rate (the
result's rate goes into the summary). At a RecursionError the failing
statement's operands are not compared here (what it saw at the limit depends on
how deep the stack was when the program began, and a warm runner's candidates
began deeper than `python file.py` does); the failure line and its place are.
Candidates ran on a warm runner, whose
preloaded modules a candidate may have stopped importing, and one run of a
candidate cannot tell a flaky text: if the result fails these runs, the newest
accepted text that passes them is found by a binary search over the history
and becomes the result. With `subproc`, an intermittent failure was already
judged that way: a result that does not fail then is kept. At -j N the runs
that measure go up to N at once, alone each in an empty folder of its own, and
are judged in the order they started (`verdict.run_until_decided`); bisecting,
one at a time.

A run here has the full `--timeout`, not the candidates' adaptive limit: a
fresh interpreter starts slower than a warm fork. A run that times out does not
end the measure (`timeout_rejects=False`): all of them count towards the rate.
Frozen code is probed once after the runs, in the same fresh interpreter; a
probe that cannot run counts as frozen code not run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from autodd_lsp.engine.candidate.candidates import CandidateTester, Rules
from autodd_lsp.engine.candidate.clean_runs import FolderWatch
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.candidate.verdict import FixedRuns, run_until_decided
from autodd_lsp.engine.lifecycle.original import OriginalChecks
from autodd_lsp.engine.lifecycle.texts import Texts
from autodd_lsp.engine.rules.judge import replace_judge
from autodd_lsp.engine.spec.flaky import FINAL_RUNS, FailureRate
from autodd_lsp.engine.spec.pytest_target import PytestTest
from autodd_lsp.execution import Backend, RunResult
from autodd_lsp.execution.backend import IN_ITS_FOLDER
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.inlining.project import package_version, project_imports, project_root
from autodd_lsp.kinds.signature import output_tail
from autodd_lsp.oracle.operands import chosen
from autodd_lsp.oracle.same import Observation
from autodd_lsp.syntax.metrics import size_of


@dataclass(frozen=True)
class _EveryRun:
    """A deterministic failure's final runs: all `runs` must fail. `quick` (bisecting): the first
    run without it decides; two runs in a row without it end a measure anyway (it does not fail
    here at all, more runs tell nothing)."""

    runs: int
    quick: bool = False

    def decide(self, failures: int, runs: int) -> bool | None:
        if failures < runs and (self.quick or (runs >= 2 and not failures)):
            return False
        return failures == runs if runs >= self.runs else None


class FinalCheck:
    """Runs the check (`run`) and keeps what it saw: `rate` (the result's failure rate) and
    `observation` (the failure line of its last run that showed it, or of its last run)."""

    def __init__(self, checks: OriginalChecks, texts: Texts, launcher: Launcher, pytest: PytestTest | None,
                 accept: Callable[[str, str | None, str], None], cancelled: Callable[[], bool],
                 notice: Callable[[str], None], watch: FolderWatch | None, jobs: int = 1) -> None:
        self.checks, self.texts, self.launcher, self.pytest = checks, texts, launcher, pytest
        self.jobs = jobs  # runs at once (-j), each in a folder of its own when alone
        self.accept, self.cancelled, self.notice, self.watch = accept, cancelled, notice, watch
        self.rate: FailureRate | None = None
        self.observation: Observation | None = None
        self.comparison: dict[str, Any] | None = None  # the result's failing comparison (operand_rule.py)
        self.slots: JobSlots | None = None  # where the result runs alone, while it does
        self.tester: CandidateTester | None = None  # the fresh interpreter's, while the check runs
        self.needs_folder = False  # verified only beside the source: the result reads files there
        self.went_back = False  # the last run went back to an older text, which fails fresh, over a disagreement
        self.shown = ""  # what the last measured run that did not fail the same way showed (one line)

    def run(self, slots: JobSlots, rules: Rules, backend_name: str) -> bool:
        """Whether the result (after the bisection, if it came to that) still fails the same way."""
        self.went_back = self.needs_folder = False
        if self.cancelled():
            return False
        observation = self.checks.observation
        if observation is not None and observation.line.startswith("RecursionError") and rules.judge.statement:
            # What the failing statement saw at the recursion limit (how deep it got, a node that
            # alternates with the depth) depends on how deep the stack was when the program
            # began: the warm runner's candidates all began alike, a fresh interpreter does not.
            rules = replace(rules, judge=replace_judge(rules.judge, rules.judge.operands, None))
        if self.launcher.launch.shell or (not self.pytest and not self.checks.options.inline_modules):
            # the result imports modules beside it, or the user's check runs from the folder it names
            return self._check(self.launcher.backend("subproc"), slots, rules, backend_name, self.watch, "always")
        alone = self.slots = JobSlots(self._at_once(), os.path.basename(self.checks.path))
        folders = [os.path.dirname(path) for path in alone.paths]
        launch = self.pytest.launch(standalone=True) if self.pytest else self.launcher.launch
        # Each run in the empty folder of its file (cwd IN_ITS_FOLDER), none beside another's; a test
        # that still imports its project's package, with the project's folder on sys.path.
        fresh = replace(self.launcher, cwd=IN_ITS_FOLDER, extra_sys_path=self._project_folders(),
                        launch=launch).backend("subproc")
        try:  # a test is judged alone only; a script goes on beside its files if it must
            if self._check(fresh, alone, rules, backend_name, FolderWatch(folders),
                           "always" if self.pytest else "if-flaky"):
                return True
        finally:
            alone.remove()
            self.slots = None
        if self.pytest or self.cancelled():
            return False
        verified = self._check(self.launcher.backend("subproc"), slots, rules, backend_name, self.watch, "always")
        self.needs_folder = verified
        if verified and not self.went_back:  # (going back, the text that fails alone may come later)
            self.notice(f"the result does not fail alone in an empty folder, only beside "
                        f"{os.path.basename(self.checks.path)}: it needs files of that folder")
        return verified

    def _project_folders(self) -> tuple[str, ...]:
        """The folders of a test's project (`inlining/project.py`) whose packages the result still
        imports (they could not be inlined), said in a notice with the version each declares: the
        result needs them, and is checked alone with them on sys.path, as pytest has them."""
        if not self.pytest:
            return ()
        path = self.checks.path
        needs = project_imports(self.texts.best, path)
        for name, folder in needs:
            version = package_version(os.path.join(folder, name), project_root(path))
            self.notice(f"the result needs {name}{f' {version}' if version else ''} from {folder} (not inlined): "
                        f"it is checked alone with {folder} on sys.path, as pytest has it; run it so "
                        f"(PYTHONPATH={folder}) or with {name} installed")
        return tuple(dict.fromkeys(folder for _, folder in needs))

    def _check(self, fresh: Backend, slots: JobSlots, rules: Rules, backend_name: str,
               watch: FolderWatch | None, go_back: str) -> bool:
        """The final runs of the result on `fresh`; `go_back` through the history when they fail
        ("always"), or only when some of them fail the same way ("if-flaky": then the text does
        not need what this place lacks, it is not deterministic)."""
        history = self.texts.history
        deterministic = rules.rate_test is None
        wanted = max(self.checks.rate_runs, FINAL_RUNS) if deterministic else self.checks.rate_runs

        def passes(rate: FailureRate) -> bool:
            return rate.runs > 0 and (rate.failures == rate.runs if deterministic else rate.failures > 0)

        with fresh:
            checker = self.tester = CandidateTester(fresh, slots, jobs=self._at_once(), rules=rules, watch=watch)
            last = len(history) - 1
            self.rate = self._measure(checker, last, wanted, deterministic)
            if passes(self.rate) or (go_back == "if-flaky" and not self.rate.failures):
                return passes(self.rate)
            if deterministic and self.rate.failures:
                self.notice(
                    f"the result failed the same way in {self.rate.failures} of {self.rate.runs} fresh runs, "
                    f"the original in every run: going back to the newest smaller text that fails in all of {wanted}"
                )
            elif backend_name == "subproc" and not deterministic:
                return False  # judged the same way before: the failure is flaky
            # no fresh run failed the same way: not a rarer failure (a seed dropped) but a text the
            # candidates' runs and a fresh interpreter disagree on
            disagree = deterministic and not self.rate.failures
            good, bad, shown = 0, last, {last: self.shown}
            while good + 1 < bad and not self.cancelled():
                middle = (good + bad) // 2
                failing = passes(self._measure(checker, middle, wanted, deterministic, quick=True))
                good, bad = (middle, bad) if failing else (good, middle)
                shown.setdefault(bad, self.shown)
            if disagree:
                self._disagree(good, bad, shown[bad])
            self.accept(history[good], None, f"the final check, going back to step {good}")
            self.rate = self._measure(checker, len(history) - 1, wanted, deterministic)
            self.went_back = disagree and passes(self.rate)
            if not passes(self.rate) and good == 0:
                self.notice("the reduction's original does not fail the same way in a fresh interpreter either")
            return passes(self.rate)

    def _disagree(self, good: int, bad: int, shown: str) -> None:
        """Say which acceptance the candidates' runs and a fresh interpreter disagree on: the text of
        the history at `bad` (`seen`: what it showed fresh), the first after `good`, the newest
        that fails fresh (the reduction goes on from it: `reduction.py`)."""
        texts = self.texts
        self.notice(
            f"the candidates' runs and a fresh interpreter disagree on the text accepted by {texts.found_by[bad]} "
            f"(step {bad} of {len(texts.history) - 1}, {size_of(texts.history[bad]).nodes} nodes): fresh it shows "
            f"{shown}; going back to step {good} ({size_of(texts.history[good]).nodes} nodes), the newest text "
            "before it that fails fresh"
        )

    def _at_once(self) -> int:
        """How many of the final runs go at once: -j's, up to as many as are wanted."""
        return max(1, min(self.jobs, max(self.checks.rate_runs, FINAL_RUNS)))

    def _measure(self, checker: CandidateTester, index: int, runs: int, deterministic: bool,
                 quick: bool = False) -> FailureRate:
        """Run a text of the history up to `runs` times: how many failed the same way. `quick`:
        stop as soon as the verdict is known (bisecting the history)."""
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
            if judge.operands is not None and (not failed_once or index == len(texts.history) - 1):
                self.comparison = chosen(result.comparisons, judge.operands.which)
            failed = judge.is_interesting(result, text, statements_of)
            if not failed:
                self.shown = seen.line.strip() if seen is not None else output_tail(result.output, max_lines=1)
            if failed or not failed_once or deterministic:
                seen_last[:] = [seen]
            failed_once = failed_once or failed
            return failed

        decided = run_until_decided(
            lambda: checker.run(text, timeout, checker.new_cancel_event()), shows_failure,
            # Every run counts towards the rate, a timed-out one too; the full limit (not the adaptive
            # one): a fresh interpreter starts slower than the warm fork the candidates ran in.
            _EveryRun(runs, quick) if deterministic else FixedRuns(runs, until_first_failure=quick),
            timeout_rejects=False,
            # Bisecting, the first run may decide; measuring, every run counts: they go at once.
            at_once=1 if quick else min(checker.jobs, runs), most=runs,
        )
        failures = decided.failures
        if decided.runs:
            self.observation = seen_last[0] if seen_last else None
        if failures and checker.rules.passes_on is not None:
            if not checker.rules.passes_on(text, checker.new_cancel_event()):
                failures = 0  # it fails on side A too (passing_side.py)
        if failures and frozen is not None:
            probed = frozen.probe(text)
            probe = None if probed is None else checker.run(probed, timeout, checker.new_cancel_event())
            if probe is None or probe.cancelled or not frozen.satisfied(probe.output):
                failures = 0  # the frozen code no longer runs (or cannot be probed)
        return FailureRate(failures, decided.runs)
