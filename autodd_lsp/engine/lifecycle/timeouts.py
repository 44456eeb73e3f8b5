"""How long a candidate may run (`original.OriginalChecks` sets it once, from the original's runs)."""

from __future__ import annotations

import os


def adaptive_timeout(original_seconds: float, limit: float, cold_seconds: float = 0.0, crowding: float = 1.0) -> float:
    """How long a candidate may run: 5x the original, at least 0.3 s, at most --timeout; and
    at least twice `cold_seconds`, the original's first run where it compiled its kernels; all
    but the cap times `crowding`, -j over this machine's CPUs when more (`crowding`, below).

    A candidate that runs much longer than the original has almost always left
    the failing path (a hang, or -- typical for kernels -- a "fixed" kernel that
    goes on to compile for a second or more); it costs a fraction of a second,
    not the whole --timeout. The floor keeps a loaded machine from turning slow
    runs of fast programs into timeouts. Where the failure shows only after the
    kernels compiled, a candidate that edits one compiles it again, which the
    original's warm runs (kernels cached) never paid (`run_scratch.py`).
    """
    return min(limit, crowding * max(0.3, 5.0 * original_seconds, 2.0 * cold_seconds))


def crowding(jobs: int) -> float:
    """How many runs share a CPU at -j `jobs` (at least 1). On 2 cores at -j 8, TileLang candidates
    that compile took up to 4x as long, 76 of 725 hit a timeout the original's runs set, and the
    output was not -j 1's: a verdict must not depend on the load its own -j makes."""
    return max(1.0, jobs / (os.cpu_count() or 1))
