"""Which data files a program opens, and where its code opens each: one probed run.

The program runs once with `execution/reads_hook.py` (an audit hook on "open") put on
the line of its first module-level statement; the hook writes, for each regular file
under the given folders that the run opens for reading (not Python source, not a
file it wrote first), its real path and the span of the call the program's own code
was running (`datafiles.written_in.Site`). The hook goes on the first statement's line,
so its line numbers are the program's; on that line, the columns after it are shifted
back by its length here. Used by the data step (`data_files.py`: which files) and by
the step that writes small files into the program (`data_inline.py`: where); `lay_out`
makes their private folders hold the files a candidate has, and no other (nor an empty
folder a dropped file leaves: the result alone would not find one either).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from autodd_lsp.datafiles.written_in import Site
from autodd_lsp.engine.candidate.candidates import CandidateTester
from autodd_lsp.engine.candidate.clean_runs import FolderWatch
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.rules.operand_probe import hook_statement, insert_hooks
from autodd_lsp.execution import CancelEvent, RunResult
from autodd_lsp.execution.launcher import Launcher
from autodd_lsp.files import overwrite

_HOOK = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "execution", "reads_hook.py")


def reads_hook(roots: list[str], out: str) -> str:
    """The statement that runs the reads hook, listing files under `roots` into `out`."""
    with open(_HOOK, encoding="utf-8") as file:
        source = file.read()
    return hook_statement(
        source,
        "<autodd reads probe>",
        "_autodd_reads",
        'getattr(__import__("sys"), "_autodd_reads_probe", 0)',
        f'"ROOTS": {roots!r}, "OUT": {out!r}, ',
    )


def probe_reads(text: str, folder: str, slots: JobSlots, launcher: Launcher, timeout: float,
                watch: FolderWatch | None, stop: CancelEvent) -> dict[str, list[Site]]:
    """The files under `folder` (a real path) that `text`, run once in `slots` by `launcher` (a fresh
    interpreter), opens for reading: each by its name relative to that folder, with the places
    its code opened it (in the order first seen; none known: an empty list)."""
    out = slots.scratch_path("reads.txt")
    hooks = reads_hook([folder], out)
    probed = insert_hooks(text, hooks)
    if probed is None:
        return {}
    at = probed.index(hooks)
    line = text.count("\n", 0, at) + 1
    column = len(text[text.rfind("\n", 0, at) + 1:at].encode("utf-8"))
    try:
        with launcher.backend("subproc") as backend:
            CandidateTester(backend, slots, 1, watch=watch).run(probed, timeout, stop)
        with open(out, encoding="utf-8", errors="surrogateescape") as file:
            lines = [entry.rstrip("\n") for entry in file if entry.strip()]
    except FileNotFoundError:
        lines = []
    finally:
        if os.path.exists(out):
            os.remove(out)
    found: dict[str, list[Site]] = {}
    for entry in lines:
        path, _, words = entry.partition("\t")
        name = os.path.relpath(path, folder)
        if name.startswith(("..", ".autodd-")) or not os.path.isfile(path):
            continue
        site = Site.parse(words)
        places = found.setdefault(name, [])
        if site is not None:
            places.append(_unshifted(site, line, column, len(hooks.encode("utf-8"))))
    return found


def _unshifted(site: Site, line: int, column: int, width: int) -> Site:
    """`site` as in the program without the hook (`width` UTF-8 bytes put at `line`, `column`)."""
    def back(at_line: int | None, col: int | None) -> int | None:
        return col - width if col is not None and at_line == line and col >= column + width else col

    return Site(site.line, site.end_line, back(site.line, site.col), back(site.end_line, site.end_col))


def lay_out(folder: str, files: dict[str, bytes], names: list[str]) -> None:
    """`folder` holding, of the data files `names` (relative paths), exactly those in `files` (with
    their bytes); the folders the others leave empty removed, up to `folder`."""
    for name in names:
        path = os.path.join(folder, name)
        if name in files:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            overwrite(path, files[name])
        elif os.path.exists(path):
            os.remove(path)
            parent = os.path.dirname(path)
            while os.path.realpath(parent) != os.path.realpath(folder) and not os.listdir(parent):
                os.rmdir(parent)
                parent = os.path.dirname(parent)


@dataclass(frozen=True)
class Runs:
    runs: int  # how many ran
    failures: int  # how many of them failed the same way

    @property
    def all_failed(self) -> bool:
        return self.runs > 0 and self.failures == self.runs


def fails_in_every_run(tester: CandidateTester, text: str, timeout: float, runs: int,
                       same: Callable[[RunResult], bool]) -> Runs:
    """`text` run up to `runs` times by `tester` (a fresh interpreter's), judged by `same`; stops at
    the first run that does not fail the same way (or times out)."""
    failures = 0
    for index in range(runs):
        result = tester.run(text, timeout, tester.new_cancel_event())
        if result.timed_out or result.cancelled or not same(result):
            return Runs(index + 1, failures)
        failures += 1
    return Runs(runs, failures)
