"""The files the final result reads: those it no longer opens go, small ones are written into it.

After the data step (`data_files.py`) cut the files the result reads, and the result was
reduced again with them (`Reduction._again`), one probed run of the final result in a
private folder laid out as its data folder (`data_reads.py`) says which files it still
opens, and where its code opens each. A file it no longer opens goes (the nested
reduction may have written in what it read). A small one it does open is offered written
into the result there (`datafiles.written_in`: `open("x.csv")` becomes `io.StringIO("...")`,
triple-quoted; `pd.read_csv("x.csv")` reads an `io.StringIO(...)`; the reading code stays
the user's): a reproducer that is one file.

A candidate (the result with some files written in, some gone) runs in a fresh
interpreter in that folder holding only the other files (`lay_out`; every file gone or
written in: the result alone in an empty folder). It is kept when it fails the same way in
each of `FINAL_RUNS` runs (as the final check wants of a result),
judged by the rules of the reduction that made the result (without the failing
statement's operands, as the data step). All at once first; else the files no longer
opened alone, then the small files one at a time, each kept if it fails the same way.
`--data-as-files` (`inline_data` off) writes none in. Not handled, as in the data step: a
rate test, frozen code, a passing side.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace

from autodd_lsp.datafiles.written_in import Site, WrittenIn, is_small, written_in
from autodd_lsp.engine.candidate.candidates import CandidateTester, Rules
from autodd_lsp.engine.candidate.clean_runs import FolderWatch
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.lifecycle.data_reads import (
    fails_in_every_run,
    lay_out,
    probe_reads,
)
from autodd_lsp.engine.lifecycle.events import DataFile
from autodd_lsp.engine.lifecycle.texts import Texts
from autodd_lsp.engine.rules.judge import replace_judge
from autodd_lsp.engine.spec.flaky import FINAL_RUNS
from autodd_lsp.execution import CancelEvent
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.files import overwrite


class DataWrittenIn:
    """Drops the files of `files` that `text` (the result of the reduction whose texts are `texts`
    and rules `rules`, its program at `path`) no longer opens and writes the small ones into it,
    where that keeps the failure (`run`)."""

    def __init__(self, path: str, text: str, texts: Texts, files: tuple[DataFile, ...], launcher: Launcher,
                 rules: Rules, timeout: float, cancelled: Callable[[], bool],
                 elsewhere: list[JobSlots], inline: bool = True) -> None:
        self.path, self.text, self.texts, self.files, self.inline = path, text, texts, files, inline
        self.launcher, self.timeout, self.cancelled, self.elsewhere = launcher, timeout, cancelled, elsewhere
        self.rules = replace(rules, judge=replace_judge(rules.judge, rules.judge.operands, None))
        self.candidates = 0
        self.seconds = 0.0
        self._stop = CancelEvent()
        self.tester: CandidateTester | None = None  # while candidates run (cancel)
        self._tried: dict[tuple[tuple[str, ...], tuple[str, ...]], WrittenIn | None] = {}

    def cancel(self) -> None:
        """Stop now (any thread): the run in flight is killed, `run` returns what it has."""
        self._stop.set()
        tester = self.tester
        if tester is not None:
            tester.cancel_all()

    def run(self) -> tuple[WrittenIn, tuple[DataFile, ...]] | None:
        """The result with files written in (its text, its shadow), and the files with their new
        place; None when none is."""
        started = time.monotonic()
        try:
            return self._run()
        finally:
            self.seconds = time.monotonic() - started

    def _run(self) -> tuple[WrittenIn, tuple[DataFile, ...]] | None:
        rules = self.rules
        if rules.rate_test is not None or rules.frozen is not None or rules.passes_on is not None:
            return None
        beside = {item.name: item.data for item in self.files if item.place == "folder"}
        if not beside or self.cancelled():
            return None
        slots = JobSlots(1, os.path.basename(self.path))
        mirror = os.path.dirname(slots.paths[0])
        self.elsewhere.append(slots)
        best: WrittenIn | None = None
        unread: list[str] = []
        try:
            for name, data in beside.items():
                os.makedirs(os.path.dirname(os.path.join(mirror, name)), exist_ok=True)
                overwrite(os.path.join(mirror, name), data)
            launcher = replace(self.launcher, cwd=mirror, extra_sys_path=())
            watch = FolderWatch([mirror])
            sites = probe_reads(self.text, os.path.realpath(mirror), slots, launcher, self.timeout, watch, self._stop)
            self.candidates += 1
            # What the result (reduced again with the cut data) no longer opens, and the small files it does.
            unread = [name for name in beside if name not in sites]
            small = [name for name in beside if name in sites and self.inline and is_small(beside[name])]
            if not (unread or small) or self.cancelled():
                return None
            with launcher.backend("subproc") as backend:
                tester = self.tester = CandidateTester(backend, slots, 1, rules=rules, watch=watch)
                best = self._try(tester, mirror, beside, sites, unread, small)
                if best is None and unread:
                    best = self._try(tester, mirror, beside, sites, unread, [])
                    if best is None:
                        unread = []  # it fails otherwise without them: they stay (a folder it lists)
                if small and (best is None or not best.names):  # one at a time
                    for name in small:
                        tried = self._try(tester, mirror, beside, sites, unread,
                                          [*(best.names if best else ()), name])
                        best = tried or best
        finally:
            self.tester = None
            self.elsewhere.remove(slots)
            slots.remove()
        if best is None:
            return None
        gone, written = set(unread), set(best.names)
        return best, tuple(
            replace(item, after=0, data=b"", how="no longer read by the result", place="dropped")
            if item.name in gone else
            replace(item, how=f"{item.how}; written into the program", place="program")
            if item.name in written else item
            for item in self.files
        )

    def _try(self, tester: CandidateTester, mirror: str, beside: dict[str, bytes],
             sites: dict[str, list[Site]], unread: list[str], names: list[str]) -> WrittenIn | None:
        """The result with `names` written in, if it fails the same way with only the other files
        but `unread` beside it; None otherwise."""
        key = (tuple(unread), tuple(names))
        if key not in self._tried and not self.cancelled():
            self._tried[key] = self._run_one(tester, mirror, beside, sites, unread, names)
        return self._tried.get(key)

    def _run_one(self, tester: CandidateTester, mirror: str, beside: dict[str, bytes],
                 sites: dict[str, list[Site]], unread: list[str], names: list[str]) -> WrittenIn | None:
        shadow = self.texts.shadow if self.texts.best == self.text else None
        made = written_in(self.text, shadow, {name: sites.get(name, []) for name in names},
                          {name: beside[name] for name in names}) if names else WrittenIn(self.text, shadow, ())
        if made is None:
            return None
        lay_out(mirror, {n: data for n, data in beside.items() if n not in names and n not in unread}, list(beside))
        made_shadow = made.shadow
        statements_of = self.texts.statements_of(lambda: made_shadow)
        # As the final check: in every one of FINAL_RUNS fresh runs (a run that fails otherwise ends it).
        runs = fails_in_every_run(tester, made.text, self.timeout, FINAL_RUNS,
                                  lambda result: self.rules.judge.is_interesting(result, made.text, statements_of))
        self.candidates += runs.runs
        return made if runs.all_failed else None
