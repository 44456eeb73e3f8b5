"""`Reduction`, the engine's facade: one reduction of one program, run from start to finish.

See the package docstring for the API (`run`, `cancel`, `offer`, `why_kept`,
`try_text`). A run, and the module that does each step:
  1. the original runs until its failure is known, stable or measured, and the
     candidates' rules are set (`original.py`; the inlining swap, `inlined.py`);
     its values are recorded in the background (`value_recorder.py`);
  2. the pass groups run to a fixpoint (`fixpoint.py`; a script with its own
     modules first with its imports kept, then with what it still uses of
     them inlined: `_reduce`, `inlined.py`), each pass's edits
     searched by `pass_search.py`, each candidate tested by `candidates.py`
     and judged by `judge.py`; a person's text may be adopted between groups
     (`person.py`);
  3. the result is re-run in a fresh interpreter, the history bisected if it no
     longer fails (`verify.py`), and the summary returned.
Everything that starts the program gets the one `Launcher` built at the start
of a run (`execution/launcher.py`); events go out through one `Reporter`
(`reporter.py`); `session.py` wires a run's parts together. This class only
checks the input, starts and ends the run, and answers the person.
"""

from __future__ import annotations

import ast
import os
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from autodd_lsp.engine.candidate.candidates import CandidateTester, JobSlots
from autodd_lsp.engine.candidate.clean_runs import FolderWatch
from autodd_lsp.engine.candidate.mirror import FolderMirror
from autodd_lsp.engine.candidate.passing_side import PassingSide, parse_env
from autodd_lsp.engine.lifecycle.data_files import DataReduction
from autodd_lsp.engine.lifecycle.data_inline import DataWrittenIn
from autodd_lsp.engine.lifecycle.events import Event, Failed, Finished, Started, Summary
from autodd_lsp.engine.lifecycle.inlined import inline_reduced
from autodd_lsp.engine.lifecycle.options import ReduceOptions
from autodd_lsp.engine.lifecycle.reporter import Reporter
from autodd_lsp.engine.lifecycle.run_scratch import scratch_env, without_scratch
from autodd_lsp.engine.lifecycle.session import Session
from autodd_lsp.engine.lifecycle.texts import Texts, parse_program
from autodd_lsp.engine.person.person import Kept, Offers, OfferVerdict, syntax_problem
from autodd_lsp.engine.rules.operand_probe import PROBE_IMPORTS
from autodd_lsp.engine.spec.errors import NotReproducible, UsageError
from autodd_lsp.engine.spec.pytest_target import PYTEST_ENV, PytestTest
from autodd_lsp.execution import CancelEvent, stages
from autodd_lsp.execution.gpus import GpuPool
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.files import overwrite, private_tempdir, source_bytes
from autodd_lsp.inlining.project import import_roots
from autodd_lsp.syntax.metrics import size_of
from autodd_lsp.syntax.parsing import parse


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
        # A pytest test of the file (engine/spec/pytest_target.py), or None: the file runs as a script.
        self._pytest = PytestTest(options.test) if options.test else None
        self._session: Session | None = None  # the run's parts, once it has started
        self._data: DataReduction | None = None  # the result's data files cut (data_files.py), once they are
        self._nested: Reduction | None = None  # the result reduced again with its cut data, while it is
        self._again_cost: tuple[int, float] = (0, 0.0)  # its candidates and seconds, once it ran
        self._nested_done: Reduction | None = None  # that reduction, once its result became the result
        self._inline: DataWrittenIn | None = None  # the data written into the result (data_inline.py), while it is
        # The user in the loop (engine/person/person.py): offered texts, judged once the rules are set.
        self._rules_ready = threading.Event()
        self._offers = Offers(self._judge_offer, self._rules_ready)
        # Your check (`--check CMD`) runs where the candidate is the file (engine/candidate/mirror.py).
        self._mirror = FolderMirror(self.path, options.cwd or os.getcwd()) if options.launch().shell else None
        self._ray_shares_files = False  # every node of the Ray cluster is this machine (_connect_ray)

    @property
    def original_text(self) -> str:
        return self._texts.original

    @property
    def best_text(self) -> str:
        return self._texts.best

    def run(self) -> Summary:
        # Every run sees the folders as the user had them: what a run writes is removed after it
        # (clean_runs.py), so no other process's reduction may run there meanwhile (folder_claim.py).
        watch = FolderWatch([os.path.dirname(self.path)], working_folder=self.options.cwd or os.getcwd())
        claim = watch.claim()
        try:
            summary = self._run(watch)
        finally:
            claim.release()
        # Once more where it reads its cut data, in a folder of its own (the claim released: it is below
        # the temporary folder, which may sit below this one).
        again = self._again(self._data) if self._data is not None and summary.verified else None
        if again is not None:
            summary = replace(summary, text=again.text, final=again.final,
                              final_failure_line=again.final_failure_line or summary.final_failure_line)
        if self._data is not None:
            summary = replace(summary, data=self._data.files,
                              data_candidates=self._data.candidates + self._again_cost[0],
                              data_seconds=self._data.seconds + self._again_cost[1])
            summary = self._written_in(summary, self._nested_done if again is not None else self)
        self._reporter.emit(Finished(summary))
        return summary

    def _written_in(self, summary: Summary, made_by: Reduction | None) -> Summary:
        """`summary` without the data files its text no longer opens (reduced again with the cut data,
        it may read none) and with its small ones written into it, where that keeps the failure
        (`data_inline.py`), judged by the rules of the reduction that made the text (`made_by`)."""
        session, own = made_by._session if made_by is not None else None, self._session
        if self.cancelled or session is None or own is None or not summary.data_in("folder") \
                or not session.tester.has_rules:
            return summary
        step = self._inline = DataWrittenIn(
            self.path, summary.text, made_by._texts, summary.data, own.launcher,  # type: ignore[union-attr]
            session.tester.rules, self.options.timeout, lambda: self.cancelled, session.elsewhere,
            inline=self.options.inline_data)
        try:
            written = step.run()
        finally:
            self._inline = None
        summary = replace(summary, data_candidates=summary.data_candidates + step.candidates,
                          data_seconds=summary.data_seconds + step.seconds)
        if written is None:
            return summary
        made, files = written
        if made_by is self:  # its lines are the result's now (why_kept)
            self._texts.accept(made.text, made.shadow, "the data written in")
        return replace(summary, text=made.text, final=size_of(made.text), data=files)

    def _run(self, watch: FolderWatch) -> Summary:
        original = self._reporter.size
        self._reporter.started_at = time.monotonic()
        # -j: given, or set by the options for the local backends; with ray, counted on the cluster.
        with stages.phase("connect to Ray"):
            jobs = self._connect_ray() if self.options.backend == "ray" else self.options.jobs or 1
        self._reporter.emit(Started(original, self._texts.original))
        slots = self._slots(jobs + 1)
        launcher = self._launcher(slots.root)
        if slots.fallback_reason:
            self._reporter.notice(
                f"{slots.fallback_reason}: candidates run from a temporary folder, so files the program "
                "reads beside itself (through __file__) are not found there"
            )
        backend = launcher.backend(
            self.options.backend_to_use, jobs=jobs,
            # the probe's own imports too (operand_probe.py): each run of a probed program would import them
            preload=(["pytest"] if self._pytest else list(PROBE_IMPORTS)) + top_level_imports(self._texts.tree),
            **({"address": self.options.ray_address} if self.options.backend == "ray" else {}),
        )
        passing = self._passing_side(launcher, jobs, watch)
        session = self._session = Session(
            self.options, self.path, self._texts, self._reporter, self._stopped, self._offers, self._pytest,
            launcher, slots, CandidateTester(backend, slots, jobs, watch=watch), passing,
        )
        checks, final = session.checks, session.final
        verified, user_line = False, ""
        try:
            with ThreadPoolExecutor(jobs + 1, thread_name_prefix="autodd-job") as pool:
                with stages.phase("the original's checks"):
                    checks.check(pool)
                self._rules_ready.set()
                session.recorder.start(slots, self.cancelled)
                user_line = checks.observation.line if checks.observation else ""
                with stages.phase("the search"):
                    self._reduce(session, pool, slots)
                session.close(wait=False)  # before the backend closes
                self._offers.close()
            with stages.phase("closing the backend"):
                backend.close()  # free the warm servers before the standalone check
            # Stopped before the original's checks set the rules (cancelled early): nothing to verify.
            if session.tester.has_rules:
                with stages.phase("the final check"):
                    verified = final.run(slots, session.tester.rules, self.options.backend_to_use)
                if final.went_back and not self.cancelled and self.options.backend_to_use != "subproc":
                    verified = self._go_on_fresh(session, slots, jobs)
            if verified and final.needs_folder and self.options.reduce_data and not self.cancelled \
                    and not self._pytest and not launcher.launch.shell:
                data = self._data = DataReduction(
                    self.path, self.best_text, launcher, session.tester.rules,
                    self._texts.statements_of(lambda: self._texts.shadow), self.options.timeout, watch,
                    lambda: self.cancelled, self._reporter.notice, session.elsewhere,
                    "subproc" if self.options.backend_to_use == "ray" else self.options.backend_to_use,
                    top_level_imports(self._texts.tree))
                data.run()
        except NotReproducible as error:
            self._reporter.emit(Failed(str(error), error.output_tail))
            raise
        except OSError as error:  # e.g. the interpreter vanished, the disk is full
            reason = f"cannot run candidates with {self.options.python}: {error.strerror or error}"
            self._reporter.emit(Failed(reason))
            raise UsageError(reason) from None
        finally:
            session.close(wait=False)
            self._offers.close()
            backend.close()
            if passing is not None:
                passing.close()
            session.recorder.stop()
            session.close()
            slots.remove()
        return Summary(
            original, size_of(self.best_text), self.best_text, self._reporter.stats(), self.cancelled, verified,
            rule=checks.rule,
            original_failure_line=user_line if checks.observation is not None else "",
            final_failure_line=final.observation.line if final.observation else "",
            original_rate=checks.rate,
            final_rate=final.rate if checks.rate is not None else None,
            signal=getattr(checks.oracle, "signal", None),
            original_comparison=checks.original_comparison,
            final_comparison=final.comparison,
        )

    def _reduce(self, session: Session, pool: ThreadPoolExecutor, slots: JobSlots) -> None:
        """The pass groups to a fixpoint, then the tidy passes. A script that imports its own modules
        is reduced with its imports kept first; then what it still imports of them is inlined and the
        reduction goes on from that (`inlined.inline_reduced`, the original's checks run again on it)."""
        options, checks, texts = self.options, session.checks, self._texts
        if self._pytest or not (options.inline_modules and options.inline_lazily):
            session.fixpoint.run(pool)
            return
        session.fixpoint.run(pool, tidy=False)
        if self.cancelled:
            return
        reduced = texts.best
        if not inline_reduced(checks, checks.observation):
            session.fixpoint.run(pool, cycles=False)
            return
        try:
            checks.check(pool)
        except NotReproducible as error:  # the inlined program's failure is not stable: keep the imports
            self._reporter.notice(f"the modules stay imported: with them inlined, {error}")
            texts.rebase(reduced, parse(reduced))
            checks.check(pool)
            session.fixpoint.run(pool, cycles=False)
            return
        session.recorder.restart(slots, self.cancelled)
        session.fixpoint.run(pool)

    def _again(self, data: DataReduction) -> Summary | None:
        """The result reduced once more where it reads the cut data: a nested reduction of it, in a
        private folder laid out as its data folder (`notes/data.md`), with the same options but the
        data left as it is. Its summary when it ends verified and smaller; else None (a notice)."""
        if self.cancelled or not any(item.after < item.before for item in data.files):
            return None
        folder = private_tempdir("again")
        try:
            for item in data.files:
                if item.place != "folder":
                    continue
                os.makedirs(os.path.dirname(os.path.join(folder, item.name)), exist_ok=True)
                overwrite(os.path.join(folder, item.name), item.data)
            path = os.path.join(folder, os.path.basename(self.path))
            overwrite(path, source_bytes(self.best_text))
            options = replace(self.options, reduce_data=False, cwd=folder,
                              stdin=self.options.stdin_path() if self.options.stdin else "")
            nested = self._nested = Reduction(self.best_text, path, options)
            if self.cancelled:
                return None
            summary = nested.run()
            self._again_cost = (summary.stats.candidates_run, summary.stats.elapsed)
        except (NotReproducible, UsageError) as error:
            self._reporter.notice(f"the result was not reduced again with its cut data: {error}")
            return None
        finally:
            self._nested = None
            shutil.rmtree(folder, ignore_errors=True)
        if summary.cancelled or not summary.verified or summary.final.nodes >= size_of(self.best_text).nodes:
            return None
        self._nested_done = nested
        return summary

    def _go_on_fresh(self, session: Session, slots: JobSlots, jobs: int) -> bool:
        """After the final check went back to an older text (the candidates' runs and a fresh
        interpreter disagreed, `verify.py`): the reduction goes on from it with every candidate
        run in a fresh interpreter (`subproc`), where what a warm runner kept cannot decide, then
        the final check again. Whether the result fails the same way."""
        self._reporter.notice("the reduction goes on from it, every candidate run in a fresh interpreter")
        warm = session.tester
        launcher = replace(session.launcher, launch=warm.backend.launch)  # a test: as candidates ran
        fresh = launcher.backend("subproc", jobs=jobs)
        tester = CandidateTester(fresh, slots, jobs, rules=warm.rules, watch=warm.watch)
        tester.counters = self._reporter.counters = warm.counters
        tester.set_best(self._texts.best)
        session.tester = session.checks.tester = tester
        session.lookahead = session.fixpoint.lookahead = None  # closed with the warm run
        try:
            with ThreadPoolExecutor(jobs + 1, thread_name_prefix="autodd-job") as pool:
                session.fixpoint.run(pool)
        finally:
            fresh.close()
        return session.final.run(slots, tester.rules, "subproc")

    def cancel(self) -> None:
        """Stop as soon as possible (any thread); run() returns the best text so far."""
        self._stopped.set()
        nested = self._nested
        if nested is not None:
            nested.cancel()
        session = self._session
        if session is not None:
            session.recorder.cancel()
            if self._data is not None:
                self._data.cancel()
            if self._inline is not None:
                self._inline.cancel()
            for tester in (session.tester, session.final.tester):
                if tester is not None:
                    tester.cancel_all()

    @property
    def cancelled(self) -> bool:
        return self._stopped.is_set()

    def offer(self, text: str) -> Future:
        """A person's text, judged at once and adopted if it fails the same way (engine/person/person.py)."""
        return self._offers.submit(text)

    def why_kept(self, line: int) -> Kept | None:
        """After run(): what the run saw without line `line` (1-based) of the result; never runs anything."""
        return self._texts.learned.why_kept(self._texts.shadow, line)

    def try_text(self, text: str, cancel: CancelEvent | None = None) -> OfferVerdict:
        """After run(): judge one text by the run's oracle, in a fresh interpreter (engine/person/person.py)."""
        session = self._session
        if session is None or not session.tester.has_rules:
            raise UsageError("the run did not get as far as judging candidates")
        problem = syntax_problem(text)
        if problem:
            return OfferVerdict(False, problem)
        slots = self._slots(2)
        try:
            # Started as candidates are now: a script, or the test under pytest (without conftest.py once inlined).
            # The run's scratch folders went with it (run_scratch.py): a program would make them anew.
            launcher = replace(session.launcher, launch=session.tester.backend.launch,
                               extra_env=without_scratch(session.launcher.extra_env))
            with launcher.backend("subproc") as fresh:
                tester = CandidateTester(fresh, slots, jobs=1, rules=session.tester.rules, watch=session.tester.watch)
                return session.judged(tester, text, cancel)
        finally:
            slots.remove()

    def _judge_offer(self, text: str) -> OfferVerdict:
        """An offered text, judged by the run's rules (in the offers' thread, once they are set)."""
        problem = syntax_problem(text)
        if problem or self._session is None:
            return OfferVerdict(False, problem or "the run has not started")
        return self._session.judged(self._session.tester, text)

    def _slots(self, count: int, kind: str = "job") -> JobSlots:
        """`count` job slots: hidden files beside the source, or your check's mirrors of its folder (mirror.py)."""
        if self._mirror is not None:
            return JobSlots(count, os.path.basename(self.path), kind=kind, mirror=self._mirror)
        return JobSlots(count, os.path.basename(self.path), beside=os.path.dirname(self.path), kind=kind)

    def _launcher(self, scratch: str) -> Launcher:
        """How every program of this run starts (execution/launcher.py), built once; `scratch`:
        where the runs' own temporary folder and kernel cache go (run_scratch.py; on Ray only where
        every node is this machine)."""
        options, mirror = self.options, self._mirror
        launch = options.launch()  # the test under pytest, or the script with its arguments and input
        if mirror is not None:  # your check runs in its mirror of the working folder, as you would run it
            launch = replace(launch, shell_cwd=mirror.working)
        return Launcher(
            python=options.python,
            cwd=options.cwd or os.getcwd(),
            # the original's folder, so that sibling imports work, and a test's project's folders, as
            # pytest has them (inlining/project.py); not under a check (its mirror has them)
            extra_sys_path=(os.path.dirname(self.path), *(import_roots(self.path) if self._pytest else ()))
            if mirror is None else (),
            # What candidates' environment gets beyond the user's: the kind's, a test's, the runs' scratch.
            extra_env={**options.spec.rules.env, **(PYTEST_ENV if self._pytest else {}),
                       **(scratch_env(scratch) if options.backend_to_use != "ray" or self._ray_shares_files else {})},
            output_limit=options.output_limit,
            # One GPU per running program, shared by every backend of this run (execution/gpus.py).
            gpus=GpuPool(options.gpu_ids, options.runs_per_gpu) if options.gpu_ids else None,
            launch=launch,
        )

    def _passing_side(self, launcher: Launcher, jobs: int, watch: FolderWatch) -> PassingSide | None:
        """Side A of `--passes-with` / `--passes-with-env` (engine/candidate/passing_side.py), started; or None."""
        options = self.options
        if not (options.passes_with or options.passes_with_env):
            return None
        env = parse_env(options.passes_with_env)
        python = options.passes_with or options.python
        slots = self._slots(jobs + 1, kind="side")
        side = replace(launcher, python=python, extra_env={**launcher.extra_env, **env})
        # the backend candidates run on (a shell command of --check runs as a subprocess on both sides), but
        # on this machine when they run on a Ray cluster: A's interpreter is a path here, and A runs only
        # for the candidates B found interesting
        kind = "runner" if options.backend_to_use == "ray" else options.backend_to_use
        backend = side.backend(kind, jobs=jobs, preload=top_level_imports(self._texts.tree))
        return PassingSide(CandidateTester(backend, slots, jobs, watch=watch), slots, python, env, options.timeout)

    def _connect_ray(self) -> int:
        """Connect to the Ray cluster now (a one-line UsageError if it cannot be reached); the jobs:
        -j, or without it one candidate per slot of the cluster."""
        from autodd_lsp.execution.ray_backend import cluster_slots, nodes_share_files

        address = self.options.ray_address or os.environ.get("RAY_ADDRESS", "")
        try:
            count = cluster_slots(self.options.ray_address)
            self._ray_shares_files = nodes_share_files()
        except Exception as error:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError...
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            reason = " ".join(str(error).split())[:200] or type(error).__name__
            raise UsageError(f"cannot reach {where}: {reason}") from None
        return count if self.options.jobs is None else self.options.jobs


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
