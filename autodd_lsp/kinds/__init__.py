"""The kinds of failure to keep: one module per kind, registered here and nowhere else.

    message.py    --err-msg MSG      errMsg     the program prints MSG
    regex.py      --err-regex REGEX  errRegex   a line of its output matches REGEX
    crash.py      --crash [SIGNAL]   crash      it dies by a signal
    exit_code.py  --exit-code N      exitCode   it exits with status N
    hang.py       --hang             hang       it runs past the time limit

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

from autodd_lsp.kinds import crash, exit_code, hang, message, regex
from autodd_lsp.kinds.kind import NOT_GIVEN, Kind

# The registry, in the order they are listed to a person. Keyed by the engine's name of each.
KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    message.KIND, regex.KIND, crash.KIND, exit_code.KIND, hang.KIND,
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
