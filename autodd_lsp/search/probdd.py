"""Probabilistic delta debugging (ProbDD, Wang et al., FSE 2021).

Every edit carries the probability that it is *needed* (cannot be applied
without losing the failure). Each step applies the subset with the highest
expected number of removals -- the k least-needed edits maximising
k * prod(1 - p) -- keeps it all if the failure survives, and otherwise raises
the probabilities of its members by Bayes' rule. A single edit that fails is
needed for sure. Ties go to the lower index, and passes list big edits first,
so big subtrees are tried before small ones.
"""

from __future__ import annotations


class ProbDD:
    def __init__(self, size: int, prior: float | list[float] = 0.1) -> None:
        """`prior`: every edit's probability of being needed, or one per edit."""
        self.needed = [prior] * size if isinstance(prior, float) else list(prior)
        self.applied: list[int] = []
        self.open: list[int] = list(range(size))

    def copy(self) -> ProbDD:
        clone = ProbDD.__new__(ProbDD)
        clone.needed = list(self.needed)
        clone.applied = list(self.applied)
        clone.open = list(self.open)
        return clone

    def propose(self) -> list[int] | None:
        """The next subset to try, or None when every edit is decided."""
        if not self.open:
            return None
        ranked = sorted(self.open, key=lambda i: (self.needed[i], i))
        best_k, best_gain, survive = 1, 0.0, 1.0
        for k, index in enumerate(ranked, start=1):
            survive *= 1.0 - self.needed[index]
            gain = k * survive
            if gain > best_gain:
                best_k, best_gain = k, gain
            elif gain < best_gain * 0.5:
                break  # the gain is unimodal in k: nothing better further on
        return sorted(ranked[:best_k])

    def open_or_needed(self) -> list[int]:
        """Edits not applied (needed for sure, or undecided when the search stopped)."""
        applied = set(self.applied)
        return [i for i in range(len(self.needed)) if i not in applied]

    def feedback(self, subset: list[int], interesting: bool) -> None:
        chosen = set(subset)
        if interesting:
            self.applied.extend(subset)
            self.open = [i for i in self.open if i not in chosen]
            return
        if len(subset) == 1:
            self.needed[subset[0]] = 1.0
        else:
            survive = 1.0
            for i in subset:
                survive *= 1.0 - self.needed[i]
            for i in subset:
                self.needed[i] = min(1.0, self.needed[i] / max(1.0 - survive, 1e-12))
        self.open = [i for i in self.open if self.needed[i] < 1.0]
