"""Intermittent failures: the original's failure rate, and the test that judges a candidate by it.

A failure that shows in only some runs (a race, an unseeded random, timing)
cannot be judged by one run of a candidate: a run without the failure says
little, and a candidate that fails rarely would pass as often as it happens to
fail. The engine measures the original's rate `p0` first (see
`original.OriginalChecks.check`), then judges each candidate by Wald's sequential
probability ratio test between

    H1: the candidate fails as often as the original (p = p0), and
    H0: it fails rarer (p = p0 * (1 - MARGIN)),

and, for a failure the user saw in at most MOSTLY of the runs, a second one between H1 and

    H2: it fails in nearly every run (p = p0 + (1 - p0) * MARGIN_UP):

a race that became a certainty fails for another reason (flaky_half: with the user's `ready`
guard gone, every waiting job was choosable and the result failed in every run, the mistake
gone; the person's reproducer keeps the guard and fails about as often as the program).
It runs a candidate again only while the evidence is undecided, at most MAX_RUNS times.
Every candidate is compared with the ORIGINAL's rate, never the current best's:
a bug cannot become rarer step by step, each step a little. The reasoning and the
costs are in notes/oracle.md ("Intermittent failures").

Pure arithmetic: nothing here runs anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Runs of the original that measure its rate when its first two runs disagree
# (one fails the same way, the other does not) and no number was asked for.
DEFAULT_RUNS = 20
# "About as often": a candidate failing at (1 - MARGIN) x the original's rate is a rarer bug.
MARGIN = 0.5
# ... and one failing at p0 + (1 - p0) x MARGIN_UP (90% where the original fails 50%) a certain one,
MARGIN_UP = 0.8
# where the original fails in at most this share of its runs (above, a certain failure is about as often).
MOSTLY = 0.6
# That second test's errors: P(accept) for a certain failure, P(reject) for one as often as the original.
# Looser than ALPHA, tighter than BETA: a needed edit wrongly found (BETA) costs size on every flaky reduction.
ALPHA_UP = 0.2
BETA_UP = 0.05
# P(accept) for a candidate that fails at (1 - MARGIN) x p0: the bug made rarer, kept.
ALPHA = 0.05
# P(reject) for a candidate that fails as often as the original: a removal missed (the
# edit is then kept as needed; the result is larger, never wrong).
BETA = 0.10
# Fresh runs of the result when the original failed in every run: each must fail the same way.
# A result that fails at rate p passes all of them with p**5: 5% at the 55% of a dropped seed,
# 3% at 50%; more runs cost a fresh interpreter each (seconds with torch) on every reduction.
FINAL_RUNS = 5
# Runs of one candidate at most; a test still undecided then goes to the likelier hypothesis.
MAX_RUNS = 60
# Tries of the recording run (values) for an intermittent original: it must fail as the original does.
RECORD_TRIES = 3
# The most runs `--repeat` may ask for.
MAX_REPEAT = 1000


@dataclass(frozen=True)
class FailureRate:
    """How many of `runs` runs failed the same way."""

    failures: int
    runs: int

    @property
    def rate(self) -> float:
        return self.failures / self.runs if self.runs else 0.0

    @property
    def always(self) -> bool:
        return self.runs > 0 and self.failures == self.runs

    def describe(self) -> str:
        """'fails 11 of 20 runs (55%)'."""
        return f"fails {self.failures} of {self.runs} runs ({100.0 * self.rate:.0f}%)"


class RateTest:
    """Wald's SPRT of one candidate's runs against the original's failure rate `p0` (0 < p0 < 1).

    `decide(failures, runs)` says True (accept: it fails about as often), False
    (reject), or None (undecided: run it again). The log-likelihood ratio of the
    runs so far, H1 over H0, is `failures * up + passes * down`; it accepts at
    log((1 - BETA) / ALPHA), rejects at log(BETA / (1 - ALPHA)). At MAX_RUNS it
    takes the likelier hypothesis (ratio > 1). A candidate that never failed is
    never accepted. Where the original fails in at most MOSTLY of its runs, the same test
    of H1 over H2 (`ratio_high`) must accept too, and its rejection rejects: a candidate
    that fails in every run is refused after 5 runs at p0 = 0.5.
    """

    def __init__(self, p0: float, margin: float = MARGIN, alpha: float = ALPHA, beta: float = BETA,
                 max_runs: int = MAX_RUNS, margin_up: float = MARGIN_UP) -> None:
        if not 0.0 < p0 < 1.0:
            raise ValueError(f"a rate test needs 0 < p0 < 1, got {p0}")
        low = p0 * (1.0 - margin)
        self.p0 = p0
        self.up = math.log(p0 / low)  # a run that failed
        self.down = math.log((1.0 - p0) / (1.0 - low))  # a run that did not (negative)
        self.accept_at = math.log((1.0 - beta) / alpha)
        self.reject_at = math.log(beta / (1.0 - alpha))
        self.max_runs = max_runs
        # H1 over H2 (nearly every run): a run that failed counts against (negative), one that did not for
        high = p0 + (1.0 - p0) * margin_up
        self.checks_certain = p0 <= MOSTLY
        self.failed_high = math.log(p0 / high)
        self.passed_high = math.log((1.0 - p0) / (1.0 - high))
        self.accept_high_at = math.log((1.0 - BETA_UP) / ALPHA_UP)
        self.reject_high_at = math.log(BETA_UP / (1.0 - ALPHA_UP))

    def ratio(self, failures: int, runs: int) -> float:
        return failures * self.up + (runs - failures) * self.down

    def ratio_high(self, failures: int, runs: int) -> float:
        return failures * self.failed_high + (runs - failures) * self.passed_high

    def decide(self, failures: int, runs: int) -> bool | None:
        not_rarer = self._decide(self.ratio(failures, runs), failures, runs, self.accept_at, self.reject_at)
        if not_rarer is False or not self.checks_certain:
            return not_rarer
        not_certain = self._decide(self.ratio_high(failures, runs), failures, runs, self.accept_high_at, self.reject_high_at)
        if not_certain is False:
            return False
        return True if not_rarer and not_certain else None

    def _decide(self, ratio: float, failures: int, runs: int, accept_at: float, reject_at: float) -> bool | None:
        if failures and ratio >= accept_at:
            return True
        if ratio <= reject_at:
            return False
        if runs >= self.max_runs:
            return failures > 0 and ratio > 0.0
        return None

    def runs_to_reject_a_candidate_that_never_fails(self) -> int:
        return min(self.max_runs, math.ceil(self.reject_at / self.down - 1e-9))


__all__ = ["DEFAULT_RUNS", "MAX_REPEAT", "MAX_RUNS", "FailureRate", "RateTest"]
