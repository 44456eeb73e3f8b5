"""GPU pinning: each run of the program sees exactly one GPU, never one in use by another run
(unless `--runs-per-gpu N` lets N runs share each).

`--gpus 0,1,2,3` (or `auto`: the GPUs that `CUDA_VISIBLE_DEVICES`, else the
driver, shows) gives the ids; `GpuPool` hands them out, one per running
program, and a backend puts the id in that run's `CUDA_VISIBLE_DEVICES` before
any of the program's code runs (subproc: the child's environment; runner: the
forked child's set-up, see runner/child.py). The pool is shared by every
backend of one reduction (candidates, the recording run, the final re-run), so
two programs running at once never share a GPU; a run waits for a free one.

Why set the variable and not trust the program: CUDA reads it once, at its
initialisation in the child; the fork server never initialises CUDA (it
checks, see runner/server_main.py), so the child's value is the one that counts.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
from collections.abc import Callable, Iterator, Mapping, Sequence

VARIABLE = "CUDA_VISIBLE_DEVICES"
AUTO = "auto"
DRIVER_GPUS = "/proc/driver/nvidia/gpus"  # one folder per GPU the NVIDIA driver sees
_ID = re.compile(r"^(\d+|(GPU|MIG)-[0-9A-Za-z-]+)$")  # an index, or a GPU / MIG UUID
_TICK = 0.02


def visible_gpus(environ: Mapping[str, str] | None = None) -> list[str]:
    """The GPUs this process may use: `CUDA_VISIBLE_DEVICES`'s entries if it is set, else the driver's."""
    environ = os.environ if environ is None else environ
    if VARIABLE in environ:
        entries = [entry.strip() for entry in environ[VARIABLE].split(",")]
        visible = []
        for entry in entries:
            # CUDA stops at the first entry that is not a device (e.g. "-1" hides all).
            if not entry or not _ID.match(entry):
                break
            visible.append(entry)
        return visible
    try:
        return [str(index) for index in range(len(os.listdir(DRIVER_GPUS)))]
    except OSError:
        return []


def parse_gpus(spec: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """The ids `--gpus SPEC` names; ValueError (one line, for the user) when it cannot work."""
    spec = spec.strip()
    environ = os.environ if environ is None else environ
    if spec == AUTO:
        found = visible_gpus(environ)
        if not found:
            raise ValueError(
                f"--gpus auto: no GPU found ({VARIABLE} is empty)" if VARIABLE in environ
                else f"--gpus auto: no GPU found (no NVIDIA driver, and {VARIABLE} is not set)"
            )
        return found
    ids = [entry.strip() for entry in spec.split(",")]
    for entry in ids:
        if not _ID.match(entry):
            raise ValueError(f"--gpus {spec}: {entry!r} is not a GPU id (give indices such as 0,1,2 or 'auto')")
    if len(set(ids)) != len(ids):
        raise ValueError(f"--gpus {spec}: a GPU is named twice (each running candidate needs a GPU of its own)")
    return ids


class GpuPool:
    """GPU ids for running programs, one each, or `per_gpu` runs sharing each id (`--runs-per-gpu`:
    candidates that spend most of their run compiling on the CPU); `lease` waits for a free slot.
    Slots are handed out GPU by GPU in turn, so N running programs spread over the GPUs first."""

    def __init__(self, ids: Sequence[str], per_gpu: int = 1) -> None:
        self.ids = list(ids)
        self._free: queue.SimpleQueue[str] = queue.SimpleQueue()
        for _ in range(max(1, per_gpu)):
            for gpu in self.ids:
                self._free.put(gpu)

    @contextlib.contextmanager
    def lease(self, should_stop: Callable[[], bool] = lambda: False) -> Iterator[str | None]:
        """A free GPU id for the duration of one run; None if `should_stop` turned true first."""
        while True:
            try:
                gpu = self._free.get(timeout=_TICK)
                break
            except queue.Empty:
                if should_stop():
                    yield None
                    return
        try:
            yield gpu
        finally:
            self._free.put(gpu)


@contextlib.contextmanager
def gpu_for_run(pool: GpuPool | None, should_stop: Callable[[], bool]) -> Iterator[str | None]:
    """What a backend's run pins: "" without a pool (nothing pinned), a GPU id, or None if stopped first."""
    if pool is None:
        yield ""
        return
    with pool.lease(should_stop) as gpu:
        yield gpu


def pinned_env(env: dict[str, str], gpu: str) -> dict[str, str]:
    """`env` with `gpu` as the only visible GPU (`env` itself when `gpu` is "")."""
    return {**env, VARIABLE: gpu} if gpu else env
