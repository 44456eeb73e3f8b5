"""Interestingness: does a candidate's run still show the user's failure?"""

from autodd_lsp.oracle.failure import FailureOracle, matching_lines

__all__ = ["FailureOracle", "matching_lines"]
