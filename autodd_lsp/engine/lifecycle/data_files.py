"""The files the result reads beside it, reduced with it: a reproducer whose data is a few lines.

When the final check found that the result fails only beside its source (it
needs files of that folder, `verify.py`), this runs after it:

  1. Which files: the result runs once beside the source as the user had it, probed
     with `execution/reads_hook.py` (an audit hook on "open"), which lists the
     regular files under the program's folder it opens for reading (not Python
     source). Each is a data file, named by its path relative to that folder.
  2. Where candidates run: a private temporary folder laid out like the source's
     for those files (`<folder>/<program>`, `<folder>/data/train.csv`), the
     program's working folder that folder too, on the candidates' backend (a
     warm runner; `subproc` where they ran on Ray), nothing else on `sys.path`. The user's files are read once and never
     written; what a run creates there is removed after it (`clean_runs.py`).
     The result must fail the same way there first, with every file whole;
     otherwise (it needs more of the folder, or opens its data relative to
     another working folder) nothing is cut, and a notice says so.
  3. Each file in turn, each of its format's steps (`autodd_lsp.datafiles`:
     text by lines then characters, CSV by rows then columns, JSON by elements,
     .npy/.npz by indices along each axis), its units searched by
     `search.keep_fewer` (blocks, then smaller blocks, through `Halves`): a
     candidate is the file with fewer units, written over its copy in the
     scratch folder, the result run there and judged by the run's own rules (the
     same failure line and place, the same operands of a wrong answer), but for
     the failing statement's operands (rule 5: what it reads is the data; a
     shorter list, a smaller array is what cutting makes). Files of
     formats not cut (archives, pickles, checkpoints) stay whole, and say why.
  4. The columns CSV files share, cut in all of them at once (`_together`).

What it returns (`DataFile`, one per file) goes into the `Summary`: the front
end writes the files beside the result (`x.min.data/`, notes/data.md). A rate
test (an intermittent failure), frozen code, a passing side, a pytest test
or a shell check are not handled: nothing is cut then.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from autodd_lsp.datafiles import Cut, left_alone, shared_columns, split_files, steps_for
from autodd_lsp.engine.candidate.candidates import CandidateTester, Rules
from autodd_lsp.engine.candidate.clean_runs import FolderWatch
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.lifecycle.data_reads import (
    fails_in_every_run,
    lay_out,
    probe_reads,
)
from autodd_lsp.engine.lifecycle.events import DataFile
from autodd_lsp.engine.rules.judge import replace_judge
from autodd_lsp.engine.spec.flaky import FINAL_RUNS
from autodd_lsp.execution import CancelEvent, RunResult
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.files import overwrite
from autodd_lsp.oracle.same import StatementsOf
from autodd_lsp.search.blocks import keep_fewer

BUDGET = 120  # tries a step of a file may spend
MOST_FILES = 20  # more files than this read: the files are cut as units first (a dataset folder)
MOST_FOLDER = 5000  # more files than this read (or more bytes than MOST_FOLDER_BYTES): nothing is cut
MOST_FOLDER_BYTES = 256 << 20


class DataReduction:
    """Cuts the data files `text` (the verified result of the program at `path`) reads (`run`)."""

    def __init__(
        self,
        path: str,
        text: str,
        launcher: Launcher,
        rules: Rules,
        statements_of: StatementsOf,
        timeout: float,
        watch: FolderWatch | None,
        cancelled: Callable[[], bool],
        notice: Callable[[str], None],
        elsewhere: list[JobSlots],
        backend: str = "subproc",
        preload: Sequence[str] = (),
    ) -> None:
        # The failing statement's operands are not compared (rule 5): what it reads is the data, and a
        # shorter list or a smaller array is what cutting a file makes. The rest of the judge stays.
        self.path, self.text, self.launcher = path, text, launcher
        self.rules = replace(
            rules, judge=replace_judge(rules.judge, rules.judge.operands, None)
        )
        self.backend, self.preload = backend, list(preload)
        self.statements_of, self.timeout, self.watch = statements_of, timeout, watch
        self.cancelled, self.notice = cancelled, notice
        self.elsewhere = elsewhere  # where the judge looks for the program's file: the slots used here join it
        self.folder = os.path.realpath(os.path.dirname(path))
        self.candidates = 0  # candidates run to cut the files
        self.seconds = 0.0
        self.tester: CandidateTester | None = None  # while candidates run (cancel_all)
        self.files: tuple[DataFile, ...] = ()  # what `run` found, once it has
        self._stop = CancelEvent()  # set by `cancel`: the reads run is killed

    def cancel(self) -> None:
        """Stop now (any thread): the run in flight is killed, `run` returns what it has."""
        self._stop.set()
        tester = self.tester
        if tester is not None:
            tester.cancel_all()

    def run(self) -> tuple[DataFile, ...]:
        started = time.monotonic()
        try:
            self.files = self._run()
            return self.files
        finally:
            self.seconds = time.monotonic() - started

    def _run(self) -> tuple[DataFile, ...]:
        rules = self.rules
        if (
            rules.rate_test is not None
            or rules.frozen is not None
            or rules.passes_on is not None
        ):
            return ()
        names = self._reads()
        if not names or self.cancelled():
            return ()
        sizes = [os.path.getsize(os.path.join(self.folder, name)) for name in names]
        if len(names) > MOST_FOLDER or sum(sizes) > MOST_FOLDER_BYTES:
            self.notice(f"the result reads {len(names)} files beside it ({sum(sizes):,} bytes): they are not cut "
                        f"(at most {MOST_FOLDER} files, {MOST_FOLDER_BYTES:,} bytes)")
            return ()
        whole: dict[str, bytes] = {}
        for name in names:
            with open(os.path.join(self.folder, name), "rb") as file:
                whole[name] = file.read()
        slots = JobSlots(1, os.path.basename(self.path))
        mirror = os.path.dirname(slots.paths[0])
        self.elsewhere.append(slots)
        try:
            for name, data in whole.items():
                os.makedirs(os.path.dirname(os.path.join(mirror, name)), exist_ok=True)
                overwrite(os.path.join(mirror, name), data)
            current: dict[str, bytes] = dict(whole)
            # One slot: its folder is the working folder, on a warm runner as the candidates were (or subproc).
            launcher = replace(self.launcher, cwd=mirror, extra_sys_path=())
            backend = launcher.backend(self.backend, preload=self.preload)
            with backend:
                tester = self.tester = CandidateTester(
                    backend, slots, 1, rules=rules, watch=FolderWatch([mirror])
                )
                started = time.monotonic()
                if not self._fails(tester, self.timeout):
                    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                    self.notice(
                        "the data files were not cut: the result does not fail the same way with only "
                        f"the files it reads ({shown}) beside it"
                    )
                    return ()  # no data folder: it would not run alone either
                limit = min(
                    self.timeout,
                    max(rules.timeout, 3 * (time.monotonic() - started) + 1.0),
                )
                if len(names) > MOST_FILES:  # a dataset folder: which files, first
                    current = self._fewer_files(tester, mirror, whole, limit)
                if len(current) > MOST_FILES:
                    self.notice(f"the result needs {len(current)} of the {len(names)} files it reads: "
                                f"they are not cut one by one (at most {MOST_FILES})")
                else:
                    for name in list(current):
                        current[name] = self._cut(tester, mirror, name, whole[name], limit)
                    current = self._together(tester, mirror, current, limit)
            if current != whole and not self._fails_fresh(launcher, slots, mirror, current, list(whole)):
                current = dict(whole)
        finally:
            self.tester = None
            self.elsewhere.remove(slots)
            slots.remove()
        return tuple(
            DataFile(n, len(whole[n]), len(current[n]), current[n], self._how(n, whole[n], current[n]))
            if n in current else DataFile(n, len(whole[n]), 0, b"", "not needed", place="dropped")
            for n in names
        )

    def _fails_fresh(self, launcher: Launcher, slots: JobSlots, mirror: str, current: dict[str, bytes],
                     names: list[str]) -> bool:
        """Whether the result fails the same way with the cut files in each of `FINAL_RUNS` fresh
        interpreters, as the final check wants of it (each cut was judged by one run: a result
        that draws random indices into its data may fail the same way with the cut data only
        sometimes). A notice when it does not: the files stay whole."""
        lay_out(mirror, current, names)
        with launcher.backend("subproc") as fresh:
            checker = self.tester = CandidateTester(fresh, slots, 1, rules=self.rules, watch=FolderWatch([mirror]))
            runs = fails_in_every_run(checker, self.text, self.timeout, FINAL_RUNS, self._same)
        self.candidates += runs.runs
        if not runs.all_failed:
            self.notice(f"the data files were not cut: with them cut, the result failed the same way in "
                        f"{runs.failures} of {runs.runs} fresh runs (it did in every run with them whole)")
        return runs.all_failed

    def _same(self, result: RunResult) -> bool:
        return self.rules.judge.is_interesting(result, self.text, self.statements_of)

    def _fewer_files(self, tester: CandidateTester, mirror: str, whole: dict[str, bytes],
                     timeout: float) -> dict[str, bytes]:
        """Which of the files (a dataset folder's) the failure needs, each whole: the files are the
        units, a candidate the mirror with only those (`keep_fewer`, as a file's own units)."""
        names = list(whole)

        def write(kept: list[int]) -> None:
            lay_out(mirror, {names[i]: whole[names[i]] for i in kept}, names)

        seen: dict[tuple[int, ...], bool] = {}

        def keeps(kept: list[int]) -> bool:
            if not kept or self.cancelled():
                return False
            if tuple(kept) not in seen:
                write(kept)
                seen[tuple(kept)] = self._fails(tester, timeout)
            return seen[tuple(kept)]

        kept, _ = keep_fewer(len(names), keeps, BUDGET)
        if not seen.get(tuple(kept)):
            kept = list(range(len(names)))
        write(kept)
        return {names[i]: whole[names[i]] for i in kept}

    def _how(self, name: str, before: bytes, after: bytes) -> str:
        why = left_alone(name, before)
        if why:
            return why
        found = steps_for(name, before)
        kind = found[0] if found else "?"
        return f"{kind}, cut" if after != before else f"{kind}, every unit needed"

    def _reads(self) -> list[str]:
        """The files under the program's folder that the result opens for reading, relative to it."""
        slots = JobSlots(1, os.path.basename(self.path), beside=os.path.dirname(self.path), kind="reads")
        try:
            return list(probe_reads(self.text, self.folder, slots, self.launcher, self.timeout, self.watch, self._stop))
        finally:
            slots.remove()

    def _fails(self, tester: CandidateTester, timeout: float) -> bool:
        """Whether the result, run in the scratch folder as it stands, fails the same way."""
        if self.cancelled():
            return False
        result = tester.run(self.text, timeout, tester.new_cancel_event())
        self.candidates += 1
        return (
            not result.timed_out
            and not result.cancelled
            and self.rules.judge.is_interesting(result, self.text, self.statements_of)
        )

    def _cut(
        self,
        tester: CandidateTester,
        mirror: str,
        name: str,
        data: bytes,
        timeout: float,
    ) -> bytes:
        """`data` (the file `name`) cut step by step; its copy in `mirror` holds the result."""
        found = steps_for(name, data)
        if found is None:
            return data
        target = os.path.join(mirror, name)
        best = data
        for step in found[1]:
            cut = step(best) if not self.cancelled() else None
            if cut is not None and cut.count:
                best = self._step(tester, target, cut, best, timeout)
            overwrite(target, best)
        return best

    def _together(
        self,
        tester: CandidateTester,
        mirror: str,
        current: dict[str, bytes],
        timeout: float,
    ) -> dict[str, bytes]:
        """The columns the CSV files share (`shared_columns`), cut in all of them at once."""
        cut = shared_columns(current) if not self.cancelled() else None
        if cut is None:
            return current
        def write(rendered: bytes) -> None:
            for name, data in split_files(rendered).items():
                overwrite(os.path.join(mirror, name), data)

        rendered = self._fewest(tester, cut, write, timeout)
        best = {**current, **split_files(rendered)} if rendered is not None else current
        for name, data in best.items():
            overwrite(os.path.join(mirror, name), data)
        return best

    def _step(
        self,
        tester: CandidateTester,
        target: str,
        cut: Cut,
        best: bytes,
        timeout: float,
    ) -> bytes:
        """The file at `target` (now `best`) with as few of `cut`'s units as keep the failure."""
        rendered = self._fewest(tester, cut, lambda data: overwrite(target, data), timeout)
        return rendered if rendered is not None else best

    def _fewest(
        self,
        tester: CandidateTester,
        cut: Cut,
        write: Callable[[bytes], None],
        timeout: float,
    ) -> bytes | None:
        """`cut` rendered with as few units as keep the failure (each rendering put in place by
        `write`, run once); None when no rendering kept it."""
        seen: dict[bytes, bool] = {}

        def keeps(kept: list[int]) -> bool:
            rendered = cut.render(kept)
            if rendered is None or self.cancelled():
                return False
            if rendered not in seen:
                write(rendered)
                seen[rendered] = self._fails(tester, timeout)
            return seen[rendered]

        kept, _ = keep_fewer(cut.count, keeps, BUDGET)
        rendered = cut.render(kept)
        return rendered if rendered is not None and seen.get(rendered) else None
