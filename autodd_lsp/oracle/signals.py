"""`--crash [SIGNAL]`: the program dies by a signal, and by the original's.

A run crashed when it was killed by a signal of its own (a negative exit status,
not a time limit's kill). The original must die by the signal named, or by any
signal when none is; the signal it died by is then required of every candidate
(a SIGSEGV reproducer that turns into a SIGABRT is another bug).

The same place, where a faulthandler dump shows it (the engine runs candidates
with PYTHONFAULTHANDLER=1 in this mode): Python prints, as it dies,

    Fatal Python error: Segmentation fault

    Current thread 0x00007f5c4d077b80 (most recent call first):
      File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at
      File "/tmp/prog.py", line 4 in f
      ...

    Current thread's C stack trace (most recent call first):     (Python 3.14+)
      Binary file "/usr/lib/libc.so.6", at +0x17ef9c [0x77b7323acf9c]
      Binary file ".../_ctypes.cpython-314-x86_64-linux-gnu.so", at +0xcdf6 [0x...]

`fault_places` reads the crashing thread's frames into a `Place` (`same.py`):
the innermost Python frame outside the program, the innermost one inside it,
and the innermost native frame outside the interpreter and the C runtime
(libc, libstdc++, the dynamic loader: where every abort and fault ends up, not
where it comes from), as its file's base name and its `symbol+offset`. The
`Fatal Python error: ...` line is the crash's failure line.
"""

from __future__ import annotations

import os
import re
import signal as _signal
from collections.abc import Callable

from autodd_lsp.oracle.failure import Match
from autodd_lsp.oracle.run import Run
from autodd_lsp.oracle.same import Place, place_of
from autodd_lsp.oracle.tracebacks import Frame

_FATAL = re.compile(r"^Fatal Python error: \S")
_THREAD = re.compile(r"^(?:Current thread 0x[0-9a-fA-F]+\b.*|Stack )\(most recent call first\):\s*$")
_DUMP_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+)(?: in (?P<name>.*))?\s*$')
_C_STACK = re.compile(r"^Current thread's C stack trace \(most recent call first\):\s*$")
_NATIVE_FRAME = re.compile(r'^\s+Binary file "(?P<file>[^"]*)", at (?P<where>\S*)(?: \[0x[0-9a-fA-F]+\])?\s*$')
# Binaries where faults and aborts end up, not where they come from.
_RUNTIME = re.compile(
    r"^(?:python[\w.]*|libpython.*|libc[.-].*|libc\.so.*|libpthread.*|libdl.*|libm[.-].*|ld-.*|"
    r"libgcc_s.*|libstdc\+\+.*|libc\+\+.*|libunwind.*)$"
)


def parse_signal(name: str) -> int:
    """The number of the signal called `name` (`SIGSEGV`, `segv`, `11`); ValueError if none."""
    text = name.strip()
    if text.isdigit():
        number = int(text)
        if number in {int(s) for s in _signal.Signals}:
            return number
        raise ValueError(f"unknown signal number {text}")
    upper = text.upper()
    if not upper.startswith("SIG"):
        upper = "SIG" + upper
    try:
        return int(_signal.Signals[upper])
    except KeyError:
        raise ValueError(f"unknown signal {name!r} (for example SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, SIGKILL)") from None


def signal_name(number: int) -> str:
    try:
        return _signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def killed_by(run: Run) -> int | None:
    """The signal that killed `run` by itself (not a time limit's kill), or None."""
    code = run.returncode
    if run.timed_out or code is None or code >= 0:
        return None
    return -code


def what_it_did(run: Run, timeout: float) -> str:
    """How a run ended, in words: "exited with status 0", "was killed by SIGABRT", ..."""
    if run.timed_out:
        return f"ran past the {timeout:g} s limit"
    if run.returncode is None:
        return "ended without an exit status"
    if run.returncode < 0:
        return f"was killed by {signal_name(-run.returncode)}"
    return f"exited with status {run.returncode}"


class CrashOracle:
    """Killed by a signal: `wanted` (a number) or, when None, whichever the original died by."""

    def __init__(self, wanted: int | None, original: Run):
        self.wanted = wanted
        seen = killed_by(original)
        self.signal = seen if seen is not None and (wanted is None or seen == wanted) else None

    @property
    def reproduced_by_original(self) -> bool:
        return self.signal is not None

    def why_not(self, run: Run, timeout: float) -> str:
        wanted = "a signal" if self.wanted is None else signal_name(self.wanted)
        return f"the original {what_it_did(run, timeout)}, not by {wanted}"

    def accepts(self, run: Run, text: str) -> bool:
        return self.signal is not None and killed_by(run) == self.signal

    def describe(self) -> str:
        number = self.signal if self.signal is not None else self.wanted
        return "killed by a signal" if number is None else f"killed by {signal_name(number)}"

    # -- the faulthandler dump, for the same-failure rule ---------------------------

    @staticmethod
    def find(output: str, text: str = "") -> list[Match]:
        """The `Fatal Python error: ...` lines of a faulthandler dump (at column 0: never a quote)."""
        if "Fatal Python error: " not in output:
            return []
        return [Match(line, None, index) for index, line in enumerate(output.splitlines()) if _FATAL.match(line)]


def fault_places(lines: list[str], is_program: Callable[[str], bool]) -> dict[int, Place]:
    """Index of each `Fatal Python error` line -> the place its dump shows (see the module docstring)."""
    places: dict[int, Place] = {}
    fatal = [index for index, line in enumerate(lines) if _FATAL.match(line)]
    for number, start in enumerate(fatal):
        end = fatal[number + 1] if number + 1 < len(fatal) else len(lines)
        frames, native = _crashing_thread(lines[start + 1 : end]), _native_frame(lines[start + 1 : end])
        outermost_first = list(reversed(frames))
        first_program = next((i for i, frame in enumerate(outermost_first) if is_program(frame.file)), 0)
        # Frames outside the program's outermost one ran it (a warm runner's own): not the failure's.
        place = place_of(outermost_first[first_program:], is_program)
        places[start] = Place(place.library_frame, place.program_line, native)
    return places


def _crashing_thread(lines: list[str]) -> list[Frame]:
    """The frames of the crashing thread's dump, innermost first."""
    frames: list[Frame] | None = None
    for line in lines:
        if frames is None:
            if _THREAD.match(line):
                frames = []
            continue
        match = _DUMP_FRAME.match(line)
        if match is None:
            break
        frames.append(Frame(match["file"], int(match["line"]), match["name"] or ""))
    return frames or []


def _native_frame(lines: list[str]) -> tuple[str, str] | None:
    """The innermost native frame outside the runtime: (its binary's base name, `symbol+offset`)."""
    inside = False
    for line in lines:
        if not inside:
            inside = bool(_C_STACK.match(line))
            continue
        match = _NATIVE_FRAME.match(line)
        if match is None:
            break
        binary = os.path.basename(match["file"])
        if not _RUNTIME.match(binary):
            return binary, match["where"]
    return None


__all__ = ["CrashOracle", "fault_places", "killed_by", "parse_signal", "signal_name", "what_it_did"]
