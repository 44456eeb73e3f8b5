"""A given group of edits tried all at once, then by halves.

For edits the caller expects to be removable together (the engine's run map:
statements the original never ran), ProbDD's prior would spend its first
candidates on smaller groups. `Halves` tries the whole group first; a group that
is refused is split into two halves, each tried in turn, down to single edits.
With nothing needed that is one candidate; with one needed edit among n about
2 log2(n). Like ProbDD it is a deterministic state machine over edit indices
(the driver's `Strategy`); which edits form the group is the caller's business.
"""

from __future__ import annotations


class Halves:
    def __init__(self, size: int) -> None:
        self.applied: list[int] = []
        self.refused: list[int] = []  # single edits that failed alone
        self.groups: list[list[int]] = [list(range(size))] if size else []

    def copy(self) -> Halves:
        clone = Halves.__new__(Halves)
        clone.applied, clone.refused = list(self.applied), list(self.refused)
        clone.groups = [list(group) for group in self.groups]
        return clone

    def propose(self) -> list[int] | None:
        return list(self.groups[0]) if self.groups else None

    def feedback(self, subset: list[int], interesting: bool) -> None:
        at = self.groups.index(list(subset))  # the first group, unless a round tells its members out of order
        group = self.groups.pop(at)
        if interesting:
            self.applied.extend(group)
        elif len(group) > 1:
            half = len(group) // 2
            self.groups[at:at] = [group[:half], group[half:]]
        else:
            self.refused.extend(group)

    def open_or_needed(self) -> list[int]:
        """Edits not applied (refused alone, or not tried when the search stopped)."""
        applied = set(self.applied)
        return [i for i in range(len(self.applied) + len(self.refused) + sum(map(len, self.groups)))
                if i not in applied]
