"""A run must not read what an earlier run wrote: files the original's own run rewrites.

`clean_runs.py` removes what each run creates, so no run sees a new file of
another. A file the user already had is never removed: but when the original's
run rewrites it -- `model.pt`, left there by the user's own last run of a script
that trains, saves it and fails loading it -- it is the program's product, not
its input. A candidate that keeps only `torch.load("model.pt")` fails the same way
here, on the checkpoint the user's run left, and with `FileNotFoundError` anywhere
else: not the user's bug, and not a reproducer a maintainer can run.

So, when the original's first run rewrote files the user had (`FolderWatch.
rewritten`), every later run is probed (`operand_probe.insert_hooks`) with
`execution/earlier_files_hook.py`, an audit hook that reports a file of those
opened for reading before the run opened it for writing. The original is run
once more so probed: a file it too reads first is its input after all (a script
that resumes from its last checkpoint), and is dropped from the set. A candidate
that reads one of the others first is not interesting (`Judge`), whatever else it
shows. The hook rides in the candidate's own run: no run is added per candidate.

Limits: only opens that raise Python's "open" audit event are seen (`open()`,
`io.open`, `os.open`, and what is built on them: torch.load, numpy.load, pickle,
pathlib); a C library opening a file itself is not. Files the original creates
(not rewrites) need none of this: they are removed after each run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from autodd_lsp.engine.rules.operand_probe import hook_statement, insert_hooks

_SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "execution", "earlier_files_hook.py")


def earlier_hook(paths: Iterable[str]) -> str:
    """The statement that runs the hook for `paths`."""
    with open(_SOURCE, encoding="utf-8") as file:
        source = file.read()
    given = f'"PATHS": {sorted(paths)!r}, '
    return hook_statement(source, "<autodd earlier-files probe>", "_autodd_earlier",
                          'getattr(__import__("sys"), "_autodd_earlier_probe", 0)', given)


def with_hook(probe: Callable[[str], str | None] | None, hook: str) -> Callable[[str], str | None]:
    """`probe` (the probe runs already have, or None) with `hook` run first too."""
    def probed(text: str) -> str | None:
        inner = text if probe is None else probe(text)
        return insert_hooks(text if inner is None else inner, hook)
    return probed


def notice(paths: Iterable[str]) -> str:
    names = sorted(os.path.basename(p) for p in paths)
    listed = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return (f"the program rewrites {listed}, which {'was' if len(names) == 1 else 'were'} there before AutoDD "
            "started: a candidate that reads it before writing it reads an earlier run's file, and is not counted")
