"""The kinds of failure to keep: one module per kind, registered here and nowhere else.

    message_kind.py    --err-msg MSG      errMsg     the program prints MSG
    regex_kind.py      --err-regex REGEX  errRegex   a line of its output matches REGEX
    crash_kind.py      --crash [SIGNAL]   crash      it dies by a signal
    exit_code_kind.py  --exit-code N      exitCode   it exits with status N
    hang_kind.py       --hang             hang       it runs past the time limit
    check_kind.py      --check CMD        check      your own command exits with 0 (it judges, not the program)

(`_kind`: no two modules of AutoDD share a file name, and each kind's judge is a
module of `autodd_lsp/oracle/`.)

Each module holds one `Kind` (see `kind.py` for what a kind declares: its flag,
its server argument, its checks and words, its oracle, its suggestion from a
trial run, its report and regression test). Everything that lists the kinds
loops over `KINDS`: the CLI's flags, the server's arguments, the failure
question's suggestions, the engine's `FailureSpec`. A new kind is one new module
here, one line below, its tests and its docs.

Layer: above `autodd_lsp/oracle` (the pure judges), below the engine; the
report may read it too.
"""

from __future__ import annotations

from autodd_lsp.kinds import (
    check_kind,
    crash_kind,
    exit_code_kind,
    hang_kind,
    message_kind,
    regex_kind,
)
from autodd_lsp.kinds.kind import NOT_GIVEN, Kind

# The registry, in the order they are listed to a person. Keyed by the engine's name of each.
KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    message_kind.KIND, regex_kind.KIND, crash_kind.KIND, exit_code_kind.KIND, hang_kind.KIND, check_kind.KIND,
)}


def kind_named(name: str) -> Kind:
    """The kind called `name`; ValueError (one line) for an unknown one."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown kind of failure {name!r} (choose from {', '.join(KINDS)})") from None


def one_of(names: list[str]) -> str:
    """`a, b, c or d`: how a person is told to pick one of `names`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


__all__ = ["KINDS", "NOT_GIVEN", "Kind", "kind_named", "one_of"]
