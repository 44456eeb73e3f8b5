"""Interestingness: does a candidate's run still show the user's failure?

One pure judge per kind of failure to keep (see `run.py`; which kind makes which
judge, and everything else about a kind, is its module's in `autodd_lsp/kinds/`),
the same-failure rule over them (`same.py`), and degenerate values (`degenerate.py`).
"""

from autodd_lsp.oracle.exit_status import ExitStatusOracle
from autodd_lsp.oracle.failure import FailureOracle, matching_lines
from autodd_lsp.oracle.regex_match import RegexOracle
from autodd_lsp.oracle.signals import CrashOracle
from autodd_lsp.oracle.timeout import HangOracle

__all__ = ["CrashOracle", "ExitStatusOracle", "FailureOracle", "HangOracle", "RegexOracle", "matching_lines"]
