"""The same failure, not just the same words: the default rule (`--match same`).

The message rule (`failure.py`) lets a reduction slip from the bug the user saw
to another one that prints the same words: `KeyError: 'west'` becomes
`KeyError: ''` from another dict, a short TileLang message moves from the K
check to the N check. A candidate reproduces under this rule only when, beyond
the message rule:

1. **Same failure line.** The original's failure line (the last line of its
   output that shows the message for real) is among the candidate's, equal
   after `normalize.normalize_line` masks what varies between runs and files.
2. **Same place.** When that line is an exception's, in the candidate too: the
   innermost traceback frame outside the program's file is the same file and
   line, and the innermost frame inside the program is on a line whose text
   came from the original's failing statement. Where each line of a candidate
   came from is the caller's business (`syntax/origin.py`); the oracle gets a
   function from a candidate line number to the original statements it holds.

Frozen code must also still run (`engine/rules/frozen_probe.py`): that needs a run of
its own, so the engine checks it, not this module.

`Observation` is what one run shows; the engine observes the original twice and
drops a rule whose answer differs between the two runs (a flaky line or place),
saying so once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from autodd_lsp.oracle.failure import Match, matching_lines
from autodd_lsp.oracle.normalize import normalize_line
from autodd_lsp.oracle.tracebacks import Frame, frames_of_lines

# A candidate's line number -> the original statements its text came from (indices); None: unknown.
StatementsOf = Callable[[int], "frozenset[int] | None"]


@dataclass(frozen=True)
class Place:
    library_frame: tuple[str, int] | None  # innermost frame outside the program's file
    program_line: int | None  # line of the innermost frame in the program's file
    # A crash's innermost native frame outside the runtime, when its dump shows one
    # (`signals.py`): its binary's base name and `symbol+offset`.
    native_frame: tuple[str, str] | None = None

    def describe(self) -> str:
        parts = []
        if self.program_line is not None:
            parts.append(f"program line {self.program_line}")
        if self.library_frame is not None:
            parts.append(f"{self.library_frame[0]}:{self.library_frame[1]}")
        if self.native_frame is not None:
            parts.append(f"{self.native_frame[0]} at {self.native_frame[1]}")
        return ", ".join(parts) or "no frame"


@dataclass(frozen=True)
class Observation:
    line: str  # the failure line as printed
    normalized: str
    place: Place | None  # None: the line is not an exception's (printed, logged)


def place_of(frames: Iterable[Frame], is_program: Callable[[str], bool]) -> Place:
    library = program = None
    for frame in frames:  # outermost first: the last one seen is the innermost
        if is_program(frame.file):
            program = frame.line
        else:
            library = (frame.file, frame.line)
    return Place(library, program)


# Output lines -> the place of each line that has one (by index), given what is the program.
PlacesOf = Callable[[list[str], Callable[[str], bool]], "dict[int, Place]"]


def traceback_places(lines: list[str], is_program: Callable[[str], bool]) -> dict[int, Place]:
    """Each exception-text line's place, from its traceback (`tracebacks.py`)."""
    return {index: place_of(stack, is_program) for index, stack in frames_of_lines(lines).items() if stack}


class Observer:
    """Reads runs of one program: its failure lines and their places.

    By default a failure line shows `message` (`failure.matching_lines`) and its
    place is its traceback's. Other kinds of failure bring their own: `find`
    (output, text) -> the failure lines (a regular expression's matches, a
    crash's `Fatal Python error` line, an exception line), `places` -> where
    each line comes from (a traceback, a faulthandler dump).
    """

    def __init__(
        self,
        message: str | None,
        is_program: Callable[[str], bool],
        program_paths: Callable[[], tuple[str, ...]],
        *,
        find: Callable[[str, str], list[Match]] | None = None,
        places: PlacesOf = traceback_places,
    ):
        self.message = message
        self.is_program = is_program
        self.program_paths = program_paths
        if find is None:
            if message is None:
                raise ValueError("an Observer needs the message or a find")
            find = lambda output, text: matching_lines(output, message, text)  # noqa: E731 - one line, bound here
        self._find = find
        self._places = places

    def observations(self, output: str, text: str) -> list[Observation]:
        """Every line showing the failure for real, in output order."""
        matches = self._find(output, text)
        if not matches:
            return []
        places = self._places(output.splitlines(), self.is_program)
        paths = self.program_paths()
        return [self._observe(m, places, paths) for m in matches]

    def _observe(self, match: Match, places: dict[int, Place], paths: tuple[str, ...]) -> Observation:
        normalized = "\n".join(normalize_line(part, paths) for part in match.line.split("\n"))
        return Observation(match.line, normalized, places.get(match.index))


class SameFailure:
    """Judges a candidate's output against the original's failure line and place."""

    def __init__(self, observer: Observer, original: Observation, statements_of_original_line: Callable[[int], frozenset[int]]):
        self.observer = observer
        self.original = original
        self.check_place = original.place is not None
        self._failing_statements = (
            statements_of_original_line(original.place.program_line)
            if original.place is not None and original.place.program_line is not None
            else frozenset()
        )

    def without_place(self) -> SameFailure:
        twin = object.__new__(SameFailure)
        twin.__dict__.update(self.__dict__, check_place=False)
        return twin

    def is_same(self, output: str, text: str, statements_of: StatementsOf | None) -> bool:
        for seen in reversed(self.observer.observations(output, text)):
            if seen.normalized != self.original.normalized:
                continue
            if not self.check_place or self._same_place(seen.place, statements_of):
                return True
        return False

    def _same_place(self, place: Place | None, statements_of: StatementsOf | None) -> bool:
        want = self.original.place
        if place is None or want is None or place.library_frame != want.library_frame or place.native_frame != want.native_frame:
            return False
        if (place.program_line is None) != (want.program_line is None):
            return False
        if place.program_line is None or statements_of is None or not self._failing_statements:
            return True
        came_from = statements_of(place.program_line)
        return came_from is None or not self._failing_statements.isdisjoint(came_from)


def stable(first: Observation, second: Observation | None) -> tuple[bool, bool]:
    """(the failure line, its place) agree between two runs of the original."""
    if second is None:
        return True, True
    return first.normalized == second.normalized, first.place == second.place


__all__ = ["Observation", "Observer", "Place", "SameFailure", "place_of", "stable", "traceback_places"]
