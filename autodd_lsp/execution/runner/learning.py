"""Import learning: which modules a run of the program imported lazily, worth preloading.

A program often imports most of its modules lazily: torch pulls in sympy and
dynamo on the first optimizer step, a kernel compiler its back end. Each candidate
would import them again. A run with `learn_imports` has its child list, at its
end, the modules it imported beyond the server's (child.record_imports);
when there are `LEARN_AT_LEAST` new ones, the runner restarts its servers once
with them added to the preload (WarmServers.restart_with): slower warm-up, once,
never a candidate's time.
"""

from __future__ import annotations

from collections.abc import Collection

LEARN_AT_LEAST = 20  # lazily imported modules worth restarting the servers for


def imports_worth_preloading(imports_file: str, known: Collection[str]) -> list[str]:
    """The modules listed in `imports_file` not in `known`, in import order; [] if too few."""
    try:
        with open(imports_file, encoding="utf-8", errors="surrogateescape") as handle:
            imported = handle.read().split("\n")
    except OSError:
        return []
    new = [name for name in imported if name and name not in known and name != "__mp_main__"]
    return new if len(new) >= LEARN_AT_LEAST else []
