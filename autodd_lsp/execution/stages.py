"""Where a candidate's time goes, stage by stage: an opt-in timing record (`AUTODD_STAGES`).

With `AUTODD_STAGES=FILE` in the engine's environment, each candidate the tester
decides (a search's, or one run ahead of its search) appends one JSON line to FILE:
its marks, `[name, time.time()]` in the order they were made, and a few fields
(`verdict`, `ahead`, `worker`, `duration`, `cancelled`). Candidates refused before
that (not smaller, cached) leave none. Unset (the default), nothing is recorded: no
record is made, and a mark is one failed attribute lookup. FILE must be outside the
program's folder: runs must leave that folder as they found it (clean_runs.py), and a
file growing there would be taken for the program's.

A record travels with the candidate's cancel flag (the one object that goes from
the search through the tester to the backend), so every layer marks the stage it
knows without knowing the others:

* the engine (`engine/candidate/candidates.py`): `proposed` (the search made its
  cancel flag), `tested` (the tester has its text), `decide`, `compiled` (a slot,
  its text compiled and written), `permit` (a run permit taken), `run` / `returned`
  (around each `Backend.run`: a second pair is the frozen-code probe's second run),
  `judged`; `cancel_set` whenever its flag is set;
* the runner (`runner/client.py`): `slot` (a free job slot), `ready` (its warm
  fork server), `forked` (the candidate's pid known), `ended` (its output collected);
* Ray (`ray_backend.py`): `taken` (an idle worker), `submitted` (the actor call
  made); the worker's own runner marks, made on the worker's clock and prefixed
  `w.` (`w.start` when the actor method begins, then the runner's, `w.return`);
  `got` (the result here). Remote nodes' clocks are not this machine's: compare
  `w.` marks with each other there, with the engine's only on a local cluster.

A reduction's phases outside the candidates (connecting to Ray, the original's
checks, the search, closing the backend, the final check; each Ray worker's start,
from its request to its warm runner) leave a line each too
(`phase`: `{"phase": name, "marks": [["start", t], ["end", t]]}`).

`benchmarks/stages.py` turns the file into a table per stage. Only names are a
contract (`tests/test_stages.py` checks that a run records them); values are the
clock's.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

ENV = "AUTODD_STAGES"
PATH = os.environ.get(ENV, "")
ON = bool(PATH)  # read once, at import: the engine's process decides for its run
_ATTR = "_autodd_stages"
_write_lock = threading.Lock()


def begin(cancel: object, at: str, **fields: Any) -> None:
    """Start the record of the candidate whose cancel flag is `cancel` (when on, and none yet, with
    `fields`), and mark stage `at`."""
    if ON and getattr(cancel, _ATTR, None) is None:
        attach(cancel, **fields)
    mark(cancel, at)


def attach(cancel: object, **fields: Any) -> None:
    """Start a record on `cancel` whatever `ON` says (a Ray worker records when its caller asks)."""
    setattr(cancel, _ATTR, {"marks": [], **fields})
    on_set = getattr(cancel, "on_set", None)
    if on_set is not None:  # a CancelEvent: note when it is set (a stale candidate's cancel)
        on_set(lambda: mark(cancel, "cancel_set"))


def mark(cancel: object, name: str) -> None:
    """Note that `cancel`'s candidate reached stage `name` now (nothing if it has no record)."""
    record = getattr(cancel, _ATTR, None)
    if record is not None:
        record["marks"].append([name, time.time()])


def note(cancel: object, **fields: Any) -> None:
    """Add `fields` to `cancel`'s record (nothing if it has none)."""
    record = getattr(cancel, _ATTR, None)
    if record is not None:
        record.update(fields)


def marks(cancel: object) -> list[list[Any]]:
    """The marks made so far on `cancel`'s record ([] if it has none)."""
    record = getattr(cancel, _ATTR, None)
    return list(record["marks"]) if record is not None else []


def extend(cancel: object, made: list[list[Any]], prefix: str) -> None:
    """Add marks made elsewhere (a Ray worker's), each name prefixed with `prefix`."""
    record = getattr(cancel, _ATTR, None)
    if record is not None:
        record["marks"].extend([prefix + name, when] for name, when in made)


def finish(cancel: object, **fields: Any) -> None:
    """Write `cancel`'s record, with `fields`, as one line of the file, and close it."""
    record = getattr(cancel, _ATTR, None)
    if record is None or not PATH:
        return
    setattr(cancel, _ATTR, None)
    record.update(fields)
    _write(record)


def _write(record: dict) -> None:
    line = json.dumps(record, default=str) + "\n"
    with _write_lock, open(PATH, "a", encoding="utf-8") as handle:
        handle.write(line)


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Record the time the block takes as the reduction's phase `name` (when on)."""
    if not ON:
        yield
        return
    start = time.time()
    try:
        yield
    finally:
        interval(name, start)


def interval(name: str, start: float) -> None:
    """Record the time from `start` (a `time.time()`) to now as phase `name` (when on)."""
    if ON:
        _write({"phase": name, "marks": [["start", start], ["end", time.time()]]})
