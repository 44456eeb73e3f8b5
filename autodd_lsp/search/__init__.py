"""Search strategies: which edits to try together, and in what order.

A strategy is a small deterministic state machine over edit indices:
`propose()` names the next subset to try, `feedback()` says how it went.
`driver.search` runs one strategy with N candidates in flight at once while
keeping the sequential strategy's decisions (so the result is the same at any -j).
"""

from autodd_lsp.search.driver import search
from autodd_lsp.search.probdd import ProbDD

__all__ = ["ProbDD", "search"]
